/* SPDX-License-Identifier: GPL-2.0-only */
/* Sides compared figure by figure: each side one or more runs of one configuration (a
 * recording, or one value of a sweep); the first side is the base. Computed here,
 * rendered as an 80-column text table, JSON (foliostat/compare/v3) or by the TUI. */
#ifndef FOL_COMPARE_H
#define FOL_COMPARE_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "report/figures.h"
#include "report/runs.h"
#include "util/stats.h"

struct fol_side {
	const char *name;		/* short, for a column: "base", "64K", "patched:64K" */
	const char *file;		/* the recording, or the directory of recordings; or NULL */
	const struct fol_report *const *runs; /* whole runs only */
	int n;
	/* The recording each run comes from (0 .. nrec - 1): a side made of several
	 * recordings (one per boot or session) has its runs nested in them. NULL: one. */
	const int *rec;
	int nrec;			/* recordings with a whole run; 0 is taken as 1 */
	/* The recording of a side of one (anything that tells it apart, the same for each
	 * side it gives): sides of one recording are a sweep's configurations, their runs
	 * alternating. NULL: several, or not known. */
	const void *recording;
	const struct fol_bare *const *bare; /* untraced runs of this side (BARE chunks) */
	int nbare;
	const struct fol_run_out *const *out; /* its runs left out, and why; nout of them */
	int nout;
};

/* How many runs the side left out (a missing range counts each of its runs). */
int fol_side_left_out(const struct fol_side *s);
/* A run or range left out as the header says it: "run 3 (mthp=64K)", "runs 4-5". */
const char *fol_run_out_text(const struct fol_run_out *o, char *buf, size_t len);

/* Marks come from per-run values only, never from the faults of one run (they share its
 * machine state: ten same-setup pairs marked 19% of their latency figures).
 *
 * The values tested are a side's recordings' means (of their runs' logarithms, for a
 * time) where both sides have 2 or more recordings (runs are nested in recordings: a boot, a page cache, a machine's mood are
 * the recording's, and the runs of one recording do not sample them), else its runs;
 * either way at least FOL_CMP_MIN_RUNS a side, or nothing is tested. The test is Welch's
 * t, on the logarithms of times (a slow run is a ratio, not an offset: a fault time 3 to
 * 25 times the base's in every run has p 0.12 on the linear scale, 0.0073 on logs).
 *
 * A figure that does not vary within either side and differs between them is told apart:
 * over runs of one recording a side it is a difference of state, the kernel's or the
 * machine's (a page cache folio that was 16K in one recording, 4K in the next), marked
 * '=' and not tested; over recordings it is as real as any other change, and tested.
 *
 * The marks of one compare hold a false-discovery rate (Benjamini-Hochberg, FOL_CMP_FDR
 * by default) over every figure it tests, and never for a change smaller than 1% or two
 * steps of the figure's resolution (or, over one recording a side, a count's drift). A maximum, a figure of fewer than FOL_FIG_FEW faults,
 * a machine's counter and a row that restates another are shown, not tested. */
#define FOL_CMP_FDR 0.05
#define FOL_CMP_MIN_RUNS 2
#define FOL_CMP_FLOOR 0.01
/* Times drift between recordings, every one at once: of 153 pairs of 18 same-setup
 * recordings (populate 8M, 5 runs each, the page cache dropped between them), one made
 * on a quiet machine had every time 13% to 39% slower, every run of it, and with a build
 * running beside some of them 66 pairs had times past the test and a 40% floor, changes
 * up to 180%. So a time is tested over the runs of one recording a side only where the
 * sides' runs alternate in that recording (a sweep's configurations), and otherwise over
 * recordings.
 *
 * Counts drift less, by about their counting noise: the same 153 pairs moved 4K file
 * faults by 4.3 of 134 once (p < 0.01), and six more recordings wp_copy faults by 3.4 of
 * 47 (45.2 against 48.6, p 0.0037, marked), 0.37 and 0.49 sqrt(n). Over the runs of one
 * recording a side, a count must also move by more than this many sqrt(n), the drift
 * the runs cannot show; +51 faults of 2,048 and +16 of 210 still do. */
