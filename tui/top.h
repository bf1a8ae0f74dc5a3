/* SPDX-License-Identifier: GPL-2.0-only */
/* foliostat top's screen: draws the tallies (live/tally.h) that cmd/top.c keeps; computes
 * nothing. The keys and colours are the TUI's. */
#ifndef FOL_TUI_TOP_H
#define FOL_TUI_TOP_H

#include <stddef.h>
#include <stdint.h>

#include "live/tally.h"

struct fol_top_data {
	const struct fol_tally *all;	 /* every fault, with cell histograms */
	const struct fol_tally *procs;	 /* by process */
	const struct fol_tally *threads; /* by thread */
	unsigned page_size;
	double interval_s;
	const char *target;	/* "all CPUs", "pid 123", the command */
	const char *state;	/* NULL while recording; else why it ended */
	uint64_t lost;
	int intervals;		/* ended so far */
	/* The last interval's cost a fault, measured: the BPF programs' time in the kernel
	 * (prog_ns < 0: not measured, the samples path or no BPF statistics) and top's own
	 * CPU time; per second, the faults. */
	double prog_ns, self_ns, per_s;
};

struct fol_top_ui;

/* The screen, on the terminal that standard output is now (cmd/top.c moves standard
 * output and error away after, for the workload's output): 0, -ENOTTY, or -EIO with err
 * saying why. */
int fol_top_open(struct fol_top_ui **out, char *err, size_t errlen);
void fol_top_close(struct fol_top_ui *u);
/* The keys pressed since the last call, without waiting: 1 when one quits. */
int fol_top_keys(struct fol_top_ui *u, const struct fol_top_data *d);
/* f was pressed: the tallies' intervals are not to move on. */
int fol_top_frozen(const struct fol_top_ui *u);
void fol_top_draw(struct fol_top_ui *u, const struct fol_top_data *d);

#endif
