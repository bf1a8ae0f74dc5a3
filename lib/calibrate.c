// SPDX-License-Identifier: GPL-2.0-only
#include "calibrate.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <perf/cpumap.h>
#include <perf/event.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/mmap.h>
#include <perf/threadmap.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clock.h"
#include "record.h"
#include "stats.h"
#include "tracepoint.h"

#define PASSES 5

/* One pass: pages read faults on memory never touched (4K zero-page mappings, no THP),
 * its time per fault. */
static int pass(uint64_t pages, double *ns)
{
	long ps = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)pages * (size_t)ps;
	volatile char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t t0, sum = 0;

	if (p == MAP_FAILED)
		return -errno;
	madvise((void *)p, len, MADV_NOHUGEPAGE);
	t0 = fol_mono_ns();
	for (size_t off = 0; off < len; off += (size_t)ps)
		sum += (uint64_t)p[off];
	*ns = (double)(fol_mono_ns() - t0) / (double)pages;
	munmap((void *)p, len);
	return sum ? -EIO : 0; /* the zero page reads 0 */
}

/* The two events the exact method takes per fault, on this thread, as a recording opens
 * them (sample every one, into a ring buffer). */
static int open_events(struct perf_evlist **out)
{
	struct perf_event_attr a[2];
	struct fol_tp *tp = NULL;
	struct perf_evlist *el = perf_evlist__new();
	struct perf_thread_map *self;
	struct perf_cpu_map *any;
	pid_t tid = gettid();
	int n = 0, ret;

	if (!el)
		return -ENOMEM;
	ret = fol_tp_resolve("exceptions:page_fault_user", &tp, &n);
	if (ret || n != 1 || fol_record_named_attr("minor-faults", &a[1])) {
		fol_tp_free(tp, n);
		perf_evlist__delete(el);
		return ret ? ret : -ENOENT;
	}
	memset(&a[0], 0, sizeof(a[0]));
	a[0].type = PERF_TYPE_TRACEPOINT;
	a[0].config = tp[0].id;
	a[0].sample_type = PERF_SAMPLE_RAW;
	a[1].sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
	fol_tp_free(tp, n);
	for (int i = 0; i < 2; i++) {
		struct perf_evsel *ev;

		a[i].size = sizeof(a[i]);
		a[i].sample_type |= PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				    PERF_SAMPLE_CPU;
		a[i].sample_period = 1;
		a[i].disabled = 1;
		a[i].use_clockid = 1;
		a[i].clockid = CLOCK_MONOTONIC;
		if (!(ev = perf_evsel__new(&a[i]))) {
			perf_evlist__delete(el);
			return -ENOMEM;
		}
		perf_evlist__add(el, ev);
	}
	self = perf_thread_map__new_array(1, &tid);
	any = perf_cpu_map__new_any_cpu();
	if (!self || !any) {
		perf_thread_map__put(self);
		perf_cpu_map__put(any);
		perf_evlist__delete(el);
		return -ENOMEM;
	}
	perf_evlist__set_maps(el, any, self);
	perf_thread_map__put(self);
	perf_cpu_map__put(any);
	ret = perf_evlist__open(el);
	if (!ret && (ret = perf_evlist__mmap(el, 256)))
		perf_evlist__close(el);
	if (ret) {
		perf_evlist__delete(el);
		return ret;
	}
	*out = el;
	return 0;
}

/* The samples waiting in the ring buffers, read and dropped. */
static uint64_t drain(struct perf_evlist *el)
{
	struct perf_mmap *map;
	union perf_event *ev;
	uint64_t n = 0;

	perf_evlist__for_each_mmap(el, map, false) {
		if (perf_mmap__read_init(map) < 0)
			continue;
		while ((ev = perf_mmap__read_event(map)) != NULL) {
			n += ev->header.type == PERF_RECORD_SAMPLE;
			perf_mmap__consume(map);
		}
		/* No perf_mmap__read_done(): the reason is in record.c's drain_evlist(). */
	}
	return n;
}

int fol_calibrate(uint64_t pages, struct fol_calibration *c)
{
	double bare[PASSES], traced[PASSES];
	struct fol_desc d;
	struct perf_evlist *el;
	int ret = open_events(&el);

	memset(c, 0, sizeof(*c));
	if (ret)
		return ret;
	/* 256 ring pages hold 2 samples of ~64 bytes for 2048 faults (256 KB) with room. */
	for (int i = 0; i < PASSES && !ret; i++) {
		ret = pass(pages, &bare[i]);
		perf_evlist__enable(el);
		if (!ret)
			ret = pass(pages, &traced[i]);
		perf_evlist__disable(el);
		c->samples += drain(el);
	}
	perf_evlist__munmap(el);
	perf_evlist__close(el);
	perf_evlist__delete(el);
	if (ret)
		return ret;
	fol_desc_of(bare, PASSES, &d);
	c->untraced_ns = d.median;
	fol_desc_of(traced, PASSES, &d);
	c->traced_ns = d.median;
	c->faults = pages;
	c->passes = PASSES;
	return 0;
}
