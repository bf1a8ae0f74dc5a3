// SPDX-License-Identifier: GPL-2.0-only
#include "compare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PHASES 64

/* ---- computing ---- */

void fol_cmp_decide(const struct fol_figure *fig, const double *base, int nb,
		    const struct fol_hist *base_dist, const double *v, int nv,
		    const struct fol_hist *dist, struct fol_cmp_cell *cell)
{
	struct fol_desc b, n;
	double floor, change;
	int shifted;

	fol_desc_of(base, nb, &b);
	fol_desc_of(v, nv, &n);
	change = b.mean != 0 ? (n.mean - b.mean) / fabs(b.mean) : n.mean == 0 ? 0 : NAN;
	cell->change = change;
	cell->test = FOL_TEST_NONE;
	cell->significant = 0;
	cell->marker = 0;
	memset(&cell->t, 0, sizeof(cell->t));
	memset(&cell->mwu, 0, sizeof(cell->mwu));
	if (nb >= 2 && nv >= 2) {
		cell->test = FOL_TEST_WELCH;
		fol_welch(v, nv, base, nb, &cell->t);
		fol_mann_whitney(v, nv, base, nb, &cell->mwu);
		shifted = 1;
	} else if (nb == 1 && nv == 1 && base_dist && dist &&
		   !fol_mann_whitney_hist(dist, base_dist, &cell->t)) {
		cell->test = FOL_TEST_MWU_FAULTS;
		shifted = fabs(cell->t.effect - 0.5) >= FOL_CMP_EFFECT_FLOOR;
	} else {
		return;
	}
	/* The practical floor: 1%, or the run-to-run spread when that is larger. */
	floor = fmax(FOL_CMP_FLOOR, fmax(b.cv, n.cv));
	if (fig->unit == FOL_UNIT_COUNT)
		shifted &= fabs(n.mean - b.mean) > FOL_CMP_COUNT_SIGMAS * sqrt(fmax(fabs(b.mean), fabs(n.mean)));
	cell->significant = cell->t.p < FOL_CMP_ALPHA && shifted &&
			    (isnan(change) ? n.mean != 0 : fabs(change) >= floor) && !fig->system_wide;
	if (!cell->significant)
		return;
	if (fig->better == FOL_BETTER_NONE)
		cell->marker = '*';
	else
		cell->marker = (n.mean < b.mean) == (fig->better == FOL_BETTER_LOWER) ? 'I' : 'R';
}

static int by_rank(const void *x, const void *y)
{
	const struct fol_cmp_row *a = x, *b = y;

	if (a->fig.rank != b->fig.rank)
		return a->fig.rank < b->fig.rank ? -1 : 1;
	return strcmp(a->fig.key, b->fig.key);
}

/* Every figure any run of any side has, once. */
static int collect_rows(struct fol_cmp *c, struct fol_figures **figs)
{
	int cap = 0;

	for (int s = 0; s < c->nsides; s++)
		for (int r = 0; r < c->sides[s].n; r++)
			for (int i = 0; i < figs[s][r].n; i++) {
				const struct fol_figure *f = &figs[s][r].v[i];
				int k;

				for (k = 0; k < c->nrows && strcmp(c->rows[k].fig.key, f->key); k++)
					;
				if (k < c->nrows)
					continue;
				if (c->nrows == cap) {
					int ncap = cap ? cap * 2 : 128;
					struct fol_cmp_row *g = realloc(c->rows, (size_t)ncap * sizeof(*g));

					if (!g)
						return -ENOMEM;
					c->rows = g;
					cap = ncap;
				}
				c->rows[c->nrows].fig = *f;
				c->rows[c->nrows].fig.v = 0;
				c->rows[c->nrows].fig.dist = NULL;
				c->rows[c->nrows++].cell = NULL;
			}
	qsort(c->rows, (size_t)c->nrows, sizeof(*c->rows), by_rank);
	return 0;
}

/* A side's values of one figure over its runs; the distribution when it has one run. */
static int side_values(const struct fol_cmp_row *row, struct fol_figures *figs, int nruns,
		       double *v, const struct fol_hist **dist)
{
	int have = 0, n = 0;

	*dist = NULL;
	for (int r = 0; r < nruns; r++)
		have += fol_figures_find(&figs[r], row->fig.key) != NULL;
	if (!have)
		return 0;
	for (int r = 0; r < nruns; r++) {
		const struct fol_figure *f = fol_figures_find(&figs[r], row->fig.key);

		if (f) {
			v[n++] = f->v;
			if (nruns == 1)
				*dist = f->dist;
		} else if (row->fig.additive) {
			v[n++] = 0;
		}
	}
	return n;
}

static int fill_cells(struct fol_cmp *c, struct fol_figures **figs, int maxruns)
{
	double *base = calloc((size_t)maxruns + 1, sizeof(double));
	double *v = calloc((size_t)maxruns + 1, sizeof(double));
	int ret = base && v ? 0 : -ENOMEM;

	for (int k = 0; k < c->nrows && !ret; k++) {
		struct fol_cmp_row *row = &c->rows[k];
		const struct fol_hist *bdist, *dist;
		int nb;

		row->cell = calloc((size_t)c->nsides, sizeof(*row->cell));
		if (!row->cell) {
			ret = -ENOMEM;
			break;
		}
		nb = side_values(row, figs[0], c->sides[0].n, base, &bdist);
		for (int s = 0; s < c->nsides; s++) {
			struct fol_cmp_cell *cell = &row->cell[s];
			int n = s ? side_values(row, figs[s], c->sides[s].n, v, &dist) : nb;

			cell->have = n;
			fol_desc_of(s ? v : base, n, &cell->d);
			cell->change = NAN;
			if (s && n && nb)
				fol_cmp_decide(&row->fig, base, nb, bdist, v, n, dist, cell);
		}
	}
	free(base);
	free(v);
	return ret;
}

