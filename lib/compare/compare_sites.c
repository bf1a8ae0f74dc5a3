// SPDX-License-Identifier: GPL-2.0-only
#include "compare/compare_sites.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare_priv.h"
#include "util/escape.h"
#include "util/grow.h"

/* One group of one run, for the merge of every run's groups by key. */
struct entry {
	const struct fol_group *g;
	int side, run;
};

static int by_key(const void *x, const void *y)
{
	const struct entry *a = x, *b = y;
	int c = strcmp(a->g->key, b->g->key);

	if (c)
		return c;
	return a->side != b->side ? a->side - b->side : a->run - b->run;
}

static int by_weight(const void *x, const void *y)
{
	const struct fol_cmp_site *a = x, *b = y;

	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	return strcmp(a->key, b->key);
}

/* The figures a site's cells are tested as: additive (a run without the site had none of
 * it), fewer is better; its time is about a few faults when a run had fewer than
 * FOL_FIG_FEW there (never marked, as a report figure's). */
static void site_figures(struct fol_figure *faults, struct fol_figure *time)
{
	memset(faults, 0, sizeof(*faults));
	faults->unit = FOL_UNIT_COUNT;
	faults->better = FOL_BETTER_LOWER;
	faults->additive = 1;
	*time = *faults;
	time->unit = FOL_UNIT_NS;
}

/* The site of the entries e[0..n) (one key): its parts, and each side's values over its
 * runs, tested against the base's. */
static int fill_site(struct fol_cmp_sites *c, struct fol_cmp_site *site, const struct entry *e, int n,
		     double *vals, int maxruns)
{
	const struct fol_side *sides = c->head.sides;
	int nsides = c->head.nsides;
	struct fol_figure ff, ft;

	site_figures(&ff, &ft);
	site->key = strdup(e[0].g->key);
	site->faults = calloc((size_t)nsides, sizeof(*site->faults));
	site->time = calloc((size_t)nsides, sizeof(*site->time));
	if (!site->key || !site->faults || !site->time)
		return -ENOMEM;
	for (int k = 0; k < FOL_SORT_NR; k++)
		if (e[0].g->part[k] && !(site->part[k] = strdup(e[0].g->part[k])))
			return -ENOMEM;
	/* vals: [side][run] faults, then [side][run] time. */
	memset(vals, 0, sizeof(double) * 2 * (size_t)nsides * (size_t)maxruns);
	for (int i = 0; i < n; i++) {
		double *f = &vals[(size_t)e[i].side * (size_t)maxruns + (size_t)e[i].run];

		f[0] += (double)e[i].g->faults;
		f[(size_t)nsides * (size_t)maxruns] += (double)e[i].g->time_ns;
		if (e[i].g->faults < FOL_FIG_FEW)
			ft.single = 1;
	}
	for (int s = 0; s < nsides; s++) {
		const double *bf = vals, *bt = vals + (size_t)nsides * (size_t)maxruns;
		const double *vf = bf + (size_t)s * (size_t)maxruns, *vt = bt + (size_t)s * (size_t)maxruns;

		site->faults[s].have = site->time[s].have = sides[s].n;
		fol_desc_of(vf, sides[s].n, &site->faults[s].d);
		fol_desc_of(vt, sides[s].n, &site->time[s].d);
		site->faults[s].change = site->time[s].change = NAN;
		site->faults[s].ci_lo = site->faults[s].ci_hi = NAN;
		site->time[s].ci_lo = site->time[s].ci_hi = NAN;
		if (s) {
			struct fol_cmp_sample b = { bf, sides[0].rec, sides[0].n, sides[0].nrec,
						    sides[0].recording };
			struct fol_cmp_sample v = { vf, sides[s].rec, sides[s].n, sides[s].nrec,
						    sides[s].recording };

			fol_cmp_decide(&ff, &b, &v, 0, &site->faults[s]);
			b.v = bt;
			v.v = vt;
			fol_cmp_decide(&ft, &b, &v, 0, &site->time[s]);
		}
		site->weight = fmax(site->weight, site->time[s].d.mean);
	}
	return 0;
}

/* Every run's groups, by key. */
static int gather(const struct fol_side *sides, int nsides, const int *keys, int nkeys,
		  struct fol_grouping *gs, struct entry **out, size_t *nout)
{
	size_t n = 0, cap = 0;
	int ret = 0, idx = 0;

