// SPDX-License-Identifier: GPL-2.0-only
#include "compare/compare.h"
#include "compare/compare_priv.h"
#include "util/grow.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PHASES 64

/* ---- computing ---- */

/* The values a side's test takes: its runs, or each recording's mean over its runs
 * (recordings without the figure left out); of their logarithms with logs (a time: a
 * run ten times slower than its recording's others moves its recording's mean of logs
 * by a tenth of a log each run, not its mean by a factor of three). out holds s->n
 * values; returns how many. */
static int test_values(const struct fol_cmp_sample *s, enum fol_cmp_level level, int logs, double *out)
{
	int n = 0;

	if (level != FOL_LEVEL_RECORDINGS || !s->rec) {
		for (int i = 0; i < s->n; i++)
			out[i] = logs ? log(s->v[i]) : s->v[i];
		return s->n;
	}
	for (int r = 0; r < s->nrec; r++) {
		double sum = 0;
		int k = 0;

		for (int i = 0; i < s->n; i++)
			if (s->rec[i] == r) {
				sum += logs ? log(s->v[i]) : s->v[i];
				k++;
			}
		if (k)
			out[n++] = sum / k;
	}
	return n;
}

static int recordings(const struct fol_cmp_sample *s)
{
	return s->rec && s->nrec > 1 ? s->nrec : 1;
}

/* Every value above 0: a time of 0 has no logarithm. */
static int all_positive(const struct fol_cmp_sample *s)
{
	for (int i = 0; i < s->n; i++)
		if (!(s->v[i] > 0))
			return 0;
	return 1;
}

/* Welch over the test's values, and the interval of the change it gives. */
static void test_cell(const struct fol_figure *fig, const struct fol_cmp_sample *base,
		      const struct fol_cmp_sample *v, struct fol_cmp_cell *cell)
{
	double *b = malloc(sizeof(double) * ((size_t)base->n + 1));
	double *x = malloc(sizeof(double) * ((size_t)v->n + 1));
	struct fol_desc bd;

	if (!b || !x)
		goto out;
	cell->log = fig->unit == FOL_UNIT_NS && all_positive(base) && all_positive(v);
	cell->nb = test_values(base, cell->level, cell->log, b);
	cell->nv = test_values(v, cell->level, cell->log, x);
	if (cell->nb < FOL_CMP_MIN_RUNS || cell->nv < FOL_CMP_MIN_RUNS) {
		cell->log = 0;
		goto out;
	}
	fol_desc_of(b, cell->nb, &bd);
	cell->test = FOL_TEST_WELCH;
	fol_welch(x, cell->nv, b, cell->nb, &cell->t);
	fol_mann_whitney(x, cell->nv, b, cell->nb, &cell->mwu);
	if (cell->log) {
		cell->ci_lo = expm1(cell->t.lo);
		cell->ci_hi = expm1(cell->t.hi);
	} else if (bd.mean != 0) {
		cell->ci_lo = cell->t.lo / fabs(bd.mean);
		cell->ci_hi = cell->t.hi / fabs(bd.mean);
	}
out:
	free(b);
	free(x);
}

/* Why a figure of these sides is not in the family, or FOL_UNTESTED_NOT. */
static enum fol_cmp_untested untested(const struct fol_figure *fig, const struct fol_cmp_cell *cell,
				      const struct fol_desc *b, const struct fol_desc *n, int restates)
{
	if (cell->test == FOL_TEST_NONE)
		return FOL_UNTESTED_FEW_RUNS;
	if (fig->system_wide)
		return FOL_UNTESTED_MACHINE;
	if (fig->single)
		return FOL_UNTESTED_SINGLE;
	if (restates)
		return FOL_UNTESTED_RESTATES;
	if (cell->level == FOL_LEVEL_RUNS && b->sd == 0 && n->sd == 0 && b->mean != n->mean)
		return FOL_UNTESTED_STATE;
	if (cell->level == FOL_LEVEL_RUNS && fig->unit == FOL_UNIT_NS)
		return FOL_UNTESTED_DRIFT;
	return FOL_UNTESTED_NOT;
}

/* The practical floor of a change: 1%, or two steps of the figure's resolution (a p50 one
 * histogram bucket lower moved 9% in an A/A test). */
static double floor_of(const struct fol_figure *fig)
{
	return fmax(FOL_CMP_FLOOR, 2 * fig->resolution);
}

static enum fol_cmp_level level_of(const struct fol_cmp_sample *base, const struct fol_cmp_sample *v)
{
	if (recordings(base) > 1 && recordings(v) > 1)
		return FOL_LEVEL_RECORDINGS;
	if (base->recording && base->recording == v->recording)
		return FOL_LEVEL_INTERLEAVED;
	return FOL_LEVEL_RUNS;
}

