// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/archive.h"
#include "cmd.h"
#include "util/escape.h"
#include "util/errors.h"
#include "data/recording.h"
#include "util/parse.h"
#include "report/report.h"
#include "report/report_sites.h"
#include "report/runs.h"
#include "runs_cli.h"
#include "tui.h"
#include "util.h"
#include "util/msgs.h"
#include "options.h"

/* A year of seconds: any recording fits, and the window in ns stays within a u64. */
#define FOL_WINDOW_MAX (365.0 * 24 * 3600)

static int parse_order(const char *s, unsigned page, int *order)
{
	uint64_t v;
	int o = 0;

	if (!strcmp(s, "unknown")) {
		*order = -1;
		return 0;
	}
	if (!fol_parse_u64(s, 0, FOL_MAX_ORDER, 0, &v)) {
		*order = (int)v;
		return 0;
	}
	if (fol_parse_u64(s, page, (uint64_t)page << FOL_MAX_ORDER, 1, &v))
		return -EINVAL;
	while (((unsigned long long)page << o) < v && o <= FOL_MAX_ORDER)
		o++;
	if (((unsigned long long)page << o) != v)
		return -EINVAL;
	*order = o;
	return 0;
}

/* "START,END", either side empty: seconds from the start of the recording. */
static int parse_window(const char *arg, double *t0, double *t1)
{
	const char *comma = strchr(arg, ',');
	char start[64];

	*t0 = *t1 = 0;
	if (!comma || (size_t)(comma - arg) >= sizeof(start))
		return -EINVAL;
	memcpy(start, arg, (size_t)(comma - arg));
	start[comma - arg] = '\0';
	if (start[0] && fol_parse_seconds(start, 0, FOL_WINDOW_MAX, t0))
		return -EINVAL;
	if (comma[1] && fol_parse_seconds(comma + 1, 0, FOL_WINDOW_MAX, t1))
		return -EINVAL;
	return 0;
}

__attribute__((format(printf, 3, 4))) static void append(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used && used + 1 < len)
		buf[used++] = ' ';
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/* The report's command line, parsed. */
struct report_cli {
	struct fol_model_opts mo;
	const char *input, *order_arg, *time_arg;
	double t0, t1;		/* --time, seconds from the start */
	int tui, run;
	/* A row of fol_report_formats (--json, --csv, --folded, --format), or "mmtests" (a
	 * recording of several runs only); NULL: text. */
	const char *format;
	struct fol_report_view view; /* --sort, --top, --csv's table, --folded's weight */
	const char *archive;	/* --archive: extracted to a private symfs for the report */
	uint64_t max_unpack;	/* --max-unpack: its bound in bytes; 0: the default */
};

/* The formats of one run's tables, which no aggregate of runs has: the option that
 * chose it, for the message; NULL for the others. */
static const char *one_run_format(const struct report_cli *c)
{
	if (!c->format)
		return NULL;
	if (!strcmp(c->format, "csv"))
		return "--csv";
	if (!strcmp(c->format, "folded"))
		return "--folded";
	if (!strcmp(c->format, "openmetrics") || !strcmp(c->format, "prometheus"))
		return "--format openmetrics/prometheus";
	return NULL;
}

/* One run's report, in the format asked for, or the TUI. */
static int show_one(struct fol_report *r, const struct report_cli *c, const char *filter)
{
	struct fol_report_view v = c->view;
	const char *input = c->input;
	int ret;

	memcpy(v.filter, filter, sizeof(v.filter));
	if (c->tui) {
		char err[256];

		ret = fol_tui_run(r, input, err, sizeof(err));
		if (ret)
			return error("%s", err);
		return 0;
	}
	ret = fol_report_format(c->format ? c->format : "text")->render(r, &v, stdout);
	if (ret == -ENOENT)
		return error("%s has no call stacks: record with -g", input);
	return ret ? error("out of memory") : 0;
}

static const struct usage report_usage = {
	"usage: foliostat report [-i FILE] [--text|--json] [filters]\n"
	"\n"
	"Fault time per folio order and fault class, reuse batching effectiveness, PMU\n"
	"and kernel counters, from a recording.\n"
	"\n",
	NULL,
};