	*out = NULL;
	for (int s = 0; s < nsides && !ret; s++)
		for (int r = 0; r < sides[s].n && !ret; r++, idx++) {
			ret = fol_report_group(sides[s].runs[r], keys, nkeys, &gs[idx]);
			for (size_t i = 0; i < gs[idx].n && !ret; i++) {
				if ((ret = FOL_GROW(*out, cap, n + 1, 256)))
					break;
				(*out)[n++] = (struct entry){ &gs[idx].v[i], s, r };
			}
		}
	if (n)
		qsort(*out, n, sizeof(**out), by_key);
	*nout = n;
	return ret;
}

/* The false-discovery rate over every site cell tested: the sites' own family. */
static int mark_sites(struct fol_cmp_sites *c)
{
	int nsides = c->head.nsides;
	struct fol_cmp_cell **cells = malloc(sizeof(*cells) * (2 * c->n * (size_t)nsides + 1));
	int n = 0;

	if (!cells)
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++)
		for (int s = 1; s < nsides; s++) {
			cells[n++] = &c->v[i].faults[s];
			cells[n++] = &c->v[i].time[s];
		}
	fol_cmp_mark_family(&c->head, cells, n);
	free(cells);
	return 0;
}

static int build(struct fol_cmp_sites *c, const struct entry *e, size_t n)
{
	int maxruns = 1, ret = 0;
	double *vals;

	for (int s = 0; s < c->head.nsides; s++)
		maxruns = c->head.sides[s].n > maxruns ? c->head.sides[s].n : maxruns;
	vals = malloc(sizeof(double) * 2 * (size_t)c->head.nsides * (size_t)maxruns);
	c->v = calloc(n + 1, sizeof(*c->v));
	if (!vals || !c->v)
		ret = -ENOMEM;
	for (size_t i = 0; i < n && !ret;) {
		size_t j = i + 1;

		while (j < n && !strcmp(e[j].g->key, e[i].g->key))
			j++;
		ret = fill_site(c, &c->v[c->n++], &e[i], (int)(j - i), vals, maxruns);
		i = j;
	}
	free(vals);
	if (!ret && c->n)
		qsort(c->v, c->n, sizeof(*c->v), by_weight);
	return ret ? ret : mark_sites(c);
}

int fol_compare_sites(const struct fol_side *sides, int nsides, const int *keys, int nkeys,
		      double fdr, struct fol_cmp_sites *c)
{
	struct fol_grouping *gs;
	struct entry *e = NULL;
	size_t ne = 0;
	int nruns = 0, ret;

	memset(c, 0, sizeof(*c));
	for (int s = 0; s < nsides; s++)
		nruns += sides[s].n;
	c->head.nsides = nsides;
	c->head.fdr = fdr > 0 && fdr < 1 ? fdr : FOL_CMP_FDR;
	c->head.level = fol_cmp_sides_level(sides, nsides);
	c->head.order = fol_cmp_sides_order(sides, nsides, c->head.level);
	c->head.p_kept = -1;
	c->head.sides = calloc((size_t)nsides + 1, sizeof(*c->head.sides));
	gs = calloc((size_t)nruns + 1, sizeof(*gs));
	memcpy(c->keys, keys, sizeof(int) * (size_t)nkeys);
	c->nkeys = nkeys;
	ret = gs && c->head.sides ? 0 : -ENOMEM;
	if (!ret) {
		memcpy(c->head.sides, sides, sizeof(*sides) * (size_t)nsides);
		ret = gather(sides, nsides, keys, nkeys, gs, &e, &ne);
	}
	if (!ret)
		ret = build(c, e, ne);
	for (int i = 0; gs && i < nruns; i++)
		fol_grouping_free(&gs[i]);
	free(gs);
	free(e);
	if (ret)
		fol_cmp_sites_free(c);
	return ret;
}

void fol_cmp_sites_free(struct fol_cmp_sites *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].key);
		for (int k = 0; k < FOL_SORT_NR; k++)
			free(c->v[i].part[k]);
		free(c->v[i].faults);
		free(c->v[i].time);
	}
	free(c->v);
	free(c->head.sides);
	memset(c, 0, sizeof(*c));
}

