// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/bare.h"
#include "cmd.h"
#include "util/errors.h"
#include "data/file.h"
#include "data/recording.h"
#include "util/parse.h"
#include "util/grow.h"
#include "record/record.h"
#include "options.h"
#include "record_cli.h"
#include "report/report.h"
#include "report/runs.h"
#include "util.h"
#include "workloads/workloads.h"
#include "util/msgs.h"

/* 30 days: longer is a typo, and inf or 1e300 must not overflow the deadline. */
#define FOL_DURATION_MAX (30.0 * 24 * 3600)

/* The built-in workloads' options a sweep can vary (cmd/workload.c's long options). */
static const char *const sweep_workload_keys[] = { "size", "policy", "stride", "mode", "threads",
						   "loops", NULL };

static const struct usage record_usage = {
	"usage: foliostat record [options] [-- command [args]]\n"
	"       foliostat record [options] -w WORKLOAD [-- workload options]\n"
	"       foliostat record [options] -p PID [--duration SECONDS]\n"
	"\n"
	"Run a workload (the built-in fork-reuse when no command is given) and record its\n"
	"page faults, folio allocations and memory-management events.\n"
	"\n",
	"\n"
	"Exit status: the workload's (128+N if it died of signal N), 127 when it cannot\n"
	"be executed, 1 when recording failed, 2 for usage errors. With -r or --sweep,\n"
	"the first run that fails ends the experiment and gives the status.\n",
};

static const struct usage stat_usage = {
	"usage: foliostat stat [options] [-- command [args]]\n"
	"       foliostat stat [options] -w WORKLOAD [-- workload options]\n"
	"\n"
	"Record a workload (the built-in fork-reuse when no command is given) and\n"
	"report it in one go, like perf stat: the text report on stderr, or JSON on\n"
	"stdout with --json. No file: the events stream from the ring buffers into\n"
	"the model as they are recorded.\n"
	"\n",
	record_usage.tail,
};

/* --sweep KEY=V1,V2,...: 0, or the exit status. The keys are checked once the command
 * is known (check_experiment). */
static int parse_sweep(struct rec_cli *c, const char *arg)
{
	char *eq, *save = NULL, *v;

	if (c->sweep_copy)
		return usage_error("one --sweep at a time");
	c->sweep_copy = strdup(arg);
	if (!c->sweep_copy)
		return 1;
	eq = strchr(c->sweep_copy, '=');
	if (!eq || eq == c->sweep_copy || !eq[1])
		return usage_error("--sweep takes KEY=V1,V2,... (e.g. mthp=4K,64K,2M-pte)");
	*eq = '\0';
	c->sweep_key = c->sweep_copy;
	for (v = strtok_r(eq + 1, ",", &save); v; v = strtok_r(NULL, ",", &save)) {
		if (c->nsweep == FOL_SWEEP_MAX)
			return usage_error("--sweep takes at most %d values", FOL_SWEEP_MAX);
		c->sweep_val[c->nsweep++] = v;
	}
	if (!c->nsweep)
		return usage_error("--sweep %s= has no values", c->sweep_key);
	return 0;
}

