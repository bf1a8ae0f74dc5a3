// SPDX-License-Identifier: GPL-2.0-only
/* The model on synthetic event streams, no kernel needed: faults, folios, address spaces.
 * The kernel's own work (system calls, collapse, reclaim) is test_model_kernel.c's. */
#include "model_events.h"
#include "sys/cgroup.h"

static void test_reuse_64k(void **state)
{
	struct fol_model *m = model();
	struct fol_summary s;

	(void)state;
	anon_vma(m, PID, BASE, 1 << 20);
	/* Two 64K folios, then 16 reuse faults on each, one per page. */
	fault(m, PID, PID, BASE, 0x6, 4, 5000);
	fault(m, PID, PID, BASE + 65536, 0x6, 4, 5000);
	for (int f = 0; f < 2; f++)
		for (int p = 0; p < 16; p++)
			fault(m, PID, PID, BASE + (uint64_t)f * 65536 + (uint64_t)p * 4096 + 8, 0x7, -1,
			      1000 + (uint64_t)p);
	s = finish(m);
	assert_int_equal(CELL(s, 4, FOL_C_ANON_ALLOC).faults, 2);
	assert_int_equal(s.order[FOL_ORDER_SLOT(4)].folios_allocated, 2);
	assert_int_equal(CELL(s, 4, FOL_C_WP_REUSE).faults, 32);
	assert_int_equal(s.order[FOL_ORDER_SLOT(4)].reuse.folios, 2);
	assert_int_equal(s.order[FOL_ORDER_SLOT(4)].reuse.faults, 32);
	assert_int_equal(s.order[FOL_ORDER_SLOT(4)].reuse.hist[fol_reuse_bucket(16)], 2);
	assert_int_equal(fol_reuse_bucket(16), 4);
	/* Time of the surplus faults: all but the first (1000 ns) of each folio. */
	assert_int_equal(s.order[FOL_ORDER_SLOT(4)].reuse.time_ns, 2 * (16 * 1000 + 120));
	assert_int_equal(s.order[FOL_ORDER_SLOT(4)].reuse.surplus_ns, 2 * (15 * 1000 + 120));
	assert_int_equal(CELL(s, 4, FOL_C_WP_REUSE).lat.max, 1015);
	assert_int_equal(CELL(s, 4, FOL_C_WP_REUSE).lat.min, 1000);
	assert_int_equal(s.unclosed, 0);
	fol_summary_free(&s);
	fol_model_free(m);
}

/* A process that forks in a loop: each fork shares its folios again, so each round of
 * 16 writes after the child's exit is a new episode of 16, not 16 x forks (the kernel's
 * cow selftest showed 588 and 1,087 "per folio" for 16 pages before). */
static void test_reuse_episodes(void **state)
{
	struct fol_model *m = model();
	struct fol_summary s;
	const struct fol_reuse *r;

	(void)state;
	anon_vma(m, PID, BASE, 1 << 20);
	fault(m, PID, PID, BASE, 0x6, 4, 5000);
	fork_write_rounds(m, 3);
	s = finish(m);
	r = &s.order[FOL_ORDER_SLOT(4)].reuse;
	assert_int_equal(r->folios, 1);
	assert_int_equal(r->episodes, 3);
	assert_int_equal(r->faults, 48);
	assert_int_equal(r->hist[fol_reuse_bucket(16)], 3);
	assert_int_equal(r->hist[fol_reuse_bucket(48)], 0);
	assert_int_equal(r->surplus_ns, 3 * 15 * 1000);
	fol_summary_free(&s);
	fol_model_free(m);
}

static void test_interleaved_threads(void **state)
{
	struct fol_model *m = model();
	struct fol_summary s;

	(void)state;
	anon_vma(m, PID, BASE, 1 << 20);
	/* Thread 101 enters, 102 enters, 101 allocates order 0, 102 allocates order 2,
	 * 102 leaves, 101 leaves: each fault gets its own allocation and time. */
	entry(m, PID, 101, BASE, 0x6, 100);
	entry(m, PID, 102, BASE + 0x10000, 0x6, 110);
	feed(m, (struct fol_event){ .time = 120, .pid = PID, .tid = 101, .kind = FOL_EV_PAGE_ALLOC,
				    .page = { .order = 0, .gfp = 0x140cca } });
	feed(m, (struct fol_event){ .time = 130, .pid = PID, .tid = 102, .kind = FOL_EV_PAGE_ALLOC,
				    .page = { .order = 2, .gfp = 0x140cca } });
	/* A page table for 102: not a user folio. */
	feed(m, (struct fol_event){ .time = 131, .pid = PID, .tid = 102, .kind = FOL_EV_PAGE_ALLOC,
				    .page = { .order = 3, .gfp = 0x440dc0 } });
	leave(m, PID, 102, BASE + 0x10000, 150);
	leave(m, PID, 101, BASE, 400);
	s = finish(m);
	assert_int_equal(CELL(s, 0, FOL_C_ANON_ALLOC).faults, 1);
	assert_int_equal(CELL(s, 0, FOL_C_ANON_ALLOC).lat.sum, 300);
	assert_int_equal(CELL(s, 2, FOL_C_ANON_ALLOC).faults, 1);
	assert_int_equal(CELL(s, 2, FOL_C_ANON_ALLOC).lat.sum, 40);
	assert_int_equal(CELL(s, 3, FOL_C_ANON_ALLOC).faults, 0);
	assert_int_equal(s.threads, 2);
	fol_summary_free(&s);
	fol_model_free(m);
}

