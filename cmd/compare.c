// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#include "cmd.h"
#include "util/errors.h"
#include "compare/compare.h"
#include "compare/compare_sites.h"
#include "util/escape.h"
#include "report/runs.h"
#include "tui.h"
#include "util/parse.h"
#include "util.h"
#include "util/msgs.h"
#include "options.h"

#define MAX_SIDES 64

/* The sides of a set of recordings: each file's runs, one side per configuration of a
 * sweep. names[] holds the names made for them ("file:64K"). */
struct sides {
	struct fol_side v[MAX_SIDES];
	const struct fol_report **runs[MAX_SIDES];
	int *rec[MAX_SIDES];
	const struct fol_run_out **out[MAX_SIDES];
	char *names[MAX_SIDES];
	cJSON *bare[MAX_SIDES];
	int n;
};

static void sides_free(struct sides *s)
{
	for (int i = 0; i < s->n; i++) {
		free(s->runs[i]);
		free(s->rec[i]);
		free(s->out[i]);
		free(s->names[i]);
		cJSON_Delete(s->bare[i]);
	}
	memset(s, 0, sizeof(*s));
}

/* A file's or directory's column name: its last component, without ".data" or a
 * trailing "/". */
static const char *short_name(const char *path)
{
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	while (n > 0 && path[n - 1] != '/')
		n--;
	return path + n;
}

static int short_len(const char *path)
{
	const char *b = short_name(path);
	size_t n = strlen(b);

	while (n > 1 && b[n - 1] == '/')
		n--;
	if (n > 5 && !strncmp(b + n - 5, ".data", 5))
		n -= 5;
	return (int)n;
}

/* A configuration's whole runs in each recording, numbering the recordings that have
 * one; and the runs it left out. */
static void side_runs(struct sides *s, const struct fol_runs *rs, int nrs, const char *config)
{
	struct fol_side *side = &s->v[s->n];

	for (int k = 0; k < nrs; k++) {
		int had = side->n;

		for (int i = 0; i < rs[k].n; i++)
			if (!strcmp(rs[k].v[i].config, config) && !rs[k].v[i].why[0]) {
				s->rec[s->n][side->n] = side->nrec;
				s->runs[s->n][side->n++] = &rs[k].v[i].r;
			}
		side->nrec += side->n > had;
		if (side->n > had)
			side->recording = &rs[k];
		for (int i = 0; i < rs[k].nout; i++)
			if (!strcmp(rs[k].out[i].config, config) || !rs[k].sweep[0])
				s->out[s->n][side->nout++] = &rs[k].out[i];
	}
	if (side->nrec > 1)
		side->recording = NULL;
	else
		side->rec = NULL;
}

static void side_bare(struct sides *s, const struct fol_runs *rs, int nrs, const char *config)
{
	const cJSON *b;

	for (int k = 0; k < nrs; k++)
		cJSON_ArrayForEach(b, rs[k].bare)
		{
			const char *bc = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "config"));

			if (!strcmp(bc ? bc : "", config))
				cJSON_AddItemToArray(s->bare[s->n], cJSON_Duplicate(b, 1));
		}
}

static int side_alloc(struct sides *s, const struct fol_runs *rs, int nrs)
{
	size_t runs = 1, outs = 1;

	for (int k = 0; k < nrs; k++) {
		runs += (size_t)rs[k].n;
		outs += (size_t)rs[k].nout;
	}
	memset(&s->v[s->n], 0, sizeof(s->v[s->n]));
	s->runs[s->n] = calloc(runs, sizeof(*s->runs[0]));
	s->rec[s->n] = calloc(runs, sizeof(*s->rec[0]));
	s->out[s->n] = calloc(outs, sizeof(*s->out[0]));
	s->bare[s->n] = cJSON_CreateArray();
	return s->runs[s->n] && s->rec[s->n] && s->out[s->n] && s->bare[s->n] ? 0 : -ENOMEM;
}

static void side_drop(struct sides *s)
{
	free(s->runs[s->n]);
	free(s->rec[s->n]);
	free(s->out[s->n]);
	cJSON_Delete(s->bare[s->n]);
}