/* -r, --bare-runs and --sweep against the rest of the command line: 0 or the status. */
static int check_experiment(struct rec_cli *c)
{
	char spec[512];
	int policy, known = 0;

	if ((c->repeat || c->nsweep || c->bare_runs > 0) && c->o.pid) {
		return usage_error("-r, --sweep and --bare-runs run a command; -p attaches "
				    "to one process once");
	}
	if (c->bare_runs > (c->repeat ? c->repeat : 1))
		return usage_error("--bare-runs %d: at most one untraced run per recorded "
				    "run (-r %d)", c->bare_runs, c->repeat ? c->repeat : 1);
	if (!c->nsweep)
		return 0;
	if (!strcmp(c->sweep_key, "mthp")) {
		if (c->o.mthp)
			return usage_error("--sweep mthp= sets the policy of each run: "
					    "leave out --mthp");
		for (int i = 0; i < c->nsweep; i++) {
			int ret = fol_mthp_sweep_spec(c->sweep_val[i], "", spec, sizeof(spec), &policy);

			if (ret)
				return usage_error("--sweep mthp=%s: %s", c->sweep_val[i],
					ret == -ENOENT ? "this kernel has no such folio size "
							 "(see /sys/kernel/mm/transparent_hugepage/)"
						       : "a folio size is 4K, 16K ... 1M, 2M or 2M-pte");
		}
		return 0;
	}
	for (int i = 0; sweep_workload_keys[i]; i++)
		known |= !strcmp(sweep_workload_keys[i], c->sweep_key);
	if (!known)
		return usage_error("--sweep %s=: unknown key: mthp, or a built-in workload's "
				    "size, policy, stride, mode, threads, loops", c->sweep_key);
	if (!c->is_builtin) {
		return usage_error("--sweep %s= is an option of the built-in workloads; "
				    "another command is swept only over mthp=", c->sweep_key);
	}
	return 0;
}

/* A built-in workload as the command: this binary, "workload", its name (-w, or
 * fork-reuse) and the options after --. 0, or the exit status. */
static int builtin_argv(struct rec_cli *c, int nargs, char **args)
{
	const char *name = c->workload ? c->workload : "fork-reuse";
	ssize_t n = readlink("/proc/self/exe", c->self, sizeof(c->self) - 1);

	if (!fol_wl_find(name))
		return usage_error("-w %s: no such built-in workload (foliostat workloads lists them)",
				   name);
	if (n < 0)
		return error("cannot find its own binary for the built-in workload: %s",
			     strerror(errno));
	c->self[n] = '\0';
	c->builtin = calloc((size_t)nargs + 4, sizeof(*c->builtin));
	if (!c->builtin)
		return error("out of memory");
	c->builtin[0] = c->self;
	c->builtin[1] = "workload";
	c->builtin[2] = (char *)name;
	memcpy(c->builtin + 3, args, (size_t)nargs * sizeof(*args));
	c->o.argv = c->builtin;
	return 0;
}

/* A stack copy per fault fills the default buffers ~100 times as fast (8 KB samples):
 * 1854 of 2096 samples lost at 1024 pages a CPU; at 8192, a 7-pass fork-loop of 64M lost
 * 34,617 to 118,040 events in 3 runs of 3 (the writer behind ~1 GB of stacks); at 32768,
 * none in 2. As many pages a CPU, the total held to 1 GiB on a machine of many CPUs. */
static int dwarf_pages(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int pages = FOL_RECORD_DWARF_PAGES;

	while (cpus > 0 && pages > 1024 && (long)pages * cpus > FOL_RECORD_DWARF_TOTAL_PAGES)
		pages /= 2;
	return pages;
}

/* --call-graph fp | dwarf[,SIZE] (perf record's syntax): SIZE a multiple of 8 up to the
 * kernel's limit for a sample's stack copy. */
static int parse_call_graph(const char *arg, struct fol_record_opts *o)
{
	uint64_t size;

	if (!strcmp(arg, "fp")) {
		o->callchain = FOL_CALLCHAIN_FP;
		return 0;
	}
	if (strncmp(arg, "dwarf", 5) || (arg[5] && arg[5] != ','))
		return usage_error("--call-graph is fp or dwarf[,SIZE], not '%s'", arg);
#ifndef __x86_64__
	return usage_error("--call-graph dwarf unwinds x86-64 registers only: use -g (frame pointers)");
#endif
	o->callchain = FOL_CALLCHAIN_DWARF;
	o->stack_dump = FOL_STACK_DUMP_DEFAULT;
	if (!arg[5])
		return 0;
	if (fol_parse_u64(arg + 6, 8, 65528, 0, &size) || size % 8)
		return usage_error("--call-graph dwarf,SIZE: SIZE is bytes of stack, a multiple of 8 "
				   "from 8 to 65528, not '%s'", arg + 6);
	o->stack_dump = (unsigned)size;
	return 0;
}

