// SPDX-License-Identifier: GPL-2.0-only
#include "record/calibrate.h"

#include <errno.h>
#include <stddef.h>
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

#include "record/bpf_faults.h"
#include "data/bpf_record.h"
#include "util/clock.h"
#include "record/drain.h"
#include "record/events.h"
#include "util/stats.h"
#include "record/tracepoint.h"

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

/* attr as a recording opens its sampled events: every one, into a ring buffer. */
static void sampling_attr(struct perf_event_attr *a)
{
	a->size = sizeof(*a);
	a->sample_type |= PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	a->read_format = PERF_FORMAT_ID;
	a->sample_period = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
}

/* evlist of the events in a[] on cpus and threads, opened and mapped. */
static int open_mapped(struct perf_event_attr *a, int n, struct perf_cpu_map *cpus,
		       struct perf_thread_map *threads, int ring_pages, struct perf_evlist **out)
{
	struct perf_evlist *el = perf_evlist__new();
	int ret;

	if (!el || !cpus || !threads) {
		perf_evlist__delete(el);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		struct perf_evsel *ev = perf_evsel__new(&a[i]);

		if (!ev) {
			perf_evlist__delete(el);
			return -ENOMEM;
		}
		perf_evlist__add(el, ev);
	}
	perf_evlist__set_maps(el, cpus, threads);
	ret = perf_evlist__open(el);
	if (!ret && (ret = perf_evlist__mmap(el, ring_pages)))
		perf_evlist__close(el);
	if (ret) {
		perf_evlist__delete(el);
		return ret;
	}
	*out = el;
	return 0;
}

/* The events the exact method takes per fault, on this thread, as a recording opens them:
 * the fault entry tracepoint and the minor-faults sample at its exit; on the BPF path,
 * minor-faults with the exit program, whose records go to a bpf-output event per CPU (the
 * entry program is the recording's, on its tracepoint, for every thread followed). */
static int open_events(struct fol_bpf_faults *bpf, const struct perf_event_attr *stack,
		       uint64_t pages, struct perf_evlist **el, struct perf_evlist **out)
{
	struct perf_event_attr a[2];
	struct perf_cpu_map *any = perf_cpu_map__new_any_cpu(), *online = perf_cpu_map__new(NULL);
	struct perf_thread_map *self, *none = perf_thread_map__new_dummy();
	struct fol_tp *tp = NULL;
	pid_t tid = gettid();
	int n = 0, ret, ring = 256;

	self = perf_thread_map__new_array(1, &tid);
	memset(a, 0, sizeof(a));
	ret = fol_tp_resolve("exceptions:page_fault_user", &tp, &n);
	if (!ret && (n != 1 || fol_record_named_attr("minor-faults", &a[1])))
		ret = -ENOENT;
	a[0].type = PERF_TYPE_TRACEPOINT;
	a[0].config = n ? tp[0].id : 0;
	a[0].sample_type = PERF_SAMPLE_RAW;
	a[1].sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
	fol_tp_free(tp, n);
	for (int i = 0; i < 2; i++) {
		sampling_attr(&a[i]);
		a[i].disabled = 1;
	}
	if (stack) {
		a[0].sample_type |= stack->sample_type & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
							  PERF_SAMPLE_STACK_USER);
		a[0].exclude_callchain_kernel = stack->exclude_callchain_kernel;
		a[0].sample_regs_user = stack->sample_regs_user;
		a[0].sample_stack_user = stack->sample_stack_user;
	}
	/* A pass's samples stay in the ring until it ends: 2 of ~64 bytes a fault, and the
	 * stack copy (a sample the ring cannot take is dropped, its copy not made). */
	while (!ret && (uint64_t)ring * 4096 < pages * (256 + (stack ? stack->sample_stack_user : 0)))
		ring *= 2;
	if (!ret)
		ret = open_mapped(bpf ? &a[1] : a, bpf ? 1 : 2, any, self, ring, el);
	if (!ret && bpf) {
		memset(&a[0], 0, sizeof(a[0]));
		a[0].type = PERF_TYPE_SOFTWARE;
		a[0].config = PERF_COUNT_SW_BPF_OUTPUT;
		a[0].sample_type = PERF_SAMPLE_RAW;
		sampling_attr(&a[0]);
		ret = open_mapped(a, 1, online, none, 256, out);
		if (!ret)
			ret = fol_bpf_faults_attach(bpf, FOL_BPF_PROG_EXIT, perf_evlist__next(*el, NULL));
		if (!ret)
			ret = fol_bpf_faults_output(bpf, perf_evlist__next(*out, NULL), NULL);
	}
	perf_thread_map__put(self);
	perf_thread_map__put(none);
	perf_cpu_map__put(any);
	perf_cpu_map__put(online);
	return ret;
}

