/* SPDX-License-Identifier: GPL-2.0-only */
/* Sides compared figure by figure: each side one or more runs of one configuration (a
 * recording, or one value of a sweep); the first side is the base. Computed here,
 * rendered as an 80-column text table, JSON (foliostat/compare/v1) or by the TUI. */
#ifndef FOL_COMPARE_H
#define FOL_COMPARE_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "figures.h"
#include "stats.h"

struct fol_side {
	const char *name;		/* short, for a column: "base", "64K", "patched:64K" */
	const char *file;		/* the recording it comes from, for the header; or NULL */
	const struct fol_report *const *runs;
	int n;
	const cJSON *bare;		/* untraced runs of this side (BARE chunks) or NULL */
};

/* Significance at 95%, and never for a change smaller than this (1%) or than the
 * figure's own run-to-run spread (coefficient of variation) when that is larger. */
#define FOL_CMP_ALPHA 0.05
#define FOL_CMP_FLOOR 0.01
/* One run per side: per-fault latencies are compared, and a shift must also be this
 * large in P(new > base) - 1/2 (0.05: a rank-biserial correlation of 0.1), so that a
 * tiny shift over 100,000 faults is not news. */
#define FOL_CMP_EFFECT_FLOOR 0.05
/* Counts (faults, folios, counters) must also differ by more than counting noise,
 * this many times sqrt(count): runs that always take 35 and 37 copy faults in the dynamic
 * loader have no variance, and Welch alone would call 2 faults a change. */
#define FOL_CMP_COUNT_SIGMAS 2.0

enum fol_cmp_test { FOL_TEST_NONE, FOL_TEST_WELCH, FOL_TEST_MWU_FAULTS };

struct fol_cmp_cell {
	int have;			/* runs of the side with the figure */
	struct fol_desc d;		/* over the side's runs */
	double change;			/* (mean - base mean) / base mean; NAN if not defined */
	enum fol_cmp_test test;
	struct fol_test t;		/* the test's result */
	struct fol_test mwu;		/* Mann-Whitney over the runs, alongside Welch */
	int significant;
	char marker;			/* 'I' better, 'R' worse, '*' changed (no better way), 0 */
};

struct fol_cmp_row {
	struct fol_figure fig;		/* what the figure is; v and dist unused */
	struct fol_cmp_cell *cell;	/* one per side */
};

/* The probe effect of one phase on one side: untraced against traced. */
struct fol_cmp_probe {
	char phase[48];
	struct fol_desc traced, bare;	/* phase time over runs (ns) */
	double faults;			/* mean faults in the phase, traced */
};

struct fol_cmp {
	int nsides;
	struct fol_side *sides;
	struct fol_cmp_row *rows;
	int nrows;
	struct fol_cmp_probe **probe;	/* per side */
	int *nprobe;
};

int fol_compare(const struct fol_side *sides, int nsides, struct fol_cmp *c);
void fol_cmp_free(struct fol_cmp *c);
/* The decision for one cell against the base cell (the rule, alone so a test can reach
 * it): sets test, t, significant and marker. */
void fol_cmp_decide(const struct fol_figure *fig, const double *base, int nb,
		    const struct fol_hist *base_dist, const double *v, int nv,
		    const struct fol_hist *dist, struct fol_cmp_cell *cell);

/* The figure's value as text: "65536", "12.3 µs", "16.00", "6.2%". */
const char *fol_cmp_value(enum fol_unit u, double v, char *buf, int len);
/* Text: the sides against the base, 80 columns for two sides. */
void fol_cmp_text(const struct fol_cmp *c, FILE *f);
/* Text: one side's runs aggregated, as perf stat -r prints them. */
void fol_cmp_runs_text(const struct fol_cmp *c, int side, FILE *f);
/* The probe effect of each side with untraced runs, with the standard error of each
 * difference. */
void fol_cmp_probe_text(const struct fol_cmp *c, FILE *f);
cJSON *fol_cmp_json(const struct fol_cmp *c);
/* One side's aggregate: {"runs", "figures": [...], "probe_effect": [...]}. */
cJSON *fol_cmp_side_json(const struct fol_cmp *c, int side);

#endif