/* The index of arg among the n names, or -1. */
static int one_of(const char *arg, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(arg, names[i]))
			return i;
	return -1;
}

/* The options' callbacks: o->value is the command line being parsed. */
static int opt_output(const struct opt *o, const char *arg)
{
	struct rec_cli *c = o->value;

	if (!*arg)
		return usage_error("-o takes a file name, not an empty string");
	c->output = arg;
	if (!strcmp(arg, "-")) {
		/* As perf record -o -: the recording down a pipe (a file, or a terminal, is
		 * named as itself, or not written to). */
		struct stat st;

		if (fstat(STDOUT_FILENO, &st) || !S_ISFIFO(st.st_mode))
			return usage_error("-o - writes the recording down a pipe; standard "
					   "output is not one: name a file with -o FILE");
		c->output = "/dev/stdout";
	}
	return 0;
}

static int opt_event(const struct opt *o, const char *arg)
{
	struct rec_cli *c = o->value;
	if (FOL_GROW(c->events, c->events_cap, (size_t)c->nevents + 1, 8))
		return error("out of memory");
	c->events[c->nevents++] = arg;
	return 0;
}

static int opt_mmap_pages(const struct opt *o, const char *arg)
{
	struct rec_cli *c = o->value;
	char what[64];
	int ret = parse_int(arg, 1, FOL_RECORD_MAX_PAGES, &c->o.mmap_pages);

	if (!ret && (c->o.mmap_pages & (c->o.mmap_pages - 1)))
		ret = -EINVAL;
	snprintf(what, sizeof(what), "a power of two from 1 to %d", FOL_RECORD_MAX_PAGES);
	return ret ? print_bad_number("-m", what, arg, ret) : 0;
}

static int opt_call_graph(const struct opt *o, const char *arg)
{
	struct rec_cli *c = o->value;

	if (!arg) {
		c->o.callchain = FOL_CALLCHAIN_FP;
		return 0;
	}
	return parse_call_graph(arg, &c->o);
}

int rec_opt_duration(const struct opt *o, const char *arg)
{
	int ret = fol_parse_seconds(arg, 0.001, FOL_DURATION_MAX, o->value);

	return ret ? print_bad_number("--duration", "seconds (0.001 to 30 days)", arg, ret) : 0;
}

static int opt_mthp(const struct opt *o, const char *arg)
{
	struct rec_cli *c = o->value;
	struct fol_msgs why = { 0 };
	int ret = 0;

	if (fol_mthp_parse(arg, "", &c->mthp, &why))
		ret = usage_error("--mthp %s", fol_msgs_last(&why));
	fol_msgs_free(&why);
	c->o.mthp = ret ? NULL : &c->mthp;
	c->o.mthp_spec = arg;
	return ret;
}

static int opt_method(const struct opt *o, const char *arg)
{
	static const char *const methods[] = { [FOL_METHOD_AUTO] = "auto", [FOL_METHOD_EXACT] = "exact",
					       [FOL_METHOD_SAMPLED] = "sampled" };
	struct rec_cli *c = o->value;

	c->o.method = one_of(arg, methods, 3);
	return c->o.method < 0 ? usage_error("--latency-method is auto, exact or sampled") : 0;
}

int rec_opt_fault_path(const struct opt *o, const char *arg)
{
	static const char *const fault_paths[] = { [FOL_PATH_AUTO] = "auto", [FOL_PATH_BPF] = "bpf",
						   [FOL_PATH_SAMPLES] = "samples" };
	struct rec_cli *c = o->value;

	c->o.fault_path = one_of(arg, fault_paths, 3);
	return c->o.fault_path < 0 ? usage_error("--fault-path is auto, bpf or samples") : 0;
}