void fol_cmp_decide(const struct fol_figure *fig, const struct fol_cmp_sample *base,
		    const struct fol_cmp_sample *v, int restates, struct fol_cmp_cell *cell)
{
	struct fol_desc b, n;
	double change;
	int past;

	fol_desc_of(base->v, base->n, &b);
	fol_desc_of(v->v, v->n, &n);
	change = b.mean != 0 ? (n.mean - b.mean) / fabs(b.mean) : n.mean == 0 ? 0 : NAN;
	*cell = (struct fol_cmp_cell){
		.have = v->n,
		.d = n,
		.change = change,
		.level = level_of(base, v),
		.t = { .p = NAN },
		.mwu = { .p = NAN },
		.ci_lo = NAN,
		.ci_hi = NAN,
	};
	test_cell(fig, base, v, cell);
	cell->untested = untested(fig, cell, &b, &n, restates);
	cell->tested = cell->untested == FOL_UNTESTED_NOT;
	if (cell->untested == FOL_UNTESTED_STATE) {
		cell->marker = '=';
		return;
	}
	past = isnan(change) ? n.mean != 0 : fabs(change) >= floor_of(fig);
	if (cell->level == FOL_LEVEL_RUNS && fig->unit == FOL_UNIT_COUNT)
		past &= fabs(n.mean - b.mean) > FOL_CMP_DRIFT_SIGMAS * sqrt(fmax(fabs(b.mean), fabs(n.mean)));
	cell->candidate = cell->tested && past;
	if (!cell->candidate)
		return;
	if (fig->better == FOL_BETTER_NONE)
		cell->marker = '*';
	else
		cell->marker = (n.mean < b.mean) == (fig->better == FOL_BETTER_LOWER) ? 'I' : 'R';
}

