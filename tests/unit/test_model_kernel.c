// SPDX-License-Identifier: GPL-2.0-only
/* The model on synthetic event streams, no kernel needed: the kernel's own work on the
 * workload's memory (bulk system calls, khugepaged's collapse, reclaim and swap-out, exec). */
#include "model_events.h"

static void sys(struct fol_model *m, enum fol_kind kind, uint64_t start, uint64_t len, int64_t advice,
		int64_t ret, uint64_t t)
{
	feed(m, (struct fol_event){ .time = t, .pid = PID, .tid = PID, .kind = kind,
				    .vm = { .start = start, .len = len, .behavior = advice, .ret = ret } });
}

static void page_free(struct fol_model *m, int order, uint64_t t)
{
	feed(m, (struct fol_event){ .time = t, .pid = PID, .tid = PID, .kind = FOL_EV_PAGE_FREE,
				    .page = { .pfn = 0x2000, .order = order } });
}

/* munmap, madvise by advice, mprotect: timed from entry to exit, with the pages freed in
 * between by order; an exit without its entry is not timed; failures counted. */
static void test_calls(void **state)
{
	struct fol_model *m = model();
	struct fol_summary s;
	const struct fol_call_stats *cs;

	(void)state;
	anon_vma(m, PID, BASE, 4 << 20);
	page_free(m, 4, 1000); /* outside any call: not counted */
	sys(m, FOL_EV_MUNMAP, BASE, 1 << 20, 0, 0, 2000);
	page_free(m, 4, 2100);
	page_free(m, 4, 2200);
	page_free(m, 0, 2300);
	/* Freed by an RCU callback (softirq) while the call ran: not the call's. */
	feed(m, (struct fol_event){ .time = 2400, .pid = PID, .tid = PID, .kind = FOL_EV_PAGE_FREE,
				    .page = { .pfn = 0x7000, .order = 0, .in_irq = 1 } });
	sys(m, FOL_EV_SYSCALL_EXIT, 0, 0, 0, 0, 7000);
	sys(m, FOL_EV_MADVISE, BASE + (1 << 20), 2 << 20, 21 /* MADV_PAGEOUT */, 0, 8000);
	page_free(m, 9, 8500);
	sys(m, FOL_EV_SYSCALL_EXIT, 0, 0, 0, 0, 20000);
	sys(m, FOL_EV_MADVISE, BASE, 4096, 4 /* MADV_DONTNEED */, 0, 21000);
	sys(m, FOL_EV_SYSCALL_EXIT, 0, 0, 0, -22 /* -EINVAL */, 21500);
	sys(m, FOL_EV_SYSCALL_EXIT, 0, 0, 0, 0, 30000); /* no entry open */
	/* Slab pages the process allocated (gfp 0x252800: no __GFP_MOVABLE), freed inside an
	 * mprotect: not folios it freed; nor a page of unknown origin (page tables): mprotect
	 * frees no user memory. */
	feed(m, (struct fol_event){ .time = 30500, .pid = PID, .tid = PID, .kind = FOL_EV_PAGE_ALLOC,
				    .page = { .pfn = 0x5000, .order = 2, .gfp = 0x252800 } });
	sys(m, FOL_EV_MPROTECT, BASE, 4096, 0, 0, 31000);
	feed(m, (struct fol_event){ .time = 31100, .pid = PID, .tid = PID, .kind = FOL_EV_PAGE_FREE,
				    .page = { .pfn = 0x5000, .order = 2 } });
	feed(m, (struct fol_event){ .time = 31200, .pid = PID, .tid = PID, .kind = FOL_EV_PAGE_FREE,
				    .page = { .pfn = 0x6000, .order = 2 } });
	sys(m, FOL_EV_SYSCALL_EXIT, 0, 0, 0, 0, 31300);
	s = finish(m);
	assert_int_equal(s.calls[FOL_CALL_MPROTECT].freed[2], 0);
	assert_int_equal(s.calls[FOL_CALL_MPROTECT].calls, 1);
	cs = &s.calls[FOL_CALL_MUNMAP];
	assert_int_equal(cs->calls, 1);
	assert_int_equal(cs->bytes, 1 << 20);
	assert_int_equal(cs->time.sum, 5000);
	assert_int_equal(cs->freed[4], 2);
	assert_int_equal(cs->freed[0], 1);
	cs = &s.calls[FOL_CALL_MADV_PAGEOUT];
	assert_int_equal(cs->calls, 1);
	assert_int_equal(cs->time.sum, 12000);
	assert_int_equal(cs->freed[9], 1);
	cs = &s.calls[FOL_CALL_MADV_DONTNEED];
	assert_int_equal(cs->calls, 1);
	assert_int_equal(cs->errors, 1);
	assert_int_equal(s.calls[FOL_CALL_MPROTECT].calls, 1);
	assert_int_equal(s.calls[FOL_CALL_MPROTECT].time.sum, 300);
	assert_int_equal(s.calls[FOL_CALL_MADV_OTHER].calls, 0);
	fol_summary_free(&s);
	fol_model_free(m);
}