static int opt_period(const struct opt *o, const char *arg)
{
	struct rec_cli *c = o->value;
	int ret = fol_parse_u64(arg, 1000, 1000000000000ull, 0, &c->o.clock_period_ns);

	return ret ? print_bad_number("--sample-period", "nanoseconds (1000 to 10^12)", arg, ret) : 0;
}

static int opt_sweep(const struct opt *o, const char *arg)
{
	return parse_sweep(o->value, arg);
}

static int opt_interval(const struct opt *o, const char *arg)
{
	struct rec_cli *c = o->value;
	int ms, ret = parse_int(arg, 10, 3600000, &ms);

	c->interval_ms = (unsigned)ms;
	return ret ? print_bad_number("-I", "milliseconds from 10 to 3600000", arg, ret) : 0;
}

/* The options of the other command, refused with what to do instead. */
static int opt_not_here(const struct opt *o, const char *arg)
{
	(void)arg;
	if (!strcmp(o->long_name, "output"))
		return usage_error("stat writes no file: record -o FILE does");
	if (!strcmp(o->long_name, "json"))
		return usage_error("--json is for stat and report");
	return usage_error("-I is for stat --json (a line per interval, no file)");
}

/* Help and range texts with numbers in them. */
static char help_mmap[160], help_period[80], help_repeat[160], runs_from_1[48], runs_from_0[48];

