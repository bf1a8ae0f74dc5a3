// SPDX-License-Identifier: GPL-2.0-only
#include "report/sort.h"
#include "util/msgs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *const sort_names[FOL_SORT_NR] = { "order", "class", "sym", "dso", "map",
						     "comm", "pid" };

const char *fol_sort_name(int key)
{
	return key >= 0 && key < FOL_SORT_NR ? sort_names[key] : "?";
}

int fol_sort_parse(const char *spec, int keys[FOL_SORT_NR], int *n, struct fol_msgs *why)
{
	const char *p = spec;

	*n = 0;
	while (*p) {
		size_t len = strcspn(p, ",");
		int k;

		for (k = 0; k < FOL_SORT_NR; k++)
			if (strlen(sort_names[k]) == len && !strncmp(p, sort_names[k], len))
				break;
		if (k == FOL_SORT_NR) {
			fol_msgs_add(why, "unknown sort key '%.*s': give order, class, sym, dso, "
					      "map, comm or pid, joined by commas", (int)len, p);
			return -EINVAL;
		}
		for (int i = 0; i < *n; i++)
			if (keys[i] == k) {
				fol_msgs_add(why, "sort key '%s' given twice", sort_names[k]);
				return -EINVAL;
			}
		keys[(*n)++] = k;
		p += len;
		if (*p == ',' && *++p == '\0') {
			fol_msgs_add(why, "'%s': a comma ends it", spec);
			return -EINVAL;
		}
	}
	if (!*n) {
		fol_msgs_add(why, "give sort keys, e.g. --sort sym,map");
		return -EINVAL;
	}
	return 0;
}