static void test_classes(void **state)
{
	struct fol_model *m = model();
	struct fol_summary s;

	(void)state;
	anon_vma(m, PID, BASE, 1 << 20);
	feed(m, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_MMAP,
				    .mmap = { .start = 0x400000, .len = 0x10000, .filename = "/usr/bin/true" } });
	fault(m, PID, PID, BASE, 0x4, -1, 10);	 /* read, not present, nothing allocated */
	fault(m, PID, PID, BASE + 4096, 0x6, 0, 20); /* write, not present, allocates */
	fault(m, PID, PID, BASE + 4096, 0x7, 0, 30); /* present + write + allocation: COW */
	fault(m, PID, PID, BASE + 8192, 0x5, -1, 40); /* present read: spurious */
	fault(m, PID, PID, 0x401000, 0x14, -1, 50);   /* file */
	/* Swap-in: a major fault. */
	entry(m, PID, PID, BASE + 12288, 0x6, now);
	feed(m, (struct fol_event){ .time = now + 60, .pid = PID, .tid = PID,
				    .kind = FOL_EV_FAULT_EXIT_MAJ, .exit = { .addr = BASE + 12288 } });
	now += 100;
	/* A read that maps a page without allocating, but anon rss grows: not the zero
	 * page (swap cache hit or similar): other. */
	entry(m, PID, PID, BASE + 16384, 0x4, now);
	feed(m, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_RSS_STAT,
				    .rss = { .member = 1, .size = 8192 } });
	leave(m, PID, PID, BASE + 16384, now + 5);
	s = finish(m);
	assert_int_equal(CELL(s, 0, FOL_C_ANON_ZERO).faults, 1);
	assert_int_equal(CELL(s, 0, FOL_C_ANON_ALLOC).faults, 1);
	assert_int_equal(CELL(s, 0, FOL_C_WP_COPY).faults, 1);
	assert_int_equal(CELL(s, -1, FOL_C_OTHER).faults, 2);
	assert_int_equal(CELL(s, -1, FOL_C_FILE).faults, 1);
	assert_int_equal(CELL(s, -1, FOL_C_SWAP_IN).faults, 1);
	assert_int_equal(CELL(s, -1, FOL_C_SWAP_IN).major, 1);
	assert_int_equal(s.faults, 7);
	/* Each unknown with its cause. */
	assert_int_equal(s.unknown[FOL_U_FILE_CACHED], 1);
	assert_int_equal(s.unknown[FOL_U_SWAP_CACHE], 1);
	assert_int_equal(s.unknown[FOL_U_BEFORE], 2);
	assert_int_equal(s.unknown[FOL_U_MOVED_UNALIGNED] + s.unknown[FOL_U_NOT_SEEDED] +
			 s.unknown[FOL_U_MREMAP_UNSEEN], 0);
	fol_summary_free(&s);
	fol_model_free(m);
}

/* A write to a private file page not yet mapped (do_cow_fault): the page cache folio is
 * read in (an order-2 folio here), then copied to an anonymous 4K folio, which is what the
 * address maps. The fault is a file fault of order 4K, and the copy is in the folio map:
 * after fork, a write to it is a 4K reuse, not "unknown". */
static void test_file_cow(void **state)
{
	struct fol_model *m = model();
	struct fol_summary s;
	const uint64_t data = 0x600000;

	(void)state;
	feed(m, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_MMAP,
				    .mmap = { .start = data, .len = 0x10000, .filename = "/lib/libc.so" } });
	entry(m, PID, PID, data, 0x6, now);
	alloc(m, PID, PID, 2, 0x140cca);
	feed(m, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_FILEMAP_ADD,
				    .filemap = { .pfn = 0x1000, .order = 2 } });
	feed(m, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_PAGE_ALLOC,
				    .page = { .pfn = 0x2000, .order = 0, .gfp = 0x140cca } });
	rss(m, 1);
	leave(m, PID, PID, data, now + 10);
	/* A read of the next page: page cache only, order from the filemap event. */
	entry(m, PID, PID, data + 4096, 0x4, now);
	feed(m, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_FILEMAP_ADD,
				    .filemap = { .pfn = 0x3000, .order = 2 } });
	leave(m, PID, PID, data + 4096, now + 10);
	fork_proc(m, PID, 300);
	feed(m, (struct fol_event){ .kind = FOL_EV_EXIT,
				    .fork = { .pid = 300, .tid = 300, .ppid = PID, .ptid = PID } });
	fault(m, PID, PID, data, 0x7, -1, 10);
	s = finish(m);
	assert_int_equal(CELL(s, 0, FOL_C_FILE).faults, 1);
	assert_int_equal(CELL(s, 2, FOL_C_FILE).faults, 1);
	assert_int_equal(CELL(s, 0, FOL_C_WP_REUSE).faults, 1);
	assert_int_equal(s.order[0].cell[FOL_C_WP_REUSE].faults, 0);
	fol_summary_free(&s);
	fol_model_free(m);
}

/* record -G: a folio a task outside the cgroup added to the page cache is the one the
 * cgroup's task then faults on: its order known, the other task's event counted outside.
 * (Seen in a 6.1 guest: stat -G said 57 more file faults of unknown order than serve -a.) */
static void test_file_pagecache_scope(void **state)
{
	cJSON *j = cJSON_Parse("{\"path\": \"/a\", \"ids\": [\"0x10\"]}");
	struct fol_cgroups c;
	struct fol_model_opts o = { .page_size = 4096, .order = FOL_ANY, .cls = FOL_ANY,
				    .pmd_order = 9, .cgroups = &c };
	struct fol_model *m;
	struct fol_summary s;

	(void)state;
	assert_int_equal(fol_cgroups_from_json(j, &c), 0);
	cJSON_Delete(j);
	m = fol_model_new(&o);
	assert_non_null(m);
	file_map(m, 0x600000, 0x10000, 0, MAP_PRIVATE, 7);
	feed(m, (struct fol_event){ .pid = 500, .tid = 500, .cgroup = 0x99, .kind = FOL_EV_FILEMAP_ADD,
				    .filemap = { .dev = 8 << 20 | 1, .ino = 7, .index = 4, .order = 2 } });
	fault(m, PID, PID, 0x604000, 0x4, -1, 10);
	s = finish(m);
	assert_int_equal(CELL(s, 2, FOL_C_FILE).faults, 1);
	assert_int_equal(s.faults, 1);
	assert_int_equal(s.outside_cgroup, 1);
	fol_summary_free(&s);
	fol_model_free(m);
	fol_cgroups_free(&c);
}

/* File faults on pages already cached: the order of the page cache's folio, from a folio
 * added earlier in the recording (while the file was mapped), else from the page cache at
 * the end; else why not (evicted by the end, file not read at the end, no snapshot). A
 * store to a present page of a shared file mapping is a file fault, not a reuse. */