/* Add the configurations of the recordings rs[0..nrs) (one file, or a directory's) as
 * sides; name is the file or directory (NULL: the configuration alone). key: the swept
 * key, to name a configuration's column "mthp=64K" (a bare "64K" column stood beside
 * order rows named 64K), or NULL. Only whole runs are a side's: a configuration with
 * none is no side. */
static int sides_add(struct sides *s, const struct fol_runs *rs, int nrs, const char *name, const char *key)
{
	const char *configs[MAX_SIDES];
	int nconf = fol_runs_configs(&rs[0], configs, MAX_SIDES);

	for (int k = 0; k < nconf; k++) {
		struct fol_side *side;

		if (s->n == MAX_SIDES)
			return -E2BIG;
		side = &s->v[s->n];
		if (side_alloc(s, rs, nrs)) {
			s->n++;
			return -ENOMEM;
		}
		side->rec = s->rec[s->n];
		side_runs(s, rs, nrs, configs[k]);
		if (!side->n) {
			side_drop(s);
			continue;
		}
		side_bare(s, rs, nrs, configs[k]);
		if (asprintf(&s->names[s->n], "%.*s%s%s%s%s", name ? short_len(name) : 0,
			     name ? short_name(name) : "", name && configs[k][0] ? ":" : "",
			     key && key[0] && configs[k][0] ? key : "",
			     key && key[0] && configs[k][0] ? "=" : "", configs[k]) < 0) {
			s->names[s->n++] = NULL;
			return -ENOMEM;
		}
		side->name = s->names[s->n];
		side->file = name;
		side->runs = s->runs[s->n];
		side->out = s->out[s->n];
		side->bare = s->bare[s->n];
		s->n++;
	}
	return 0;
}

static cJSON *runs_json(const struct fol_runs *rs, const struct fol_cmp *c)
{
	cJSON *o = cJSON_CreateObject(), *runs = cJSON_AddArrayToObject(o, "runs"), *configs;

	cJSON_AddStringToObject(o, "schema", "foliostat/runs/v1");
	if (rs->sweep[0])
		cJSON_AddStringToObject(o, "sweep", rs->sweep);
	else
		cJSON_AddNullToObject(o, "sweep");
	for (int i = 0; i < rs->n; i++) {
		cJSON *r = fol_report_json(&rs->v[i].r, &(struct fol_report_view){ 0 });

		if (!r)
			continue;
		cJSON_AddNumberToObject(r, "run", rs->v[i].index);
		cJSON_AddStringToObject(r, "config", rs->v[i].config);
		cJSON_AddItemToArray(runs, r);
	}
	configs = cJSON_AddArrayToObject(o, "aggregate");
	for (int s = 0; s < c->nsides; s++) {
		cJSON *a = fol_cmp_side_json(c, s);

		cJSON_AddStringToObject(a, "config", c->sides[s].name);
		cJSON_AddItemToArray(configs, a);
	}
	if (c->nsides > 1)
		cJSON_AddItemToObject(o, "compare", fol_cmp_json(c));
	return fol_escape_json(o) ? o : (cJSON_Delete(o), NULL);
}

/* The runs left out of the summary, each with why. */
static void print_left_out(const struct fol_runs *rs, FILE *f)
{
	char run[160];

	for (int i = 0; i < rs->nout; i++)
		fprintf(f, "# warning: %s left out: %s\n", fol_run_out_text(&rs->out[i], run, sizeof(run)),
			rs->out[i].why);
}

/* The first whole run's warnings: what the others most likely share. */
static void print_first_warnings(const struct fol_runs *rs, FILE *f)
{
	for (int k = 0; k < rs->n; k++) {
		if (rs->v[k].why[0])
			continue;
		for (int i = 0; i < rs->v[k].r.warnings.n; i++)
			fprintf(f, "# run %d: warning: %s\n", rs->v[k].index + 1, rs->v[k].r.warnings.v[i]);
		return;
	}
}