static int opt_output(const struct opt *o, const char *arg)
{
	struct report_cli *r = o->value;

	(void)arg;
	r->format = strcmp(o->long_name, "tui") ? o->long_name : NULL;
	r->tui = !r->format;
	return 0;
}

static int opt_class(const struct opt *o, const char *arg)
{
	struct report_cli *r = o->value;

	r->mo.cls = fol_class_parse(arg);
	if (r->mo.cls < 0)
		return usage_error("unknown class '%s' (anon_alloc, anon_zero, wp_reuse, wp_copy, "
				   "file, swap_in, other, special)", arg);
	return 0;
}

static int opt_time(const struct opt *o, const char *arg)
{
	struct report_cli *r = o->value;

	r->time_arg = arg;
	if (parse_window(arg, &r->t0, &r->t1))
		return usage_error("--time takes START,END in seconds (either may be empty), "
				   "not '%s'", arg);
	if (r->t1 && r->t1 <= r->t0)
		return usage_error("--time %s: START must be before END", arg);
	return 0;
}

static int opt_sort(const struct opt *o, const char *arg)
{
	struct report_cli *r = o->value;
	struct fol_msgs why = { 0 };
	int ret = 0;

	if (fol_sort_parse(arg, r->view.sort, &r->view.nsort, &why))
		ret = usage_error("--sort: %s", fol_msgs_last(&why));
	fol_msgs_free(&why);
	return ret;
}

static int opt_folded(const struct opt *o, const char *arg)
{
	struct report_cli *r = o->value;

	if (arg && strcmp(arg, "time") && strcmp(arg, "count"))
		return usage_error("--folded weighs stacks by time (default) or count, not '%s'", arg);
	r->format = "folded";
	r->view.by_count = arg && !strcmp(arg, "count");
	return 0;
}

static int opt_format(const struct opt *o, const char *arg)
{
	struct report_cli *r = o->value;

	if (!fol_report_format(arg) && strcmp(arg, "mmtests"))
		return usage_error("--format is text, json, csv, openmetrics, prometheus, folded "
				   "or mmtests, not '%s'", arg);
	r->format = arg;
	r->tui = 0;
	r->view.table = NULL;
	return 0;
}

static int opt_csv(const struct opt *o, const char *arg)
{
	struct report_cli *r = o->value;

	if (arg && strcmp(arg, "faults") && strcmp(arg, "reuse") && strcmp(arg, "calls") &&
	    strcmp(arg, "sites"))
		return usage_error("--csv takes a table: faults (default), reuse, calls or "
				   "sites, not '%s'", arg);
	r->format = "csv";
	r->view.table = arg;
	return 0;
}

/* --time is relative to the recording's start: read it first. 0 or the exit status. */
static int time_window(struct report_cli *r)
{
	struct fol_recording rec;
	struct fol_session *s;
	int ret = fol_session_open(&s, r->input);

	if (!ret) {
		ret = fol_session_recording(s, &rec);
		fol_session_close(s);
	}
	if (ret) {
		print_open_error(r->input, ret);
		return 1;
	}
	r->mo.t_start = (uint64_t)(rec.started_ns + r->t0 * 1e9);
	r->mo.t_end = r->t1 ? (uint64_t)(rec.started_ns + r->t1 * 1e9) : 0;
	fol_recording_free(&rec);
	return 0;
}

/* The narrowing options, for the report's header. */
static void describe_filter(const struct report_cli *r, char *filter, size_t len)
{
	filter[0] = '\0';
	if (r->mo.pid)
		append(filter, len, "pid=%d", r->mo.pid);
	if (r->mo.comm)
		append(filter, len, "comm=%s", r->mo.comm);
	if (r->order_arg)
		append(filter, len, "order=%s", r->order_arg);
	if (r->mo.cls != FOL_ANY)
		append(filter, len, "class=%s", fol_class_name((enum fol_class)r->mo.cls));
	if (r->time_arg)
		append(filter, len, "time=%s", r->time_arg);
}

/* Why run index is not in rs. */
static const char *missing_run(const struct fol_runs *rs, int index)
{
	static char why[256];

	for (int i = 0; i < rs->nout; i++)
		if (index >= rs->out[i].index && index <= rs->out[i].last)
			return rs->out[i].why;
	snprintf(why, sizeof(why), "its runs are numbered %d to %d", rs->v[0].index + 1,
		 rs->v[rs->n - 1].index + 1);
	return why;
}