#define FOL_CMP_DRIFT_SIGMAS 1.0
enum fol_cmp_test { FOL_TEST_NONE, FOL_TEST_WELCH };

/* What a test's values are: each run of one recording a side; each run of one recording
 * whose runs alternate between the sides (a sweep's configurations, which share the
 * machine's state run by run); or each recording's mean over its runs. */
enum fol_cmp_level { FOL_LEVEL_RUNS, FOL_LEVEL_INTERLEAVED, FOL_LEVEL_RECORDINGS };

/* When the sides' recordings were made, over recordings: a side recorded wholly before or
 * after the base gives the machine's drift between the two (a page cache, a service
 * settling, a map filling) to the side, and no test over recordings tells it from the
 * kernel's doing. UNKNOWN: not over recordings, or a run without its start. */
enum fol_cmp_order { FOL_ORDER_UNKNOWN, FOL_ORDER_ALTERNATE, FOL_ORDER_IN_TURN };

/* Why a cell is not in the tested family (FOL_UNTESTED_NOT: it is). */
enum fol_cmp_untested {
	FOL_UNTESTED_NOT,
	FOL_UNTESTED_FEW_RUNS,	/* a side has fewer than FOL_CMP_MIN_RUNS values */
	FOL_UNTESTED_SINGLE,	/* a maximum, or fewer than FOL_FIG_FEW faults or calls a run */
	FOL_UNTESTED_MACHINE,	/* moved by every process on the machine */
	FOL_UNTESTED_RESTATES,	/* every run of every side equal to a row above */
	FOL_UNTESTED_STATE,	/* constant within each recording-side, different between */
	FOL_UNTESTED_DRIFT,	/* a time over the runs of one recording a side */
};

/* The values of one side's figure for the test: one a run, and the recording of each. */
struct fol_cmp_sample {
	const double *v;
	const int *rec;		/* NULL: one recording */
	int n;
	int nrec;
	/* The one recording the runs come from, as fol_side's: two samples of the same one
	 * alternate in it. NULL: not known, or several. */
	const void *recording;
};

struct fol_cmp_cell {
	int have;			/* runs of the side with the figure */
	struct fol_desc d;		/* over the side's runs */
	double change;			/* (mean - base mean) / base mean; NAN if not defined */
	enum fol_cmp_test test;
	enum fol_cmp_level level;	/* what the test's values were */
	int log;			/* tested on the logarithms (a time, every value above 0) */
	int nb, nv;			/* values tested: the base's and this side's */
	struct fol_test t;		/* the test's result */
	double q;			/* Benjamini-Hochberg's adjusted p (NAN untested): marked
					 * where q <= the rate and past the floors */
	struct fol_test mwu;		/* Mann-Whitney over the same values, for the record */
	/* The FOL_CI_LEVEL confidence interval of change: Welch's for the difference of the
	 * means over the base mean, or on logs the ratio of the geometric means less 1; NAN
	 * without a test. */
	double ci_lo, ci_hi;
	/* mmtests' BAmean-95: the mean of the best int(0.95 n) + 1 runs (all of 5 to 20) */
	double bamean;
	int tested;			/* in the family the false-discovery rate holds over */
	enum fol_cmp_untested untested;	/* why not, when not */
	int candidate;			/* past the floors: marked if the rate keeps its p */
	int significant;
	char marker;			/* 'I' better, 'R' worse, '*' changed (no better way), '='
					 * a difference of state, 0; fol_cmp_decide's is
					 * provisional, fol_cmp_mark's final */
};

