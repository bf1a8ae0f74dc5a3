/* SPDX-License-Identifier: GPL-2.0-only */
/* Synthetic event streams for the model's tests (test_model.c, test_model_kernel.c): a
 * fault's entry, allocation and exit, mappings, forks, as the decoder hands them. */
#ifndef FOL_TEST_MODEL_EVENTS_H
#define FOL_TEST_MODEL_EVENTS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "util/hist.h"
#include "model/model.h"
#include "sys/pagecache.h"

#define PID 100
#define BASE 0x7f0000000000ull

static uint64_t now = 1000000;

static inline struct fol_model *model(void)
{
	struct fol_model_opts o = { .page_size = 4096, .order = FOL_ANY, .cls = FOL_ANY,
				    .pmd_order = 9 };

	now = 1000000;
	return fol_model_new(&o);
}

static inline void feed(struct fol_model *m, struct fol_event ev)
{
	if (!ev.time)
		ev.time = now++;
	if (ev.kind != FOL_EV_MMAP && ev.kind != FOL_EV_FORK && ev.kind != FOL_EV_EXIT &&
	    ev.kind != FOL_EV_COMM)
		ev.evidx = 1;
	else
		ev.evidx = -1;
	assert_int_equal(fol_model_event(m, &ev), 0);
}

static inline void entry(struct fol_model *m, int pid, int tid, uint64_t addr, uint64_t ec, uint64_t t)
{
	feed(m, (struct fol_event){ .time = t, .pid = pid, .tid = tid, .kind = FOL_EV_FAULT_USER,
				    .fault = { .address = addr, .error_code = ec } });
}

static inline void leave(struct fol_model *m, int pid, int tid, uint64_t addr, uint64_t t)
{
	feed(m, (struct fol_event){ .time = t, .pid = pid, .tid = tid, .kind = FOL_EV_FAULT_EXIT,
				    .exit = { .addr = addr } });
}

static inline void alloc(struct fol_model *m, int pid, int tid, int order, uint64_t gfp)
{
	feed(m, (struct fol_event){ .pid = pid, .tid = tid, .kind = FOL_EV_PAGE_ALLOC,
				    .page = { .pfn = 0x1000, .order = order, .gfp = gfp } });
}

static inline void anon_vma(struct fol_model *m, int pid, uint64_t start, uint64_t len)
{
	feed(m, (struct fol_event){ .pid = pid, .tid = pid, .kind = FOL_EV_MMAP,
				    .mmap = { .start = start, .len = len, .filename = "//anon" } });
}

/* A complete fault of `lat` ns, optionally allocating a user folio of `order`. */
static inline void fault(struct fol_model *m, int pid, int tid, uint64_t addr, uint64_t ec, int order,
		  uint64_t lat)
{
	uint64_t t = now;

	entry(m, pid, tid, addr, ec, t);
	now = t + 1;
	if (order >= 0)
		alloc(m, pid, tid, order, 0x140cca);
	leave(m, pid, tid, addr, t + lat);
	now = t + lat + 100;
}

static inline void fork_proc(struct fol_model *m, int parent, int child)
{
	feed(m, (struct fol_event){ .kind = FOL_EV_FORK,
				    .fork = { .pid = child, .ppid = parent, .tid = child, .ptid = parent } });
}

/* A process that forks in a loop, its child gone at once, then writes the first 16 pages
 * of the region at BASE: a reuse episode per round on a folio of 64K or larger. */
static inline void fork_write_rounds(struct fol_model *m, int rounds)
{
	for (int round = 0; round < rounds; round++) {
		fork_proc(m, PID, 200 + round);
		feed(m, (struct fol_event){ .kind = FOL_EV_EXIT,
					    .fork = { .pid = 200 + round, .tid = 200 + round,
						      .ppid = PID, .ptid = PID } });
		for (int p = 0; p < 16; p++)
			fault(m, PID, PID, BASE + (uint64_t)p * 4096, 0x7, -1, 1000);
	}
}

static inline struct fol_summary finish(struct fol_model *m)
{
	struct fol_summary s;

	assert_int_equal(fol_model_finish(m, &s), 0);
	return s;
}

#define CELL(s, o, cls) ((s).order[FOL_ORDER_SLOT(o)].cell[cls])

static inline void rss(struct fol_model *m, int member)
{
	feed(m, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_RSS_STAT,
				    .rss = { .member = member, .size = 4096 } });
}

static inline void file_map(struct fol_model *m, uint64_t start, uint64_t len, uint64_t pgoff,
		     uint32_t flags, uint64_t ino)
{
	feed(m, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_MMAP,
				    .mmap = { .start = start, .len = len, .pgoff = pgoff, .flags = flags,
					      .maj = 8, .min = 1, .ino = ino, .filename = "/lib/x.so" } });
}

static inline void rss_abs(struct fol_model *m, int member, int64_t size)
{
	feed(m, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_RSS_STAT,
				    .rss = { .member = member, .size = size } });
}

static inline void rss_of(struct fol_model *m, int pid, uint32_t mm_id, int member, int64_t pages)
{
	feed(m, (struct fol_event){ .pid = pid, .tid = pid, .kind = FOL_EV_RSS_STAT,
				    .rss = { .member = member, .size = pages * 4096, .mm_id = mm_id } });
}

static inline void mremap_ev(struct fol_model *m, uint64_t from, uint64_t len, int64_t to)
{
	feed(m, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_MREMAP,
				    .vm = { .start = from, .len = len, .new_len = len } });
	feed(m, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_MREMAP_EXIT,
				    .vm = { .ret = to } });
}

static inline void retimed_exit(struct fol_model *m, uint64_t addr, uint64_t t)
{
	feed(m, (struct fol_event){ .time = t, .pid = PID, .tid = PID, .retimed = 1,
				    .kind = FOL_EV_FAULT_EXIT, .exit = { .addr = addr } });
}

static inline int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static inline void comm(struct fol_model *m, int pid, int tid, const char *name)
{
	feed(m, (struct fol_event){ .pid = pid, .tid = tid, .kind = FOL_EV_COMM,
				    .comm = { .comm = name } });
}

#endif
