// SPDX-License-Identifier: GPL-2.0-only
/* The model's accounting of what the kernel does for (or to) the workload beside its
 * faults: the bulk system calls, THP collapse and whose memory it was, reclaim and
 * swap-out. Fed by model.c's event dispatch. */
#include <errno.h>
#include <string.h>

#include "data/comm.h"
#include "util/madvise.h"
#include "model/model_priv.h"
#include "model/swapout.h"
#include "util/u64map.h"

static enum fol_call madvise_call(int64_t advice)
{
	switch (advice) {
	case FOL_MADV_DONTNEED:
	case FOL_MADV_DONTNEED_LOCKED:
		return FOL_CALL_MADV_DONTNEED;
	case FOL_MADV_FREE:
		return FOL_CALL_MADV_FREE;
	case FOL_MADV_COLD:
		return FOL_CALL_MADV_COLD;
	case FOL_MADV_PAGEOUT:
		return FOL_CALL_MADV_PAGEOUT;
	case FOL_MADV_COLLAPSE:
		return FOL_CALL_MADV_COLLAPSE;
	case FOL_MADV_POPULATE_READ:
	case FOL_MADV_POPULATE_WRITE:
		return FOL_CALL_MADV_POPULATE;
	default:
		return FOL_CALL_MADV_OTHER;
	}
}

/* mmap's flags that populate the mapping (uapi asm-generic/mman*.h, x86's and arm64's
 * alike), unless MAP_NONBLOCK. */
#define MAP_LOCKED_ 0x2000
#define MAP_POPULATE_ 0x8000
#define MAP_NONBLOCK_ 0x10000

/* The call an entry event begins; 0 for an mmap that populates nothing (not a bulk call). */
static int call_of(const struct fol_event *ev, enum fol_call *call)
{
	switch (ev->kind) {
	case FOL_EV_MUNMAP:
		*call = FOL_CALL_MUNMAP;
		return 1;
	case FOL_EV_MREMAP:
		*call = FOL_CALL_MREMAP;
		return 1;
	case FOL_EV_MPROTECT:
		*call = FOL_CALL_MPROTECT;
		return 1;
	case FOL_EV_MLOCK:
		*call = FOL_CALL_MLOCK;
		return 1;
	case FOL_EV_MMAP_CALL:
		*call = FOL_CALL_MMAP_POPULATE;
		return (ev->vm.flags & (MAP_POPULATE_ | MAP_LOCKED_)) && !(ev->vm.flags & MAP_NONBLOCK_);
	default:
		*call = madvise_call(ev->vm.behavior);
		return 1;
	}
}

/* The entry of a bulk call: timed from here to its exit. */
void fol_model_call_begin(struct thread *t, const struct fol_event *ev)
{
	struct open_call *c = &t->call;
	enum fol_call call;
	int open = call_of(ev, &call);

	memset(c, 0, sizeof(*c));
	c->open = open;
	c->start = ev->time;
	c->bytes = ev->vm.len;
	c->call = call;
}

/* Its exit: into the summary, for the threads the options select. An exit without an
 * entry (the recording began inside the call) is not timed. */
void fol_model_call_end(struct fol_model *m, struct thread *t, int tid, const struct fol_event *ev)
{
	struct open_call *c = &t->call;
	struct fol_call_stats *cs = &m->s.calls[c->call];
	struct fol_swapout sw = { .unknown = c->unknown_writes };

	if (!c->open)
		return;
	c->open = 0;
	/* The call is over, and so are the writes it made: each folio written whole or in
	 * pieces. Every write is in the recording's swap-out, whoever made it. */
	if (c->wrote)
		fol_swapout_settle(m->swap, tid, &sw);
	fol_swapout_add(&m->s.swapout, &sw);
	if (!fol_model_selected(m, t->pid, tid))
		return;
	fol_swapout_add(&cs->swapped, &sw);
	cs->calls++;
	cs->errors += ev->vm.ret < 0 && ev->vm.ret >= -FOL_MAX_ERRNO;
	cs->bytes += c->bytes;
	if (ev->time >= c->start)
		fol_model_hist_add(m, &cs->time, ev->time - c->start);
	for (int i = 0; i <= FOL_MAX_ORDER; i++) {
		cs->freed[i] += c->freed[i];
		cs->populated[i] += c->populated[i];
		m->s.order[FOL_ORDER_SLOT(i)].folios_allocated += c->populated[i];
	}
}

/* A user folio the kernel allocated for the thread's populating call, outside a fault: 1
 * when counted so. */
int fol_model_populated(struct thread *t, const struct fol_event *ev)
{
	struct open_call *c = &t->call;

	if (!c->open || !fol_call_populates(c->call) || t->open || !(ev->page.gfp & FOL_GFP_MOVABLE) ||
	    ev->page.order < 0 || ev->page.order > FOL_MAX_ORDER)
		return 0;
	c->populated[ev->page.order]++;
	c->populated_pfn = ev->page.pfn + 1;
	c->populated_order = ev->page.order;
	return 1;
}

/* A folio added to the page cache: the last one counted populated, if it is that one, was
 * a file's page read in for the call, not the process's memory. */
void fol_model_populated_cached(struct thread *t, const struct fol_event *ev)
{
	struct open_call *c = &t->call;

	if (t->gup_pfn == ev->filemap.pfn + 1)
		t->gup_pfn = 0;
	if (c->open && c->populated_pfn == ev->filemap.pfn + 1 && c->populated[c->populated_order]) {
		c->populated[c->populated_order]--;
		c->populated_pfn = 0;
	}
}

/* A user folio allocated in the thread outside its faults and recorded calls: a page
 * cache page (read, readahead), a migration's target, or one get_user_pages() faulted in
 * for a call not recorded (handle_mm_fault() without the exception). Held until the next
 * tells which. */