int print_runs(const struct fol_runs *rs, enum runs_format how, FILE *f)
{
	struct sides sd = { 0 };
	struct fol_cmp c;
	char esc[256];
	/* The text's columns say what was swept; JSON keeps the configuration as it is. */
	int ret = sides_add(&sd, rs, 1, NULL, how == RUNS_JSON || how == RUNS_TUI ? NULL : rs->sweep);

	if (!ret && !sd.n)
		ret = -ENODATA;
	if (!ret)
		ret = fol_compare(sd.v, sd.n, FOL_CMP_FDR, &c);
	if (ret) {
		if (ret == -ENODATA)
			error("no whole run to summarise (%d read, each left out): foliostat report "
			      "--run N shows one as read", rs->n);
		else
			error("%s", fol_strerror(ret));
		sides_free(&sd);
		return 1;
	}
	if (how == RUNS_TUI) {
		ret = fol_tui_compare(&c, esc, sizeof(esc));
		if (ret)
			error("%s", esc);
		ret = !!ret;
	} else if (how == RUNS_JSON) {
		ret = print_json(runs_json(rs, &c), f);
	} else if (how == RUNS_MMTESTS) {
		fol_cmp_mmtests(&c, f);
		print_left_out(rs, f);
	} else {
		if (sd.n > 1)
			fprintf(f, "# sweep of %s over %d configurations, %d runs\n",
				fol_escape(rs->sweep, esc, sizeof(esc)), sd.n, rs->n);
		fol_cmp_text(&c, f);
		fol_cmp_probe_text(&c, f);
		print_left_out(rs, f);
		print_first_warnings(rs, f);
		fprintf(f, "\n# one run in full: foliostat report --run N (1-%d)\n", rs->v[rs->n - 1].index + 1);
	}
	fol_cmp_free(&c);
	sides_free(&sd);
	return ret;
}

static const struct usage compare_usage = {
	"usage: foliostat compare [options] BASE NEW [MORE...]\n"
	"       foliostat diff ...  (the same)\n"
	"\n"
	"Compare recordings figure by figure against the first: faults, fault time and\n"
	"latency per folio order and class, reuse batching, folios, workload phases,\n"
	"kernel counters. A side is a recording's runs (record -r N), or a directory's\n"
	"recordings (*.data, one per boot or session), its runs nested in them; a\n"
	"sweep's configurations are sides of their own. A change is marked (I)\n"
	"improvement or (R) regression by Welch's t-test (times on a log scale) on\n"
	"each recording's mean where every side has 2 recordings or more, else on the\n"
	"per-run values, 2 runs or more a side; the marks hold a false-discovery rate\n"
	"over every figure tested (Benjamini-Hochberg), never under 1%. With one\n"
	"recording a side times are not tested (they drift between recordings), and a\n"
	"count the same in every run of each side but not between them is marked (=):\n"
	"the kernel's doing or the machine's state. n/t: shown, not tested.\n"
	"\n",
	"\n"
	"Exit status: 0, 1 when a file cannot be read, 2 for usage errors (fewer than two\n"
	"sides, a file given twice).\n",
};

static const char *command_of(const struct fol_runs *rs, char *buf, size_t len)
{
	const struct fol_recording *rec = &rs->v[0].r.rec;
	cJSON *cmd = rec->have_command
		? cJSON_CreateStringArray((const char *const *)rec->command, rec->ncommand) : NULL;
	char *s = cmd ? cJSON_PrintUnformatted(cmd) : NULL;

	snprintf(buf, len, "%s", s ? s : "");
	cJSON_Delete(cmd);
	free(s);
	return buf;
}

/* Two sides of one file: a file compared with itself tells nothing. */
static int some_file_twice(char **paths, int n, int *a, int *b)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < i; j++)
			if (same_file(paths[j], paths[i])) {
				*a = j;
				*b = i;
				return 1;
			}
	return 0;
}

/* Each run left out, named, with why; and how much of the file is damaged. */
static void warn_file(const char *path, const struct fol_runs *rs)
{
	char esc[512], run[160];
	const char *p = fol_escape(path, esc, sizeof(esc));

	for (int i = 0; i < rs->nout; i++)
		warning("%s: %s left out: %s", p, fol_run_out_text(&rs->out[i], run, sizeof(run)),
			rs->out[i].why);
	if (rs->file.corrupt_chunks)
		warning("%s is damaged (%" PRIu64 " region%s, %" PRIu64 " bytes skipped%s): comparing "
			"its %d whole run%s", p, rs->file.corrupt_chunks,
			rs->file.corrupt_chunks == 1 ? "" : "s", rs->file.corrupt_bytes,
			rs->file.truncated ? "; cut short" : "", rs->whole, rs->whole == 1 ? "" : "s");
	else if (rs->file.truncated || !rs->file.complete)
		warning("%s is %s: comparing its %d whole run%s", p,
			rs->file.truncated ? "cut short" : "incomplete (no END chunk)", rs->whole,
			rs->whole == 1 ? "" : "s");
}