/* The keys' values of a site, two spaces apart, escaped. */
static void parts_text(const struct fol_cmp_sites *c, const struct fol_cmp_site *site, FILE *f)
{
	char esc[512];

	for (int k = 0; k < c->nkeys; k++)
		fprintf(f, "%s%s", k ? "  " : "",
			fol_escape(site->part[c->keys[k]] ? site->part[c->keys[k]] : "?", esc, sizeof(esc)));
}

static void cells_text(const struct fol_cmp_sites *c, const struct fol_cmp_cell *cells,
		       enum fol_unit unit, FILE *f)
{
	char v[32];

	for (int s = 0; s < c->head.nsides; s++) {
		fputc(' ', f);
		fol_cmp_rcol(f, fol_cmp_value(unit, cells[s].d.mean, v, sizeof(v)), 9);
		if (s) {
			fputc(' ', f);
			fol_cmp_cell_change(&cells[s], &cells[0], 0, f);
		}
	}
}

static void columns_text(const struct fol_cmp_sites *c, FILE *f)
{
	char esc[64];
	int group = 10 * c->head.nsides + 14 * (c->head.nsides - 1);

	fprintf(f, "\n %-*s %s\n", group - 1, "faults (mean over runs)", "fault time");
	for (int g = 0; g < 2; g++)
		for (int s = 0; s < c->head.nsides; s++) {
			fprintf(f, " %9.9s", fol_escape(c->head.sides[s].name, esc, sizeof(esc)));
			if (s)
				fprintf(f, " %9s    ", "change");
		}
	for (int k = 0; k < c->nkeys; k++)
		fprintf(f, "%s%s", k ? "  " : "  ", fol_sort_name(c->keys[k]));
	fputc('\n', f);
}

void fol_cmp_sites_text(const struct fol_cmp_sites *c, int top, FILE *f)
{
	size_t n = top > 0 && (size_t)top < c->n ? (size_t)top : c->n;

	fol_cmp_header(&c->head, f);
	columns_text(c, f);
	for (size_t i = 0; i < n; i++) {
		cells_text(c, c->v[i].faults, FOL_UNIT_COUNT, f);
		cells_text(c, c->v[i].time, FOL_UNIT_NS, f);
		fputs("  ", f);
		parts_text(c, &c->v[i], f);
		fputc('\n', f);
	}
	if (n < c->n)
		fprintf(f, "(%zu more: --top N, or --top 0 for all)\n", c->n - n);
}

static cJSON *cells_json(const struct fol_cmp_sites *c, const struct fol_cmp_cell *cells)
{
	cJSON *a = cJSON_CreateArray();

	for (int s = 0; a && s < c->head.nsides; s++)
		cJSON_AddItemToArray(a, fol_cmp_cell_json(&cells[s], s == 0));
	return a;
}

cJSON *fol_cmp_sites_json(const struct fol_cmp_sites *c, int top)
{
	cJSON *o = cJSON_CreateObject(), *keys = cJSON_AddArrayToObject(o, "keys"), *t, *rows;
	size_t n = top > 0 && (size_t)top < c->n ? (size_t)top : c->n;

	for (int k = 0; k < c->nkeys; k++)
		cJSON_AddItemToArray(keys, cJSON_CreateString(fol_sort_name(c->keys[k])));
	t = cJSON_AddObjectToObject(o, "test");
	cJSON_AddNumberToObject(t, "fdr", c->head.fdr);
	cJSON_AddNumberToObject(t, "tested", c->head.tested);
	if (c->head.p_kept >= 0)
		cJSON_AddNumberToObject(t, "p_kept", c->head.p_kept);
	else
		cJSON_AddNullToObject(t, "p_kept");
	cJSON_AddNumberToObject(o, "rows_total", (double)c->n);
	rows = cJSON_AddArrayToObject(o, "rows");
	for (size_t i = 0; i < n; i++) {
		cJSON *r = cJSON_CreateObject(), *key = cJSON_AddObjectToObject(r, "key");

		for (int k = 0; k < c->nkeys; k++) {
			const char *p = c->v[i].part[c->keys[k]];

			cJSON_AddStringToObject(key, fol_sort_name(c->keys[k]), p ? p : "?");
		}
		cJSON_AddItemToObject(r, "faults", cells_json(c, c->v[i].faults));
		cJSON_AddItemToObject(r, "time_ns", cells_json(c, c->v[i].time));
		cJSON_AddItemToArray(rows, r);
	}
	return o;
}
