// SPDX-License-Identifier: GPL-2.0-only
/* Kernel decisions (decide.bpf.c) against the model (lib/model) on the same synthetic
 * event streams: the fault path's programs, compiled for the host (tests/unit/bpfhost),
 * get each event as the kernel would hand it to them, the model as the decoder would, and
 * each fault class, folio order and reuse episode counted in the kernel must be the
 * model's. The rules are written twice, once for each side of the ring buffer; this holds
 * them to one meaning. */
#include "model_events.h"

#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>

#include "bpfhost/bpf/bpf_helpers.h"
#include "bpfhost/bpfhost.h"
#include "data/bpf_record.h"

/* faults.bpf.c's programs and settings.bpf.c's settings (the Makefile builds them for the
 * host with bpfp_ before the names libc or model_events.h hold too, and without const:
 * the settings are set here). */
int fault_user(void *ctx);
int fault_exit(struct bpf_perf_event_data *ctx);
int bpfp_alloc(void *ctx);
int bpfp_fork(void *ctx);
int bpfp_exec(void *ctx);
int exit_thread(void *ctx);
int munmap_enter(void *ctx);
int bpfp_rss(void *ctx);
int lock_flush(void *ctx);
int maps_changed(void *ctx);
extern volatile __u32 every_task, kernel_reuse, sample_below, huge_zero, pmd_order;

extern struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FOL_BPF_CLASSES * (FOL_BPF_MAX_ORDER + 1));
	__type(key, __u32);
	__type(value, struct fol_bpf_reuse);
} reuse_by_order;

extern struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FOL_BPF_K_NR);
	__type(key, __u32);
	__type(value, __u64);
} kstat;

#define CHILD 200
#define MM_ID 77
#define GFP_USER_MOVABLE 0x140cca

/* A tracepoint's record: the fields at the offsets faults.bpf.c's settings have before
 * the loader sets them from the formats. */
struct tp {
	_Alignas(8) unsigned char b[64];
};

static void put64(struct tp *t, unsigned off, __u64 v)
{
	memcpy(t->b + off, &v, sizeof(v));
}

static struct fol_model *both(void)
{
	struct fol_model *m = model();

	bpfhost_reset();
	every_task = 1;
	kernel_reuse = 1;
	sample_below = 0;
	anon_vma(m, PID, BASE, 8 << 20);
	assert_int_equal(bpfhost_vma(BASE, BASE + (8 << 20), BPFHOST_ANON), 0);
	return m;
}

/* The programs' side of a fault of tid (of process pid, in address space mm: 0 its own)
 * at addr, with error code ec, allocating a user folio of order (-1: none); flushed:
 * written out before it allocates, a recorded event inside it (a recorded mmap_lock event
 * here; an RSS change the programs do not hold does the same). */
static void kfault(int pid, int tid, __u64 mm, uint64_t addr, uint64_t ec, int order, int flushed)
{
	struct bpf_perf_event_data exit = { .addr = addr };
	struct tp t = {}, a = {}, l = {};

	bpfhost_current(pid, tid, mm);
	put64(&t, 8, addr);
	put64(&t, 24, ec);
	fault_user(&t);
	if (flushed)
		lock_flush(&l);
	if (order >= 0) {
		put64(&a, 16, (__u64)order);
		put64(&a, 24, GFP_USER_MOVABLE);
		bpfp_alloc(&a);
	}
	fault_exit(&exit);
}

/* The same fault on both sides. */
static void fault_flushed(struct fol_model *m, int pid, int tid, uint64_t addr, uint64_t ec, int order,
			  int flushed)
{
	fault(m, pid, tid, addr, ec, order, 1000);
	kfault(pid, tid, 0, addr, ec, order, flushed);
}

static void both_fault(struct fol_model *m, int pid, int tid, uint64_t addr, uint64_t ec, int order)
{
	fault_flushed(m, pid, tid, addr, ec, order, 0);
}