/* The recording's runs, read, shown: several aggregated, or one in full. */
static int report_runs(struct report_cli *r)
{
	struct fol_runs rs;
	char filter[256];
	int ret = fol_runs_load(r->input, &r->mo, &rs);

	if (ret) {
		if (ret == -ENOMEM)
			return error("out of memory");
		print_open_error(r->input, ret);
		return 1;
	}
	if (r->run && !fol_runs_find(&rs, r->run - 1)) {
		ret = usage_error("--run %d: %s has no run %d: %s", r->run, r->input, r->run,
				  missing_run(&rs, r->run - 1));
	} else if (r->format && !strcmp(r->format, "mmtests") && (!rs.several || r->run)) {
		ret = usage_error("--format mmtests is of a recording of several runs (record -r N, "
				  "--sweep): %s", r->run ? "not with --run" : "this one has one");
	} else if (rs.several && !r->run && one_run_format(r)) {
		/* Those outputs are of one run's tables: no aggregate of them is defined. */
		ret = usage_error("%s is a recording of %d runs: %s shows one run, chosen with "
				  "--run N (1-%d)", r->input, rs.n, one_run_format(r), rs.n);
	} else if (rs.several && !r->run) {
		ret = print_runs(&rs, r->tui ? RUNS_TUI
				 : !r->format || !strcmp(r->format, "text") ? RUNS_TEXT
				 : !strcmp(r->format, "json") ? RUNS_JSON : RUNS_MMTESTS, stdout);
		/* Damage skipped (a run's metadata, say): the runs that could be read are shown,
		 * and the exit status says the file is not whole, as for one run. */
		if (!ret && rs.file.corrupt_chunks)
			ret = error("%s is damaged: %" PRIu64 " region(s), %" PRIu64 " bytes skipped; "
				    "shown: its %d whole run%s, of %d read", r->input,
				    rs.file.corrupt_chunks, rs.file.corrupt_bytes, rs.whole,
				    rs.whole == 1 ? "" : "s", rs.n);
	} else {
		struct fol_run *one = r->run ? fol_runs_find(&rs, r->run - 1) : &rs.v[0];

		if (rs.several && one->why[0])
			warning("run %d of %s is not whole (%s): shown as read, left out of the "
				"runs' summary", one->index + 1, r->input, one->why);
		describe_filter(r, filter, sizeof(filter));
		ret = show_one(&one->r, r, filter);
	}
	fol_runs_free(&rs);
	return ret;
}

/* The private directory's janitor: a child, in a session of its own (a closed terminal's
 * SIGHUP and a ^C reach the report, not it), that waits until the report ends, however
 * it ends (its end of the pipe closes at SIGKILL too), then removes the directory. A
 * SIGINT, SIGTERM or SIGHUP 1 s into report --archive left 325-817 MB behind. The
 * returned descriptor is the report's end, held until it exits; -1: no janitor (the
 * report still removes the directory when it ends normally). */