static void page_alloc(struct fol_model *m, uint64_t pfn, int order, uint64_t gfp, uint64_t t)
{
	feed(m, (struct fol_event){ .time = t, .pid = PID, .tid = PID, .kind = FOL_EV_PAGE_ALLOC,
				    .page = { .pfn = pfn, .order = order, .gfp = gfp } });
}

/* madvise(MADV_POPULATE_WRITE): the user folios the kernel allocates inside the call, no
 * fault around them, are counted by order under the call and in the order's folios
 * allocated; its page tables (not movable) are not, nor a user folio allocated inside
 * another call, nor one of MADV_DONTNEED. */
static void test_populated(void **state)
{
	struct fol_model *m = model();
	struct fol_summary s;

	(void)state;
	anon_vma(m, PID, BASE, 4 << 20);
	sys(m, FOL_EV_MADVISE, BASE, 2 << 20, 23 /* MADV_POPULATE_WRITE */, 0, 1000);
	for (int i = 0; i < 32; i++)
		page_alloc(m, 0x10000 + 16 * (uint64_t)i, 4, 0x140cca /* GFP_HIGHUSER_MOVABLE */, 1100 + (uint64_t)i);
	page_alloc(m, 0x9000, 0, 0x400dc0 /* a page table: GFP_PGTABLE_USER */, 1200);
	sys(m, FOL_EV_SYSCALL_EXIT, 0, 0, 0, 0, 2000);
	sys(m, FOL_EV_MADVISE, BASE + (2 << 20), 2 << 20, 22 /* MADV_POPULATE_READ */, 0, 3000);
	page_alloc(m, 0x20000, 9, 0x140cca, 3100);
	sys(m, FOL_EV_SYSCALL_EXIT, 0, 0, 0, 0, 4000);
	sys(m, FOL_EV_MADVISE, BASE, 4096, 4 /* MADV_DONTNEED */, 0, 5000);
	page_alloc(m, 0x30000, 2, 0x140cca, 5100);
	sys(m, FOL_EV_SYSCALL_EXIT, 0, 0, 0, 0, 5200);
	page_alloc(m, 0x40000, 3, 0x140cca, 6000); /* in no call */
	s = finish(m);
	assert_int_equal(s.calls[FOL_CALL_MADV_POPULATE].calls, 2);
	assert_int_equal(s.calls[FOL_CALL_MADV_POPULATE].populated[4], 32);
	assert_int_equal(s.calls[FOL_CALL_MADV_POPULATE].populated[9], 1);
	assert_int_equal(s.calls[FOL_CALL_MADV_POPULATE].populated[0], 0);
	assert_int_equal(s.calls[FOL_CALL_MADV_DONTNEED].populated[2], 0);
	assert_int_equal(s.order[FOL_ORDER_SLOT(4)].folios_allocated, 32);
	assert_int_equal(s.order[FOL_ORDER_SLOT(9)].folios_allocated, 1);
	assert_int_equal(s.order[FOL_ORDER_SLOT(2)].folios_allocated, 0);
	assert_int_equal(s.order[FOL_ORDER_SLOT(3)].folios_allocated, 0);
	fol_summary_free(&s);
	fol_model_free(m);
}

static void mmap_call(struct fol_model *m, uint64_t len, uint64_t flags, uint64_t t)
{
	feed(m, (struct fol_event){ .time = t, .pid = PID, .tid = PID, .kind = FOL_EV_MMAP_CALL,
				    .vm = { .start = 0, .len = len, .flags = flags } });
}