static void both_fork(struct fol_model *m, int parent, int child)
{
	struct tp t = {};
	__s32 c = child;

	fork_proc(m, parent, child);
	bpfhost_current(parent, parent, 0);
	memcpy(t.b + 44, &c, sizeof(c));
	bpfp_fork(&t);
}

static void both_exit(struct fol_model *m, int pid, int tid)
{
	struct tp t = {};

	feed(m, (struct fol_event){ .kind = FOL_EV_EXIT,
				    .fork = { .pid = pid, .tid = tid, .ppid = PID, .ptid = PID } });
	bpfhost_current(pid, tid, 0);
	exit_thread(&t);
}

static void both_munmap(struct fol_model *m, uint64_t start, uint64_t len)
{
	struct tp t = {};

	feed(m, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_MUNMAP,
				    .vm = { .start = start, .len = len } });
	feed(m, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_SYSCALL_EXIT });
	bpfhost_current(PID, PID, 0);
	put64(&t, 16, start);
	put64(&t, 24, len);
	munmap_enter(&t);
}

/* kmem:rss_stat of PID's mm, inside a fault or not: counter member (1 anonymous, 2 swap
 * entries) now at pages. */
static void both_rss(struct fol_model *m, int member, int64_t pages)
{
	struct tp t = {};

	rss_of(m, PID, MM_ID, member, pages);
	bpfhost_current(PID, PID, 0);
	put64(&t, 8, MM_ID);
	put64(&t, 16, (__u64)member);
	put64(&t, 24, (__u64)(pages * 4096));
	bpfp_rss(&t);
}

/* A read fault on a page not present whose counters moved inside: the anonymous count to
 * anon pages, the swap entries to swap (a swap-in from the swap cache allocates nothing). */
static void both_swapin(struct fol_model *m, uint64_t addr, int64_t anon, int64_t swap)
{
	struct bpf_perf_event_data exit = { .addr = addr };
	struct tp t = {};
	uint64_t t0 = now;

	entry(m, PID, PID, addr, 0x4, t0);
	now = t0 + 1;
	bpfhost_current(PID, PID, 0);
	put64(&t, 8, addr);
	put64(&t, 24, 0x4);
	fault_user(&t);
	both_rss(m, 1, anon);
	both_rss(m, 2, swap);
	leave(m, PID, PID, addr, t0 + 1000);
	bpfhost_current(PID, PID, 0);
	fault_exit(&exit);
	now = t0 + 1100;
}

/* The model's class of each of the programs' (kcounts.c's rule, written here again so that
 * a test holds it). */
static const int model_class[FOL_BPF_CLASSES] = {
	[FOL_BPF_CLS_REUSE] = FOL_C_WP_REUSE, [FOL_BPF_CLS_ALLOC] = FOL_C_ANON_ALLOC,
	[FOL_BPF_CLS_COPY] = FOL_C_WP_COPY,   [FOL_BPF_CLS_SWAP] = FOL_C_SWAP_IN,
	[FOL_BPF_CLS_FILE] = FOL_C_FILE,      [FOL_BPF_CLS_ZERO] = FOL_C_ANON_ZERO,
	[FOL_BPF_CLS_SPECIAL] = FOL_C_SPECIAL,
};

static const struct fol_bpf_reuse *kcell(int cls, int order)
{
	__u32 i = (__u32)(cls * (FOL_BPF_MAX_ORDER + 1) + order);

	return bpf_map_lookup_elem(&reuse_by_order, &i);
}

/* Every cell the kernel counted is the model's, and the kernel wrote out `written` faults
 * for the model to judge. Returns the kernel's reuse faults. */
