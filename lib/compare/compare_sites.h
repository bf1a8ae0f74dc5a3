/* SPDX-License-Identifier: GPL-2.0-only */
/* Sides compared site by site, as perf diff compares symbols: the faults and fault time of
 * each group of the report's sort keys (report --sort: order, class, sym, dso, map, comm),
 * per side over its runs, each change tested by the rule of every compared figure
 * (fol_cmp_decide) and marked under its own false-discovery rate: which code path gained
 * faults. */
#ifndef FOL_COMPARE_SITES_H
#define FOL_COMPARE_SITES_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "compare/compare.h"
#include "report/report_sites.h"

struct fol_cmp_site {
	char *key;			/* the group's values joined (fol_group.key) */
	char *part[FOL_SORT_NR];	/* each key's value, for the columns */
	struct fol_cmp_cell *faults;	/* per side, over its runs (0 in a run without it) */
	struct fol_cmp_cell *time;	/* fault time, ns */
	double weight;			/* the most time any side spends there: the sort */
};

struct fol_cmp_sites {
	struct fol_cmp head;		/* the sides, the test and its family (no rows) */
	int keys[FOL_SORT_NR], nkeys;
	struct fol_cmp_site *v;		/* most time first */
	size_t n;
};

int fol_compare_sites(const struct fol_side *sides, int nsides, const int *keys, int nkeys,
		      double fdr, struct fol_cmp_sites *c);
void fol_cmp_sites_free(struct fol_cmp_sites *c);
/* Text: faults and fault time per side with their changes, the keys' values last (as
 * perf diff puts the symbol); top rows, or all (0). */
void fol_cmp_sites_text(const struct fol_cmp_sites *c, int top, FILE *f);
/* JSON: {"keys": [...], "test": {...}, "rows": [{"key": {...}, "faults": [VALUE...],
 * "time_ns": [VALUE...]}]}, VALUE as foliostat/compare/v2's. */
cJSON *fol_cmp_sites_json(const struct fol_cmp_sites *c, int top);

#endif