void fol_model_gup_note(struct thread *t, const struct fol_event *ev)
{
	if (t->open || t->call.open || !(ev->page.gfp & FOL_GFP_MOVABLE) || ev->page.order < 0 ||
	    ev->page.order > FOL_MAX_ORDER)
		return;
	t->gup_pfn = ev->page.pfn + 1;
	t->gup_order = ev->page.order;
}

/* The thread's own anonymous RSS grew by anon_bytes outside a fault: by exactly the held
 * folio's size, that folio was mapped into its memory, populated without a fault. The
 * page cache's pages move no anonymous counter; a migration's target moves none; a
 * swap-in through get_user_pages would count here too (its page comes back mapped).
 * Kernels that batch a task's RSS changes (before 6.2) tell no change of one folio. */
void fol_model_gup_claim(struct fol_model *m, struct thread *t, int tid, int64_t anon_bytes)
{
	int order = t->gup_order;

	if (!t->gup_pfn || t->open || anon_bytes != (int64_t)1 << (m->page_shift + order))
		return;
	t->gup_pfn = 0;
	if (!fol_model_selected(m, t->pid, tid))
		return;
	m->s.populated_other[order]++;
	m->s.order[FOL_ORDER_SLOT(order)].folios_allocated++;
}

/* Whose memory khugepaged worked on: 1 a selected process's, 0 another recorded
 * process's, -1 an mm no recorded task was seen to lock. */
static int collapse_owner(const struct fol_model *m, uint64_t mm)
{
	const int *pid = mm ? fol_u64map_get(m->owners, mm) : NULL;

	if (!pid)
		return -1;
	return fol_model_selected(m, *pid, *pid);
}

/* khugepaged's (or MADV_COLLAPSE's) scans and collapses, by result; a collapse timed
 * from its pages' isolation (isolation has no mm: it is the thread's next collapse).
 * MADV_COLLAPSE works on its caller's memory; khugepaged's work is the workload's when
 * its mm is. */
int fol_model_on_collapse(struct fol_model *m, struct thread *t, int tid, const struct fol_event *ev)
{
	struct fol_collapse *c = &m->s.collapse;
	int st = ev->huge.status, khugepaged, owner;

	if (st < 0 || st >= FOL_SCAN_RESULTS)
		return 0;
	if (ev->kind == FOL_EV_COLLAPSE_ISOLATE) {
		t->isolated_at = ev->time;
		return 0;
	}
	khugepaged = fol_model_mm_thread(m, tid) && !strcmp(fol_comms_get(m->comms, tid), "khugepaged");
	owner = khugepaged ? collapse_owner(m, ev->huge.mm) : fol_model_selected(m, t->pid, tid);
	if (ev->kind == FOL_EV_SCAN_PMD) {
		c->scans[st] += owner > 0;
		c->khugepaged_scans[st] += owner > 0 && khugepaged;
		c->other_scans += !owner;
		c->unattributed_scans += owner < 0;
		return 0;
	}
	c->collapses[st] += owner > 0;
	c->khugepaged_collapses[st] += owner > 0 && khugepaged;
	c->other_collapses += !owner;
	c->unattributed_collapses += owner < 0;
	if (owner > 0 && t->isolated_at && ev->time >= t->isolated_at)
		fol_model_hist_add(m, &c->time, ev->time - t->isolated_at);
	t->isolated_at = 0;
	return 0;
}

/* A task took an mm's lock: in its own context, that mm is its process's. The kernel's mm
 * threads lock other processes' mms (khugepaged scanning them): they own none. */
int fol_model_on_mmap_lock(struct fol_model *m, const struct fol_event *ev)
{
	int *pid;

	if (!ev->lock.mm || fol_model_mm_thread(m, ev->tid))
		return 0;
	pid = fol_u64map_put(m->owners, ev->lock.mm, NULL);
	if (!pid)
		return -ENOMEM;
	*pid = ev->pid;
	return 0;
}

/* Direct reclaim in a thread, and kswapd awake: timed within the recording. */
void fol_model_on_reclaim(struct fol_model *m, struct thread *t, int tid, const struct fol_event *ev)
{
	struct fol_reclaim *r = &m->s.reclaim;

	switch (ev->kind) {
	case FOL_EV_RECLAIM_BEGIN:
		t->reclaim_since = ev->time;
		break;
	case FOL_EV_RECLAIM_END:
		if (t->reclaim_since && ev->time >= t->reclaim_since && fol_model_selected(m, t->pid, tid)) {
			r->direct++;
			r->direct_reclaimed += ev->reclaim.nr_reclaimed;
			fol_model_hist_add(m, &r->direct_time, ev->time - t->reclaim_since);
		}
		t->reclaim_since = 0;
		break;
	case FOL_EV_KSWAPD_WAKE:
		if (!t->awake_since) {
			r->kswapd_wakes++;
			t->awake_since = ev->time;
		}
		t->kswapd_seen = 1;
		break;
	default: /* sleep; its first event: awake since the recording began */
		if (!t->kswapd_seen)
			t->awake_since = m->s.first_ns;
		if (t->awake_since && ev->time >= t->awake_since)
			r->kswapd_ns += ev->time - t->awake_since;
		t->awake_since = 0;
		t->kswapd_seen = 1;
		break;
	}
}

/* A folio written to swap, judged when the call that wrote it ends (or the recording). */
void fol_model_on_write_folio(struct fol_model *m, struct thread *t, int tid, const struct fol_event *ev)
{
	int known = fol_swapout_write(m->swap, ev->page.pfn, t->call.open ? tid : -1);

	if (t->call.open) {
		t->call.wrote |= known;
		t->call.unknown_writes += !known;
	} else {
		m->s.swapout.unknown += !known;
	}
}