static int janitor(const char *dir)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		char c;

		close(p[1]);
		setsid();
		while (read(p[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(fol_archive_remove(dir) ? 1 : 0);
	}
	close(p[0]);
	if (pid < 0) {
		close(p[1]);
		return -1;
	}
	return p[1];
}

/* --archive: the report with the archive's files as its symfs, in a private directory
 * removed after. */
static int report_archived(struct report_cli *r)
{
	const char *tmp = getenv("TMPDIR");
	struct fol_archive_stats st;
	char path[4096];
	int ret, guard;

	snprintf(path, sizeof(path), "%s/foliostat-archive.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(path))
		return error("cannot make a directory for the archive's files (%s): %s; set TMPDIR",
			     path, strerror(errno));
	guard = janitor(path);
	ret = fol_archive_extract(r->archive, path, r->max_unpack, &st);
	if (ret == -ENOMEM)
		ret = error("out of memory");
	else if (ret == -EFBIG)
		ret = error("%s unpacks more than %.1f MB (%s): a damaged or hostile archive, or "
			    "a large one: --max-unpack SIZE sets the bound", r->archive,
			    (double)st.limit / 1e6, r->max_unpack ? "--max-unpack"
			    : "64 times its size and 64 MB, or nine tenths of the free space under TMPDIR");
	else if (ret == -FOL_E_NOT_ARCHIVE)
		ret = error("%s is not a foliostat archive: make one with 'foliostat archive' where "
			    "the recording was made", r->archive);
	else if (ret == -ENOSPC || ret == -EDQUOT)
		ret = error("no room to unpack %s under %s: set TMPDIR to a roomier directory",
			    r->archive, path);
	else if (ret)
		ret = error("cannot read the archive %s: %s", r->archive, fol_strerror(ret));
	if (!ret && st.refused)
		warning("%s: %u pieces with a bad name or size were left out", r->archive, st.refused);
	if (!ret) {
		r->mo.symfs = path;
		ret = report_runs(r);
	}
	fol_archive_remove(path);
	if (guard >= 0)
		close(guard);
	return ret;
}

static int opt_max_unpack(const struct opt *o, const char *arg)
{
	struct report_cli *r = o->value;
	int ret = fol_parse_u64(arg, 1, UINT64_MAX, 1, &r->max_unpack);

	return ret ? print_bad_number("--max-unpack", "a size in bytes (K, M, G suffixes)", arg, ret) : 0;
}

/* --kallsyms FILE: a regular file that can be read (a FIFO or a device blocked the report
 * for good; a missing file was reported with raw addresses, silently). 0 or the status. */
static int kallsyms_ok(const char *path)
{
	struct stat st;
	char esc[512];

	if (stat(path, &st))
		return error("--kallsyms %s: %s", fol_escape(path, esc, sizeof(esc)), strerror(errno));
	if (!S_ISREG(st.st_mode))
		return error("--kallsyms %s: not a regular file: give a copy of the recorded kernel's "
			     "/proc/kallsyms", fol_escape(path, esc, sizeof(esc)));
	if (access(path, R_OK))
		return error("--kallsyms %s: %s", fol_escape(path, esc, sizeof(esc)), strerror(errno));
	return 0;
}

/* tui A B: the comparison as compare --tui shows it (its defaults). */
static int tui_compare(char **paths, int n)
{
	struct fol_model_opts mo = { .order = FOL_ANY, .cls = FOL_ANY };
	struct fol_msgs why = { 0 };
	struct fol_comparison k;
	char err[256];
	int status;

	if (fol_comparison_check(paths, n, &why)) {
		status = usage_error("%s", fol_msgs_last(&why));
		fol_msgs_free(&why);
		return status;
	}
	status = open_comparison(&k, paths, n, &mo, FOL_CMP_FDR);
	if (!status && fol_tui_compare(&k.c, err, sizeof(err)))
		status = error("%s", err);
	fol_comparison_close(&k);
	return status;
}

/* report and tui: one parser, messages under the name the user typed. */
static int report_main(int argc, char **argv)
{
	struct report_cli r = { .mo = { .order = FOL_ANY, .cls = FOL_ANY }, .input = "foliostat.data" };
	const struct opt opts[] = {
		OPT_STRING('i', "input", &r.input, "FILE", "read FILE (default foliostat.data)"),
		OPT_CALLBACK(0, "text", &r, NULL, opt_output, "text report (default)"),
		OPT_CALLBACK(0, "json", &r, NULL, opt_output,
			     "JSON, schema foliostat/report/v1 (man foliostat-report)"),
		OPT_CALLBACK(0, "tui", &r, NULL, opt_output,
			     "interactive (foliostat tui): views of the same figures"),
		OPT_INTEGER(0, "run", &r.run, "N", 1, 1 << 20, "a run number from 1",
			    "a recording of several runs (record -r, --sweep): run N's\n"
			    "full report; without it, the runs aggregated (mean, stddev,\n"
			    "min, median, max) or, for a sweep, side by side"),
		OPT_INTEGER(0, "pid", &r.mo.pid, "PID", 1, FOL_PID_MAX, "a process id",
			    "only faults of this process"),
		OPT_STRING(0, "comm", &r.mo.comm, "NAME", "only faults of threads named NAME"),
		OPT_STRING(0, "order", &r.order_arg, "N|SIZE",
			   "only faults on folios of this order (4, 64K, 2M, unknown)"),
		OPT_CALLBACK(0, "class", &r, "CLASS", opt_class,
			     "only this class: anon_alloc, anon_zero, wp_reuse,\n"
			     "wp_copy, file, swap_in, other, special"),
		OPT_CALLBACK(0, "time", &r, "START,END", opt_time,
			     "only faults entered in this window, seconds from the\n"
			     "start of the recording (either side may be empty)"),
		OPT_CALLBACK(0, "sort", &r, "KEYS", opt_sort,
			     "where the faults come from, by any of order, class, sym,\n"
			     "dso, map, comm, pid (e.g. sym,map; default: sym,map, top 10)"),
		OPT_INTEGER(0, "top", &r.view.top, "N", 1, 1 << 30, "a number of rows from 1",
			    "the N rows with the most fault time"),
		OPT_STRING(0, "symfs", &r.mo.symfs, "DIR",
			   "look for the recorded binaries under DIR (as perf report)"),
		OPT_STRING(0, "archive", &r.archive, "FILE",
			   "look for them in FILE, made by foliostat archive where\n"
			   "the recording was made"),
		OPT_CALLBACK(0, "max-unpack", &r, "SIZE", opt_max_unpack,
			     "with --archive: unpack SIZE bytes at most (default: 64\n"
			     "times the archive and 64M, within the free space)"),
		OPT_STRING(0, "kallsyms", &r.mo.kallsyms, "FILE",
			   "the recorded kernel's symbols (its /proc/kallsyms), in place\n"
			   "of those the recording carries"),
		OPT_CALLBACK(0, "format", &r, "FMT", opt_format,
			     "text, json, csv (the faults table), openmetrics, or\n"
			     "prometheus (the text format node_exporter's textfile\n"
			     "collector reads), folded (as --folded); mmtests: a\n"
			     "recording of several runs as mmtests compares (man\n"
			     "foliostat-compare)"),
		OPT_CALLBACK_OPTARG(0, "csv", &r, "TABLE", opt_csv,
				    "a table as CSV: faults (order x class; default), reuse,\n"
				    "calls, sites (by --sort's keys)"),
		OPT_CALLBACK_OPTARG(0, "folded", &r, "count", opt_folded,
				    "record -g's call stacks as folded lines for flame graphs\n"
				    "(flamegraph.pl, inferno, speedscope), weighed by fault\n"
				    "time in ns (or by count); the filters apply"),
		OPT_END(),
	};
	int ret = parse_options(argc, argv, opts, &report_usage, 0);

	if (ret)
		return ret < 0 ? 0 : ret;
	/* tui A B: the comparison, interactive. */
	if (r.tui && argc - optind >= 2)
		return tui_compare(argv + optind, argc - optind);
	if (optind < argc)
		return usage_error("unexpected argument '%s'%s", argv[optind],
				   optind + 1 < argc ? ": to compare recordings, foliostat compare A B" : "");
	/* Orders by size need the recording's page size; 4K until proven otherwise. */
	if (r.order_arg && parse_order(r.order_arg, 4096, &r.mo.order))
		return usage_error("--order takes an order (0-%d), a size (64K, 2M) or 'unknown', "
				   "not '%s'", FOL_MAX_ORDER, r.order_arg);
	if (r.time_arg && (ret = time_window(&r)))
		return ret;
	if (r.archive && r.mo.symfs)
		return usage_error("--archive and --symfs both say where the binaries are: give one");
	if (r.max_unpack && !r.archive)
		return usage_error("--max-unpack bounds what --archive unpacks: give --archive");
	if (r.mo.kallsyms && (ret = kallsyms_ok(r.mo.kallsyms)))
		return ret;
	if (r.archive)
		return report_archived(&r);
	return report_runs(&r);
}

int cmd_report(int argc, char **argv)
{
	return report_main(argc, argv);
}

int cmd_tui(int argc, char **argv)
{
	char **args = calloc((size_t)argc + 2, sizeof(*args));
	int ret;

	if (!args)
		return 1;
	args[0] = argv[0];
	args[1] = "--tui";
	for (int i = 1; i < argc; i++)
		args[i + 1] = argv[i];
	ret = report_main(argc + 1, args);
	free(args);
	return ret;
}
