// SPDX-License-Identifier: GPL-2.0-only
#include "record/drain.h"

#include <perf/evlist.h>
#include <perf/mmap.h>
#include <stdbool.h>
#include <stddef.h>

int fol_drain(struct perf_evlist *evlist, int (*each)(const union perf_event *ev, void *ctx),
	      int (*ring_done)(void *ctx), void *ctx)
{
	struct perf_mmap *map;
	union perf_event *ev;
	int ret = 0;

	perf_evlist__for_each_mmap(evlist, map, false) {
		if (perf_mmap__read_init(map) < 0)
			continue;
		while ((ev = perf_mmap__read_event(map)) != NULL) {
			if ((ret = each(ev, ctx)))
				return ret;
			perf_mmap__consume(map);
		}
		/* No perf_mmap__read_done(): for a non-overwrite buffer it sets the read position
		 * to the kernel's head as it is now, past any record written since the last
		 * perf_mmap__read_event() returned NULL, and that record would be skipped with
		 * no PERF_RECORD_LOST (seen here: one sample in ~300K missing, about one run in
		 * twenty). perf_mmap__read_event() and perf_mmap__consume() keep the position. */
		if (ring_done && (ret = ring_done(ctx)))
			return ret;
	}
	return 0;
}