/* mmap(MAP_POPULATE or MAP_LOCKED) and mlock populate too: their folios counted so; an
 * mmap that populates nothing is no call (its exit closes none); a file page read in for
 * the call (added to the page cache right after its allocation) is not the process's. */
static void test_populated_mmap_mlock(void **state)
{
	struct fol_model *m = model();
	struct fol_summary s;

	(void)state;
	mmap_call(m, 2 << 20, 0x22 /* MAP_PRIVATE | MAP_ANONYMOUS */, 1000);
	page_alloc(m, 0x10000, 4, 0x140cca, 1100);
	sys(m, FOL_EV_SYSCALL_EXIT, 0, 0, 0, 0, 1200);
	mmap_call(m, 2 << 20, 0x8022 /* | MAP_POPULATE */, 2000);
	for (int i = 0; i < 8; i++)
		page_alloc(m, 0x20000 + 16 * (uint64_t)i, 4, 0x140cca, 2100 + (uint64_t)i);
	page_alloc(m, 0x30000, 2, 0x140cca, 2200);
	feed(m, (struct fol_event){ .time = 2201, .pid = PID, .tid = PID, .kind = FOL_EV_FILEMAP_ADD,
				    .filemap = { .pfn = 0x30000, .order = 2, .ino = 5, .index = 0 } });
	sys(m, FOL_EV_SYSCALL_EXIT, 0, 0, 0, 0, 3000);
	mmap_call(m, 2 << 20, 0x18022 /* | MAP_POPULATE | MAP_NONBLOCK */, 3100);
	page_alloc(m, 0x38000, 4, 0x140cca, 3200);
	sys(m, FOL_EV_SYSCALL_EXIT, 0, 0, 0, 0, 3300);
	sys(m, FOL_EV_MLOCK, BASE, 4 << 20, 0, 0, 4000);
	page_alloc(m, 0x40000, 9, 0x140cca, 4100);
	sys(m, FOL_EV_SYSCALL_EXIT, 0, 0, 0, 0, 5000);
	s = finish(m);
	assert_int_equal(s.calls[FOL_CALL_MMAP_POPULATE].calls, 1);
	assert_int_equal(s.calls[FOL_CALL_MMAP_POPULATE].populated[4], 8);
	assert_int_equal(s.calls[FOL_CALL_MMAP_POPULATE].populated[2], 0);
	assert_int_equal(s.calls[FOL_CALL_MLOCK].calls, 1);
	assert_int_equal(s.calls[FOL_CALL_MLOCK].populated[9], 1);
	assert_int_equal(s.order[FOL_ORDER_SLOT(4)].folios_allocated, 8);
	assert_int_equal(s.order[FOL_ORDER_SLOT(9)].folios_allocated, 1);
	assert_int_equal(s.order[FOL_ORDER_SLOT(2)].folios_allocated, 0);
	fol_summary_free(&s);
	fol_model_free(m);
}

/* get_user_pages() for a call not recorded (O_DIRECT, /proc/pid/mem): a user folio
 * allocated outside faults and calls, then the thread's own anonymous RSS grown by its
 * size, is counted populated by another call and allocated; not a page-cache page, nor
 * one whose RSS change is not its size, nor one another mm's counter moved for, nor one
 * allocated inside a fault or a recorded call. */
