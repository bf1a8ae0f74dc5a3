/* SPDX-License-Identifier: GPL-2.0-only */
/* A comparison of recordings as the user names them: each side a recording, or a
 * directory of recordings (its *.data files in name order, one per boot or session),
 * read, checked for what they should share, made into sides and compared. compare and
 * `tui A B` both open one here. */
#ifndef FOL_INPUTS_H
#define FOL_INPUTS_H

#include "compare/compare.h"
#include "compare/sides.h"
#include "model/model.h"
#include "report/runs.h"
#include "util/msgs.h"

/* One side as given. */
struct fol_input {
	const char *path;
	char **files;
	int nfiles;
	struct fol_runs *rs;	/* the recordings with a whole run */
	int n;
};

struct fol_comparison {
	struct fol_input *in;
	int nin;
	struct fol_sides sd;
	struct fol_cmp c;
	int compared;		/* c is filled */
};

/* Whether paths[0..n) can be compared: two sides at least, FOL_MAX_SIDES at most, no file
 * twice (a file compared with itself tells nothing). 0, or -EINVAL with why: the user's
 * mistake. */
int fol_comparison_check(char *const *paths, int n, struct fol_msgs *why);

/* Read paths[0..n) and compare them (at false-discovery rate fdr). What the reader should
 * know goes to warn: runs left out, damaged files, recordings of another command or,
 * within a side, another kernel. 0, or a negative code with its message in why; a code
 * of fol_runs_load's with *failed set names the file that could not be opened (its
 * message is the caller's to word: why is empty then). Close k either way. */
int fol_comparison_open(struct fol_comparison *k, char **paths, int n, const struct fol_model_opts *mo,
			double fdr, struct fol_msgs *warn, struct fol_msgs *why, const char **failed);
void fol_comparison_close(struct fol_comparison *k);

#endif