static void close_events(struct perf_evlist *el)
{
	if (!el)
		return;
	perf_evlist__munmap(el);
	perf_evlist__close(el);
	perf_evlist__delete(el);
}

/* A BPF path record closes a fault: the bpf-output sample as sampling_attr() lays it out
 * (identifier, pid and tid, time, cpu, then the raw size and the record). */
static int bpf_exit(const union perf_event *ev)
{
	const size_t at = sizeof(ev->header) + 4 * sizeof(uint64_t) + sizeof(uint32_t);
	const size_t head = offsetof(struct fol_bpf_rec, raw);
	struct fol_bpf_rec rec;

	/* An exit without its entry held (FOL_BPF_EXIT alone) carries no raw bytes: only the
	 * record's head is there to read (requiring the whole record missed every such exit:
	 * all of them on 6.1, the first fault of each pass here). */
	if (ev->header.size < at + head)
		return 0;
	memcpy(&rec, (const char *)ev + at, head);
	return (rec.what & FOL_BPF_EXIT) != 0;
}

struct drained {
	int bpf;
	uint64_t samples, exits, bytes;
};

static int count(const union perf_event *ev, void *dp)
{
	struct drained *d = dp;

	if (ev->header.type != PERF_RECORD_SAMPLE)
		return 0;
	d->samples++;
	d->bytes += ev->header.size;
	d->exits += d->bpf && bpf_exit(ev);
	return 0;
}

/* The samples waiting in the ring buffers, read and dropped; *exits counts the BPF path's
 * records that close a fault (bpf: the buffers are its outputs). */
static uint64_t drain(struct perf_evlist *el, int bpf, uint64_t *exits, uint64_t *bytes)
{
	struct drained d = { .bpf = bpf };

	fol_drain(el, count, NULL, &d);
	*exits += d.exits;
	*bytes += d.bytes;
	return d.samples;
}

int fol_calibrate(uint64_t pages, struct fol_bpf_faults *bpf, const struct perf_event_attr *stack,
		  struct fol_calibration *c)
{
	double bare[PASSES], traced[PASSES];
	struct fol_desc d;
	struct perf_evlist *el = NULL, *out = NULL;
	int ret = open_events(bpf, stack, pages, &el, &out);

	memset(c, 0, sizeof(*c));
	for (int i = 0; i < PASSES && !ret; i++) {
		ret = pass(pages, &bare[i]);
		/* Followed only while traced: the entry program holds a followed thread's
		 * faults, and writes out those that never see an exit. */
		if (!ret && bpf)
			ret = fol_bpf_faults_follow(bpf, gettid(), 0);
		perf_evlist__enable(el);
		if (!ret)
			ret = pass(pages, &traced[i]);
		perf_evlist__disable(el);
		if (bpf)
			fol_bpf_faults_unfollow(bpf, gettid());
		c->samples += drain(el, 0, &c->exits, &c->bytes) +
			      (out ? drain(out, 1, &c->exits, &c->bytes) : 0);
	}
	close_events(el);
	close_events(out);
	if (ret)
		return ret;
	fol_desc_of(bare, PASSES, &d);
	c->untraced_ns = d.median;
	fol_desc_of(traced, PASSES, &d);
	c->traced_ns = d.median;
	c->faults = pages;
	c->passes = PASSES;
	/* The plain path's exits are its minor-faults samples: half of what it read back. */
	if (!bpf)
		c->exits = c->samples / 2;
	return 0;
}