/* record's or stat's options, into opts (room for 40). */
static void rec_options(struct rec_cli *c, int stat, struct opt *opts)
{
	int n = 0;

	snprintf(help_mmap, sizeof(help_mmap), "ring buffer pages per CPU, a power of two up to %d\n"
		 "(default %d)", FOL_RECORD_MAX_PAGES, FOL_RECORD_DEFAULT_PAGES);
	snprintf(help_period, sizeof(help_period), "the sampled method's cpu-clock period (default %d)",
		 FOL_CLOCK_PERIOD_DEFAULT);
	snprintf(help_repeat, sizeof(help_repeat), "run the command N times (1-%d), each run its own in one\n"
		 "recording; the report gives mean, stddev, min, median, max", FOL_REPEAT_MAX);
	snprintf(runs_from_1, sizeof(runs_from_1), "a number of runs from 1 to %d", FOL_REPEAT_MAX);
	snprintf(runs_from_0, sizeof(runs_from_0), "a number of runs from 0 to %d", FOL_REPEAT_MAX);
	if (stat) {
		opts[n++] = (struct opt)OPT_SET_INT(0, "json", &c->json, 1,
						    "the JSON report (foliostat/report/v1) on stdout");
		opts[n++] = (struct opt)OPT_CALLBACK('I', "interval", c, "MS", opt_interval,
			"with --json: also a JSON line every MS milliseconds\n"
			"(10-3600000) of the faults since the last one, for\n"
			"live dashboards (schema foliostat/interval/v1)");
		opts[n] = (struct opt)OPT_CALLBACK('o', "output", c, "FILE", opt_not_here, NULL);
		opts[n++].hidden = 1;
	} else {
		opts[n++] = (struct opt)OPT_CALLBACK('o', "output", c, "FILE", opt_output,
			"write FILE, mode 0600 (default foliostat.data; an existing\n"
			"recording is kept as FILE.old; only recordings, devices\n"
			"and FIFOs are written, never a file through a link;\n"
			"-o - writes to standard output, a pipe)");
		opts[n] = (struct opt)OPT_CALLBACK(0, "json", c, NULL, opt_not_here, NULL);
		opts[n++].hidden = 1;
		opts[n] = (struct opt)OPT_CALLBACK('I', "interval", c, "MS", opt_not_here, NULL);
		opts[n++].hidden = 1;
	}
	const struct opt common[] = {
		OPT_STRING('w', "workload", &c->workload, "NAME",
			   "a built-in workload (foliostat workloads lists them, with\n"
			   "their options, given after --): e.g. -w cow -- --size 64M"),
		OPT_CALLBACK('e', "event", c, "EVENT", opt_event,
			     "record EVENT instead of the default set; repeatable.\n"
			     "A tracepoint (kmem:mm_page_alloc, huge_memory:*) or\n"
			     "minor-faults, major-faults, page-faults, cpu-clock"),
		OPT_CALLBACK('m', "mmap-pages", c, "N", opt_mmap_pages, help_mmap),
		OPT_INTEGER('p', "pid", &c->o.pid, "PID", 1, FOL_PID_MAX, "a process id",
			    "attach to a running process and its threads"),
		OPT_SET_INT('a', "all-cpus", &c->o.system_wide, 1,
			    "every task on every CPU (perf record -a): while the command\n"
			    "runs, or alone until Ctrl-C or --duration"),
		OPT_CALLBACK('g', NULL, c, NULL, opt_call_graph,
			     "record each fault's user call chain (frame pointers), for\n"
			     "report --folded (flame graphs) and the TUI's Sites view"),
		OPT_CALLBACK(0, "call-graph", c, "MODE", opt_call_graph,
			     "fp (as -g), or dwarf[,SIZE]: the user registers and SIZE\n"
			     "bytes of stack (default 8192) with each fault, unwound\n"
			     "by the report from the binaries' CFI (code built without\n"
			     "frame pointers, as Debian's libc); -m 8192 by default"),
		OPT_STRING('G', "cgroup", &c->o.cgroup, "CGROUP",
			   "with -a: only the tasks of this cgroup (v2, its path under\n"
			   "the cgroup2 mount) and of the cgroups below it"),
		OPT_CALLBACK(0, "duration", &c->duration, "S", rec_opt_duration,
			     "with -p or -a alone: stop after S seconds (default: Ctrl-C)"),
		OPT_SET_INT(0, "no-mm-threads", &c->o.no_mm_threads, 1,
			    "do not record the kernel's mm threads (khugepaged, kswapd*,\n"
			    "kcompactd*) beside the workload: their collapses and\n"
			    "swap-out of its memory are in its report by default"),
		OPT_CALLBACK(0, "mthp", c, "SPEC", opt_mthp,
			     "THP policy for the run, put back after it: SIZE=POLICY,...\n"
			     "e.g. 64K=always,2M=never, or thp=madvise (PMD THP switch);\n"
			     "khugepaged.KNOB=N sets one of khugepaged's numbers"),
		OPT_CALLBACK(0, "latency-method", c, "M", opt_method,
			     "exact (fault entry tracepoint to exit sample), sampled\n"
			     "(cpu-clock with kernel call chains: where the page\n"
			     "fault tracepoints are missing), auto (default)"),
		OPT_CALLBACK(0, "fault-path", c, "P", rec_opt_fault_path,
			     "how each fault's entry and exit are recorded: bpf (paired\n"
			     "in the kernel, one record per fault: the cheaper), samples\n"
			     "(one sample of each event, as perf record), auto (default:\n"
			     "bpf where the options and the machine allow it; the report\n"
			     "says which ran)"),
		OPT_CALLBACK(0, "sample-period", c, "NS", opt_period, help_period),
		OPT_SET_INT(0, "kprobes", &c->o.kprobes, 1,
			    "also record foliostat's own kprobes on do_wp_page (entry\n"
			    "and return value) where the kernel has kprobe events;\n"
			    "removed when the run ends"),
		OPT_INTEGER('r', "repeat", &c->repeat, "N", 1, FOL_REPEAT_MAX, runs_from_1, help_repeat),
		OPT_INTEGER(0, "bare-runs", &c->bare_runs, "M", 0, FOL_REPEAT_MAX, runs_from_0,
			    "also run it M times untraced, interleaved, to show what\n"
			    "recording adds to its own phase times (default: N for\n"
			    "built-in workloads, else 0)"),
		OPT_CALLBACK(0, "sweep", c, "KEY=V1,V2", opt_sweep,
			     "one configuration per value, side by side: mthp=4K,64K,2M-pte,2M\n"
			     "(a complete THP policy each; 2M-pte: split to PTEs by the\n"
			     "built-in workloads), or a built-in workload's option\n"
			     "(mode=byte,memset size=64M,256M ...)"),
		OPT_SET_INT('q', "quiet", &c->quiet, 1, "no summary line, no warnings"),
		OPT_END(),
	};
	memcpy(opts + n, common, sizeof(common));
}