struct fol_cmp_row {
	struct fol_figure fig;		/* what the figure is; v unused */
	struct fol_cmp_cell *cell;	/* one per side */
	int restates;			/* the row above it repeats, or -1 */
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
	/* The geometric mean, per side, of the means of the per-fault latencies (mean and
	 * percentiles, not maxima, of rows with FOL_FIG_FEW faults or more) that every side
	 * has above 0: mmtests' Gmean, one figure for "faster or slower a fault". Totals
	 * (fault time, phases) are left out: they move with the fault count. gmean_n
	 * figures; 0: none. */
	double *gmean;
	int gmean_n;
	double fdr;			/* the false-discovery rate the marks hold */
	/* Over recordings where every side has 2 or more, interleaved where every side's
	 * runs alternate in one recording, else over runs (the lowest of the cells'). */
	enum fol_cmp_level level;
	enum fol_cmp_order order;
	int tested;			/* figures tested (cells, beyond the base) */
	int state;			/* cells marked '=' */
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
 * whether it is in the tested family and past the floors, and its provisional marker.
 * restates: the row repeats one above it. */
void fol_cmp_decide(const struct fol_figure *fig, const struct fol_cmp_sample *base,
		    const struct fol_cmp_sample *v, int restates, struct fol_cmp_cell *cell);
/* Then every cell of the compare at once (Benjamini-Hochberg at rate fdr over the tested
 * ones): significant and marker final. Returns the largest p kept (-1: none). */
double fol_cmp_mark(struct fol_cmp_cell *const *cells, int n, double fdr);

/* A row marked on some side against the base; tested there, or marked ((=) is not
 * tested). */
int fol_cmp_row_marked(const struct fol_cmp *c, const struct fol_cmp_row *row);
int fol_cmp_row_tested(const struct fol_cmp *c, const struct fol_cmp_row *row);
/* mmtests' star (bin/lib/MMTests/Compare.pm): the means differ by more than qnorm(0.975)
 * standard deviations of each side, both sides with 2 runs or more. */
int fol_mmtests_star(const struct fol_desc *base, const struct fol_desc *v);
/* Why a cell is not tested, in a few words ("a maximum or few faults"); "" when it is. */
const char *fol_cmp_untested_text(enum fol_cmp_untested u);
/* The test's name for the JSON: "welch", "welch-log" or "none". */
const char *fol_cmp_test_name(const struct fol_cmp_cell *cell);
/* A side as the header says it: "[NAME: ][FILE, ][R recordings, ]N runs, kernel K",
 * escaped. */
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
/* Text as mmtests' compare-kernels prints it: per figure Min, Amean, Stddev, CoeffVar,
 * Max and BAmean-95 of each side with the change oriented so that + is better, mmtests'
 * star, the confidence interval of the change with foliostat's mark, a Gmean row of the
 * per-fault latencies and the workload's Duration; 80 columns for two sides
 * (compare_mmtests.c). */
void fol_cmp_mmtests(const struct fol_cmp *c, FILE *f);
/* One self-contained HTML page (inline SVG, no script, nothing fetched): the marks at the
 * top, then per tested figure each side's runs on one log axis of the change against the
 * base's mean with the change's interval, p and q, the untested rows folded away, and per
 * folio order and class the sides' latency distributions overlaid (compare_html.c). 0 or
 * -ENOMEM. */
int fol_cmp_html(const struct fol_cmp *c, FILE *f);
/* The marked figures' strips (every row's, with every_row) as one SVG image on the
 * common axis of the HTML page, with their changes, marks and q: for a link in a mail.
 * 0 or -ENOMEM. */
int fol_cmp_svg(const struct fol_cmp *c, int every_row, FILE *f);
/* Text: one side's runs aggregated, as perf stat -r prints them. */
void fol_cmp_runs_text(const struct fol_cmp *c, int side, FILE *f);
/* The probe effect of each side with untraced runs, with the standard error of each
 * difference, and the time added a fault over all phases against the calibration's. */
void fol_cmp_probe_text(const struct fol_cmp *c, FILE *f);
/* What recording added a fault on side s, measured: the phases' added time over their
 * faults; NAN without untraced runs. */
double fol_cmp_probe_per_fault(const struct fol_cmp *c, int s);
cJSON *fol_cmp_json(const struct fol_cmp *c);
/* One side's aggregate: {"runs", "figures": [...], "probe_effect": [...]}. */
cJSON *fol_cmp_side_json(const struct fol_cmp *c, int side);

#endif