/* Phase times of the untraced runs of a side, by name, into per-name arrays. */
static double bare_phase(const cJSON *bare, const char *name, double *out, int max)
{
	const cJSON *b;
	int n = 0;

	cJSON_ArrayForEach(b, bare)
	{
		const cJSON *p;
		double t = 0;
		int seen = 0;

		cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(b, "phases"))
		{
			const char *pn = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "phase"));
			const cJSON *st = cJSON_GetObjectItemCaseSensitive(p, "start_ns");
			const cJSON *en = cJSON_GetObjectItemCaseSensitive(p, "end_ns");

			if (pn && !strcmp(pn, name) && cJSON_IsNumber(st) && cJSON_IsNumber(en) &&
			    en->valuedouble >= st->valuedouble) {
				t += en->valuedouble - st->valuedouble;
				seen = 1;
			}
		}
		if (seen && n < max)
			out[n++] = t;
	}
	return n;
}

/* Each run's phase totals, read once for every phase name. */
struct run_phases {
	const char *names[MAX_PHASES];
	double ns[MAX_PHASES], faults[MAX_PHASES];
	int n;
};

static int side_probe(struct fol_cmp *c, int s)
{
	const struct fol_side *side = &c->sides[s];
	int nbare = cJSON_GetArraySize(side->bare), cap = side->n + nbare + 1;
	double *traced = calloc((size_t)cap, sizeof(double)), *untraced = calloc((size_t)cap, sizeof(double));
	struct run_phases *rp = calloc((size_t)side->n + 1, sizeof(*rp));
	int ret = traced && untraced && rp ? 0 : -ENOMEM, nnames;

	for (int r = 0; r < side->n && !ret; r++)
		rp[r].n = fol_phase_totals(side->runs[r], rp[r].names, rp[r].ns, rp[r].faults, MAX_PHASES);
	nnames = side->n && !ret ? rp[0].n : 0;
	c->probe[s] = calloc((size_t)nnames + 1, sizeof(**c->probe));
	if (!c->probe[s])
		ret = -ENOMEM;
	for (int i = 0; i < nnames && !ret && nbare; i++) {
		struct fol_cmp_probe *p = &c->probe[s][c->nprobe[s]];
		const char *name = rp[0].names[i];
		double sum_faults = 0;
		int nt = 0;

		for (int r = 0; r < side->n; r++)
			for (int k = 0; k < rp[r].n; k++)
				if (!strcmp(rp[r].names[k], name)) {
					traced[nt++] = rp[r].ns[k];
					sum_faults += rp[r].faults[k];
				}
		snprintf(p->phase, sizeof(p->phase), "%s", name);
		fol_desc_of(traced, nt, &p->traced);
		fol_desc_of(untraced, (int)bare_phase(side->bare, name, untraced, cap), &p->bare);
		p->faults = nt ? sum_faults / nt : 0;
		if (p->bare.n && p->traced.n)
			c->nprobe[s]++;
	}
	free(rp);
	free(traced);
	free(untraced);
	return ret;
}

int fol_compare(const struct fol_side *sides, int nsides, struct fol_cmp *c)
{
	struct fol_figures **figs;
	int ret = 0, maxruns = 1;

	memset(c, 0, sizeof(*c));
	c->nsides = nsides;
	c->sides = calloc((size_t)nsides, sizeof(*c->sides));
	c->probe = calloc((size_t)nsides, sizeof(*c->probe));
	c->nprobe = calloc((size_t)nsides, sizeof(*c->nprobe));
	figs = calloc((size_t)nsides, sizeof(*figs));
	if (!c->sides || !c->probe || !c->nprobe || !figs)
		ret = -ENOMEM;
	for (int s = 0; s < nsides && !ret; s++) {
		c->sides[s] = sides[s];
		if (sides[s].n > maxruns)
			maxruns = sides[s].n;
		figs[s] = calloc((size_t)sides[s].n + 1, sizeof(**figs));
		if (!figs[s]) {
			ret = -ENOMEM;
			break;
		}
		for (int r = 0; r < sides[s].n && !ret; r++)
			ret = fol_figures_of(sides[s].runs[r], &figs[s][r]);
	}
	if (!ret)
		ret = collect_rows(c, figs);
	if (!ret)
		ret = fill_cells(c, figs, maxruns);
	for (int s = 0; s < nsides && !ret; s++)
		ret = side_probe(c, s);
	for (int s = 0; figs && s < nsides; s++) {
		for (int r = 0; figs[s] && r < sides[s].n; r++)
			fol_figures_free(&figs[s][r]);
		free(figs[s]);
	}
	free(figs);
	if (ret)
		fol_cmp_free(c);
	return ret;
}

void fol_cmp_free(struct fol_cmp *c)
{
	for (int k = 0; k < c->nrows; k++)
		free(c->rows[k].cell);
	for (int s = 0; c->probe && s < c->nsides; s++)
		free(c->probe[s]);
	free(c->rows);
	free(c->probe);
	free(c->nprobe);
	free(c->sides);
	memset(c, 0, sizeof(*c));
}
