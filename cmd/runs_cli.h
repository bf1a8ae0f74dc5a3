/* SPDX-License-Identifier: GPL-2.0-only */
/* What report, stat, compare and tui share of comparisons (cmd-internal): a recording's
 * runs summarised (aggregated, or a sweep's configurations side by side), and recordings
 * opened for a comparison with what they say printed. */
#ifndef FOL_CMD_RUNS_CLI_H
#define FOL_CMD_RUNS_CLI_H

#include <stdio.h>

#include "compare/inputs.h"
#include "report/runs.h"

enum runs_format { RUNS_TEXT, RUNS_JSON, RUNS_TUI, RUNS_MMTESTS };

/* A recording of several runs as text on f, JSON on f, mmtests' layout on f, or in the
 * TUI. 0, or the exit status (said). */
int print_runs(const struct fol_runs *rs, enum runs_format how, FILE *f);

/* fol_comparison_open, its warnings and error printed: 0, or the exit status. Close k
 * either way. */
int open_comparison(struct fol_comparison *k, char **paths, int n, const struct fol_model_opts *mo,
		    double fdr);

#endif
