// SPDX-License-Identifier: GPL-2.0-only
#include "compare/compare.h"
#include "util/grow.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PHASES 64

/* ---- computing ---- */

void fol_cmp_decide(const struct fol_figure *fig, const double *base, int nb, const double *v,
		    int nv, struct fol_cmp_cell *cell)
{
	struct fol_desc b, n;
	double floor, change;
	int past;

	fol_desc_of(base, nb, &b);
	fol_desc_of(v, nv, &n);
	change = b.mean != 0 ? (n.mean - b.mean) / fabs(b.mean) : n.mean == 0 ? 0 : NAN;
	cell->change = change;
	cell->test = FOL_TEST_NONE;
	cell->tested = cell->candidate = cell->significant = 0;
	cell->marker = 0;
	cell->ci_lo = cell->ci_hi = NAN;
	memset(&cell->t, 0, sizeof(cell->t));
	memset(&cell->mwu, 0, sizeof(cell->mwu));
	if (nb < FOL_CMP_MIN_RUNS || nv < FOL_CMP_MIN_RUNS)
		return;
	cell->test = FOL_TEST_WELCH;
	fol_welch(v, nv, base, nb, &cell->t);
	fol_mann_whitney(v, nv, base, nb, &cell->mwu);
	if (b.mean != 0) {
		cell->ci_lo = cell->t.lo / fabs(b.mean);
		cell->ci_hi = cell->t.hi / fabs(b.mean);
	}
	/* A latency percentile is a histogram bucket's bound: five runs may all land on one
	 * bound, and Welch's t without variance would call the next bound certain (p 0: an
	 * A/A test marked p90s so). Such a figure with a side that does not vary is ranked
	 * instead (Mann-Whitney over the runs). */
	if (fig->resolution > 0 && (b.sd == 0 || n.sd == 0)) {
		cell->test = FOL_TEST_RANKS;
		cell->t = cell->mwu;
	}
	/* A machine's counters and a single fault are shown with their p, outside the family:
	 * no mark can come of them. */
	cell->tested = !fig->system_wide && !fig->single;
	/* The practical floor: 1%, or the run-to-run spread when that is larger, or two
	 * steps of the figure's resolution (a p50 one histogram bucket lower moved 9% in an
	 * A/A test). */
	floor = fmax(fmax(FOL_CMP_FLOOR, 2 * fig->resolution), fmax(b.cv, n.cv));
	past = isnan(change) ? n.mean != 0 : fabs(change) >= floor;
	if (fig->unit == FOL_UNIT_COUNT && (b.sd > 0 || n.sd > 0))
		past &= fabs(n.mean - b.mean) > FOL_CMP_COUNT_SIGMAS * sqrt(fmax(fabs(b.mean), fabs(n.mean)));
	cell->candidate = cell->tested && past;
	if (!cell->candidate)
		return;
	if (fig->better == FOL_BETTER_NONE)
		cell->marker = '*';
	else
		cell->marker = (n.mean < b.mean) == (fig->better == FOL_BETTER_LOWER) ? 'I' : 'R';
}

