// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "runs_cli.h"
#include "util/errors.h"
#include "compare/compare.h"
#include "compare/compare_sites.h"
#include "compare/inputs.h"
#include "compare/sides.h"
#include "tui.h"
#include "util/parse.h"
#include "util.h"
#include "util/msgs.h"
#include "options.h"

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
static int compare_sites(const struct fol_sides *sd, const struct compare_cli *o, cJSON *json)
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

/* The comparison as the options say: text, JSON, mmtests, HTML, SVG, the sites or the
 * TUI. 0, or the exit status. */
static int compare_out(const struct fol_comparison *k, const struct compare_cli *o)
{
	const struct fol_cmp *c = &k->c;
	char err[256];
	int ret, status = 0;

	if (o->fmt == FMT_JSON) {
		cJSON *j = fol_cmp_json(c);

		if (j && o->nsort)
			status = compare_sites(&k->sd, o, j);
		return status ? (cJSON_Delete(j), status) : print_json(j, stdout);
	}
	if (o->nsort)
		return compare_sites(&k->sd, o, NULL);
	if (o->fmt == FMT_MMTESTS) {
		fol_cmp_mmtests(c, stdout);
	} else if (o->fmt == FMT_HTML || o->fmt == FMT_SVG) {
		ret = o->fmt == FMT_HTML ? fol_cmp_html(c, stdout) : fol_cmp_svg(c, o->figures != NULL, stdout);
		if (ret)
			return error("%s", fol_strerror(ret));
	} else if (o->tui) {
		if (fol_tui_compare(c, err, sizeof(err)))
			return error("%s", err);
	} else {
		fol_cmp_text(c, stdout);
		fol_cmp_probe_text(c, stdout);
	}
	return 0;
}

static int compare_files(char **paths, int n, const struct compare_cli *o)
{
	struct fol_model_opts mo = { .order = FOL_ANY, .cls = FOL_ANY, .symfs = o->symfs };
	struct fol_comparison k;
	int status = open_comparison(&k, paths, n, &mo, o->fdr);

	if (!status) {
		if (o->figures && !fol_cmp_select(&k.c, o->figures))
			warning("--figures %s: no figure's key matches (compare --json lists the keys)",
				o->figures);
		status = compare_out(&k, o);
	}
	fol_comparison_close(&k);
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

int cmd_compare(int argc, char **argv)
{
	struct compare_cli o = { .fmt = FMT_TEXT, .fdr = FOL_CMP_FDR, .top = 40 };
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
	struct fol_msgs why = { 0 };
	int ret = parse_options(argc, argv, opts, &compare_usage, 0);

	if (ret)
		return ret < 0 ? 0 : ret;
	if (o.nsort && (o.tui || o.fmt == FMT_MMTESTS || o.fmt == FMT_HTML || o.fmt == FMT_SVG))
		return usage_error("--sort is for the text and JSON outputs");
	if (fol_comparison_check(argv + optind, argc - optind, &why)) {
		ret = usage_error("%s", fol_msgs_last(&why));
		fol_msgs_free(&why);
		return ret;
	}
	return compare_files(argv + optind, argc - optind, &o);
}
