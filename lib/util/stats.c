// SPDX-License-Identifier: GPL-2.0-only
#include "util/stats.h"

#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Below this many values on the smaller side, and without ties, Mann-Whitney's p comes
 * from the exact distribution of U: scipy's rule, so both give the same p. */
#define MWU_EXACT_MAX 8
/* The exact distribution is counted in (small side + 1) x (U range) cells: bounded. */
#define MWU_EXACT_CELLS (1 << 20)

void fol_desc_of(const double *x, int n, struct fol_desc *d)
{
	double *s;

	memset(d, 0, sizeof(*d));
	d->n = n;
	if (n <= 0)
		return;
	d->mean = gsl_stats_mean(x, 1, (size_t)n);
	d->sd = n > 1 ? gsl_stats_sd_m(x, 1, (size_t)n, d->mean) : 0;
	d->cv = d->mean != 0 ? d->sd / fabs(d->mean) : 0;
	s = malloc((size_t)n * sizeof(*s));
	if (!s) {
		/* Without a sorted copy: min and max still, the median as the mean. */
		gsl_stats_minmax(&d->min, &d->max, x, 1, (size_t)n);
		d->median = d->mean;
		return;
	}
	memcpy(s, x, (size_t)n * sizeof(*s));
	gsl_sort(s, 1, (size_t)n);
	d->min = s[0];
	d->max = s[n - 1];
	d->median = gsl_stats_median_from_sorted_data(s, 1, (size_t)n);
	free(s);
}

int fol_welch(const double *a, int na, const double *b, int nb, struct fol_test *t)
{
	double ma, mb, va, vb, df;

	memset(t, 0, sizeof(*t));
	t->effect = NAN;
	if (na < 2 || nb < 2)
		return -EDOM;
	ma = gsl_stats_mean(a, 1, (size_t)na);
	mb = gsl_stats_mean(b, 1, (size_t)nb);
	va = gsl_stats_variance_m(a, 1, (size_t)na, ma) / na;
	vb = gsl_stats_variance_m(b, 1, (size_t)nb, mb) / nb;
	t->lo = t->hi = ma - mb;
	if (va + vb == 0) {
		t->stat = ma == mb ? 0 : copysign(INFINITY, ma - mb);
		t->p = ma == mb ? 1 : 0;
		return 0;
	}
	t->stat = (ma - mb) / sqrt(va + vb);
	df = (va + vb) * (va + vb) / (va * va / (na - 1) + vb * vb / (nb - 1));
	t->p = fmin(1, 2 * gsl_cdf_tdist_Q(fabs(t->stat), df));
	t->lo -= gsl_cdf_tdist_Pinv(1 - (1 - FOL_CI_LEVEL) / 2, df) * sqrt(va + vb);
	t->hi += gsl_cdf_tdist_Pinv(1 - (1 - FOL_CI_LEVEL) / 2, df) * sqrt(va + vb);
	return 0;
}

struct ranked {
	double v;
	int side;
};

static int by_value(const void *x, const void *y)
{
	double a = ((const struct ranked *)x)->v, b = ((const struct ranked *)y)->v;

	return (a > b) - (a < b);
}

/* P(U >= u) for samples of m and n values without ties, m the smaller: the number of
 * orderings with each U, counted by adding the n values one at a time. GSL has no such
 * distribution. */
static double mwu_exact_sf(int m, int n, double u)
{
	int umax = m * n;
	double *dp = calloc((size_t)(m + 1) * (size_t)(umax + 1), sizeof(*dp));
	double below = 0, total = 0;

	if (!dp)
		return NAN;
	/* dp[i][k]: orderings of i values of the small side and j of the other with U = k. */
	for (int i = 0; i <= m; i++)
		dp[(size_t)i * (umax + 1)] = 1;
	for (int j = 1; j <= n; j++)
		for (int i = 1; i <= m; i++)
			for (int k = umax; k >= j; k--)
				dp[(size_t)i * (umax + 1) + k] += dp[(size_t)(i - 1) * (umax + 1) + k - j];
	for (int k = 0; k <= umax; k++) {
		total += dp[(size_t)m * (umax + 1) + k];
		if (k < u)
			below += dp[(size_t)m * (umax + 1) + k];
	}
	free(dp);
	return (total - below) / total;
}

/* The normal approximation from U1, the sizes and the tie term sum(t^3 - t). */
static void mwu_normal(double u1, double na, double nb, double ties, struct fol_test *t)
{
	double n = na + nb, mu = na * nb / 2, u = fmax(u1, na * nb - u1);
	double s = sqrt(na * nb / 12 * ((n + 1) - ties / (n * (n - 1))));

	/* All values tied: no shift at all. */
	t->p = s > 0 ? fmin(1, 2 * gsl_cdf_ugaussian_Q((u - mu - 0.5) / s)) : 1;
}

int fol_mann_whitney(const double *a, int na, const double *b, int nb, struct fol_test *t)
{
	int n = na + nb, tied = 0, small = na < nb ? na : nb, large = na < nb ? nb : na;
	struct ranked *v;
	double r1 = 0, ties = 0;

	memset(t, 0, sizeof(*t));
	if (na < 1 || nb < 1)
		return -EDOM;
	v = malloc((size_t)n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		v[i] = (struct ranked){ i < na ? a[i] : b[i - na], i < na };
	qsort(v, (size_t)n, sizeof(*v), by_value);
	for (int i = 0; i < n;) {
		int j = i;
		double rank;

		while (j < n && v[j].v == v[i].v)
			j++;
		rank = (i + 1 + j) / 2.0; /* the mean of ranks i+1..j */
		for (int k = i; k < j; k++)
			r1 += v[k].side ? rank : 0;
		if (j - i > 1) {
			tied = 1;
			ties += pow(j - i, 3) - (j - i);
		}
		i = j;
	}
	free(v);
	t->stat = r1 - na * (na + 1) / 2.0;
	t->effect = t->stat / ((double)na * nb);
	if (small <= MWU_EXACT_MAX && !tied && (double)(small + 1) * small * large < MWU_EXACT_CELLS) {
		t->exact = 1;
		t->p = fmin(1, 2 * mwu_exact_sf(small, large, fmax(t->stat, (double)na * nb - t->stat)));
	} else {
		mwu_normal(t->stat, na, nb, ties, t);
	}
	return 0;
}