static int by_p(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

double fol_cmp_mark(struct fol_cmp_cell *const *cells, int n, double fdr)
{
	double *p = malloc(sizeof(*p) * (size_t)(n + 1)), kept = -1;
	int m = 0;

	for (int i = 0; i < n; i++)
		if (cells[i]->tested)
			p[m++] = isnan(cells[i]->t.p) ? 1 : cells[i]->t.p;
	/* Benjamini-Hochberg: the largest p(k) <= k q / m, and every p up to it. Out of
	 * memory nothing is kept: no mark is better than a false one. */
	if (p) {
		qsort(p, (size_t)m, sizeof(*p), by_p);
		for (int k = m; k >= 1; k--)
			if (p[k - 1] <= (double)k * fdr / m) {
				kept = p[k - 1];
				break;
			}
	}
	for (int i = 0; i < n; i++) {
		struct fol_cmp_cell *c = cells[i];

		c->significant = c->candidate && c->t.p <= kept;
		if (!c->significant)
			c->marker = 0;
	}
	free(p);
	return kept;
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
	size_t cap = 0;

	for (int s = 0; s < c->nsides; s++)
		for (int r = 0; r < c->sides[s].n; r++)
			for (int i = 0; i < figs[s][r].n; i++) {
				const struct fol_figure *f = &figs[s][r].v[i];
				int k;

				for (k = 0; k < c->nrows && strcmp(c->rows[k].fig.key, f->key); k++)
					;
				/* A few faults in any run: the row is about a few. */
				if (k < c->nrows) {
					c->rows[k].fig.single |= f->single;
					continue;
				}
				if (FOL_GROW(c->rows, cap, (size_t)c->nrows + 1, 128))
					return -ENOMEM;
				c->rows[c->nrows].fig = *f;
				c->rows[c->nrows].fig.v = 0;
				c->rows[c->nrows++].cell = NULL;
			}
	qsort(c->rows, (size_t)c->nrows, sizeof(*c->rows), by_rank);
	return 0;
}

/* A side's values of one figure over its runs. */
static int side_values(const struct fol_cmp_row *row, struct fol_figures *figs, int nruns,
		       double *v)
{
	int have = 0, n = 0;

	for (int r = 0; r < nruns; r++)
		have += fol_figures_find(&figs[r], row->fig.key) != NULL;
	if (!have)
		return 0;
	for (int r = 0; r < nruns; r++) {
		const struct fol_figure *f = fol_figures_find(&figs[r], row->fig.key);

		if (f)
			v[n++] = f->v;
		else if (row->fig.additive)
			v[n++] = 0;
	}
	return n;
}

/* The false-discovery rate over every cell the compare tested, whichever side. */
static int mark_all(struct fol_cmp *c)
{
	struct fol_cmp_cell **cells = malloc(sizeof(*cells) * ((size_t)c->nrows * (size_t)c->nsides + 1));
	int n = 0;

	if (!cells)
		return -ENOMEM;
	for (int k = 0; k < c->nrows; k++)
		for (int s = 1; s < c->nsides; s++) {
			cells[n] = &c->rows[k].cell[s];
			c->tested += cells[n++]->tested;
		}
	c->p_kept = fol_cmp_mark(cells, n, c->fdr);
	free(cells);
	return 0;
}

static int fill_cells(struct fol_cmp *c, struct fol_figures **figs, int maxruns)
{
	double *base = calloc((size_t)maxruns + 1, sizeof(double));
	double *v = calloc((size_t)maxruns + 1, sizeof(double));
	int ret = base && v ? 0 : -ENOMEM;

	for (int k = 0; k < c->nrows && !ret; k++) {
		struct fol_cmp_row *row = &c->rows[k];
		int nb;

		row->cell = calloc((size_t)c->nsides, sizeof(*row->cell));
		if (!row->cell) {
			ret = -ENOMEM;
			break;
		}
		nb = side_values(row, figs[0], c->sides[0].n, base);
		for (int s = 0; s < c->nsides; s++) {
			struct fol_cmp_cell *cell = &row->cell[s];
			int n = s ? side_values(row, figs[s], c->sides[s].n, v) : nb;

			cell->have = n;
			fol_desc_of(s ? v : base, n, &cell->d);
			cell->change = cell->ci_lo = cell->ci_hi = NAN;
			if (s && n && nb)
				fol_cmp_decide(&row->fig, base, nb, v, n, cell);
		}
	}
	free(base);
	free(v);
	return ret ? ret : mark_all(c);
}

/* A row in the geometric mean: a time, not a maximum or a machine's counter, above 0 on
 * every side. */
static int in_gmean(const struct fol_cmp *c, const struct fol_cmp_row *row)
{
	if (row->fig.unit != FOL_UNIT_NS || row->fig.single || row->fig.system_wide)
		return 0;
	for (int s = 0; s < c->nsides; s++)
		if (!row->cell[s].have || !(row->cell[s].d.mean > 0))
			return 0;
	return 1;
}

static int gmean(struct fol_cmp *c)
{
	c->gmean = calloc((size_t)c->nsides, sizeof(*c->gmean));
	if (!c->gmean)
		return -ENOMEM;
	for (int k = 0; k < c->nrows; k++) {
		if (!in_gmean(c, &c->rows[k]))
			continue;
		for (int s = 0; s < c->nsides; s++)
			c->gmean[s] += log(c->rows[k].cell[s].d.mean);
		c->gmean_n++;
	}
	for (int s = 0; s < c->nsides; s++)
		c->gmean[s] = c->gmean_n ? exp(c->gmean[s] / c->gmean_n) : NAN;
	return 0;
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

int fol_compare(const struct fol_side *sides, int nsides, double fdr, struct fol_cmp *c)
{
	struct fol_figures **figs;
	int ret = 0, maxruns = 1;

	memset(c, 0, sizeof(*c));
	c->nsides = nsides;
	c->fdr = fdr > 0 && fdr < 1 ? fdr : FOL_CMP_FDR;
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
	if (!ret)
		ret = gmean(c);
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

static int matches(const char *key, const char *globs)
{
	char pat[256];

	for (const char *p = globs; *p;) {
		size_t n = strcspn(p, ",");

		snprintf(pat, sizeof(pat), "%.*s", (int)n, p);
		if (pat[0] && !fnmatch(pat, key, 0))
			return 1;
		p += n + (p[n] == ',');
	}
	return 0;
}

int fol_cmp_select(struct fol_cmp *c, const char *globs)
{
	int n = 0;

	for (int k = 0; k < c->nrows; k++) {
		if (matches(c->rows[k].fig.key, globs))
			c->rows[n++] = c->rows[k];
		else
			free(c->rows[k].cell);
	}
	c->nrows = n;
	return n;
}

void fol_cmp_free(struct fol_cmp *c)
{
	for (int k = 0; k < c->nrows; k++)
		free(c->rows[k].cell);
	for (int s = 0; c->probe && s < c->nsides; s++)
		free(c->probe[s]);
	free(c->rows);
	free(c->gmean);
	free(c->probe);
	free(c->nprobe);
	free(c->sides);
	memset(c, 0, sizeof(*c));
}