static uint64_t same_counts(struct fol_model *m, unsigned long written)
{
	struct fol_summary s = finish(m);
	uint64_t reuse = 0;

	for (int c = 0; c < FOL_BPF_CLASSES; c++)
		for (int o = 0; o <= FOL_BPF_MAX_ORDER; o++) {
			const struct fol_bpf_reuse *k = kcell(c, o);

			assert_non_null(k);
			if (k->faults != CELL(s, o, model_class[c]).faults)
				fail_msg("class %d order %d: kernel %llu, model %llu", model_class[c], o,
					 (unsigned long long)k->faults,
					 (unsigned long long)CELL(s, o, model_class[c]).faults);
			if (c == FOL_BPF_CLS_REUSE) {
				assert_int_equal(k->episodes, s.order[FOL_ORDER_SLOT(o)].reuse.episodes);
				reuse += k->faults;
			}
		}
	assert_int_equal(bpfhost_records(FOL_BPF_FAULT) + bpfhost_records(FOL_BPF_EXIT), written);
	fol_summary_free(&s);
	fol_model_free(m);
	return reuse;
}

#define PF_WRITE 0x6 /* user, write, not present */
#define PF_WP 0x7    /* user, write, present */

/* fork in a loop, the child gone at once, then a write to each page of 64K, 2M and 4K
 * folios: one episode a folio a round (lib/model's rule: a fork shares every folio again). */
static void test_reuse_after_forks(void **state)
{
	struct fol_model *m = both();

	(void)state;
	both_fault(m, PID, PID, BASE, PF_WRITE, 4);
	both_fault(m, PID, PID, BASE + (2 << 20), PF_WRITE, 9);
	both_fault(m, PID, PID, BASE + (6 << 20), PF_WRITE, 0);
	for (int round = 0; round < 3; round++) {
		both_fork(m, PID, CHILD + round);
		both_exit(m, CHILD + round, CHILD + round);
		for (int p = 0; p < 16; p++)
			both_fault(m, PID, PID, BASE + (uint64_t)p * 4096, PF_WP, -1);
		for (int p = 0; p < 40; p++)
			both_fault(m, PID, PID, BASE + (2 << 20) + (uint64_t)p * 4096 * 3, PF_WP, -1);
		both_fault(m, PID, PID, BASE + (6 << 20), PF_WP, -1);
	}
	assert_int_equal(same_counts(m, 0), 3 * (16 + 40 + 1));
}

/* While the child lives: the parent's writes copy (a 4K folio that hides that page of the
 * 2M folio; one that takes a 4K folio's place), the child reuses the folios it still maps
 * (the parent's from before the fork), and the parent reuses its copy. Two threads of the
 * parent take turns on one folio: one episode. */
static void test_copy_then_reuse(void **state)
{
	struct fol_model *m = both();
	const uint64_t thp = BASE + (2 << 20), page = BASE + (6 << 20);

	(void)state;
	both_fault(m, PID, PID, thp, PF_WRITE, 9);
	both_fault(m, PID, PID, BASE, PF_WRITE, 4);
	both_fault(m, PID, PID, page, PF_WRITE, 0);
	both_fork(m, PID, CHILD);
	both_fault(m, PID, PID, thp + 4096, PF_WP, 0);
	both_fault(m, PID, PID, page, PF_WP, 0);
	both_fault(m, CHILD, CHILD, thp + 4096, PF_WP, -1);
	both_fault(m, CHILD, CHILD, thp + 8192, PF_WP, -1);
	both_fault(m, CHILD, CHILD, page, PF_WP, -1); /* the folio the parent's copy replaced */
	both_exit(m, CHILD, CHILD);
	both_fault(m, PID, PID, thp + 4096, PF_WP, -1);
	both_fault(m, PID, PID, thp + 8192, PF_WP, -1);
	for (int p = 0; p < 16; p++)
		both_fault(m, PID, PID + (p & 1), BASE + (uint64_t)p * 4096, PF_WP, -1);
	assert_int_equal(same_counts(m, 0), 3 + 2 + 16);
}

/* An unmapped range's folios are gone: a new one there is allocated and reused anew, in
 * an episode of its own. */