static void test_file_pagecache(void **state)
{
	const char *snap = "{\"files\":[{\"path\":\"/lib/x.so\",\"maj\":8,\"min\":1,\"ino\":7,"
			   "\"runs\":[{\"index\":16,\"order\":4,\"n\":2},"
			   "{\"index\":20,\"order\":0,\"n\":1},{\"index\":48,\"order\":0,\"n\":1}]},"
			   "{\"path\":\"/lib/y.so\",\"maj\":8,\"min\":1,\"ino\":9,\"runs\":[]}],"
			   "\"unreadable_files\":1}";
	cJSON *j = cJSON_Parse(snap);
	struct fol_model_opts o = { .page_size = 4096, .order = FOL_ANY, .cls = FOL_ANY,
				    .pmd_order = 9, .pagecache = j };
	struct fol_model *m = fol_model_new(&o);
	struct fol_summary s;
	const uint64_t a = 0x600000, b = 0x800000, c = 0xa00000;

	(void)state;
	assert_non_null(m);
	cJSON_Delete(j); /* the model keeps what it needs */
	file_map(m, a, 0x40000, 0x10000, MAP_PRIVATE, 7); /* pages 16.. of ino 7 */
	file_map(m, b, 0x10000, 0, MAP_SHARED, 9);
	file_map(m, c, 0x10000, 0, MAP_PRIVATE, 11);	     /* not in the snapshot */
	/* Added while mapped: page 64 of ino 7 in an order-2 folio. */
	feed(m, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_FILEMAP_ADD,
				    .filemap = { .dev = 8 << 20 | 1, .ino = 7, .index = 64, .order = 2 } });
	fault(m, PID, PID, a, 0x4, -1, 10);			 /* index 16: 64K at the end */
	fault(m, PID, PID, a + 0x1f000, 0x4, -1, 10);		 /* index 47: 64K (second run) */
	fault(m, PID, PID, a + 0x32000, 0x4, -1, 10);		 /* index 66: 16K, added */
	fault(m, PID, PID, a + 0x20000, 0x4, -1, 10);		 /* index 48: 4K at the end */
	fault(m, PID, PID, a + 0x30000, 0x4, -1, 10);		 /* index 64: 16K, added */
	fault(m, PID, PID, a + 0x3f000, 0x4, -1, 10);		 /* index 79: evicted */
	fault(m, PID, PID, b, 0x4, -1, 10);			 /* ino 9: evicted */
	fault(m, PID, PID, b, 0x7, -1, 10);			 /* its store: file, not reuse */
	fault(m, PID, PID, c, 0x4, -1, 10);			 /* ino 11: not read at the end */
	s = finish(m);
	assert_int_equal(CELL(s, 4, FOL_C_FILE).faults, 2);
	assert_int_equal(CELL(s, 2, FOL_C_FILE).faults, 2);
	assert_int_equal(CELL(s, 0, FOL_C_FILE).faults, 1);
	assert_int_equal(CELL(s, -1, FOL_C_FILE).faults, 4);
	assert_int_equal(CELL(s, -1, FOL_C_WP_REUSE).faults, 0);
	assert_int_equal(s.file_order[FOL_PC_ADDED], 2);
	assert_int_equal(s.file_order[FOL_PC_AT_END], 3);
	assert_int_equal(s.unknown[FOL_U_FILE_EVICTED], 3);
	assert_int_equal(s.unknown[FOL_U_FILE_UNREAD], 1);
	assert_int_equal(s.unknown[FOL_U_FILE_CACHED], 0);
	fol_summary_free(&s);
	fol_model_free(m);
}

/* A file fault whose folio the BPF programs read inside it (a live view: no page cache
 * read at the end): that order, counted as read at the fault; a folio the fault itself
 * added to the page cache comes first; a fault not read stays unknown, file_cached. */
static void test_file_read_at_fault(void **state)
{
	struct fol_model_opts o = { .page_size = 4096, .order = FOL_ANY, .cls = FOL_ANY,
				    .pmd_order = 9, .live = 1 };
	struct fol_model *m = fol_model_new(&o);
	struct fol_summary s;
	const uint64_t a = 0x600000;

	(void)state;
	assert_non_null(m);
	file_map(m, a, 0x400000, 0, MAP_PRIVATE, 7);
	entry(m, PID, PID, a, 0x4, 10);
	feed(m, (struct fol_event){ .time = 20, .pid = PID, .tid = PID, .kind = FOL_EV_FAULT_EXIT,
				    .exit = { .addr = a, .file_read = 1, .file_order = 9 } });
	entry(m, PID, PID, a + 0x200000, 0x4, 30);
	feed(m, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_FILEMAP_ADD,
				    .filemap = { .dev = 8 << 20 | 1, .ino = 7, .index = 512, .order = 2 } });
	feed(m, (struct fol_event){ .time = 40, .pid = PID, .tid = PID, .kind = FOL_EV_FAULT_EXIT,
				    .exit = { .addr = a + 0x200000, .file_read = 1, .file_order = 0 } });
	now = 50;
	fault(m, PID, PID, a + 0x300000, 0x4, -1, 10);
	s = finish(m);
	assert_int_equal(CELL(s, 9, FOL_C_FILE).faults, 1);
	assert_int_equal(CELL(s, 2, FOL_C_FILE).faults, 1);
	assert_int_equal(CELL(s, 0, FOL_C_FILE).faults, 0);
	assert_int_equal(CELL(s, -1, FOL_C_FILE).faults, 1);
	assert_int_equal(s.file_order[FOL_PC_AT_FAULT], 1);
	assert_int_equal(s.unknown[FOL_U_FILE_CACHED], 1);
	fol_summary_free(&s);
	fol_model_free(m);
}

/* At fork, the child's counters are set in the parent's context (the events carry the
 * child's mm_id): taken for the parent's, they left the child's first swap-in without a
 * previous value, order unknown; and they moved the parent's. */
