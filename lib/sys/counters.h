/* SPDX-License-Identifier: GPL-2.0-only */
/* Kernel counters snapshotted around a recording: /proc/vmstat, THP and every mTHP size's
 * policy and stats. System-wide: other processes move them too. */
#ifndef FOL_COUNTERS_H
#define FOL_COUNTERS_H

#include <cjson/cJSON.h>

/* {"vmstat":{name:n}, "thp":{"enabled":s,"defrag":s}, "mthp":{"64kB":{"enabled":s,
 * "stats":{name:n}}}} read from root (normally "/"; tests pass a fake tree). */
cJSON *fol_counters_snapshot(const char *root);
/* after - before for every numeric leaf present in both, same shape, policies from after. */
cJSON *fol_counters_delta(const cJSON *before, const cJSON *after);
/* How many swap devices and files are active (/proc/swaps). */
int fol_swap_devices(void);

#endif