static void test_populated_other(void **state)
{
	struct fol_model *m = model();
	struct fol_summary s;

	(void)state;
	anon_vma(m, PID, BASE, 4 << 20);
	rss_of(m, PID, 9, 1, 0);
	entry(m, PID, PID, BASE, 6, 100); /* its own mm_id: 7, seen inside its fault */
	page_alloc(m, 0x1000, 0, 0x140cca, 110);
	rss_of(m, PID, 7, 1, 1);
	leave(m, PID, PID, BASE, 200);
	page_alloc(m, 0x10000, 4, 0x140cca, 1000);
	rss_of(m, PID, 7, 1, 17); /* +16 pages: the 64K folio */
	page_alloc(m, 0x20000, 4, 0x140cca, 2000);
	feed(m, (struct fol_event){ .time = 2001, .pid = PID, .tid = PID, .kind = FOL_EV_FILEMAP_ADD,
				    .filemap = { .pfn = 0x20000, .order = 4, .ino = 5, .index = 0 } });
	rss_of(m, PID, 7, 1, 33); /* the page cache took it: not this folio's */
	page_alloc(m, 0x30000, 4, 0x140cca, 3000);
	rss_of(m, PID, 7, 1, 34); /* +1 page: not a 64K folio's */
	page_alloc(m, 0x40000, 2, 0x140cca, 4000);
	rss_of(m, PID, 9, 1, 4); /* another mm's counter (a child's, at fork) */
	rss_of(m, PID, 7, 1, 34);
	page_alloc(m, 0x50000, 0, 0x400dc0, 5000); /* a page table */
	rss_of(m, PID, 7, 1, 35);
	sys(m, FOL_EV_MUNMAP, BASE, 4096, 0, 0, 6000);
	page_alloc(m, 0x60000, 0, 0x140cca, 6100);
	rss_of(m, PID, 7, 1, 36);
	sys(m, FOL_EV_SYSCALL_EXIT, 0, 0, 0, 0, 6200);
	page_alloc(m, 0x70000, 9, 0x140cca, 7000);
	rss_of(m, PID, 7, 1, 36 + 512);
	s = finish(m);
	assert_int_equal(s.populated_other[4], 1);
	assert_int_equal(s.populated_other[9], 1);
	assert_int_equal(s.populated_other[2], 0);
	assert_int_equal(s.populated_other[0], 0);
	assert_int_equal(s.order[FOL_ORDER_SLOT(4)].folios_allocated, 1);
	assert_int_equal(s.order[FOL_ORDER_SLOT(9)].folios_allocated, 1);
	assert_int_equal(s.order[FOL_ORDER_SLOT(0)].folios_allocated, 1); /* the fault's */
	fol_summary_free(&s);
	fol_model_free(m);
}

/* Kernel-mode faults with no exit: those whose task had page faults disabled at their
 * entry (the BPF path reads it) are counted so; one not read is only unclosed in kernel
 * mode; a closed one is neither. */
static void test_unclosed_faults_disabled(void **state)
{
	struct fol_model *m = model();
	struct fol_summary s;

	(void)state;
	anon_vma(m, PID, BASE, 4 << 20);
	for (int i = 0; i < 3; i++)
		feed(m, (struct fol_event){ .time = 100 + (uint64_t)i * 10, .pid = PID, .tid = PID,
					    .kind = FOL_EV_FAULT_KERNEL,
					    .fault = { .address = BASE, .error_code = 2, .faults_disabled = i < 2 } });
	fault(m, PID, PID, BASE, 6, 0, 500); /* closes the third, unclosed; itself closed */
	feed(m, (struct fol_event){ .time = 2000, .pid = PID, .tid = PID, .kind = FOL_EV_FAULT_KERNEL,
				    .fault = { .address = BASE + 4096, .error_code = 2, .faults_disabled = 1 } });
	leave(m, PID, PID, BASE + 4096, 2100);
	s = finish(m);
	assert_int_equal(s.unclosed, 3);
	assert_int_equal(s.unclosed_kernel, 3);
	assert_int_equal(s.unclosed_faults_disabled, 2);
	fol_summary_free(&s);
	fol_model_free(m);
}

/* Folios judged written whole beyond the kernel's count of whole swap-outs of their size
 * were split: moved, their one write a piece; what is left of the count goes to the next
 * table (the calls'), whose whole ones are bounded by what the first kept. */
static void test_swapout_bound(void **state)
{
	struct fol_swapout all = { 0 }, call = { 0 };
	uint64_t most = 2;

	(void)state;
	all.whole[4] = 5;
	all.split[4] = 1;
	all.pieces[4] = 16;
	call.whole[4] = 3;
	assert_int_equal(fol_swapout_bound(&all, 4, &most), 3);
	assert_int_equal(all.whole[4], 2);
	assert_int_equal(all.split[4], 4);
	assert_int_equal(all.pieces[4], 19);
	assert_int_equal(most, 0);
	most = 2;
	assert_int_equal(fol_swapout_bound(&call, 4, &most), 1);
	assert_int_equal(call.whole[4], 2);
	most = 9;
	assert_int_equal(fol_swapout_bound(&call, 4, &most), 0); /* within the count: kept */
	assert_int_equal(call.whole[4], 2);
	assert_int_equal(most, 7);
	assert_int_equal(fol_swapout_bound(&call, FOL_MAX_ORDER + 1, &most), 0);
}