static void test_rss_by_mm(void **state)
{
	struct fol_model *m = model();
	struct fol_summary s;

	(void)state;
	anon_vma(m, PID, BASE, 1 << 20);
	entry(m, PID, PID, BASE, 0x4, now);	/* the parent's own mm: 0xa */
	rss_of(m, PID, 0xa, 1, 100);
	rss_of(m, PID, 0xa, 2, 64);
	leave(m, PID, PID, BASE, now + 10);
	fork_proc(m, PID, 300);
	rss_of(m, PID, 0xb, 1, 90);		/* the child's, in the parent's context */
	rss_of(m, PID, 0xb, 2, 64);
	anon_vma(m, 300, BASE, 1 << 20);
	entry(m, 300, 300, BASE + 4096, 0x4, now);	/* the child's first swap-in: 4K */
	rss_of(m, 300, 0xb, 1, 91);
	rss_of(m, 300, 0xb, 2, 63);
	leave(m, 300, 300, BASE + 4096, now + 10);
	entry(m, PID, PID, BASE + 8192, 0x4, now);	/* the parent's next: 4K too */
	rss_of(m, PID, 0xa, 1, 101);
	rss_of(m, PID, 0xa, 2, 63);
	leave(m, PID, PID, BASE + 8192, now + 10);
	s = finish(m);
	assert_int_equal(CELL(s, 0, FOL_C_SWAP_IN).faults, 2);
	assert_int_equal(s.unknown[FOL_U_SWAP_CACHE], 1); /* the parent's first: no value before */
	fol_summary_free(&s);
	fol_model_free(m);
}

/* A swap-in served from the swap cache allocates nothing in the fault; its order comes
 * from the RSS counters it moved: as many pages out of swap as into anon. rss_stat gives
 * counter values, so the change is against the previous value. */
static void test_swapin_order(void **state)
{
	struct fol_model *m = model();
	struct fol_summary s;

	(void)state;
	anon_vma(m, PID, BASE, 1 << 20);
	rss_abs(m, 1, 100 * 4096);
	rss_abs(m, 2, 64 * 4096);
	entry(m, PID, PID, BASE, 0x4, now);
	rss_abs(m, 1, 101 * 4096);
	rss_abs(m, 2, 63 * 4096);
	leave(m, PID, PID, BASE, now + 10);
	/* 16 pages at once: a 64K folio from the swap cache. */
	entry(m, PID, PID, BASE + 65536, 0x4, now);
	rss_abs(m, 1, 117 * 4096);
	rss_abs(m, 2, 47 * 4096);
	leave(m, PID, PID, BASE + 65536, now + 10);
	/* Counts that do not agree: no order from them. */
	entry(m, PID, PID, BASE + 2 * 65536, 0x4, now);
	rss_abs(m, 1, 120 * 4096);
	rss_abs(m, 2, 46 * 4096);
	leave(m, PID, PID, BASE + 2 * 65536, now + 10);
	fault(m, PID, PID, BASE + 65536 + 8192, 0x7, -1, 10); /* a write to the 64K one */
	s = finish(m);
	assert_int_equal(CELL(s, 0, FOL_C_SWAP_IN).faults, 1);
	assert_int_equal(CELL(s, 4, FOL_C_SWAP_IN).faults, 1);
	assert_int_equal(CELL(s, -1, FOL_C_SWAP_IN).faults, 1);
	assert_int_equal(s.unknown[FOL_U_SWAP_CACHE], 1);
	assert_int_equal(CELL(s, 4, FOL_C_WP_REUSE).faults, 1);
	fol_summary_free(&s);
	fol_model_free(m);
}

/* serve's kernel decisions: the allocations and RSS changes inside a fault come summed up
 * on its exit (not sampled), and an RSS change it was sent says the counter's value
 * before (the changes of the faults decided in the kernel never came). The same rules
 * give the same classes and orders. */
static void summed_exit(struct fol_model *m, uint64_t addr, int order, int last, int anon, int swap)
{
	feed(m, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_FAULT_EXIT,
				    .exit = { .addr = addr, .summed = 1, .alloc_order = order,
					      .last_order = last, .anon_rss = anon, .swap_rss = swap } });
}

static void rss_before(struct fol_model *m, int member, int64_t before, int64_t size)
{
	feed(m, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_RSS_STAT,
				    .rss = { .member = member, .size = size, .prev_known = 1,
					     .prev = before } });
}

static void test_summed(void **state)
{
	struct fol_model *m = model();
	struct fol_summary s;

	(void)state;
	anon_vma(m, PID, BASE, 1 << 20);
	entry(m, PID, PID, BASE, 0x6, now);		/* a 64K folio, summed */
	summed_exit(m, BASE, 4, 4, 1, 0);
	fault(m, PID, PID, BASE + 8192, 0x7, -1, 10);	/* its reuse: the map has it */
	entry(m, PID, PID, BASE + 131072, 0x4, now);	/* a read: nothing inside */
	summed_exit(m, BASE + 131072, -1, -1, 0, 0);
	entry(m, PID, PID, BASE + 196608, 0x4, now);	/* a swap-in that allocated */
	summed_exit(m, BASE + 196608, 0, 0, 1, 1);
	/* From the swap cache: 16 pages from swap to anon, by the values before given, not by
	 * the model's last ones (none here). */
	entry(m, PID, PID, BASE + 262144, 0x4, now);
	rss_before(m, 1, 200 * 4096, 216 * 4096);
	rss_before(m, 2, 64 * 4096, 48 * 4096);
	summed_exit(m, BASE + 262144, -1, -1, 1, 1);
	s = finish(m);
	assert_int_equal(CELL(s, 4, FOL_C_ANON_ALLOC).faults, 1);
	assert_int_equal(CELL(s, 4, FOL_C_WP_REUSE).faults, 1);
	assert_int_equal(CELL(s, 0, FOL_C_ANON_ZERO).faults, 1);
	assert_int_equal(CELL(s, 0, FOL_C_SWAP_IN).faults, 1);
	assert_int_equal(CELL(s, 4, FOL_C_SWAP_IN).faults, 1);
	assert_int_equal(s.unknown[FOL_U_SWAP_CACHE], 0);
	fol_summary_free(&s);
	fol_model_free(m);
}

/* Zero-page read faults: the huge zero page maps a whole 2M range at its first read, so
 * only that first fault is in doubt; a second one in the range, a range that does not fit
 * the VMA, or one under MADV_NOHUGEPAGE proves the 4K zero page. */