static void test_unmapped_then_again(void **state)
{
	struct fol_model *m = both();

	(void)state;
	both_fault(m, PID, PID, BASE, PF_WRITE, 4);
	both_fork(m, PID, CHILD);
	both_exit(m, CHILD, CHILD);
	both_fault(m, PID, PID, BASE, PF_WP, -1);
	both_munmap(m, BASE, 64 << 10);
	anon_vma(m, PID, BASE, 64 << 10);
	both_fault(m, PID, PID, BASE, PF_WRITE, 4);
	both_fork(m, PID, CHILD + 1);
	both_exit(m, CHILD + 1, CHILD + 1);
	for (int p = 0; p < 16; p++)
		both_fault(m, PID, PID, BASE + (uint64_t)p * 4096, PF_WP, -1);
	assert_int_equal(same_counts(m, 0), 17);
}

/* A thread that takes its reuse faults on one folio only keeps it as its last across a
 * fork, which ends the episode all the same. */
static void test_last_folio_across_forks(void **state)
{
	struct fol_model *m = both();

	(void)state;
	both_fault(m, PID, PID, BASE, PF_WRITE, 4);
	for (int round = 0; round < 3; round++) {
		both_fork(m, PID, CHILD + round);
		both_exit(m, CHILD + round, CHILD + round);
		for (int p = 0; p < 16; p++)
			both_fault(m, PID, PID, BASE + (uint64_t)p * 4096, PF_WP, -1);
	}
	assert_int_equal(same_counts(m, 0), 48);
}

/* A folio kept in a range unmapped since is no folio: what is mapped there now came without
 * a fault (MAP_POPULATE), and its reuse fault goes out to the model, which knows no order
 * for it either. */
static void test_unmapped_folio_gone(void **state)
{
	struct fol_model *m = both();
	const uint64_t thp = BASE + (2 << 20);

	(void)state;
	both_fault(m, PID, PID, thp, PF_WRITE, 9);
	both_munmap(m, thp, 2 << 20);
	anon_vma(m, PID, thp, 2 << 20);
	both_fork(m, PID, CHILD);
	both_exit(m, CHILD, CHILD);
	both_fault(m, PID, PID, thp + 4096, PF_WP, -1);
	assert_int_equal(same_counts(m, 1), 0);
}

/* Swap-ins from the swap cache, decided in the kernel by the model's rule (as many pages
 * joined the anonymous count as left the swap entries: the folio), their folios kept for
 * their reuse faults; a change that is no folio's goes out to the model. */
static void test_swapins(void **state)
{
	struct fol_model *m = both();

	(void)state;
	both_rss(m, 1, 0);
	both_rss(m, 2, 64);
	for (int p = 0; p < 16; p++)
		both_swapin(m, BASE + (uint64_t)p * 4096, p + 1, 63 - p);
	both_swapin(m, BASE + (1 << 20), 32, 32);   /* a 64K folio */
	both_swapin(m, BASE + (3 << 20), 33, 30);   /* one page in, two swap entries gone */
	both_fork(m, PID, CHILD);
	both_exit(m, CHILD, CHILD);
	both_fault(m, PID, PID, BASE, PF_WP, -1);
	both_fault(m, PID, PID, BASE + (1 << 20) + 4096, PF_WP, -1);
	assert_int_equal(same_counts(m, 1), 2);
	assert_int_equal(bpfhost_records(FOL_BPF_RSS), 2);
}

/* A page replaced twice in the parent before the child forked first runs: the parent's
 * copy (the page's folio born before the fork: kept one version back for the child),
 * then that copy swapped out and read back (born after the fork: no child's, so the
 * version kept stays). The child's first write reuses the page as it was at its fork. */
static void test_previous_for_a_late_child(void **state)
{
	struct fol_model *m = both();

	(void)state;
	both_rss(m, 1, 0);
	both_rss(m, 2, 1);
	both_fault(m, PID, PID, BASE, PF_WRITE, 0);
	both_fork(m, PID, CHILD);
	both_fault(m, PID, PID, BASE, PF_WP, 0);
	both_swapin(m, BASE, 1, 0);
	both_fault(m, CHILD, CHILD, BASE, PF_WP, -1);
	both_exit(m, CHILD, CHILD);
	assert_int_equal(same_counts(m, 0), 1);
}

/* A swap-in the kernel does not decide goes out as the model had it before: the entry,
 * the two changes held inside, the exit, in time order; timed or not (serve --sample: a
 * fault not drawn reads no clock at its entry). */