/* What follows the options: a command, a built-in workload's options, or nothing. */
static int rec_args(struct rec_cli *c, int argc, char **argv)
{
	int ret;

	if (c->o.pid && (optind < argc || c->workload || c->o.system_wide))
		return usage_error("give either -p PID, -a or a command (-a and a command go together)");
	if (c->duration > 0 && !c->o.pid && !(c->o.system_wide && optind >= argc && !c->workload))
		return usage_error("--duration goes with -p or -a alone; a command runs to its end");
	if (c->interval_ms && (!c->json || rec_several(c)))
		return usage_error("-I goes with --json, for one run: a JSON line per interval");
	if (c->o.cgroup && !c->o.system_wide)
		return usage_error("-G (a cgroup) goes with -a: it scopes a system-wide recording, "
				   "as in perf record -a -G");
	if (c->o.system_wide && rec_several(c))
		return usage_error("-a records once: -r, --sweep and --bare-runs are for a command");
	c->o.events = c->events;
	c->o.nr_events = c->nevents;
	/* -a alone records until a signal or --duration, with no workload of its own. */
	if (c->o.system_wide && optind >= argc && !c->workload)
		return 0;
	if (!c->o.pid) {
		ret = c->workload || optind >= argc ? builtin_argv(c, argc - optind, argv + optind) : 0;
		if (ret)
			return ret;
		if (!c->o.argv)
			c->o.argv = argv + optind;
		c->is_builtin = c->o.argv[0] && c->o.argv[1] &&
				(!strcmp(c->o.argv[1], "workload") || !strcmp(c->o.argv[1], "__workload"));
	}
	return check_experiment(c);
}

int rec_parse(int argc, char **argv, struct rec_cli *c, int stat)
{
	struct opt opts[40];
	int ret;

	c->output = "foliostat.data";
	c->bare_runs = -1;
	rec_options(c, stat, opts);
	ret = parse_options(argc, argv, opts, stat ? &stat_usage : &record_usage,
			    PARSE_OPT_STOP_AT_NON_OPTION);
	if (ret)
		return ret;
	if (!c->o.mmap_pages)
		c->o.mmap_pages = c->o.callchain == FOL_CALLCHAIN_DWARF ? dwarf_pages()
									: FOL_RECORD_DEFAULT_PAGES;
	return rec_args(c, argc, argv);
}

int rec_several(const struct rec_cli *c)
{
	return c->repeat || c->nsweep || c->bare_runs > 0;
}

void rec_cli_free(struct rec_cli *c)
{
	free(c->events);
	free(c->sweep_copy);
	free(c->builtin);
}

int cmd_record(int argc, char **argv)
{
	struct rec_cli c = { 0 };
	struct fol_msgs why = { 0 };
	struct fol_writer *w;
	int status = rec_parse(argc, argv, &c, 0), ret;

	if (status) {
		rec_cli_free(&c);
		return status < 0 ? 0 : status;
	}
	ret = fol_writer_open(&w, c.output);
	if (ret) {
		rec_cli_free(&c);
		fol_writer_why(ret, c.output, &why);
		return error_why(&why);
	}
	rec_signals_install();
	if (rec_several(&c))
		experiment(&c, w, &status);
	else
		record_one(&c, w, &status);
	rec_signals_restore();
	ret = fol_writer_close(w);
	if (ret) {
		error("cannot write %s: %s", c.output, fol_strerror(ret));
		status = status ? status : 1;
	}
	rec_cli_free(&c);
	return status;
}