static void huge(struct fol_model *m, enum fol_kind kind, int status, uint64_t t)
{
	feed(m, (struct fol_event){ .time = t, .pid = PID, .tid = PID, .kind = kind,
				    .huge = { .mm = 0xffff888000001000ull, .status = status } });
}

/* Scans and collapses by result; a collapse timed from its isolation, one without an
 * isolation not timed; results out of range not counted. */
static void test_collapse(void **state)
{
	struct fol_model *m = model();
	struct fol_summary s;

	(void)state;
	huge(m, FOL_EV_SCAN_PMD, 1, 1000);
	huge(m, FOL_EV_SCAN_PMD, 5, 1100);
	huge(m, FOL_EV_SCAN_PMD, 1, 1200);
	huge(m, FOL_EV_COLLAPSE_ISOLATE, 1, 2000);
	huge(m, FOL_EV_COLLAPSE, 1, 9000);
	huge(m, FOL_EV_COLLAPSE, 3, 12000); /* no isolation before it */
	huge(m, FOL_EV_SCAN_PMD, 64, 13000);
	huge(m, FOL_EV_SCAN_PMD, -1, 13100);
	s = finish(m);
	assert_int_equal(s.collapse.scans[1], 2);
	assert_int_equal(s.collapse.scans[5], 1);
	assert_int_equal(s.collapse.collapses[1], 1);
	assert_int_equal(s.collapse.collapses[3], 1);
	assert_int_equal(s.collapse.time.count, 1);
	assert_int_equal(s.collapse.time.sum, 7000);
	fol_summary_free(&s);
	fol_model_free(m);
}

#define KHUGEPAGED 50
#define KSWAPD 60
#define MM_A 0xffff888000001000ull
#define MM_B 0xffff888000002000ull
#define MM_C 0xffff888000003000ull

static void name(struct fol_model *m, int tid, const char *comm, uint64_t t)
{
	feed(m, (struct fol_event){ .time = t, .pid = tid, .tid = tid, .kind = FOL_EV_COMM,
				    .comm = { .comm = comm } });
}

static void mm_lock(struct fol_model *m, int pid, uint64_t mm, uint64_t t)
{
	feed(m, (struct fol_event){ .time = t, .pid = pid, .tid = pid, .kind = FOL_EV_MMAP_LOCK,
				    .lock = { .mm = mm } });
}

static void huge_in(struct fol_model *m, int tid, enum fol_kind kind, uint64_t mm, int status,
		    uint64_t t)
{
	feed(m, (struct fol_event){ .time = t, .pid = tid, .tid = tid, .kind = kind,
				    .huge = { .mm = mm, .status = status } });
}

/* khugepaged's work is the workload's when the mm is one a workload task locked: another
 * recorded process's is "other" (with --pid), an mm nobody but khugepaged locked is not
 * attributable. MADV_COLLAPSE in a selected thread is the workload's, not khugepaged's. */
static void attribution(int filter_pid, uint64_t *scans, uint64_t *other, uint64_t *unattr,
			uint64_t *kh_collapses, uint64_t *threads)
{
	struct fol_model_opts o = { .page_size = 4096, .order = FOL_ANY, .cls = FOL_ANY,
				    .pmd_order = 9, .pid = filter_pid };
	struct fol_model *m = fol_model_new(&o);
	struct fol_summary s;

	name(m, PID, "prog", 100);
	name(m, 200, "other", 110);
	name(m, KHUGEPAGED, "khugepaged", 120);
	mm_lock(m, PID, MM_A, 1000);
	mm_lock(m, 200, MM_B, 1100);
	mm_lock(m, KHUGEPAGED, MM_C, 1200); /* khugepaged locking a process's mm owns it not */
	huge_in(m, KHUGEPAGED, FOL_EV_SCAN_PMD, MM_A, 1, 2000);
	huge_in(m, KHUGEPAGED, FOL_EV_SCAN_PMD, MM_B, 1, 2100);
	huge_in(m, KHUGEPAGED, FOL_EV_SCAN_PMD, MM_C, 1, 2200);
	huge_in(m, KHUGEPAGED, FOL_EV_COLLAPSE_ISOLATE, MM_A, 1, 3000);
	huge_in(m, KHUGEPAGED, FOL_EV_COLLAPSE, MM_A, 1, 8000);
	huge_in(m, KHUGEPAGED, FOL_EV_COLLAPSE, MM_C, 1, 9000);
	huge_in(m, PID, FOL_EV_SCAN_PMD, 0, 4, 10000); /* MADV_COLLAPSE */
	s = finish(m);
	*scans = s.collapse.scans[1] + s.collapse.scans[4];
	*other = s.collapse.other_scans;
	*unattr = s.collapse.unattributed_scans + s.collapse.unattributed_collapses;
	*kh_collapses = s.collapse.khugepaged_collapses[1];
	*threads = s.threads;
	assert_int_equal(s.collapse.khugepaged_scans[4], 0);
	assert_int_equal(s.collapse.time.count, *kh_collapses);
	assert_int_equal(s.collapse.time.sum, 5000 * *kh_collapses);
	fol_summary_free(&s);
	fol_model_free(m);
}

