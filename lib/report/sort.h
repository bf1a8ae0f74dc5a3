/* SPDX-License-Identifier: GPL-2.0-only */
/* The keys a report's faults are grouped by (report --sort, as perf report's): what the
 * report's view asks for, and what report_sites.c groups by. */
#ifndef FOL_SORT_H
#define FOL_SORT_H

#include <stddef.h>

struct fol_msgs;

enum fol_sort { FOL_SORT_ORDER, FOL_SORT_CLASS, FOL_SORT_SYM, FOL_SORT_DSO, FOL_SORT_MAP,
		FOL_SORT_COMM, FOL_SORT_PID, FOL_SORT_NR };

/* "order,class,sym": the keys in order, each once. 0, or -EINVAL (why says which). */
int fol_sort_parse(const char *spec, int keys[FOL_SORT_NR], int *n, struct fol_msgs *why);
const char *fol_sort_name(int key);

#endif
