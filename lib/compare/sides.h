/* SPDX-License-Identifier: GPL-2.0-only */
/* The sides of a comparison, made of recordings: each configuration of a file's runs (or
 * of a directory's recordings, one per boot or session) is a side, its whole runs only,
 * named for its column ("base", "patched:mthp=64K"). compare and report's summary of a
 * recording's runs build theirs here. */
#ifndef FOL_SIDES_H
#define FOL_SIDES_H

#include "compare/compare.h"
#include "report/runs.h"

#define FOL_MAX_SIDES 64

struct fol_sides {
	struct fol_side v[FOL_MAX_SIDES];
	int n;
	/* What the sides point into, theirs to free. */
	const struct fol_report **runs[FOL_MAX_SIDES];
	int *rec[FOL_MAX_SIDES];
	const struct fol_run_out **out[FOL_MAX_SIDES];
	char *names[FOL_MAX_SIDES];
	const struct fol_bare **bare[FOL_MAX_SIDES];
};

/* Add the configurations of the recordings rs[0..nrs) (one file, or a directory's) as
 * sides; name is the file or directory (NULL: the configuration alone). key: the swept
 * key, to name a configuration's column "mthp=64K" (a bare "64K" column stood beside
 * order rows named 64K), or NULL. Only whole runs are a side's: a configuration with
 * none is no side. 0, -E2BIG (more than FOL_MAX_SIDES) or -ENOMEM. The sides point into
 * rs: keep it until fol_sides_free. */
int fol_sides_add(struct fol_sides *s, const struct fol_runs *rs, int nrs, const char *name, const char *key);
void fol_sides_free(struct fol_sides *s);

#endif