static void test_collapse_attribution(void **state)
{
	uint64_t scans, other, unattr, khc, threads;

	(void)state;
	attribution(0, &scans, &other, &unattr, &khc, &threads);
	assert_int_equal(scans, 3); /* A's, B's (recorded, no filter), MADV_COLLAPSE's */
	assert_int_equal(other, 0);
	assert_int_equal(unattr, 2); /* C's scan and collapse */
	assert_int_equal(khc, 1);
	assert_int_equal(threads, 1); /* PID (its MADV_COLLAPSE): khugepaged is not a thread of it */
	attribution(PID, &scans, &other, &unattr, &khc, &threads);
	assert_int_equal(scans, 2);
	assert_int_equal(other, 1); /* B's, with --pid PID */
	assert_int_equal(unattr, 2);
	assert_int_equal(khc, 1);
}

/* The kernel's khugepaged selftest binary is named khugepaged: known by name, its own
 * MADV_COLLAPSE, its mm and its thread were taken for the kernel's (its 17 collapses "not
 * attributable"). A recording that names the kernel's mm threads by tid tells them. */
static void test_workload_named_khugepaged(void **state)
{
	static const int kernel_threads[] = { KHUGEPAGED, KSWAPD };
	struct fol_model_opts o = { .page_size = 4096, .order = FOL_ANY, .cls = FOL_ANY,
				    .pmd_order = 9, .mm_threads = kernel_threads,
				    .nr_mm_threads = 2, .mm_threads_known = 1 };
	struct fol_model *m = fol_model_new(&o);
	struct fol_summary s;

	(void)state;
	name(m, PID, "khugepaged", 100);
	name(m, KHUGEPAGED, "khugepaged", 110);
	mm_lock(m, PID, MM_A, 1000);
	huge_in(m, PID, FOL_EV_COLLAPSE_ISOLATE, MM_A, 1, 2000);	/* MADV_COLLAPSE */
	huge_in(m, PID, FOL_EV_COLLAPSE, MM_A, 1, 3000);
	huge_in(m, KHUGEPAGED, FOL_EV_COLLAPSE_ISOLATE, MM_A, 1, 4000); /* the kernel's */
	huge_in(m, KHUGEPAGED, FOL_EV_COLLAPSE, MM_A, 1, 6000);
	s = finish(m);
	assert_int_equal(s.collapse.collapses[1], 2);
	assert_int_equal(s.collapse.khugepaged_collapses[1], 1);
	assert_int_equal(s.collapse.unattributed_collapses, 0);
	assert_int_equal(s.threads, 1);
	fol_summary_free(&s);
	fol_model_free(m);
}

static void alloc_fault(struct fol_model *m, uint64_t addr, int order, uint64_t pfn)
{
	uint64_t t = now;

	entry(m, PID, PID, addr, 0x6, t);
	feed(m, (struct fol_event){ .time = t + 1, .pid = PID, .tid = PID, .kind = FOL_EV_PAGE_ALLOC,
				    .page = { .pfn = pfn, .order = order, .gfp = 0x140cca } });
	leave(m, PID, PID, addr, t + 100);
	now = t + 200;
}

static void write_folio(struct fol_model *m, int tid, uint64_t pfn)
{
	feed(m, (struct fol_event){ .pid = tid, .tid = tid, .kind = FOL_EV_WRITE_FOLIO,
				    .page = { .pfn = pfn } });
}