enum format { FMT_TEXT, FMT_JSON, FMT_MMTESTS, FMT_HTML, FMT_SVG };

struct compare_cli {
	enum format fmt;
	int tui;
	double fdr;
	const char *figures;	/* --figures, or NULL */
	int sort[FOL_SORT_NR], nsort; /* --sort: site by site */
	int top;		/* --top: the sites with most time */
	const char *symfs;	/* --symfs: where the recorded binaries are */
};

/* --sort: the sites' table as text, or the sites added to the JSON. */
static int compare_sites(const struct sides *sd, const struct compare_cli *o, cJSON *json)
{
	struct fol_cmp_sites cs;
	int ret = fol_compare_sites(sd->v, sd->n, o->sort, o->nsort, o->fdr, &cs);

	if (ret)
		return error("%s", fol_strerror(ret));
	if (json)
		cJSON_AddItemToObject(json, "sites", fol_cmp_sites_json(&cs, o->top));
	else
		fol_cmp_sites_text(&cs, o->top, stdout);
	fol_cmp_sites_free(&cs);
	return 0;
}

/* One side as given: a recording, or the recordings of a directory (its *.data files in
 * name order, one per boot or session). */
struct input {
	const char *path;
	char **files;
	int nfiles;
	struct fol_runs *rs;	/* the recordings with a whole run */
	int n;
};

static int is_recording(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 5 && !strcmp(d->d_name + n - 5, ".data");
}

static int input_files(struct input *in)
{
	struct dirent **names;
	struct stat st;
	int n;

	if (stat(in->path, &st) || !S_ISDIR(st.st_mode)) {
		in->files = calloc(1, sizeof(*in->files));
		if (!in->files || !(in->files[0] = strdup(in->path)))
			return -ENOMEM;
		in->nfiles = 1;
		return 0;
	}
	n = scandir(in->path, &names, is_recording, alphasort);
	if (n < 0)
		return -errno;
	in->files = calloc((size_t)n + 1, sizeof(*in->files));
	for (int i = 0; i < n; i++) {
		if (in->files && asprintf(&in->files[in->nfiles], "%s/%s", in->path, names[i]->d_name) >= 0)
			in->nfiles++;
		free(names[i]);
	}
	free(names);
	return in->files && in->nfiles == n ? 0 : -ENOMEM;
}

static void input_free(struct input *in)
{
	for (int i = 0; i < in->n; i++)
		fol_runs_free(&in->rs[i]);
	for (int i = 0; i < in->nfiles; i++)
		free(in->files[i]);
	free(in->files);
	free(in->rs);
}

/* The input's recordings read; a directory's recording without a whole run is left out
 * with a warning, a file without one is an error. 0, or the exit status. */
static int input_load(struct input *in, const struct fol_model_opts *mo)
{
	char esc[512];
	int ret = input_files(in);

	if (ret)
		return error("%s: %s", fol_escape(in->path, esc, sizeof(esc)), fol_strerror(ret));
	in->rs = calloc((size_t)in->nfiles + 1, sizeof(*in->rs));
	if (!in->rs)
		return error("%s", fol_strerror(-ENOMEM));
	for (int i = 0; i < in->nfiles; i++) {
		struct fol_runs *rs = &in->rs[in->n];

		ret = fol_runs_load(in->files[i], mo, rs);
		if (ret) {
			print_open_error(in->files[i], ret);
			return 1;
		}
		warn_file(in->files[i], rs);
		if (rs->whole) {
			in->n++;
			continue;
		}
		if (in->nfiles == 1)
			return error("%s has no whole run to compare (%d read, each left out): "
				     "foliostat report shows what it holds",
				     fol_escape(in->files[i], esc, sizeof(esc)), rs->n);
		warning("%s has no whole run (%d read, each left out): not one of the side's recordings",
			in->files[i], rs->n);
		fol_runs_free(rs);
	}
	if (!in->n)
		return error("%s holds no recording with a whole run (*.data): record each side into "
			     "its directory, one file a boot (record -r 5 -o DIR/1.data)",
			     fol_escape(in->path, esc, sizeof(esc)));
	return 0;
}

