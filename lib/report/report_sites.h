/* SPDX-License-Identifier: GPL-2.0-only */
/* The report's breakdown of faults by perf-like sort keys (report --sort): the model's
 * sites (sites.h) grouped by any combination of order, class, sym, dso, map, comm, pid,
 * symbols looked up once per site. */
#ifndef FOL_REPORT_SITES_H
#define FOL_REPORT_SITES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/sort.h"

struct fol_group {
	char *part[FOL_SORT_NR]; /* the value of each key asked for (others NULL) */
	char *src;		 /* the source line of the site with most time in the group */
	uint64_t src_ns;	 /* ... that site's time */
	int order;		 /* with the order key: the order (-1 unknown) */
	char *key;		 /* the values of the keys, joined: what makes it one group */
	uint64_t faults, time_ns, max_ns;
};

struct fol_grouping {
	int keys[FOL_SORT_NR], nkeys;
	struct fol_group *v; /* by fault time, most first (then faults) */
	size_t n;
	uint64_t faults, time_ns; /* of all groups */
};

struct fol_report;
int fol_report_group(const struct fol_report *r, const int *keys, int nkeys, struct fol_grouping *g);
void fol_grouping_free(struct fol_grouping *g);

/* record -g's stacks as folded lines ("comm;outermost;...;innermost"), one per distinct
 * stack of names with the faults and time of its stacks, sorted by line: every stack
 * (g NULL), or those of the sites in group gi of g. 0, -ENOENT (no stacks: not recorded
 * with -g), -EINVAL (no group gi), -ENOMEM. */
struct fol_folded {
	char *line;
	uint64_t faults, time_ns;
};
struct fol_folded_set {
	struct fol_folded *v;
	size_t n;
};
int fol_report_stacks(const struct fol_report *r, const struct fol_grouping *g, size_t gi,
		      struct fol_folded_set *out);
void fol_folded_free(struct fol_folded_set *s);

/* record -g's stacks as folded lines for flame graphs (flamegraph.pl, inferno, speedscope):
 * "comm;outermost;...;innermost N", N the faults' time in ns (by_count: their number);
 * one line per distinct stack of names, sorted. 0, -ENOENT (no stacks: not recorded
 * with -g), -ENOMEM. */
int fol_report_folded(const struct fol_report *r, int by_count, FILE *f);

#endif
