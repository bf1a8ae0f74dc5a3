/* SPDX-License-Identifier: GPL-2.0-only */
/* Statistics over runs and over faults: descriptive figures, and the two-sample tests that
 * decide whether a change between two sides is real. Distribution functions are GSL's. */
#ifndef FOL_STATS_H
#define FOL_STATS_H

#include <stdint.h>

#include "util/hist.h"

struct fol_desc {
	int n;
	double mean, sd, cv;	/* sd: sample standard deviation (n - 1); cv = sd / |mean| */
	double min, median, max;
};

/* n may be 0 (all zero) or 1 (sd 0). */
void fol_desc_of(const double *x, int n, struct fol_desc *d);

struct fol_test {
	double p;		/* two-sided p-value */
	double stat;		/* t (Welch), U of the first sample (Mann-Whitney) */
	double effect;		/* Mann-Whitney: P(a > b) + P(a = b) / 2, 0.5 = no shift */
	int exact;		/* Mann-Whitney: exact distribution, not the normal approximation */
	double lo, hi;		/* Welch: the FOL_CI_LEVEL confidence interval of mean(a) -
				 * mean(b) (both ends the difference when neither side varies) */
};

#define FOL_CI_LEVEL 0.95

/* Welch's unequal-variance t-test. -EDOM when a side has fewer than 2 values. Both
 * sides without variance: p is 1 when the means are equal, else 0 (a shift with no
 * noise). */
int fol_welch(const double *a, int na, const double *b, int nb, struct fol_test *t);
/* Mann-Whitney U, two-sided, as scipy.stats.mannwhitneyu (method "auto", continuity
 * correction): exact when a side has fewer than 8 values and there are no ties, else the
 * normal approximation with the tie correction. -EDOM when a side is empty. */
int fol_mann_whitney(const double *a, int na, const double *b, int nb, struct fol_test *t);

#endif