static void test_zero_pages(void **state)
{
	struct fol_model *m = model();
	struct fol_summary s;
	const uint64_t r = 0x7f0000000000ull; /* 2M-aligned */

	(void)state;
	anon_vma(m, PID, r, 8 << 20);
	fault(m, PID, PID, r + 4096, 0x4, -1, 10);		/* in doubt */
	fault(m, PID, PID, r + 8192, 0x4, -1, 10);		/* same range: 4K */
	fault(m, PID, PID, r + (2 << 20), 0x4, -1, 10);	/* next range: in doubt */
	feed(m, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_MADVISE,
				    .vm = { .start = r + (4 << 20), .len = 2 << 20, .behavior = 15 } });
	fault(m, PID, PID, r + (4 << 20), 0x4, -1, 10);	/* MADV_NOHUGEPAGE: 4K */
	anon_vma(m, PID, r + (16 << 20), 1 << 20);
	fault(m, PID, PID, r + (16 << 20), 0x4, -1, 10);	/* a 1M VMA: 4K */
	s = finish(m);
	assert_int_equal(CELL(s, 0, FOL_C_ANON_ZERO).faults, 3);
	assert_int_equal(CELL(s, -1, FOL_C_ANON_ZERO).faults, 2);
	assert_int_equal(s.unknown[FOL_U_ZERO_PAGE], 2);
	fol_summary_free(&s);
	fol_model_free(m);
}

/* The same reads where the recording kept the THP policy: the first read of a range the
 * policy allows is a 2M anon_zero (madvise: under MADV_HUGEPAGE only), one it leaves out is
 * 4K; a second read after a 2M one refutes it, counted. */
static void test_huge_zero_policy(void **state)
{
	const uint64_t r = 0x7f0000000000ull; /* 2M-aligned */

	(void)state;
	for (int pol = FOL_HZ_NONE; pol <= FOL_HZ_ALWAYS; pol++) {
		struct fol_model_opts o = { .page_size = 4096, .order = FOL_ANY, .cls = FOL_ANY,
					    .pmd_order = 9, .huge_zero = pol };
		struct fol_model *m = fol_model_new(&o);
		struct fol_summary s;
		uint64_t huge = pol == FOL_HZ_NONE ? 0 : pol == FOL_HZ_MADVISE ? 1 : 3;

		anon_vma(m, PID, r, 8 << 20);
		feed(m, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_MADVISE,
					    .vm = { .start = r, .len = 2 << 20, .behavior = 14 } });
		fault(m, PID, PID, r + 4096, 0x4, -1, 10);		/* MADV_HUGEPAGE */
		fault(m, PID, PID, r + (2 << 20), 0x4, -1, 10);	/* plain */
		fault(m, PID, PID, r + (4 << 20), 0x4, -1, 10);	/* plain, then again: */
		fault(m, PID, PID, r + (4 << 20) + 4096, 0x4, -1, 10);
		s = finish(m);
		assert_int_equal(CELL(s, 9, FOL_C_ANON_ZERO).faults, huge);
		assert_int_equal(CELL(s, 0, FOL_C_ANON_ZERO).faults, 4 - huge);
		assert_int_equal(CELL(s, -1, FOL_C_ANON_ZERO).faults, 0);
		assert_int_equal(s.huge_zero_refuted, pol == FOL_HZ_ALWAYS);
		fol_summary_free(&s);
		fol_model_free(m);
	}
}

/* mremap moves folios: to an aligned address they keep their order (and their reuse
 * episode); to an unaligned one too, keyed by their first page (the kernel keeps such a
 * folio whole, PTE-mapped), counted as moved so; a failed mremap moves nothing. */
static void test_mremap_moves(void **state)
{
	struct fol_model *m = model();
	struct fol_summary s;
	const uint64_t to = BASE + (1 << 24);

	(void)state;
	anon_vma(m, PID, BASE, 1 << 20);
	fault(m, PID, PID, BASE, 0x6, 4, 100);
	fault(m, PID, PID, BASE + 65536, 0x6, 4, 100);
	mremap_ev(m, BASE, 65536, -12); /* -ENOMEM: stays */
	fault(m, PID, PID, BASE + 4096, 0x7, -1, 10);
	mremap_ev(m, BASE, 65536, (int64_t)to);
	fault(m, PID, PID, to + 8192, 0x7, -1, 10);
	mremap_ev(m, BASE + 65536, 65536, (int64_t)(to + 65536 + 4096));
	fault(m, PID, PID, to + 65536 + 8192, 0x7, -1, 10);
	fault(m, PID, PID, to + 65536 + 65536, 0x7, -1, 10); /* its last page */
	fault(m, PID, PID, to + 65536, 0x7, -1, 10);	   /* the page before it: none */
	fault(m, PID, PID, BASE + 4096, 0x7, -1, 10); /* the old place: nothing there now */
	/* Moved on, to an aligned address again: a key of the aligned kind. */
	mremap_ev(m, to + 65536 + 4096, 65536, (int64_t)(to + (4 << 20)));
	fault(m, PID, PID, to + (4 << 20) + 4096, 0x7, -1, 10);
	s = finish(m);
	assert_int_equal(CELL(s, 4, FOL_C_WP_REUSE).faults, 5);
	/* Each folio, one episode across its moves: 2 and 3 faults. */
	assert_int_equal(s.order[FOL_ORDER_SLOT(4)].reuse.episodes, 2);
	assert_int_equal(s.order[FOL_ORDER_SLOT(4)].reuse.faults, 5);
	assert_int_equal(s.moved_unaligned, 1);
	assert_int_equal(s.unknown[FOL_U_MOVED_UNALIGNED], 0);
	assert_int_equal(s.unknown[FOL_U_BEFORE], 2);
	fol_summary_free(&s);
	fol_model_free(m);
}

static void test_fork_copies_map(void **state)
{
	struct fol_model *m = model();
	struct fol_summary s;

	(void)state;
	anon_vma(m, PID, BASE, 4 << 20);
	fault(m, PID, PID, BASE, 0x6, 9, 100000); /* a 2M THP */
	fork_proc(m, PID, 200);
	/* The child writes 3 pages of its copy, the parent 512. */
	for (int p = 0; p < 3; p++)
		fault(m, 200, 200, BASE + (uint64_t)p * 4096, 0x7, -1, 500);
	for (int p = 0; p < 512; p++)
		fault(m, PID, PID, BASE + (uint64_t)p * 4096, 0x7, -1, 500);
	feed(m, (struct fol_event){ .kind = FOL_EV_EXIT,
				    .fork = { .pid = 200, .ppid = PID, .tid = 200, .ptid = PID } });
	s = finish(m);
	assert_int_equal(CELL(s, 9, FOL_C_WP_REUSE).faults, 515);
	assert_int_equal(s.order[FOL_ORDER_SLOT(9)].reuse.folios, 2);
	assert_int_equal(s.order[FOL_ORDER_SLOT(9)].reuse.hist[fol_reuse_bucket(3)], 1);
	assert_int_equal(s.order[FOL_ORDER_SLOT(9)].reuse.hist[FOL_REUSE_BUCKETS - 1], 1);
	assert_int_equal(s.processes, 2);
	fol_summary_free(&s);
	fol_model_free(m);
}

