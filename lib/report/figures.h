/* SPDX-License-Identifier: GPL-2.0-only */
/* A report as a flat list of figures: what runs are aggregated over and sides compared
 * on. Each figure says which way is better, so that a change can be called an
 * improvement or a regression. */
#ifndef FOL_FIGURES_H
#define FOL_FIGURES_H

#include <stdint.h>

#include "report/report.h"

enum fol_unit { FOL_UNIT_COUNT, FOL_UNIT_NS, FOL_UNIT_RATIO, FOL_UNIT_PERCENT };

/* A time of fewer faults (or calls) than this in a run is about those few: the vDSO's one
 * fault a run, 4 madvise calls. Drift between recordings made minutes apart moves them
 * more than their runs vary within one (an A/A test marked 4K special p50..p99 so). */
#define FOL_FIG_FEW 20

enum fol_better {
	FOL_BETTER_LOWER = -1,	/* fewer faults, less time */
	FOL_BETTER_NONE = 0,	/* a fact of the run (folios allocated, kernel counters) */
	FOL_BETTER_HIGHER = 1,	/* effectiveness */
};

struct fol_figure {
	char key[96];		/* stable, for JSON: "order.64K.wp_reuse.p99_ns" */
	char label[64];		/* for the text: "64K wp_reuse p99" */
	const char *section;	/* "faults", "orders", "reuse", "folios", "phases", ... */
	uint32_t rank;		/* rows sort by it: section, order, class, statistic */
	enum fol_unit unit;
	int better;		/* enum fol_better */
	/* Moved by every process on the machine (/proc/vmstat, the mTHP stats): a change
	 * between sides is not the workload's, so it is shown and never marked. */
	int system_wide;
	/* A run without the figure had none of it (a count, a total): 0 there. Otherwise
	 * (a mean, a percentile, a ratio) the run does not count for it. */
	int additive;
	/* The value of one or a few faults (a maximum; a time or latency of fewer than
	 * FOL_FIG_FEW faults or calls in a run): shown, never marked. */
	int single;
	/* How close the value is to the truth, relative (a percentile: within 1/16 of it,
	 * hist.h); 0 exact. A change within two of these is resolution, not news. */
	double resolution;
	int latency;		/* a statistic of per-fault latencies (mean, percentile, max) */
	double v;
};

struct fol_figures {
	struct fol_figure *v;
	int n;
	size_t cap;
};

int fol_figures_of(const struct fol_report *r, struct fol_figures *f);
void fol_figures_free(struct fol_figures *f);
const struct fol_figure *fol_figures_find(const struct fol_figures *f, const char *key);
/* Faults that entered within [start, end) by the report's timeline (fault counts per
 * bin; bins that straddle an edge are shared out by overlap). */
double fol_faults_between(const struct fol_summary *s, uint64_t start, uint64_t end);
/* The workload's phases summed by name (a phase that repeats, as in fork-loop, is one
 * figure): names[i], their time ns[i] and the faults in them faults[i], at most max;
 * returns how many. names point into the report. */
int fol_phase_totals(const struct fol_report *r, const char **names, double *ns, double *faults,
		     int max);

#endif
