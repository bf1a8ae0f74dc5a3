/* SPDX-License-Identifier: GPL-2.0-only */
/* Sides compared figure by figure: each side one or more runs of one configuration (a
 * recording, or one value of a sweep); the first side is the base. Computed here,
 * rendered as an 80-column text table, JSON (foliostat/compare/v2) or by the TUI. */
#ifndef FOL_COMPARE_H
#define FOL_COMPARE_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "report/figures.h"
#include "report/runs.h"
#include "util/stats.h"

struct fol_side {
	const char *name;		/* short, for a column: "base", "64K", "patched:64K" */
	const char *file;		/* the recording it comes from, for the header; or NULL */
	const struct fol_report *const *runs; /* whole runs only */
	int n;
	const cJSON *bare;		/* untraced runs of this side (BARE chunks) or NULL */
	const struct fol_run_out *const *out; /* its runs left out, and why; nout of them */
	int nout;
};

/* How many runs the side left out (a missing range counts each of its runs). */
int fol_side_left_out(const struct fol_side *s);
/* A run or range left out as the header says it: "run 3 (mthp=64K)", "runs 4-5". */
const char *fol_run_out_text(const struct fol_run_out *o, char *buf, size_t len);

/* Marks come from per-run values only: Welch's t-test where both sides have 2 or more
 * runs (FOL_CMP_MIN_RUNS); one run a side is never marked (the per-fault latencies of one
 * run share its machine state: ten same-setup pairs marked 19% of their latency figures).
 * The marks of one compare hold a false-discovery rate (Benjamini-Hochberg, FOL_CMP_FDR
 * by default) over every figure it tests; and never for a change smaller than 1% or than
 * the figure's own run-to-run spread (coefficient of variation) when that is larger. */
#define FOL_CMP_FDR 0.05
#define FOL_CMP_MIN_RUNS 2
#define FOL_CMP_FLOOR 0.01
/* Counts (faults, folios, counters) that vary from run to run must also differ by more
 * than counting noise, this many times sqrt(count): runs that take 35 or 37 copy faults
 * in the dynamic loader are not news. A count that does not vary on either side is exact:
 * 8 against 16 folios every run is a change. */
#define FOL_CMP_COUNT_SIGMAS 2.0

/* Welch's t over the runs; Mann-Whitney U over the runs where a side of a quantized
 * figure (a percentile) does not vary (fol_cmp_decide). */
enum fol_cmp_test { FOL_TEST_NONE, FOL_TEST_WELCH, FOL_TEST_RANKS };

struct fol_cmp_cell {
	int have;			/* runs of the side with the figure */
	struct fol_desc d;		/* over the side's runs */
	double change;			/* (mean - base mean) / base mean; NAN if not defined */
	enum fol_cmp_test test;
	struct fol_test t;		/* the test's result */
	struct fol_test mwu;		/* Mann-Whitney over the runs, alongside Welch */
	/* The FOL_CI_LEVEL confidence interval of change: Welch's over the runs for the
	 * difference of the means, over the base mean (its own spread not counted); NAN
	 * without a test. */
	double ci_lo, ci_hi;
	int tested;			/* in the family the false-discovery rate holds over */
	int candidate;			/* past the floors: marked if the rate keeps its p */
	int significant;
	char marker;			/* 'I' better, 'R' worse, '*' changed (no better way), 0;
					 * fol_cmp_decide's is provisional, fol_cmp_mark's final */
};

struct fol_cmp_row {
	struct fol_figure fig;		/* what the figure is; v unused */
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
	/* The geometric mean, per side, of the means of the time figures (ns) that every
	 * side has above 0, outside maxima and kernel counters: mmtests' Gmean summary, one
	 * figure for "faster or slower overall". gmean_n figures; 0: none. */
	double *gmean;
	int gmean_n;
	double fdr;			/* the false-discovery rate the marks hold */
	int tested;			/* figures tested (cells, beyond the base) */
	double p_kept;			/* the largest p-value the rate keeps; -1: none */
};

/* fdr: the false-discovery rate of the marks (FOL_CMP_FDR; 0 < fdr < 1). */
int fol_compare(const struct fol_side *sides, int nsides, double fdr, struct fol_cmp *c);
void fol_cmp_free(struct fol_cmp *c);
/* Keep only the rows whose key matches one of the comma-separated shell patterns in
 * globs ("latency.*,order.64K.*"), for the output: the marks, the tested family and the
 * Gmean stay those of every figure. Returns the rows kept. */
int fol_cmp_select(struct fol_cmp *c, const char *globs);
/* The rule, in two steps a test can reach. One cell against the base cell: its test, p,
 * whether it is in the tested family and past the floors, and its provisional marker. */
void fol_cmp_decide(const struct fol_figure *fig, const double *base, int nb, const double *v,
		    int nv, struct fol_cmp_cell *cell);
/* Then every cell of the compare at once (Benjamini-Hochberg at rate fdr over the tested
 * ones): significant and marker final. Returns the largest p kept (-1: none). */
double fol_cmp_mark(struct fol_cmp_cell *const *cells, int n, double fdr);

/* A side as the header says it: "[NAME: ][FILE, ]N runs, kernel K", escaped. */
const char *fol_cmp_side_text(const struct fol_side *s, int with_name, char *buf, size_t len);
/* The test in one line: "Welch over runs, 37 tested, FDR 0.05: p <= 0.0014 kept", or why
 * there is none. */
const char *fol_cmp_test_text(const struct fol_cmp *c, char *buf, size_t len);
/* The figure's value as text: "65536", "12.3 µs", "16.00", "6.2%". */
const char *fol_cmp_value(enum fol_unit u, double v, char *buf, int len);
/* The header of a comparison as text: the sides (file, runs, kernel, command) and the test. */
void fol_cmp_header(const struct fol_cmp *c, FILE *f);
/* Text: the sides against the base, 80 columns for two sides. */
void fol_cmp_text(const struct fol_cmp *c, FILE *f);
/* Text as mmtests' compare-kernels prints it: per figure Amean, Stddev, CoeffVar, Min and
 * Max of each side with the change oriented so that + is better, the confidence interval
 * of the change, and a Gmean row; 80 columns for two sides (compare_mmtests.c). */
void fol_cmp_mmtests(const struct fol_cmp *c, FILE *f);
/* One self-contained HTML page (inline SVG, no script, nothing fetched): per figure the
 * runs as dots with each side's mean and 95% interval, and per folio order and class the
 * sides' latency distributions overlaid (compare_html.c). 0 or -ENOMEM. */
int fol_cmp_html(const struct fol_cmp *c, FILE *f);
/* Text: one side's runs aggregated, as perf stat -r prints them. */
void fol_cmp_runs_text(const struct fol_cmp *c, int side, FILE *f);
/* The probe effect of each side with untraced runs, with the standard error of each
 * difference. */
void fol_cmp_probe_text(const struct fol_cmp *c, FILE *f);
cJSON *fol_cmp_json(const struct fol_cmp *c);
/* One side's aggregate: {"runs", "figures": [...], "probe_effect": [...]}. */
cJSON *fol_cmp_side_json(const struct fol_cmp *c, int side);

#endif