static void test_swapin_written_in_order(void **state)
{
	(void)state;
	for (int untimed = 0; untimed < 2; untimed++) {
		struct fol_model *m = both();
		const struct fol_bpf_rec *r[4];
		unsigned long first;

		sample_below = untimed ? 1u << 31 : 0;
		bpfhost_random(~0u);
		both_rss(m, 1, 0);
		both_rss(m, 2, 8);
		first = bpfhost_records(-1);
		both_swapin(m, BASE, 1, 5);
		assert_int_equal(bpfhost_records(-1) - first, 4);
		for (int i = 0; i < 4; i++)
			assert_non_null(r[i] = bpfhost_record(first + (unsigned long)i));
		assert_int_equal(r[0]->what, FOL_BPF_ENTRY);
		assert_int_equal(r[1]->what, FOL_BPF_RSS);
		assert_int_equal(r[2]->what, FOL_BPF_RSS);
		assert_int_equal(r[3]->what, FOL_BPF_EXIT);
		assert_true(r[0]->t0 < r[1]->t1 && r[1]->t1 < r[2]->t1 && r[2]->t1 < r[3]->t1);
		assert_int_equal(!!(r[3]->flags & FOL_BPF_UNTIMED), untimed);
		assert_int_equal(r[1]->sum, FOL_BPF_SUM_PREV);
		assert_int_equal(r[1]->addr, 0);	  /* the anonymous count before */
		assert_int_equal(r[2]->addr, 8 * 4096); /* the swap entries before */
		assert_int_equal(same_counts(m, 1), 0);
	}
}

/* A library's data, mapped private from its file: a write to a present page copies it
 * into anonymous memory (wp_copy), decided in the kernel as in an anonymous VMA, and the
 * copy is kept for its reuse; in a shared file mapping the model classes a write as the
 * file's, and the kernel writes the fault out. */
static void test_copies_in_file_mappings(void **state)
{
	struct fol_model *m = both();
	const uint64_t lib = 0x7f1000000000ull, shared = 0x7f2000000000ull;

	(void)state;
	file_map(m, lib, 1 << 20, 0, MAP_PRIVATE, 42);
	assert_int_equal(bpfhost_vma(lib, lib + (1 << 20), BPFHOST_FILE_PRIVATE), 0);
	feed(m, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_MMAP,
				    .mmap = { .start = shared, .len = 1 << 20, .flags = MAP_SHARED,
					      .maj = 8, .min = 1, .ino = 43, .filename = "/tmp/shared" } });
	assert_int_equal(bpfhost_vma(shared, shared + (1 << 20), BPFHOST_FILE_SHARED), 0);
	for (int p = 0; p < 4; p++)
		both_fault(m, PID, PID, lib + (uint64_t)p * 4096, PF_WP, 0);
	both_fault(m, PID, PID, shared, PF_WP, 0);
	both_fork(m, PID, CHILD);
	both_exit(m, CHILD, CHILD);
	for (int p = 0; p < 4; p++)
		both_fault(m, PID, PID, lib + (uint64_t)p * 4096, PF_WP, -1);
	assert_int_equal(same_counts(m, 1), 4);
}

/* A read of a present page that allocated (NUMA balancing's hint fault migrating a 4K
 * folio out of a 64K one's place): the model classes it "other", and keeps the new folio
 * at the address all the same; so must the kernel, or the reuse faults after take the
 * 64K folio's order. */
static void test_folio_replaced_by_a_read(void **state)
{
	struct fol_model *m = both();

	(void)state;
	both_fault(m, PID, PID, BASE, PF_WRITE, 4);
	both_fault(m, PID, PID, BASE + 4096, 0x5 /* user, read, present */, 0);
	both_fork(m, PID, CHILD);
	both_exit(m, CHILD, CHILD);
	for (int p = 0; p < 16; p++)
		both_fault(m, PID, PID, BASE + (uint64_t)p * 4096, PF_WP, -1);
	assert_int_equal(same_counts(m, 1), 16);
}

