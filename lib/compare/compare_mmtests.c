// SPDX-License-Identifier: GPL-2.0-only
/* A comparison laid out as mmtests' compare-kernels.sh prints one, for a reply on
 * linux-mm: blocks of one statistic each (Amean, Stddev, CoeffVar, Min, Max), a line per
 * figure, each side's value with its change against the base oriented so that + is
 * better and, on Amean lines, the test's mark as mmtests marks it (*x%* rather than (x%)).
 * Then the confidence interval of each change and the Gmean of the time figures. */
#include <math.h>
#include <string.h>

#include "compare/compare.h"
#include "util/escape.h"

enum stat { AMEAN, STDDEV, COEFFVAR, MIN, MAX, NSTATS };
static const char *const stat_name[NSTATS] = { "Amean", "Stddev", "CoeffVar", "Min", "Max" };

#define NAME_MIN 16
#define NAME_MAX 26

static double stat_of(const struct fol_desc *d, enum stat st)
{
	switch (st) {
	case AMEAN:
		return d->mean;
	case STDDEV:
		return d->sd;
	case COEFFVAR:
		return 100 * d->cv;
	case MIN:
		return d->min;
	default:
		return d->max;
	}
}

/* Times in microseconds, as mmtests prints its latencies; the rest, and CoeffVar (a
 * percent), as they are. */
static double scaled(enum fol_unit u, enum stat st, double v)
{
	return u == FOL_UNIT_NS && st != COEFFVAR ? v / 1000 : v;
}

/* The change of v against base, + better: the figure's direction for its values, lower
 * for its spread; + higher where the figure has no better way. NAN from a base of 0. */
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

/* In 7 columns: fewer decimals for a change of 1000% or more. */
static void percent(FILE *f, double g, int marked)
{
	double p = 100 * g;
	int dec = fabs(p) < 999.995 ? 2 : fabs(p) < 9999.95 ? 1 : 0;

	if (isnan(g))
		fputs(" (    n/a)", f);
	else
		fprintf(f, marked ? " *%7.*f%%*" : " (%7.*f%%)", dec, p);
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
	double base = stat_of(&row->cell[0].d, st);

	fprintf(f, "%-9s %-*s", stat_name[st], w, name_of(row, name, sizeof(name)));
	for (int s = 0; s < c->nsides; s++) {
		const struct fol_cmp_cell *cell = &row->cell[s];
		double v = stat_of(&cell->d, st);

		if (!cell->have) {
			fprintf(f, " %10s %10s", "-", "");
			continue;
		}
		if (!row->cell[0].have) {
			number(f, scaled(row->fig.unit, st, v));
			fprintf(f, " %10s", "(    new)");
			continue;
		}
		number(f, scaled(row->fig.unit, st, v));
		percent(f, s ? gain(base, v, row->fig.better, st) : 0, st == AMEAN && cell->significant);
	}
	fputc('\n', f);
}

/* The interval of the change, oriented as the Amean line's. */
static void ci_line(const struct fol_cmp *c, const struct fol_cmp_row *row, int w, FILE *f)
{
	char name[128];
	int any = 0;

	for (int s = 1; s < c->nsides; s++)
		any |= isfinite(row->cell[s].ci_lo);
	if (!any)
		return;
	fprintf(f, "%-9s %-*s %21s", "CI95", w, name_of(row, name, sizeof(name)), "");
	for (int s = 1; s < c->nsides; s++) {
		const struct fol_cmp_cell *cell = &row->cell[s];
		int flip = row->fig.better == FOL_BETTER_LOWER;
		/* + 0.0: an exact interval of a count that did not change is [0, 0], not -0. */
		double lo = (flip ? -cell->ci_hi : cell->ci_lo) + 0.0, hi = (flip ? -cell->ci_lo : cell->ci_hi) + 0.0;

		if (isfinite(cell->ci_lo))
			fprintf(f, " [%7.2f%%,%7.2f%%]", 100 * lo, 100 * hi);
		else
			fprintf(f, " %21s", "-");
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
	snprintf(name, sizeof(name), "time(%d-figures)", c->gmean_n);
	fprintf(f, "\n%-9s %-*s", "Gmean", w, name);
	for (int s = 0; s < c->nsides; s++) {
		number(f, c->gmean[s] / 1000);
		percent(f, s ? gain(c->gmean[0], c->gmean[s], FOL_BETTER_LOWER, AMEAN) : 0, 0);
	}
	fputc('\n', f);
}

void fol_cmp_mmtests(const struct fol_cmp *c, FILE *f)
{
	int w = name_width(c);

	fol_cmp_header(c, f);
	fprintf(f, "# mmtests layout: each side over its runs, times in µs; (x%%) the change\n"
		   "# against the base, + better (+ higher where a figure has no better way; a\n"
		   "# lower Stddev and CoeffVar are better); *x%%* on Amean lines: marked by the\n"
		   "# test above. CI95: the %.0f%% interval of that change (Welch over runs, over\n"
		   "# the base mean). Gmean: the geometric mean of the time figures' means.\n",
		100 * FOL_CI_LEVEL);
	columns(c, w, f);
	for (int st = 0; st < NSTATS; st++) {
		for (int k = 0; k < c->nrows; k++)
			stat_line(c, &c->rows[k], (enum stat)st, w, f);
		fputc('\n', f);
	}
	for (int k = 0; k < c->nrows; k++)
		ci_line(c, &c->rows[k], w, f);
	gmean_line(c, w, f);
}
