/* SPDX-License-Identifier: GPL-2.0-only */
/* CLOCK_MONOTONIC in ns: the clock of the recordings, of the workloads' phases and of
 * foliostat's own deadlines; and this process's CPU time. */
#ifndef FOL_CLOCK_H
#define FOL_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t fol_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The CPU time this process has used, all its threads, in ns: top's own cost. */
static inline uint64_t fol_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