static void test_copy_inside_large_folio(void **state)
{
	struct fol_model *m = model();
	struct fol_summary s;

	(void)state;
	anon_vma(m, PID, BASE, 4 << 20);
	fault(m, PID, PID, BASE, 0x6, 9, 100000);
	/* The kernel copies the folio's first page instead of reusing it: a new 4K folio
	 * there, the 2M folio still mapped everywhere else. */
	fault(m, PID, PID, BASE, 0x7, 0, 500);
	fault(m, PID, PID, BASE + 4096, 0x7, -1, 500);
	fault(m, PID, PID, BASE, 0x7, -1, 500);
	s = finish(m);
	assert_int_equal(CELL(s, 0, FOL_C_WP_COPY).faults, 1);
	assert_int_equal(CELL(s, 9, FOL_C_WP_REUSE).faults, 1);
	assert_int_equal(CELL(s, 0, FOL_C_WP_REUSE).faults, 1);
	assert_int_equal(CELL(s, -1, FOL_C_WP_REUSE).faults, 0);
	fol_summary_free(&s);
	fol_model_free(m);
}

static void test_munmap_and_unknown(void **state)
{
	struct fol_model *m = model();
	struct fol_summary s;

	(void)state;
	anon_vma(m, PID, BASE, 1 << 20);
	fault(m, PID, PID, BASE, 0x6, 4, 100);
	fault(m, PID, PID, BASE + 65536, 0x6, 4, 100);
	feed(m, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_MUNMAP,
				    .vm = { .start = BASE, .len = 65536 } });
	fault(m, PID, PID, BASE + 4096, 0x7, -1, 10);	  /* unmapped: unknown */
	fault(m, PID, PID, BASE + 65536 + 4096, 0x7, -1, 10); /* still mapped: 64K */
	fault(m, PID, PID, BASE + 0x80000, 0x7, -1, 10);  /* never seen: unknown */
	feed(m, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_MADVISE,
				    .vm = { .start = BASE + 65536, .len = 65536, .behavior = 4 } });
	fault(m, PID, PID, BASE + 65536 + 8192, 0x7, -1, 10); /* MADV_DONTNEED: unknown */
	s = finish(m);
	assert_int_equal(CELL(s, -1, FOL_C_WP_REUSE).faults, 3);
	assert_int_equal(CELL(s, 4, FOL_C_WP_REUSE).faults, 1);
	/* The folio's one reuse fault was folded in when MADV_DONTNEED dropped it. */
	assert_int_equal(s.order[FOL_ORDER_SLOT(4)].reuse.folios, 1);
	assert_int_equal(s.order[FOL_ORDER_SLOT(4)].reuse.faults, 1);
	fol_summary_free(&s);
	fol_model_free(m);
}

static void test_unclosed_and_gap(void **state)
{
	struct fol_model *m = model();
	struct fol_summary s;

	(void)state;
	anon_vma(m, PID, BASE, 1 << 20);
	entry(m, PID, PID, BASE, 0x6, 1000);
	leave(m, PID, PID, BASE, 1500);
	/* A kernel-mode fault with no exit (fixed up with page faults disabled): said apart. */
	feed(m, (struct fol_event){ .time = 2000, .pid = PID, .tid = PID, .kind = FOL_EV_FAULT_KERNEL,
				    .fault = { .address = BASE + 12288, .error_code = 0x2 } });
	/* A fault that fails (SIGSEGV): no exit; the next entry closes it. */
	entry(m, PID, PID, 0x10, 0x6, 3000);
	entry(m, PID, PID, BASE + 4096, 0x6, 4000);
	leave(m, PID, PID, BASE + 4096, 4200);
	/* An exit with no entry (entry lost): counted apart. */
	leave(m, PID, PID, BASE + 8192, 5000);
	s = finish(m);
	assert_int_equal(s.faults, 4);
	assert_int_equal(s.unclosed, 2);
	assert_int_equal(s.unclosed_kernel, 1);
	assert_int_equal(s.all_lat.count, 2);
	assert_int_equal(s.all_lat.sum, 700);
	assert_int_equal(s.orphan_exits, 1);
	/* Gap: from 1500 (previous exit) to 4000 (the next closed fault's entry). */
	assert_int_equal(s.all_gap.count, 1);
	assert_int_equal(s.all_gap.sum, 2500);
	fol_summary_free(&s);
	fol_model_free(m);
}

/* An exit whose time was another sampler's (retimed by the session): the fault counts
 * and is classed, but its latency and the next gap are unknown, not invented. */
static void test_untimed_exit(void **state)
{
	struct fol_model *m = model();
	struct fol_summary s;

	(void)state;
	anon_vma(m, PID, BASE, 1 << 20);
	entry(m, PID, PID, BASE, 0x6, 1000);
	leave(m, PID, PID, BASE, 1500);
	entry(m, PID, PID, BASE + 4096, 0x6, 2000);
	feed(m, (struct fol_event){ .time = 2000, .pid = PID, .tid = PID, .retimed = 1,
				    .kind = FOL_EV_FAULT_EXIT, .exit = { .addr = BASE + 4096 } });
	entry(m, PID, PID, BASE + 8192, 0x6, 3000);
	leave(m, PID, PID, BASE + 8192, 3100);
	s = finish(m);
	assert_int_equal(s.faults, 3);
	assert_int_equal(s.unclosed, 0);
	assert_int_equal(s.orphan_exits, 0);
	assert_int_equal(s.untimed, 1);
	assert_int_equal(s.retimed_exits, 1);
	assert_int_equal(s.all_lat.count, 2);
	assert_int_equal(s.all_lat.sum, 600);
	assert_int_equal(s.all_gap.count, 0);
	fol_summary_free(&s);
	fol_model_free(m);
}

/* A retimed exit placed before its own entry waits for it: the fault is closed untimed,
 * not left unclosed beside an exit without entry. One placed after the next entry is the
 * earlier fault's: it does not close the next one, whose own exit does. */
