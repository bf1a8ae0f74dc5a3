// SPDX-License-Identifier: GPL-2.0-only
/* A comparison laid out as mmtests' compare-kernels.sh prints one, for a reply on
 * linux-mm: blocks of one statistic each in mmtests' order (Min, Amean, Stddev, CoeffVar,
 * Max, BAmean-95), a line per figure, each side's value with its change against the base
 * oriented so that + is better where the figure has a better way, and plain (in [])
 * where it has none; on Amean lines mmtests' own star (*x%*): the difference of the means
 * past qnorm(0.975) standard deviations of each side. Then the confidence interval of
 * each change with foliostat's mark beside it, the Gmean of the per-fault latencies and
 * the workload's Duration. */
#include <math.h>
#include <string.h>

#include "compare/compare.h"
#include "util/escape.h"

enum stat { MIN, AMEAN, STDDEV, COEFFVAR, MAX, BAMEAN, NSTATS };
static const char *const stat_name[NSTATS] = { "Min", "Amean", "Stddev", "CoeffVar", "Max",
					       "BAmean-95" };

/* qnorm(0.975): mmtests' star asks the difference to exceed this many standard
 * deviations of either side. */
#define MMTESTS_Z 1.959963984540054

#define NAME_MIN 16
#define NAME_MAX 26

static double stat_of(const struct fol_cmp_cell *cell, enum stat st)
{
	const struct fol_desc *d = &cell->d;

	switch (st) {
	case AMEAN:
		return d->mean;
	case STDDEV:
		return d->sd;
	case COEFFVAR:
		return 100 * d->cv;
	case MIN:
		return d->min;
	case BAMEAN:
		return cell->bamean;
	default:
		return d->max;
	}
}

int fol_mmtests_star(const struct fol_desc *base, const struct fol_desc *v)
{
	double diff = fabs(v->mean - base->mean);

	return base->n > 1 && v->n > 1 && diff > 0 && diff > MMTESTS_Z * base->sd &&
	       diff > MMTESTS_Z * v->sd;
}

/* Times in microseconds, as mmtests prints its latencies; the rest, and CoeffVar (a
 * percent), as they are. */
static double scaled(enum fol_unit u, enum stat st, double v)
{
	return u == FOL_UNIT_NS && st != COEFFVAR ? v / 1000 : v;
}

/* The change of v against base, + better: the figure's direction for its values, lower
 * for its spread; the plain change (+ higher) where the figure has no better way. NAN
 * from a base of 0. */
static double gain(double base, double v, enum fol_better better, enum stat st)
{
	double change;

	if (base == 0)
		return v == 0 ? 0 : NAN;
	change = (v - base) / fabs(base);
	if (change == 0)
		return 0; /* not -0 */
	return better == FOL_BETTER_LOWER || st == STDDEV || st == COEFFVAR ? -change : change;
}

static void number(FILE *f, double v)
{
	fprintf(f, fabs(v) < 1e7 ? " %10.2f" : " %10.3e", v);
}

/* In 7 columns: fewer decimals for a change of 1000% or more. (x%) a gain, + better;
 * *x%* a gain with mmtests' star; [x%] a plain change, the figure having no better way. */
static void percent(FILE *f, double g, int star, int plain)
{
	double p = 100 * g;
	int dec = fabs(p) < 999.995 ? 2 : fabs(p) < 9999.95 ? 1 : 0;

	if (isnan(g))
		fputs(" (    n/a)", f);
	else
		fprintf(f, star ? " *%7.*f%%*" : plain ? " [%+7.*f%%]" : " (%7.*f%%)", dec, p);
}

/* A figure's name, mmtests' way: its label with dashes for spaces. */
static const char *name_of(const struct fol_cmp_row *row, char *buf, size_t len)
{
	char esc[128];

	snprintf(buf, len, "%s", fol_escape(row->fig.label, esc, sizeof(esc)));
	for (char *p = buf; *p; p++)
		if (*p == ' ')
			*p = '-';
	return buf;
}

static int name_width(const struct fol_cmp *c)
{
	char name[128];
	int w = NAME_MIN;

	for (int k = 0; k < c->nrows; k++) {
		int n = (int)strlen(name_of(&c->rows[k], name, sizeof(name)));

		w = n > w ? n : w;
	}
	return w > NAME_MAX ? NAME_MAX : w;
}

static void stat_line(const struct fol_cmp *c, const struct fol_cmp_row *row, enum stat st, int w,
		      FILE *f)
{
	char name[128];
	double base = stat_of(&row->cell[0], st);
	int plain = row->fig.better == FOL_BETTER_NONE && st != STDDEV && st != COEFFVAR;

	fprintf(f, "%-9s %-*s", stat_name[st], w, name_of(row, name, sizeof(name)));
	for (int s = 0; s < c->nsides; s++) {
		const struct fol_cmp_cell *cell = &row->cell[s];
		double v = stat_of(cell, st);

		if (!cell->have) {
			fprintf(f, " %10s %10s", "-", "");
			continue;
		}
		number(f, scaled(row->fig.unit, st, v));
		if (!row->cell[0].have)
			fprintf(f, " %10s", "(    new)");
		else
			percent(f, s ? gain(base, v, row->fig.better, st) : 0,
				s && st == AMEAN && fol_mmtests_star(&row->cell[0].d, &cell->d), plain && s);
	}
	fputc('\n', f);
}