static int ascending(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

struct ranked_p {
	double p;
	struct fol_cmp_cell *cell;
};

static int by_p(const void *x, const void *y)
{
	return ascending(&((const struct ranked_p *)x)->p, &((const struct ranked_p *)y)->p);
}

double fol_cmp_mark(struct fol_cmp_cell *const *cells, int n, double fdr)
{
	struct ranked_p *r = malloc(sizeof(*r) * (size_t)(n + 1));
	double kept = -1, q = 1;
	int m = 0;

	for (int i = 0; i < n; i++) {
		cells[i]->q = NAN;
		if (r && cells[i]->tested)
			r[m++] = (struct ranked_p){ isnan(cells[i]->t.p) ? 1 : cells[i]->t.p, cells[i] };
	}
	/* Benjamini-Hochberg: the largest p(k) <= k q / m, and every p up to it; each
	 * cell's q the least m p(j) / j over j >= its rank. Out of memory nothing is kept:
	 * no mark is better than a false one. */
	if (r) {
		qsort(r, (size_t)m, sizeof(*r), by_p);
		for (int k = m; k >= 1; k--) {
			q = fmin(q, r[k - 1].p * m / k);
			r[k - 1].cell->q = q;
			if (kept < 0 && r[k - 1].p <= (double)k * fdr / m)
				kept = r[k - 1].p;
		}
	}
	for (int i = 0; i < n; i++) {
		struct fol_cmp_cell *c = cells[i];

		c->significant = c->candidate && c->t.p <= kept;
		if (!c->significant && c->marker != '=')
			c->marker = 0;
	}
	free(r);
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

/* A side's values of one figure over its runs, and the recording of each, from the
 * row's values of the side's runs (x) and which of them have it (present): a run
 * without a count or a total had none of it (0), one without a mean or percentile is
 * left out; a side where no run has it has none. */
static int side_values(const struct fol_cmp_row *row, const struct fol_side *side, const double *x,
		       const unsigned char *present, double *v, int *rec)
{
	int have = 0, n = 0;

	for (int r = 0; r < side->n; r++)
		have |= present[r];
	for (int r = 0; have && r < side->n; r++) {
		if (!present[r] && !row->fig.additive)
			continue;
		rec[n] = side->rec ? side->rec[r] : 0;
		v[n++] = x[r];
	}
	return n;
}

/* Every side's values of every row, runs in order (a run without the figure: 0 for a
 * count or a total, NAN else): what a row is compared on to tell whether it restates
 * another, and its sides' samples taken from. */
struct all_values {
	double *v;		/* [row][stride] */
	unsigned char *present;	/* [stride]: the current row's runs that have the figure */
	size_t stride;		/* the runs of every side */
};

/* The row above k with the same values on every run of every side, or -1: pmu
 * page-faults repeats faults; a 4K fault time repeats the fault time when every fault was
 * 4K: one effect, tested once. A row whose values are all one number (2 zero-page faults
 * and 2 vDSO faults every run) restates nothing: its likeness is a coincidence. */
static int restated(const struct fol_cmp *c, const struct all_values *av, int k)
{
	const double *x = av->v + (size_t)k * av->stride;
	int varies = 0;

	for (size_t i = 1; i < av->stride; i++)
		varies |= x[i] != x[0] && !(isnan(x[i]) && isnan(x[0]));
	if (!varies)
		return -1;
	for (int j = 0; j < k; j++) {
		const double *y = av->v + (size_t)j * av->stride;
		size_t i;

		if (c->rows[j].restates >= 0 || c->rows[j].fig.unit != c->rows[k].fig.unit)
			continue;
		for (i = 0; i < av->stride; i++)
			if (!(x[i] == y[i] || (isnan(x[i]) && isnan(y[i]))))
				break;
		if (i == av->stride)
			return j;
	}
	return -1;
}

/* Row k's values of every run, found once each (fol_figures_find is a scan). */
static void row_values(const struct fol_cmp *c, struct fol_figures **figs, int k, struct all_values *av)
{
	double *out = av->v + (size_t)k * av->stride;
	unsigned char *present = av->present;

	for (int s = 0; s < c->nsides; s++)
		for (int r = 0; r < c->sides[s].n; r++) {
			const struct fol_figure *f = fol_figures_find(&figs[s][r], c->rows[k].fig.key);

			*present++ = f != NULL;
			*out++ = f ? f->v : c->rows[k].fig.additive ? 0 : NAN;
		}
}

void fol_cmp_mark_family(struct fol_cmp *head, struct fol_cmp_cell *const *cells, int n)
{
	for (int i = 0; i < n; i++) {
		head->tested += cells[i]->tested;
		head->state += cells[i]->marker == '=';
	}
	head->p_kept = fol_cmp_mark(cells, n, head->fdr);
}

/* The false-discovery rate over every cell the compare tested, whichever side. */
static int mark_all(struct fol_cmp *c)
{
	struct fol_cmp_cell **cells = malloc(sizeof(*cells) * ((size_t)c->nrows * (size_t)c->nsides + 1));
	int n = 0;

	if (!cells)
		return -ENOMEM;
	for (int k = 0; k < c->nrows; k++)
		for (int s = 1; s < c->nsides; s++)
			cells[n++] = &c->rows[k].cell[s];
	fol_cmp_mark_family(c, cells, n);
	free(cells);
	return 0;
}

/* mmtests' BAmean-95 as its select_lowest (or _highest, for a figure where higher is
 * better) keeps them: the best int(0.95 n) + 1 values, at most n. */
static double best_mean(const double *v, int n, int better)
{
	double *s = malloc(sizeof(*s) * ((size_t)n + 1)), sum = 0;
	int keep = n * 95 / 100 + 1;

	if (!s || !n) {
		free(s);
		return NAN;
	}
	keep = keep > n ? n : keep;
	memcpy(s, v, sizeof(*s) * (size_t)n);
	qsort(s, (size_t)n, sizeof(*s), ascending);
	for (int i = 0; i < keep; i++)
		sum += better == FOL_BETTER_HIGHER ? s[n - 1 - i] : s[i];
	free(s);
	return sum / keep;
}

static int fill_row(struct fol_cmp *c, const struct all_values *av, int k, double *buf, int *rbuf,
		    int maxruns)
{
	struct fol_cmp_row *row = &c->rows[k];
	const double *x = av->v + (size_t)k * av->stride;
	struct fol_cmp_sample b = { .v = buf, .rec = rbuf, .nrec = c->sides[0].nrec,
				    .recording = c->sides[0].recording };

	row->cell = calloc((size_t)c->nsides, sizeof(*row->cell));
	if (!row->cell)
		return -ENOMEM;
	b.n = side_values(row, &c->sides[0], x, av->present, buf, rbuf);
	for (int s = 0, off = 0; s < c->nsides; off += c->sides[s++].n) {
		struct fol_cmp_cell *cell = &row->cell[s];
		struct fol_cmp_sample v = { .v = buf + maxruns, .rec = rbuf + maxruns,
					    .nrec = c->sides[s].nrec, .recording = c->sides[s].recording };

		v.n = s ? side_values(row, &c->sides[s], x + off, av->present + off, buf + maxruns,
				      rbuf + maxruns) : 0;
		if (s && v.n && b.n) {
			fol_cmp_decide(&row->fig, &b, &v, row->restates >= 0, cell);
		} else {
			*cell = (struct fol_cmp_cell){ .have = s ? v.n : b.n, .change = NAN, .ci_lo = NAN,
						       .ci_hi = NAN, .t = { .p = NAN }, .mwu = { .p = NAN } };
			fol_desc_of(s ? v.v : b.v, cell->have, &cell->d);
		}
		cell->bamean = best_mean(s ? v.v : b.v, cell->have, row->fig.better);
	}
	return 0;
}

static int fill_cells(struct fol_cmp *c, struct fol_figures **figs, int maxruns)
{
	struct all_values av = { .stride = 0 };
	double *buf = calloc(2 * (size_t)maxruns + 1, sizeof(double));
	int *rbuf = calloc(2 * (size_t)maxruns + 1, sizeof(int));
	int ret = 0;

	for (int s = 0; s < c->nsides; s++)
		av.stride += (size_t)c->sides[s].n;
	av.v = calloc(av.stride * (size_t)c->nrows + 1, sizeof(double));
	av.present = calloc(av.stride + 1, 1);
	if (!buf || !rbuf || !av.v || !av.present)
		ret = -ENOMEM;
	for (int k = 0; k < c->nrows && !ret; k++) {
		row_values(c, figs, k, &av);
		c->rows[k].restates = restated(c, &av, k);
		ret = fill_row(c, &av, k, buf, rbuf, maxruns);
	}
	free(av.v);
	free(av.present);
	free(buf);
	free(rbuf);
	return ret ? ret : mark_all(c);
}

/* A row in the geometric mean: a per-fault latency of many faults, above 0 on every
 * side. */
static int in_gmean(const struct fol_cmp *c, const struct fol_cmp_row *row)
{
	if (!row->fig.latency || row->fig.single || row->fig.system_wide)
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
static double bare_phase(const struct fol_side *side, const char *name, double *out, int max)
{
	int n = 0;

	for (int b = 0; b < side->nbare; b++) {
		const struct fol_phases *ph = &side->bare[b]->phases;
		double t = 0;
		int seen = 0;

		for (int i = 0; i < ph->n; i++) {
			const struct fol_phase *p = &ph->v[i];

			if (p->name && !strcmp(p->name, name) && p->timed && p->end_ns >= p->start_ns) {
				t += p->end_ns - p->start_ns;
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
	int nbare = side->nbare, cap = side->n + nbare + 1;
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
		fol_desc_of(untraced, (int)bare_phase(side, name, untraced, cap), &p->bare);
		p->faults = nt ? sum_faults / nt : 0;
		if (p->bare.n && p->traced.n)
			c->nprobe[s]++;
	}
	free(rp);
	free(traced);
	free(untraced);
	return ret;
}

enum fol_cmp_level fol_cmp_sides_level(const struct fol_side *sides, int nsides)
{
	enum fol_cmp_level lv = FOL_LEVEL_RECORDINGS;

	for (int s = 1; s < nsides; s++) {
		struct fol_cmp_sample b = { .rec = sides[0].rec, .nrec = sides[0].nrec,
					    .recording = sides[0].recording };
		struct fol_cmp_sample v = { .rec = sides[s].rec, .nrec = sides[s].nrec,
					    .recording = sides[s].recording };
		enum fol_cmp_level l = level_of(&b, &v);

		lv = l < lv ? l : lv;
	}
	return lv;
}

int fol_side_span(const struct fol_side *s, double *first, double *last)
{
	*first = INFINITY;
	*last = 0;
	for (int r = 0; r < s->n; r++) {
		double t = s->runs[r]->rec.started_realtime_ns;

		if (!(t > 0))
			return -ENODATA;
		*first = fmin(*first, t);
		*last = fmax(*last, t);
	}
	return s->n ? 0 : -ENODATA;
}

enum fol_cmp_order fol_cmp_sides_order(const struct fol_side *sides, int nsides, enum fol_cmp_level level)
{
	enum fol_cmp_order order = FOL_ORDER_ALTERNATE;
	double bf, bl, f, l;

	if (level != FOL_LEVEL_RECORDINGS || fol_side_span(&sides[0], &bf, &bl))
		return FOL_ORDER_UNKNOWN;
	for (int s = 1; s < nsides; s++) {
		if (fol_side_span(&sides[s], &f, &l))
			return FOL_ORDER_UNKNOWN;
		if (l < bf || f > bl)
			order = FOL_ORDER_IN_TURN;
	}
	return order;
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
		if (c->sides[s].nrec < 1 || !c->sides[s].rec)
			c->sides[s].nrec = 1;
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
	if (!ret) {
		c->level = fol_cmp_sides_level(c->sides, c->nsides);
		c->order = fol_cmp_sides_order(c->sides, c->nsides, c->level);
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

int fol_cmp_row_marked(const struct fol_cmp *c, const struct fol_cmp_row *row)
{
	for (int s = 1; s < c->nsides; s++)
		if (row->cell[s].marker)
			return 1;
	return 0;
}

int fol_cmp_row_tested(const struct fol_cmp *c, const struct fol_cmp_row *row)
{
	for (int s = 1; s < c->nsides; s++)
		if (row->cell[s].tested || row->cell[s].marker)
			return 1;
	return 0;
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