static void test_misplaced_exit(void **state)
{
	struct fol_model *m = model();
	struct fol_summary s;

	(void)state;
	anon_vma(m, PID, BASE, 1 << 20);
	retimed_exit(m, BASE + 4096, 1000); /* early */
	entry(m, PID, PID, BASE + 4096, 0x6, 1000);
	alloc(m, PID, PID, 0, FOL_GFP_MOVABLE);
	entry(m, PID, PID, BASE + 8192, 0x6, 2000); /* its exit comes late */
	entry(m, PID, PID, BASE + 12288, 0x6, 3000);
	retimed_exit(m, BASE + 8192, 3000);
	leave(m, PID, PID, BASE + 12288, 3100);
	s = finish(m);
	assert_int_equal(s.faults, 3);
	assert_int_equal(s.untimed, 1);
	assert_int_equal(CELL(s, 0, FOL_C_ANON_ALLOC).untimed, 1);
	/* The late one: its fault closed unclosed, the exit counted alone; no mismatch. */
	assert_int_equal(s.unclosed, 1);
	assert_int_equal(s.orphan_exits, 1);
	assert_int_equal(s.mismatched_exits, 0);
	/* Each retimed exit closed a fault untimed or was counted alone. */
	assert_int_equal(s.retimed_exits, 2);
	assert_int_equal(s.all_lat.count, 1);
	assert_int_equal(s.all_lat.sum, 100);
	fol_summary_free(&s);
	fol_model_free(m);
}

static void test_filters(void **state)
{
	struct fol_model_opts o = { .page_size = 4096, .order = 4, .cls = FOL_C_WP_REUSE, .pid = PID };
	struct fol_model *m = fol_model_new(&o);
	struct fol_summary s;

	(void)state;
	anon_vma(m, PID, BASE, 1 << 20);
	fault(m, PID, PID, BASE, 0x6, 4, 100);
	fork_proc(m, PID, 300);
	fault(m, PID, PID, BASE, 0x7, -1, 10);
	fault(m, 300, 300, BASE, 0x7, -1, 10);
	s = finish(m);
	assert_int_equal(s.faults, 1);
	assert_int_equal(CELL(s, 4, FOL_C_WP_REUSE).faults, 1);
	assert_int_equal(CELL(s, 4, FOL_C_ANON_ALLOC).faults, 0);
	/* --pid: the other process and its thread are not counted either. */
	assert_int_equal(s.processes, 1);
	assert_int_equal(s.threads, 1);
	fol_summary_free(&s);
	fol_model_free(m);
}

static void test_sampled(void **state)
{
	struct fol_model_opts o = { .page_size = 4096, .order = FOL_ANY, .cls = FOL_ANY, .sampled = 1 };
	struct fol_model *m = fol_model_new(&o);
	struct fol_summary s;
	struct fol_event clk = { .pid = PID, .tid = PID, .kind = FOL_EV_CLOCK,
				 .clock = { .period = 100000, .in_fault = 1 } };

	(void)state;
	now = 1000000;
	anon_vma(m, PID, BASE, 1 << 20);
	/* No entry events: a fault is what a thread did since its last exit. A first touch
	 * that allocates 64K, with two cpu-clock samples inside it... */
	alloc(m, PID, PID, 4, 0x140cca);
	feed(m, clk);
	feed(m, clk);
	leave(m, PID, PID, BASE, now++);
	/* ...a user-mode sample (not in the handler) between faults... */
	clk.clock.in_fault = 0;
	feed(m, clk);
	/* ...then a fault on the known folio without allocation: a reuse, one sample. */
	clk.clock.in_fault = 1;
	feed(m, clk);
	leave(m, PID, PID, BASE + 4096, now++);
	/* An munmap in between: what it allocated is not the next fault's. */
	alloc(m, PID, PID, 0, 0x140cca);
	feed(m, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_MUNMAP,
				    .vm = { .start = BASE + 0x80000, .len = 4096 } });
	leave(m, PID, PID, BASE + 8192, now++);
	s = finish(m);
	assert_true(s.sampled);
	assert_int_equal(CELL(s, 4, FOL_C_ANON_ALLOC).faults, 1);
	assert_int_equal(CELL(s, 4, FOL_C_ANON_ALLOC).sampled_ns, 200000);
	assert_int_equal(CELL(s, 4, FOL_C_WP_REUSE).faults, 2);
	assert_int_equal(CELL(s, 4, FOL_C_WP_REUSE).sampled_ns, 100000);
	assert_int_equal(s.clock_samples, 4);
	assert_int_equal(s.clock_in_fault, 3);
	assert_int_equal(s.unclosed, 0);
	assert_int_equal(s.all_lat.count, 0); /* no per-fault latency in this method */
	fol_summary_free(&s);
	fol_model_free(m);
}

static void test_hist_percentiles(void **state)
{
	static uint64_t v[100000];
	struct fol_hist *h = calloc(1, sizeof(*h));
	const double qs[] = { 0.5, 0.9, 0.99, 0.999 };

	(void)state;
	srand(7);
	for (int i = 0; i < 100000; i++) {
		/* Log-normal-ish latencies: 500 ns .. 5 ms. */
		v[i] = 500 + (uint64_t)(rand() % 1000) * (uint64_t)(1 << (rand() % 13));
		fol_hist_add(h, v[i]);
	}
	qsort(v, 100000, sizeof(v[0]), cmp_u64);
	for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
		uint64_t exact = v[(size_t)(qs[k] * 100000) - 1];
		uint64_t est = fol_hist_quantile(h, qs[k]);

		/* The bucket's upper bound: never below, at most 1/16 above. */
		assert_true(est >= exact);
		assert_true(est <= exact + exact / 16 + 1);
	}
	assert_int_equal(h->max, v[99999]);
	assert_int_equal(h->min, v[0]);
	assert_int_equal(fol_hist_quantile(h, 1.0), v[99999]);
	/* Small exact values have exact buckets. */
	fol_hist_free(h);
	memset(h, 0, sizeof(*h));
	for (uint64_t i = 1; i <= 10; i++)
		fol_hist_add(h, i);
	assert_int_equal(fol_hist_quantile(h, 0.5), 5);
	assert_int_equal(fol_hist_quantile(h, 0.9), 9);
	assert_int_equal(fol_hist_mean(h), 6); /* 5.5 rounds up */
	fol_hist_free(h);
	free(h);
}

/* --comm: only threads of that name, by the name they had at the fault (a thread renamed
 * after its first fault counts from then on). */