/* Swap writes judged per folio at the end of the call: one write at a folio's first page
 * is the folio whole, unless pages of it were freed at a smaller order; several are its
 * pieces after a split; a write of a frame no known
 * folio holds is unknown, and a folio freed unwritten is forgotten. */
static void test_swapout(void **state)
{
	struct fol_model *m = model();
	const struct fol_swapout *c;
	struct fol_summary s;

	(void)state;
	name(m, KSWAPD, "kswapd0", 10);
	anon_vma(m, PID, BASE, 1 << 20);
	alloc_fault(m, BASE, 4, 0x10000);
	alloc_fault(m, BASE + 0x10000, 4, 0x10010);
	alloc_fault(m, BASE + 0x20000, 0, 0x20000);
	alloc_fault(m, BASE + 0x30000, 4, 0x30000);
	alloc_fault(m, BASE + 0x40000, 4, 0x40000);
	alloc_fault(m, BASE + 0x50000, 4, 0x50000);
	feed(m, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_PAGE_FREE,
				    .page = { .pfn = 0x30000, .order = 4 } });
	sys(m, FOL_EV_MADVISE, BASE, 1 << 20, 21 /* MADV_PAGEOUT */, 0, now++);
	/* Partly mapped: split, its unmapped pages freed, its first page alone written. */
	for (uint64_t p = 0x40001; p < 0x40010; p++)
		feed(m, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_PAGE_FREE,
					    .page = { .pfn = p, .order = 0 } });
	write_folio(m, PID, 0x40000);
	/* Split for want of a large swap slot, its pieces written, none freed yet. */
	for (uint64_t p = 0x50000; p < 0x50010; p++)
		write_folio(m, PID, p);
	/* A piece of a split folio freed at its first page: the folio is not forgotten. */
	feed(m, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_PAGE_FREE,
				    .page = { .pfn = 0x10010, .order = 0 } });
	write_folio(m, PID, 0x10000);
	for (uint64_t p = 0x10010; p < 0x10020; p++)
		write_folio(m, PID, p);
	write_folio(m, PID, 0x20000);
	write_folio(m, PID, 0x20001); /* next to a 4K folio: not in it */
	write_folio(m, PID, 0x30000); /* freed before: unknown */
	write_folio(m, PID, 0x99999);
	sys(m, FOL_EV_SYSCALL_EXIT, 0, 0, 0, 0, now++);
	write_folio(m, KSWAPD, 0x55555);
	s = finish(m);
	c = &s.calls[FOL_CALL_MADV_PAGEOUT].swapped;
	assert_int_equal(c->whole[4], 1);
	assert_int_equal(c->split[4], 3);
	assert_int_equal(c->pieces[4], 33);
	assert_int_equal(c->whole[0], 1);
	assert_int_equal(c->unknown, 3);
	assert_int_equal(s.swapout.whole[4], 1);
	assert_int_equal(s.swapout.split[4], 3);
	assert_int_equal(s.swapout.unknown, 4); /* and kswapd's */
	assert_int_equal(s.threads, 1);
	fol_summary_free(&s);
	fol_model_free(m);
}

static void reclaim_ev(struct fol_model *m, int tid, enum fol_kind kind, uint64_t t)
{
	feed(m, (struct fol_event){ .time = t, .pid = tid, .tid = tid, .kind = kind,
				    .reclaim = { .nr_reclaimed = 32 } });
}

/* Direct reclaim timed begin to end; kswapd awake from wake to sleep, from the start of
 * the recording when its first event is a sleep, to its end when it is still awake. */