/* A folio allocated by a fault written out before its allocation (a recorded event
 * inside) is kept all the same: its page's next reuse is of it, 4K, not of the 2M folio
 * around it. Seen in Debian's 6.1 with copies: 5 of 56 such reuse faults counted 2M by
 * serve, 4K by stat. A read of a present page
 * that migrated it here, whose class ("other") the kernel never counts: the copy's own
 * count would be the model's, which this harness does not add. */
static void test_streamed_copy_kept(void **state)
{
	struct fol_model *m = both();
	const uint64_t thp = BASE + (2 << 20);

	(void)state;
	both_fault(m, PID, PID, thp, PF_WRITE, 9);
	both_fork(m, PID, CHILD);
	both_exit(m, CHILD, CHILD);
	fault_flushed(m, PID, PID, thp + 4096, 0x5 /* user, read, present */, 0, 1);
	both_fork(m, PID, CHILD);
	both_exit(m, CHILD, CHILD);
	both_fault(m, PID, PID, thp + 4096, PF_WP, -1);
	both_fault(m, PID, PID, thp + 8192, PF_WP, -1);
	assert_int_equal(same_counts(m, 1), 2);
}

/* serve's two sides of the same faults: the kernel's counts, and a model fed only what
 * the kernel wrote out (whose history of a PMD range lacks the reads decided); together
 * they must be what a model fed every fault counts. */
struct sides {
	struct fol_model *all, *out;
};

static void sides_feed(struct sides *sd, struct fol_event ev)
{
	feed(sd->all, ev);
	feed(sd->out, ev);
}

#define PF_READ 0x4 /* user, read, not present */

static void sides_read(struct sides *sd, uint64_t addr)
{
	unsigned long before = bpfhost_records(-1);

	both_fault(sd->all, PID, PID, addr, PF_READ, -1);
	if (bpfhost_records(-1) > before)
		fault(sd->out, PID, PID, addr, PF_READ, -1, 1000);
}

static uint64_t kstat_of(__u32 which)
{
	const __u64 *n = bpf_map_lookup_elem(&kstat, &which);

	return n ? *n : 0;
}

/* Every cell: the model fed every fault counts what the kernel counted and the model fed
 * the rest did. */
static void sides_agree(struct sides *sd)
{
	struct fol_summary all = finish(sd->all), out = finish(sd->out);

	for (int c = 0; c < FOL_NR_CLASSES; c++)
		for (int o = -1; o <= FOL_BPF_MAX_ORDER; o++) {
			uint64_t k = 0;

			for (int b = 0; b < FOL_BPF_CLASSES; b++)
				if (model_class[b] == c && o >= 0)
					k += kcell(b, o)->faults;
			if (CELL(all, o, c).faults != CELL(out, o, c).faults + k)
				fail_msg("class %d order %d: every fault's model %llu, kernel %llu and "
					 "the rest's model %llu", c, o,
					 (unsigned long long)CELL(all, o, c).faults, (unsigned long long)k,
					 (unsigned long long)CELL(out, o, c).faults);
		}
	fol_summary_free(&all);
	fol_summary_free(&out);
	fol_model_free(sd->all);
	fol_model_free(sd->out);
}

#define VM_HUGEPAGE 0x20000000ul
#define VM_NOHUGEPAGE 0x40000000ul

/* Reads of pages not present under each huge zero page policy: in an anonymous VMA under
 * MADV_HUGEPAGE, a plain one, one under MADV_NOHUGEPAGE (2M each, aligned), one smaller
 * than a PMD, the vDSO, a file's private mapping. The kernel decides the 4K zero page
 * wherever no huge one can be, and the vDSO's page, looking each VMA up once; the rest go
 * out. Then the small VMA is unmapped and a file mapped in its place: its VMA, held by
 * the thread, is looked up again at the mapping calls' exit, and the read goes out. */