static void test_comm_filter(void **state)
{
	struct fol_model_opts o = { .page_size = 4096, .order = FOL_ANY, .cls = FOL_ANY,
				    .comm = "worker" };
	struct fol_model *m = fol_model_new(&o);
	struct fol_summary s;

	(void)state;
	now = 1000000;
	anon_vma(m, PID, BASE, 1 << 20);
	comm(m, PID, PID, "main");
	comm(m, PID, PID + 1, "worker");
	fault(m, PID, PID, BASE, 0x6, 0, 100);
	fault(m, PID, PID + 1, BASE + 4096, 0x6, 0, 100);
	fault(m, PID, PID + 1, BASE + 8192, 0x6, 0, 100);
	comm(m, PID, PID, "worker");
	fault(m, PID, PID, BASE + 12288, 0x6, 0, 100);
	s = finish(m);
	assert_int_equal(s.faults, 3);
	assert_int_equal(CELL(s, 0, FOL_C_ANON_ALLOC).faults, 3);
	fol_summary_free(&s);
	fol_model_free(m);
}

/* --time: faults that entered in [t_start, t_end), by their entry. */
static void test_time_filter(void **state)
{
	struct fol_model_opts o = { .page_size = 4096, .order = FOL_ANY, .cls = FOL_ANY,
				    .t_start = 2000000, .t_end = 3000000 };
	struct fol_model *m = fol_model_new(&o);
	struct fol_summary s;

	(void)state;
	anon_vma(m, PID, BASE, 1 << 20);
	now = 1999000;
	fault(m, PID, PID, BASE, 0x6, 0, 5000); /* entered before, left inside: out */
	now = 2000000;
	fault(m, PID, PID, BASE + 4096, 0x6, 0, 100); /* at the start: in */
	now = 2999999;
	fault(m, PID, PID, BASE + 8192, 0x6, 0, 100000); /* entered inside, left after: in */
	now = 3000000;
	fault(m, PID, PID, BASE + 12288, 0x6, 0, 100); /* at the end: out */
	s = finish(m);
	assert_int_equal(s.faults, 2);
	assert_int_equal(CELL(s, 0, FOL_C_ANON_ALLOC).lat.max, 100000);
	fol_summary_free(&s);
	fol_model_free(m);
}

/* The timeline starts at 1 ms bins and doubles their width as the run outgrows 2048 of
 * them: every fault stays counted, in the bin of its time. */
static void test_timeline_coarsens(void **state)
{
	struct fol_model *m = model();
	struct fol_summary s;
	uint64_t total = 0, t0;

	(void)state;
	anon_vma(m, PID, BASE, 64 << 20);
	t0 = now;
	/* One fault per 10 ms for 5 s: 500 faults over 5000 ms, past 2048 bins of 1 ms. */
	for (int i = 0; i < 500; i++) {
		now = t0 + (uint64_t)i * 10000000;
		fault(m, PID, PID, BASE + (uint64_t)i * 4096, 0x6, 0, 100);
	}
	s = finish(m);
	assert_int_equal(s.bins_t0, t0);
	assert_int_equal(s.bin_ns, 4000000); /* 1 ms, 2 ms, then 4 ms: 5000 ms in 1250 bins */
	assert_int_equal(s.nbins, 1248); /* the last fault, at 4990 ms, in bin 1247 */
	for (int b = 0; b < s.nbins; b++)
		for (int c = 0; c < FOL_NR_CLASSES; c++)
			total += s.bins[(size_t)b * FOL_NR_CLASSES + (size_t)c];
	assert_int_equal(total, 500);
	/* Fault 250 entered at 2500 ms: bin 625 of 4 ms. */
	assert_int_equal(s.bins[625 * FOL_NR_CLASSES + FOL_C_ANON_ALLOC], 1);
	assert_int_equal(s.bins[624 * FOL_NR_CLASSES + FOL_C_ANON_ALLOC], 0);
	fol_summary_free(&s);
	fol_model_free(m);
}

/* An exit sample whose address is on another page than its entry's: counted (a second
 * sampler, or a lost entry), and the fault still closed. */
static void test_mismatched_exit(void **state)
{
	struct fol_model *m = model();
	struct fol_summary s;

	(void)state;
	anon_vma(m, PID, BASE, 1 << 20);
	entry(m, PID, PID, BASE, 0x6, now);
	leave(m, PID, PID, BASE + 100, now + 1000); /* same page: fine */
	entry(m, PID, PID, BASE + 8192, 0x6, now + 2000);
	leave(m, PID, PID, BASE + 65536, now + 3000); /* another page */
	leave(m, PID, PID, BASE + 65536, now + 4000); /* no entry open: an orphan */
	s = finish(m);
	assert_int_equal(s.faults, 2);
	assert_int_equal(s.mismatched_exits, 1);
	assert_int_equal(s.orphan_exits, 1);
	assert_int_equal(s.unclosed, 0);
	fol_summary_free(&s);
	fol_model_free(m);
}
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reuse_64k),
		cmocka_unit_test(test_reuse_episodes),
		cmocka_unit_test(test_file_cow),
		cmocka_unit_test(test_file_pagecache),
		cmocka_unit_test(test_file_read_at_fault),
		cmocka_unit_test(test_file_pagecache_scope),
		cmocka_unit_test(test_mremap_moves),
		cmocka_unit_test(test_swapin_order),
		cmocka_unit_test(test_summed),
		cmocka_unit_test(test_rss_by_mm),
		cmocka_unit_test(test_zero_pages),
		cmocka_unit_test(test_huge_zero_policy),
		cmocka_unit_test(test_interleaved_threads),
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_fork_copies_map),
		cmocka_unit_test(test_copy_inside_large_folio),
		cmocka_unit_test(test_munmap_and_unknown),
		cmocka_unit_test(test_unclosed_and_gap),
		cmocka_unit_test(test_untimed_exit),
		cmocka_unit_test(test_misplaced_exit),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_comm_filter),
		cmocka_unit_test(test_time_filter),
		cmocka_unit_test(test_timeline_coarsens),
		cmocka_unit_test(test_mismatched_exit),
		cmocka_unit_test(test_sampled),
		cmocka_unit_test(test_hist_percentiles),
	};

	return cmocka_run_group_tests_name("model", tests, NULL, NULL);
}
