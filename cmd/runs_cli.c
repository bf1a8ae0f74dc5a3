// SPDX-License-Identifier: GPL-2.0-only
#include "runs_cli.h"

#include <errno.h>
#include <stdlib.h>

#include "compare/sides.h"
#include "tui.h"
#include "util.h"
#include "util/errors.h"
#include "util/escape.h"

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
	struct fol_sides sd = { 0 };
	struct fol_cmp c;
	char esc[256];
	/* The text's columns say what was swept; JSON keeps the configuration as it is. */
	int ret = fol_sides_add(&sd, rs, 1, NULL, how == RUNS_JSON || how == RUNS_TUI ? NULL : rs->sweep);

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
		fol_sides_free(&sd);
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
	fol_sides_free(&sd);
	return ret;
}

int open_comparison(struct fol_comparison *k, char **paths, int n, const struct fol_model_opts *mo,
		    double fdr)
{
	struct fol_msgs warn = { 0 }, why = { 0 };
	const char *failed;
	int ret = fol_comparison_open(k, paths, n, mo, fdr, &warn, &why, &failed), status = 0;

	for (int i = 0; i < warn.n; i++)
		warning("%s", warn.v[i]);
	fol_msgs_free(&warn);
	if (ret && failed) {
		print_open_error(failed, ret);
		status = 1;
	} else if (ret) {
		status = error("%s", fol_msgs_last(&why));
	}
	fol_msgs_free(&why);
	return status;
}