static void test_zero_reads(void **state)
{
	static const int decided[] = { [FOL_HZ_NONE] = 10, [FOL_HZ_MADVISE] = 8, [FOL_HZ_ALWAYS] = 5 };
	const uint64_t hp = BASE, plain = BASE + (2 << 20), noh = BASE + (6 << 20);
	const uint64_t small = BASE + (16 << 20), vdso = BASE + (32 << 20), lib = BASE + (40 << 20);
	struct tp t = {};

	(void)state;
	for (int pol = FOL_HZ_NONE; pol <= FOL_HZ_ALWAYS; pol++) {
		struct fol_model_opts o = { .page_size = 4096, .order = FOL_ANY, .cls = FOL_ANY,
					    .pmd_order = 9, .huge_zero = pol };
		struct sides sd = { fol_model_new(&o), fol_model_new(&o) };

		bpfhost_reset();
		every_task = 1;
		kernel_reuse = 1;
		sample_below = 0;
		pmd_order = 9;
		huge_zero = pol == FOL_HZ_NONE ? FOL_BPF_HZ_NONE : pol == FOL_HZ_MADVISE ? FOL_BPF_HZ_MADVISE
											: FOL_BPF_HZ_ALWAYS;
		sides_feed(&sd, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_MMAP,
						    .mmap = { .start = hp, .len = 8 << 20, .filename = "//anon" } });
		sides_feed(&sd, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_MADVISE,
						    .vm = { .start = hp, .len = 2 << 20, .behavior = 14 } });
		sides_feed(&sd, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_MADVISE,
						    .vm = { .start = noh, .len = 2 << 20, .behavior = 15 } });
		sides_feed(&sd, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_MMAP,
						    .mmap = { .start = small, .len = 64 << 10, .filename = "//anon" } });
		sides_feed(&sd, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_MMAP,
						    .mmap = { .start = vdso, .len = 8192, .filename = "[vdso]" } });
		file_map(sd.all, lib, 1 << 20, 0, MAP_PRIVATE, 42);
		file_map(sd.out, lib, 1 << 20, 0, MAP_PRIVATE, 42);
		assert_int_equal(bpfhost_vma(hp, plain, BPFHOST_ANON), 0);
		assert_int_equal(bpfhost_vma_flags(hp, VM_HUGEPAGE), 0);
		assert_int_equal(bpfhost_vma(plain, noh, BPFHOST_ANON), 0);
		assert_int_equal(bpfhost_vma(noh, noh + (2 << 20), BPFHOST_ANON), 0);
		assert_int_equal(bpfhost_vma_flags(noh, VM_NOHUGEPAGE), 0);
		assert_int_equal(bpfhost_vma(small, small + (64 << 10), BPFHOST_ANON), 0);
		assert_int_equal(bpfhost_vma(vdso, vdso + 8192, BPFHOST_SPECIAL), 0);
		assert_int_equal(bpfhost_vma(lib, lib + (1 << 20), BPFHOST_FILE_PRIVATE), 0);

		sides_read(&sd, hp + 4096);
		sides_read(&sd, hp + 8192);
		sides_read(&sd, plain);
		sides_read(&sd, plain + 4096);
		sides_read(&sd, plain + (2 << 20) + 4096);
		sides_read(&sd, noh);
		sides_read(&sd, noh + 4096);
		sides_read(&sd, vdso);
		sides_read(&sd, lib);
		sides_read(&sd, small);
		sides_read(&sd, small + 4096);
		assert_int_equal(kstat_of(FOL_BPF_K_ZERO), decided[pol]);

		sides_feed(&sd, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_MUNMAP,
						    .vm = { .start = small, .len = 64 << 10 } });
		sides_feed(&sd, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_SYSCALL_EXIT });
		assert_int_equal(bpfhost_vma_drop(small), 0);
		bpfhost_current(PID, PID, 0);
		maps_changed(&t);
		file_map(sd.all, small, 64 << 10, 0, MAP_PRIVATE, 43);
		file_map(sd.out, small, 64 << 10, 0, MAP_PRIVATE, 43);
		assert_int_equal(bpfhost_vma(small, small + (64 << 10), BPFHOST_FILE_PRIVATE), 0);
		maps_changed(&t);
		sides_read(&sd, small + 8192);
		assert_int_equal(kstat_of(FOL_BPF_K_ZERO), decided[pol]);
		assert_int_equal(kstat_of(FOL_BPF_K_VMA), 7);
		sides_agree(&sd);
	}
}

