/* SPDX-License-Identifier: GPL-2.0-only */
/* CLOCK_MONOTONIC in ns: the clock of the recordings, of the workloads' phases and of
 * foliostat's own deadlines. */
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

#endif