static void test_reclaim(void **state)
{
	struct fol_model *m = model();
	struct fol_summary s;

	(void)state;
	name(m, KSWAPD, "kswapd0", 500);
	reclaim_ev(m, PID, FOL_EV_RECLAIM_BEGIN, 1000);
	reclaim_ev(m, PID, FOL_EV_RECLAIM_END, 4000);
	reclaim_ev(m, PID, FOL_EV_RECLAIM_END, 4500); /* no begin: not counted */
	reclaim_ev(m, KSWAPD, FOL_EV_KSWAPD_SLEEP, 5000);
	reclaim_ev(m, KSWAPD, FOL_EV_KSWAPD_WAKE, 6000);
	reclaim_ev(m, KSWAPD, FOL_EV_KSWAPD_SLEEP, 9000);
	reclaim_ev(m, KSWAPD, FOL_EV_KSWAPD_WAKE, 10000);
	reclaim_ev(m, KSWAPD, FOL_EV_KSWAPD_WAKE, 11000); /* awake already */
	reclaim_ev(m, PID, FOL_EV_RECLAIM_BEGIN, 12000); /* open at the end: not counted */
	s = finish(m);
	assert_int_equal(s.reclaim.direct, 1);
	assert_int_equal(s.reclaim.direct_time.sum, 3000);
	assert_int_equal(s.reclaim.direct_reclaimed, 32);
	assert_int_equal(s.reclaim.kswapd_wakes, 2);
	assert_int_equal(s.reclaim.kswapd_ns, 4500 + 3000 + 2000);
	fol_summary_free(&s);
	fol_model_free(m);
}

static void exec_comm(struct fol_model *m, int pid, uint64_t t)
{
	feed(m, (struct fol_event){ .time = t, .pid = pid, .tid = pid, .kind = FOL_EV_COMM,
				    .comm = { .comm = "prog", .exec = 1 } });
}

/* An exec replaces the address space: folios the map knew go, except those seeded after
 * the exec (the recorded command's own, read at its exec stop). */
static void test_exec_drops_map(void **state)
{
	struct fol_model *m = model();
	struct fol_summary s;

	(void)state;
	anon_vma(m, PID, BASE, 1 << 20);
	feed(m, (struct fol_event){ .time = 5000, .pid = PID, .tid = PID, .kind = FOL_EV_FOLIOS,
				    .folios = { .start = BASE, .order = 4, .n = 1 } });
	exec_comm(m, PID, 4000); /* the exec the seed was read after: kept */
	now = 6000;
	fault(m, PID, PID, BASE + 4096, 0x7, -1, 100); /* reuse on the seeded 64K folio */
	exec_comm(m, PID, 7000); /* a second exec (env, a wrapper): the map goes */
	anon_vma(m, PID, BASE, 1 << 20);
	now = 8000;
	fault(m, PID, PID, BASE + 8192, 0x7, -1, 100);
	s = finish(m);
	assert_int_equal(CELL(s, 4, FOL_C_WP_REUSE).faults, 1);
	assert_int_equal(CELL(s, -1, FOL_C_WP_REUSE).faults, 1);
	fol_summary_free(&s);
	fol_model_free(m);
}

/* A process once, whatever its execs: a build's 410 processes were counted 819 (each
 * exec made a new address space, counted anew). A pid that a fork gives again is a new
 * process. */
static void test_processes_once(void **state)
{
	struct fol_model *m = model();
	struct fol_summary s;

	(void)state;
	anon_vma(m, PID, BASE, 1 << 20);
	exec_comm(m, PID, now++);
	anon_vma(m, PID, BASE, 1 << 20);
	for (int i = 0; i < 3; i++) {
		fork_proc(m, PID, 300 + i);
		anon_vma(m, 300 + i, BASE, 1 << 20);
		exec_comm(m, 300 + i, now++);
		anon_vma(m, 300 + i, BASE, 1 << 20);
		feed(m, (struct fol_event){ .kind = FOL_EV_EXIT,
					    .fork = { .pid = 300 + i, .tid = 300 + i, .ppid = PID,
						      .ptid = PID } });
	}
	fork_proc(m, PID, 300); /* pid 300 again */
	anon_vma(m, 300, BASE, 1 << 20);
	s = finish(m);
	assert_int_equal(s.processes, 5);
	fol_summary_free(&s);
	fol_model_free(m);
}
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calls),
		cmocka_unit_test(test_populated),
		cmocka_unit_test(test_populated_mmap_mlock),
		cmocka_unit_test(test_populated_other),
		cmocka_unit_test(test_swapout_bound),
		cmocka_unit_test(test_unclosed_faults_disabled),
		cmocka_unit_test(test_collapse),
		cmocka_unit_test(test_collapse_attribution),
		cmocka_unit_test(test_workload_named_khugepaged),
		cmocka_unit_test(test_swapout),
		cmocka_unit_test(test_reclaim),
		cmocka_unit_test(test_exec_drops_map),
		cmocka_unit_test(test_processes_once),
	};

	return cmocka_run_group_tests_name("model_kernel", tests, NULL, NULL);
}