/* An end of an interval in 8 columns: fewer decimals as it grows (a maximum's, of two runs
 * a side, reached -1348397%). */
static const char *ci_end(double p, char *buf, size_t len)
{
	int dec = fabs(p) < 999.995 ? 2 : fabs(p) < 9999.95 ? 1 : 0;

	if (fabs(p) < 99999.5)
		snprintf(buf, len, "%7.*f%%", dec, p);
	else
		snprintf(buf, len, "%7.0e%%", p);
	return buf;
}

/* The interval of the change, oriented as the Amean line's, and foliostat's mark. */
static void ci_line(const struct fol_cmp *c, const struct fol_cmp_row *row, int w, FILE *f)
{
	char name[128];
	int any = 0;

	for (int s = 1; s < c->nsides; s++)
		any |= isfinite(row->cell[s].ci_lo);
	if (!any)
		return;
	fprintf(f, "%-9s %-*s %17s", "CI95", w, name_of(row, name, sizeof(name)), "");
	for (int s = 1; s < c->nsides; s++) {
		const struct fol_cmp_cell *cell = &row->cell[s];
		int flip = row->fig.better == FOL_BETTER_LOWER;
		/* + 0.0: an exact interval of a count that did not change is [0, 0], not -0. */
		double lo = (flip ? -cell->ci_hi : cell->ci_lo) + 0.0, hi = (flip ? -cell->ci_lo : cell->ci_hi) + 0.0;
		char mark[8] = "", a[16], b[16];

		if (cell->marker)
			snprintf(mark, sizeof(mark), " (%c)", cell->marker);
		else if (!cell->tested)
			snprintf(mark, sizeof(mark), " n/t");
		if (isfinite(cell->ci_lo))
			fprintf(f, " [%s,%s]%s", ci_end(100 * lo, a, sizeof(a)), ci_end(100 * hi, b, sizeof(b)), mark);
		else
			fprintf(f, " %21s%s", "-", mark);
		if (!mark[0] && s + 1 < c->nsides)
			fputs("    ", f);
	}
	fputc('\n', f);
}

static void columns(const struct fol_cmp *c, int w, FILE *f)
{
	char esc[64];

	fprintf(f, "\n%-9s %-*s", "", w, "");
	for (int s = 0; s < c->nsides; s++)
		fprintf(f, " %21.21s", fol_escape(c->sides[s].name, esc, sizeof(esc)));
	fputc('\n', f);
}

static void gmean_line(const struct fol_cmp *c, int w, FILE *f)
{
	char name[48];

	if (!c->gmean_n)
		return;
	snprintf(name, sizeof(name), "latency(%d-figures)", c->gmean_n);
	fprintf(f, "\n%-9s %-*s", "Gmean", w, name);
	for (int s = 0; s < c->nsides; s++) {
		number(f, c->gmean[s] / 1000);
		percent(f, s ? gain(c->gmean[0], c->gmean[s], FOL_BETTER_LOWER, AMEAN) : 0, 0, 0);
	}
	fputc('\n', f);
}

/* A side's workload time over its runs, in seconds as mmtests sums its iterations; < 0
 * where a run has none recorded. */
static double duration(const struct fol_side *side, int which)
{
	double sum = 0;

	for (int r = 0; r < side->n; r++) {
		const struct fol_recording *rec = &side->runs[r]->rec;
		double v = which == 0 ? rec->user_ns : which == 1 ? rec->system_ns : rec->duration_ns;

		if (v < 0)
			return -1;
		sum += v;
	}
	return sum / 1e9;
}

static void duration_block(const struct fol_cmp *c, int w, FILE *f)
{
	static const char *const what[] = { "User", "System", "Elapsed" };

	columns(c, w, f);
	for (int k = 0; k < 3; k++) {
		fprintf(f, "%-9s %-*s", "Duration", w, what[k]);
		for (int s = 0; s < c->nsides; s++) {
			double v = duration(&c->sides[s], k);

			if (v < 0)
				fprintf(f, " %10s %10s", "-", "");
			else
				fprintf(f, " %10.2f %10s", v, "");
		}
		fputc('\n', f);
	}
}

void fol_cmp_mmtests(const struct fol_cmp *c, FILE *f)
{
	int w = name_width(c);

	fol_cmp_header(c, f);
	fprintf(f, "# mmtests layout: each side over its runs, times in µs; (x%%) the change\n"
		   "# against the base, + better (a lower Stddev and CoeffVar are better);\n"
		   "# [x%%] the plain change of a figure with no better way; *x%%* on Amean\n"
		   "# lines: mmtests' star, the means %.2f standard deviations of each side\n"
		   "# apart. CI95: the %.0f%% interval of the change (of the geometric means'\n"
		   "# ratio for times), then foliostat's mark from the test above. Gmean: the\n"
		   "# geometric mean of the per-fault latencies. Duration: the workload's CPU\n"
		   "# and elapsed seconds, summed over the runs (- not recorded).\n",
		MMTESTS_Z, 100 * FOL_CI_LEVEL);
	columns(c, w, f);
	for (int st = 0; st < NSTATS; st++) {
		for (int k = 0; k < c->nrows; k++)
			stat_line(c, &c->rows[k], (enum stat)st, w, f);
		fputc('\n', f);
	}
	for (int k = 0; k < c->nrows; k++)
		ci_line(c, &c->rows[k], w, f);
	gmean_line(c, w, f);
	duration_block(c, w, f);
}