/* What two recordings compared as one setup should share: the command, and within one
 * side the kernel. */
static void warn_setup(const struct input *in, int nin)
{
	const struct fol_runs *first = &in[0].rs[0];
	char a[1024], b[1024];

	command_of(first, a, sizeof(a));
	for (int k = 0; k < nin; k++)
		for (int i = 0; i < in[k].n; i++) {
			const char *k0 = in[k].rs[0].v[0].r.rec.kernel, *ki = in[k].rs[i].v[0].r.rec.kernel;

			if (strcmp(a, command_of(&in[k].rs[i], b, sizeof(b))))
				warning("%s ran another command than %s: %s against %s", in[k].files[i],
					in[0].files[0], b, a);
			if (i && k0 && ki && strcmp(k0, ki))
				warning("%s: its recordings ran other kernels (%s, %s): one side is one kernel",
					in[k].path, k0, ki);
		}
}

static int compare_files(char **paths, int n, const struct compare_cli *o)
{
	struct fol_model_opts mo = { .order = FOL_ANY, .cls = FOL_ANY, .symfs = o->symfs };
	struct input *in = calloc((size_t)n, sizeof(*in));
	struct sides sd = { 0 };
	struct fol_cmp c;
	char err[256];
	int ret = 0, status = 0;

	if (!in)
		return 1;
	for (int i = 0; i < n && !status; i++) {
		in[i].path = paths[i];
		status = input_load(&in[i], &mo);
	}
	if (!status)
		warn_setup(in, n);
	for (int i = 0; i < n && !status; i++) {
		ret = sides_add(&sd, in[i].rs, in[i].n, paths[i], NULL);
		if (ret)
			status = error("%s", ret == -E2BIG ? "more than 64 sides" : fol_strerror(ret));
	}
	if (!status) {
		ret = fol_compare(sd.v, sd.n, o->fdr, &c);
		if (ret) {
			error("%s", fol_strerror(ret));
			status = 1;
		} else {
			if (o->figures && !fol_cmp_select(&c, o->figures))
				warning("--figures %s: no figure's key matches (compare --json lists "
					"the keys)", o->figures);
			if (o->fmt == FMT_JSON) {
				cJSON *j = fol_cmp_json(&c);

				if (j && o->nsort)
					status = compare_sites(&sd, o, j);
				status = status ? (cJSON_Delete(j), status) : print_json(j, stdout);
			} else if (o->nsort) {
				status = compare_sites(&sd, o, NULL);
			} else if (o->fmt == FMT_MMTESTS) {
				fol_cmp_mmtests(&c, stdout);
			} else if (o->fmt == FMT_HTML || o->fmt == FMT_SVG) {
				ret = o->fmt == FMT_HTML ? fol_cmp_html(&c, stdout)
							 : fol_cmp_svg(&c, o->figures != NULL, stdout);
				if (ret)
					status = error("%s", fol_strerror(ret));
			} else if (o->tui) {
				if (fol_tui_compare(&c, err, sizeof(err))) {
					error("%s", err);
					status = 1;
				}
			} else {
				fol_cmp_text(&c, stdout);
				fol_cmp_probe_text(&c, stdout);
			}
			fol_cmp_free(&c);
		}
	}
	sides_free(&sd);
	for (int i = 0; i < n; i++)
		input_free(&in[i]);
	free(in);
	return status;
}

static int opt_fdr(const struct opt *o, const char *arg)
{
	struct compare_cli *c = o->value;
	int ret = fol_parse_decimal(arg, 0.0001, 0.5, &c->fdr);

	return ret ? print_bad_number("--fdr", "a rate from 0.0001 to 0.5 (0.05)", arg, ret) : 0;
}

static int opt_sort(const struct opt *o, const char *arg)
{
	struct compare_cli *c = o->value;
	struct fol_msgs why = { 0 };
	int ret = 0;

	if (fol_sort_parse(arg, c->sort, &c->nsort, &why))
		ret = usage_error("--sort: %s", fol_msgs_last(&why));
	fol_msgs_free(&why);
	return ret;
}