/* exec's own faults (its new stack, before sched_process_exec) put folios in the new
 * address space: exec keeps those and drops the old space's. The programs' side alone:
 * the model forgets both at exec (in the stream, exec's own faults look like the old
 * space's), so there is no model to hold this to. The child's fork shares the page exec
 * put, whose reuse is decided 4K; the old space's page goes out. */
static void test_exec_keeps_its_own_folios(void **state)
{
	struct tp t = {};
	__s32 c = CHILD;

	(void)state;
	bpfhost_reset();
	every_task = 1;
	kernel_reuse = 1;
	sample_below = 0;
	assert_int_equal(bpfhost_vma(BASE, BASE + (8 << 20), BPFHOST_ANON), 0);
	kfault(PID, PID, 0x5000, BASE + (4 << 20), PF_WRITE, 0, 0); /* the old space's */
	kfault(PID, PID, 0, BASE, PF_WRITE, 0, 0);		     /* exec's own, in the new */
	bpfhost_current(PID, PID, 0);
	bpfp_exec(&t);
	memcpy(t.b + 44, &c, sizeof(c));
	bpfp_fork(&t);
	bpfhost_current(CHILD, CHILD, 0);
	exit_thread(&t);
	kfault(PID, PID, 0, BASE, PF_WP, -1, 0);
	assert_int_equal(kcell(FOL_BPF_CLS_REUSE, 0)->faults, 1);
	assert_int_equal(bpfhost_records(-1), 0);
	kfault(PID, PID, 0, BASE + (4 << 20), PF_WP, -1, 0);
	assert_int_equal(kcell(FOL_BPF_CLS_REUSE, 0)->faults, 1);
	assert_int_equal(bpfhost_records(FOL_BPF_FAULT), 1);
}

/* A process's libraries are mapped over their reservations with mmap MAP_FIXED, dozens of
 * file ranges: they take no unmapped slot (a merged box around two of them, one each
 * side, would hide the folio between). Five file ranges unmapped, the two nearest on
 * either side of a 64K folio, whose 16 reuse faults after a fork are all decided. */
static void test_file_unmaps_hide_nothing(void **state)
{
	struct fol_model *m = both();
	const uint64_t below = BASE - (2 << 20), above = BASE + (9 << 20), far = 1ull << 30;
	const uint64_t files[] = { BASE + far, BASE + 2 * far, below, above, BASE + 3 * far };

	(void)state;
	both_fault(m, PID, PID, BASE, PF_WRITE, 4);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(bpfhost_vma(files[i], files[i] + (1 << 20), BPFHOST_FILE_PRIVATE), 0);
		both_munmap(m, files[i], 1 << 20);
	}
	both_fork(m, PID, CHILD);
	both_exit(m, CHILD, CHILD);
	for (int p = 0; p < 16; p++)
		both_fault(m, PID, PID, BASE + (uint64_t)p * 4096, PF_WP, -1);
	assert_int_equal(same_counts(m, 0), 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reuse_after_forks),
		cmocka_unit_test(test_copy_then_reuse),
		cmocka_unit_test(test_unmapped_then_again),
		cmocka_unit_test(test_last_folio_across_forks),
		cmocka_unit_test(test_unmapped_folio_gone),
		cmocka_unit_test(test_swapins),
		cmocka_unit_test(test_swapin_written_in_order),
		cmocka_unit_test(test_previous_for_a_late_child),
		cmocka_unit_test(test_copies_in_file_mappings),
		cmocka_unit_test(test_folio_replaced_by_a_read),
		cmocka_unit_test(test_streamed_copy_kept),
		cmocka_unit_test(test_zero_reads),
		cmocka_unit_test(test_exec_keeps_its_own_folios),
		cmocka_unit_test(test_file_unmaps_hide_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