static int opt_format(const struct opt *o, const char *arg)
{
	struct compare_cli *c = o->value;

	static const char *const names[] = { "text", "json", "mmtests", "html", "svg" };
	static const enum format fmts[] = { FMT_TEXT, FMT_JSON, FMT_MMTESTS, FMT_HTML, FMT_SVG };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(*names) && strcmp(arg, names[i]); i++)
		;
	if (i == sizeof(names) / sizeof(*names))
		return usage_error("--format %s: text, json, mmtests, html or svg", arg);
	c->fmt = fmts[i];
	c->tui = 0;
	return 0;
}

/* --html, --json, --tui: one output each. */
static int opt_output(const struct opt *o, const char *arg)
{
	struct compare_cli *c = o->value;

	(void)arg;
	c->tui = !strcmp(o->long_name, "tui");
	c->fmt = !strcmp(o->long_name, "html") ? FMT_HTML
	       : !strcmp(o->long_name, "json") ? FMT_JSON : FMT_TEXT;
	return 0;
}

int compare_main(int argc, char **argv, int tui)
{
	struct compare_cli o = { .fmt = FMT_TEXT, .tui = tui, .fdr = FOL_CMP_FDR, .top = 40 };
	const struct opt opts[] = {
		OPT_CALLBACK(0, "fdr", &o, "Q", opt_fdr,
			     "the marks' false-discovery rate (default 0.05; --alpha\n"
			     "is the same option)"),
		OPT_CALLBACK_ALIAS("alpha", &o, "Q", opt_fdr),
		OPT_STRING(0, "figures", &o.figures, "GLOBS",
			   "show only the figures whose keys match these patterns,\n"
			   "comma-separated ('latency.*,order.64K.*'); the test\n"
			   "still counts every figure"),
		OPT_CALLBACK(0, "sort", &o, "KEYS", opt_sort,
			     "site by site, as perf diff: faults and fault time per\n"
			     "group of order, class, sym, dso, map, comm (report's\n"
			     "--sort keys), each change tested over runs; text: that\n"
			     "table alone, JSON: added as \"sites\""),
		OPT_INTEGER(0, "top", &o.top, "N", 0, 1 << 30, "a number of rows (0: all)",
			    "with --sort: the N sites with most time (default 40;\n"
			    "0: all)"),
		OPT_STRING(0, "symfs", &o.symfs, "DIR", "with --sort: the recorded binaries under DIR"),
		OPT_CALLBACK(0, "format", &o, "FMT", opt_format,
			     "text (default), json, html; mmtests: its blocks (Min,\n"
			     "Amean, Stddev, CoeffVar, Max, BAmean-95), its star, the\n"
			     "95% interval of each change with the mark, Gmean and\n"
			     "Duration, to paste into a mail; svg: the marked\n"
			     "figures' strips (--figures: those) as an image to link"),
		OPT_CALLBACK(0, "html", &o, NULL, opt_output,
			     "one self-contained HTML page on stdout: the marks,\n"
			     "each tested figure's runs on one axis of the change\n"
			     "with its interval, p and q, the untested folded, the\n"
			     "latency distributions overlaid (--format html)"),
		OPT_CALLBACK(0, "json", &o, NULL, opt_output,
			     "foliostat/compare/v3 on stdout (man foliostat-compare)"),
		OPT_CALLBACK(0, "tui", &o, NULL, opt_output, "the comparison, interactive"),
		OPT_END(),
	};
	int x, y, ret = parse_options(argc, argv, opts, &compare_usage, 0);

	if (ret)
		return ret < 0 ? 0 : ret;
	if (o.nsort && (o.tui || o.fmt == FMT_MMTESTS || o.fmt == FMT_HTML || o.fmt == FMT_SVG))
		return usage_error("--sort is for the text and JSON outputs");
	if (argc - optind < 2 || argc - optind > MAX_SIDES)
		return usage_error("give two recordings or directories of recordings or more (at "
				   "most %d): BASE NEW...", MAX_SIDES);
	if (some_file_twice(argv + optind, argc - optind, &x, &y))
		return usage_error("%s and %s are the same file: compare two recordings "
				    "(record -r N gives several runs of one)", argv[optind + x], argv[optind + y]);
	return compare_files(argv + optind, argc - optind, &o);
}

int cmd_compare(int argc, char **argv)
{
	return compare_main(argc, argv, 0);
}
