// SPDX-License-Identifier: GPL-2.0-only
#include "model/model.h"

#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "data/comm.h"
#include "util/madvise.h"
#include "model/model_priv.h"
#include "model/swapout.h"
#include "util/u64map.h"

struct fol_model *fol_model_new(const struct fol_model_opts *o)
{
	struct fol_model *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->o = *o;
	/* top and serve show neither what went to swap nor what calls freed: their maps by
	 * page frame are not kept. */
	if (m->o.live)
		m->o.no_swap_writes = m->o.no_page_frees = 1;
	if (!m->o.page_size)
		m->o.page_size = 4096;
	if (!m->o.bin_ns)
		m->o.bin_ns = 1000000ull;
	m->page_shift = (unsigned)__builtin_ctz(m->o.page_size);
	m->threads = fol_u64map_new(sizeof(struct thread));
	m->mms = fol_u64map_new(sizeof(struct mm));
	m->comms = fol_comms_new();
	m->swap = fol_swapout_map_new();
	m->pc = fol_pagecache_new(o->pagecache);
	m->o.pagecache = NULL;
	m->owners = fol_u64map_new(sizeof(int));
	m->pids = fol_u64map_new(1);
	m->rss_mms = fol_u64map_new(sizeof(struct rss_state));
	m->kernel_pages = fol_u64map_new(sizeof(int));
	m->exited = fol_u64map_new(sizeof(uint64_t));
	m->sites = fol_sites_new();
	m->kernel_code = m->sites ? fol_sites_intern(m->sites, "[kernel]") : -1;
	if (o->mm_threads_known && !(m->mm_tids = fol_u64map_new(1))) {
		fol_model_free(m);
		return NULL;
	}
	for (int i = 0; m->mm_tids && i < o->nr_mm_threads; i++)
		if (!fol_u64map_put(m->mm_tids, (uint64_t)(unsigned)o->mm_threads[i], NULL)) {
			fol_model_free(m);
			return NULL;
		}
	m->o.mm_threads = NULL;
	if (o->cgroups && fol_cgroups_clone(o->cgroups, &m->cg)) {
		fol_model_free(m);
		return NULL;
	}
	if (!m->threads || !m->mms || !m->comms || !m->swap || !m->pc || !m->owners || !m->pids ||
	    !m->rss_mms || !m->kernel_pages || !m->exited || m->kernel_code < 0) {
		fol_model_free(m);
		return NULL;
	}
	m->s.bin_ns = m->o.bin_ns;
	m->s.sampled = m->o.sampled;
	return m;
}

void fol_model_mm_release(struct mm *mm)
{
	fol_u64map_free(mm->folios);
	tdestroy(mm->vmas, free);
	tdestroy(mm->seeds, free);
	free(mm->move.seeds.v);
	free(mm->move.folios.v);
	tdestroy(mm->unaligned, free);
	tdestroy(mm->nohuge, free);
	tdestroy(mm->huge, free);
	fol_u64map_free(mm->zero_ranges);
}

void fol_model_free(struct fol_model *m)
{
	size_t pos = 0;
	struct mm *mm;

	if (!m)
		return;
	if (m->mms)
		while ((mm = fol_u64map_next(m->mms, &pos, NULL)))
			fol_model_mm_release(mm);
	fol_u64map_free(m->mms);
	fol_u64map_free(m->threads);
	fol_comms_free(m->comms);
	fol_swapout_map_free(m->swap);
	fol_pagecache_free(m->pc);
	fol_u64map_free(m->owners);
	fol_u64map_free(m->exited);
	fol_u64map_free(m->pids);
	fol_u64map_free(m->mm_tids);
	fol_u64map_free(m->rss_mms);
	fol_u64map_free(m->kernel_pages);
	fol_cgroups_free(&m->cg);
	fol_sites_free(m->sites);
	fol_unwinder_free(m->unwinder);
	free(m->umaps);
	free(m->unext);
	fol_summary_free(&m->s);
	free(m->dropped.v);
	free(m);
}

void fol_summary_free(struct fol_summary *s)
{
	for (int o = 0; o < FOL_NR_ORDER_SLOTS; o++)
		for (int c = 0; c < FOL_NR_CLASSES; c++) {
			fol_hist_free(&s->order[o].cell[c].lat);
			fol_hist_free(&s->order[o].cell[c].gap);
		}
	fol_hist_free(&s->all_lat);
	fol_hist_free(&s->all_gap);
	for (int c = 0; c < FOL_NR_CALLS; c++)
		fol_hist_free(&s->calls[c].time);
	fol_hist_free(&s->collapse.time);
	fol_hist_free(&s->reclaim.direct_time);
	free(s->bins);
	s->bins = NULL;
	fol_sites_free(s->sites);
	s->sites = NULL;
}

struct mm *fol_model_get_mm(struct fol_model *m, int pid)
{
	int created;
	struct mm *mm;

	if (m->last_mm && m->last_pid == pid)
		return m->last_mm;
	mm = fol_u64map_put(m->mms, (uint64_t)(unsigned)pid, &created);
	if (mm && created) {
		int first = 0;

		mm->folios = fol_u64map_new(sizeof(struct folio));
		mm->gen = ++m->generations;
		if (!mm->folios || !fol_u64map_put(m->pids, (uint64_t)(unsigned)pid, &first)) {
			fol_u64map_free(mm->folios);
			fol_u64map_del(m->mms, (uint64_t)(unsigned)pid, NULL);
			m->last_mm = NULL;
			return NULL;
		}
		/* A process once, though an exec gives it a new address space (a build of
		 * 410 processes counted 819); with --pid, only that process. */
		m->s.processes += first && (!m->o.pid || pid == m->o.pid);
	}
	m->last_pid = pid;
	m->last_mm = mm;
	return mm;
}

static struct thread *get_thread(struct fol_model *m, int pid, int tid)
{
	int created;
	struct thread *t;

	if (m->last_thread && m->last_tid == tid)
		return m->last_thread;
	t = fol_u64map_put(m->threads, (uint64_t)(unsigned)tid, &created);
	if (t && created) {
		t->pid = pid;
		/* The kernel's mm threads, recorded beside the workload, are not its threads. */
		m->s.threads += (!m->o.pid || pid == m->o.pid) &&
				!fol_model_mm_thread(m, tid);
	}
	m->last_tid = tid;
	m->last_thread = t;
	return t;
}

void fol_model_end_episode(struct fol_model *m, const struct mm *mm, uint64_t key, struct folio *f)
{
	struct fol_reuse *r;

	if (!f->reuse)
		return;
	r = &m->s.order[FOL_ORDER_SLOT(FOLIO_ORDER(key))].reuse;
	r->folios += f->counted != mm->gen;
	r->episodes++;
	r->faults += f->reuse;
	r->time_ns += f->reuse_ns;
	r->surplus_ns += f->reuse_ns - f->first_ns;
	r->hist[fol_reuse_bucket(f->reuse)]++;
	f->counted = mm->gen;
	f->reuse = 0;
	f->reuse_ns = 0;
	f->first_ns = 0;
}

int fol_model_mm_thread(const struct fol_model *m, int tid)
{
	if (m->mm_tids)
		return fol_u64map_get(m->mm_tids, (uint64_t)(unsigned)tid) != NULL;
	return fol_comm_mm_thread(fol_comms_get(m->comms, tid));
}

int fol_model_selected(const struct fol_model *m, int pid, int tid)
{
	return (!m->o.pid || pid == m->o.pid) &&
	       (!m->o.comm || !strcmp(m->o.comm, fol_comms_get(m->comms, tid)));
}

int fol_model_accepted(struct fol_model *m, const struct thread *t, int tid, uint64_t start,
		       int order, int cls)
{
	const struct fol_model_opts *o = &m->o;

	if (!fol_model_selected(m, t->pid, tid))
		return 0;
	if (o->order != FOL_ANY && o->order != order)
		return 0;
	if (o->cls != FOL_ANY && o->cls != cls)
		return 0;
	if ((o->t_start && start < o->t_start) || (o->t_end && start >= o->t_end))
		return 0;
	return 1;
}

/* An exec replaces the address space: what the map knew of the old one goes, unless it
 * was seeded after this exec (the recorded command's own exec, seeded at its exec stop,
 * whose COMM event the stream hands out after the seed). */
static int on_exec(struct fol_model *m, const struct fol_event *ev)
{
	struct mm *mm = fol_u64map_get(m->mms, (uint64_t)(unsigned)ev->pid);

	return mm && ev->time > mm->seeded_at ? fol_model_drop_mm(m, ev->pid) : 0;
}

static int on_fork(struct fol_model *m, const struct fol_event *ev)
{
	struct mm *parent, *child;

	fol_u64map_del(m->exited, (uint64_t)(unsigned)ev->fork.tid, NULL); /* its tid reused */
	if (!get_thread(m, ev->fork.pid, ev->fork.tid))
		return -ENOMEM;
	if (ev->fork.pid == ev->fork.ppid)
		return 0; /* a thread: it shares the address space */
	if (m->o.observer && m->o.observer->forked)
		m->o.observer->forked(m->o.observer->ctx, ev->fork.ppid, ev->fork.pid);
	parent = fol_u64map_get(m->mms, (uint64_t)(unsigned)ev->fork.ppid);
	fol_model_drop_mm(m, ev->fork.pid);
	fol_u64map_del(m->pids, (uint64_t)(unsigned)ev->fork.pid, NULL); /* a new process */
	child = fol_model_get_mm(m, ev->fork.pid);
	if (!child)
		return -ENOMEM;
	if (!parent)
		return 0;
	/* fol_model_get_mm may have moved the parent: look it up again. */
	parent = fol_u64map_get(m->mms, (uint64_t)(unsigned)ev->fork.ppid);
	/* Its folios are shared with the child now: every reuse episode of the parent ends
	 * here, and a write after the child is gone starts a new one. A map shared already
	 * has none going on (a holder owns its copy before it counts a reuse). */
	if (!fol_u64map_shared(parent->folios)) {
		size_t pos = 0;
		uint64_t key;
		struct folio *f;

		while ((f = fol_u64map_next(parent->folios, &pos, &key)))
			fol_model_end_episode(m, parent, key, f); /* shared again */
	}
	/* The child holds the parent's map until one of them changes it, as the kernel
	 * shares the pages: 40 forks of a process of a million folios took 3.4 GB when
	 * each copied it. Its own folios are not yet counted among the reused ones: it
	 * counts by its own generation. */
	fol_u64map_free(child->folios);
	child->folios = fol_u64map_share(parent->folios);
	child->orders = parent->orders;
	child->unaligned_orders = parent->unaligned_orders;
	child->gen = ++m->generations;
	if (fol_model_seeds_copy(parent, child))
		return -ENOMEM;
	return fol_model_vma_each(parent, fol_model_copy_vma, child);
}

/* What an rss_stat event changed, for the fault open on its thread: the counter's value
 * against its previous one in the same process. */
static int rss_change(struct fol_model *m, struct thread *t, const struct fol_event *ev)
{
	struct mm *mm = fol_model_get_mm(m, ev->pid);
	struct rss_state *st;
	int k = ev->rss.member;
	int64_t d;

	if (!mm)
		return -ENOMEM;
	if (k < 0 || k > 3)
		return 0;
	/* The counters of the mm the event names: at fork, the child's are set in the
	 * parent's context, and taken for the parent's they left the child's first swap-in
	 * without a previous value (order unknown, 72 of cow's 15,410). */
	st = &mm->rss;
	if (ev->rss.mm_id) {
		st = fol_u64map_put(m->rss_mms, ev->rss.mm_id, NULL);
		if (!st)
			return -ENOMEM;
		if (t->open)
			mm->rss_mm_id = ev->rss.mm_id; /* inside its own fault: its own mm */
	}
	/* A recording's values can be anything: a change that does not fit in 64 bits is no
	 * change known (a real counter moves by pages). Found by fuzzing (UBSan). */
	if (ev->rss.prev_known) { /* serve's: the changes between were not sent */
		st->v[k] = ev->rss.prev;
		st->known[k] = 1;
	}
	if (!st->known[k] || __builtin_sub_overflow(ev->rss.size, st->v[k], &d))
		d = 0;
	st->v[k] = ev->rss.size;
	st->known[k] = 1;
	if (t->open && k == 1 && __builtin_add_overflow(t->f.anon_delta, d, &t->f.anon_delta))
		t->f.anon_delta = 0;
	/* Another mm's counter (a child's at fork, khugepaged's work) is no folio of its own. */
	if (k == 1 && (!ev->rss.mm_id || !mm->rss_mm_id || ev->rss.mm_id == mm->rss_mm_id))
		fol_model_gup_claim(m, t, ev->tid, d);
	if (t->open && k == 2 && __builtin_add_overflow(t->f.swap_delta, d, &t->f.swap_delta))
		t->f.swap_delta = 0;
	return 0;
}

/* Handlers, one per kind of event (fol_model_event dispatches). */

#define EXITED_KEEP_NS 2000000000ull

/* live: the tasks that exited more than EXITED_KEEP_NS before now, forgotten (every 1024
 * exits: the map holds the exits of a few seconds). */
static void forget_exited(struct fol_model *m, uint64_t now)
{
	size_t pos = 0, n = 0;
	uint64_t key, *at, gone[256];

	if (++m->exits % 1024)
		return;
	do {
		n = 0;
		pos = 0;
		while (n < 256 && (at = fol_u64map_next(m->exited, &pos, &key)))
			if (*at + EXITED_KEEP_NS < now)
				gone[n++] = key;
		for (size_t i = 0; i < n; i++)
			fol_u64map_del(m->exited, gone[i], NULL);
	} while (n == 256);
}

/* live: an event of a task after its exit (its memory's teardown), which must not make
 * it anew. */
static int after_exit(const struct fol_model *m, const struct fol_event *ev)
{
	return m->o.live && !fol_u64map_get(m->threads, (uint64_t)(unsigned)ev->tid) &&
	       fol_u64map_get(m->exited, (uint64_t)(unsigned)ev->tid);
}

static int on_thread_exit(struct fol_model *m, const struct fol_event *ev)
{
	struct thread *t = fol_u64map_get(m->threads, (uint64_t)(unsigned)ev->fork.tid);

	if (t && t->open && !m->o.sampled && fol_model_close_fault(m, ev->fork.tid, t, 0, 0))
		return -ENOMEM;
	if (t && t->early_exit)
		m->s.orphan_exits++;
	fol_u64map_del(m->threads, (uint64_t)(unsigned)ev->fork.tid, NULL);
	m->last_thread = NULL;
	if (m->o.observer && m->o.observer->exit)
		m->o.observer->exit(m->o.observer->ctx, ev->fork.pid, ev->fork.tid);
	if (m->o.live) {
		uint64_t *at = fol_u64map_put(m->exited, (uint64_t)(unsigned)ev->fork.tid, NULL);

		if (!at)
			return -ENOMEM;
		*at = ev->time;
		forget_exited(m, ev->time);
		fol_comms_forget(m->comms, ev->fork.tid);
		if (ev->fork.tid == ev->fork.pid)
			fol_u64map_del(m->pids, (uint64_t)(unsigned)ev->fork.pid, NULL);
	}
	return ev->fork.tid == ev->fork.pid ? fol_model_drop_mm(m, ev->fork.pid) : 0;
}

static int on_mmap(struct fol_model *m, const struct fol_event *ev)
{
	struct mm *mm = fol_model_get_mm(m, ev->pid);
	/* Live, nothing reads the name (no sites, no stacks): interned, the names would grow
	 * for days with each new file a process maps. */
	struct vma nv = {
		.start = ev->mmap.start,
		.end = ev->mmap.start + ev->mmap.len,
		.file = fol_model_is_file(ev->mmap.filename),
		.name = m->o.live ? -1 : fol_sites_intern(m->sites, ev->mmap.filename ?: "?"),
		.shared = !!(ev->mmap.flags & MAP_SHARED),
		.special = fol_model_is_special(ev->mmap.filename),
		.pgoff = ev->mmap.pgoff,
		.id = { ev->mmap.maj, ev->mmap.min, ev->mmap.ino },
	};

	if (nv.name < 0 && !m->o.live)
		return -ENOMEM;
	if (nv.file && nv.id.ino && fol_pagecache_mapped(m->pc, &nv.id))
		return -ENOMEM;
	return mm ? fol_model_vma_add(mm, &nv) : -ENOMEM;
}

/* The kernel's own pages (slab, page tables: no __GFP_MOVABLE), known by frame, so that
 * freeing them inside a call is not counted among the folios it freed. */
static int note_kernel_page(struct fol_model *m, const struct fol_event *ev)
{
	int *order;

	if (ev->page.gfp & FOL_GFP_MOVABLE) {
		fol_u64map_del(m->kernel_pages, ev->page.pfn, NULL); /* its free was not seen */
		return 0;
	}
	order = fol_u64map_put(m->kernel_pages, ev->page.pfn, NULL);
	if (!order)
		return -ENOMEM;
	*order = ev->page.order;
	return 0;
}

static int on_page_alloc(struct fol_model *m, struct thread *t, const struct fol_event *ev)
{
	if (!m->o.no_page_frees && note_kernel_page(m, ev))
		return -ENOMEM;
	if (fol_model_populated(t, ev))
		return 0;
	fol_model_gup_note(t, ev);
	if (m->o.sampled)
		fol_model_open_sampled(t, ev->time);
	if (!t->open || !(ev->page.gfp & FOL_GFP_MOVABLE))
		return 0;
	if (ev->page.order > t->f.alloc_order) {
		t->f.alloc_order = ev->page.order;
		t->f.alloc_pfn = ev->page.pfn;
	}
	t->f.last_order = ev->page.order;
	t->f.last_pfn = ev->page.pfn;
	return 0;
}

static int on_rss(struct fol_model *m, struct thread *t, const struct fol_event *ev)
{
	if (m->o.sampled)
		fol_model_open_sampled(t, ev->time);
	if (t->open) {
		t->f.anon_rss |= ev->rss.member == 1;
		t->f.swap_rss |= ev->rss.member == 2;
	}
	return rss_change(m, t, ev);
}

static int on_madvise(struct fol_model *m, struct mm *mm, const struct fol_event *ev)
{
	int64_t b = ev->vm.behavior;
	uint64_t end = ev->vm.start + ev->vm.len;

	if (b == FOL_MADV_NOHUGEPAGE)
		return fol_model_add_range(&mm->nohuge, ev->vm.start, end);
	if (b == FOL_MADV_HUGEPAGE)
		return fol_model_add_range(&mm->huge, ev->vm.start, end);
	if (b == FOL_MADV_DONTNEED || b == FOL_MADV_FREE || b == FOL_MADV_REMOVE || b == FOL_MADV_PAGEOUT ||
	    b == FOL_MADV_DONTNEED_LOCKED || b == FOL_MADV_COLLAPSE)
		return fol_model_drop_range(m, mm, ev->vm.start, end);
	return 0;
}

/* munmap, mremap (entry and exit), madvise: the thread is in a system call, not in a
 * fault any more. */
static int on_syscall(struct fol_model *m, struct thread *t, const struct fol_event *ev)
{
	struct mm *mm;

	if (m->o.sampled)
		t->open = 0; /* what it allocated so far was the system call's */
	else if (t->open && fol_model_close_fault(m, ev->tid, t, 0, 0))
		return -ENOMEM;
	mm = fol_model_get_mm(m, ev->pid);
	if (!mm)
		return -ENOMEM;
	if (ev->kind != FOL_EV_MREMAP_EXIT || mm->move.tid != ev->tid)
		fol_model_move_lost(m, mm);
	if (ev->kind == FOL_EV_MREMAP_EXIT)
		fol_model_call_end(m, t, ev->tid, ev);
	else
		fol_model_call_begin(t, ev);
	switch (ev->kind) {
	case FOL_EV_MREMAP:
		return fol_model_move_begin(m, mm, ev);
	case FOL_EV_MREMAP_EXIT:
		return fol_model_move_end(m, mm, ev->vm.ret);
	case FOL_EV_MADVISE:
		return on_madvise(m, mm, ev);
	default: /* munmap */
		if (fol_model_drop_range(m, mm, ev->vm.start, ev->vm.start + ev->vm.len))
			return -ENOMEM;
		return fol_model_vma_remove(mm, ev->vm.start, ev->vm.start + ev->vm.len);
	}
}

static int filemap_add(struct fol_model *m, const struct fol_event *ev)
{
	/* s_dev is the kernel's dev_t: 12 bits of major above 20 of minor. */
	struct fol_file_id id = { ev->filemap.dev >> 20, ev->filemap.dev & 0xfffff, ev->filemap.ino };

	return fol_pagecache_add(m->pc, &id, ev->filemap.index, ev->filemap.order);
}

/* Events of a thread: its faults and what happens inside them. */
static int on_thread_event(struct fol_model *m, const struct fol_event *ev)
{
	struct thread *t;

	if (ev->evidx < 0 || after_exit(m, ev))
		return 0;
	t = get_thread(m, ev->pid, ev->tid);
	if (!t)
		return -ENOMEM;
	switch (ev->kind) {
	case FOL_EV_FAULT_USER:
	case FOL_EV_FAULT_KERNEL:
		return fol_model_on_fault_entry(m, t, ev);
	case FOL_EV_CLOCK:
		return fol_model_on_clock(m, t, ev);
	case FOL_EV_FAULT_EXIT:
	case FOL_EV_FAULT_EXIT_MAJ:
		return fol_model_on_fault_exit(m, t, ev);
	case FOL_EV_PAGE_ALLOC:
		return on_page_alloc(m, t, ev);
	case FOL_EV_RSS_STAT:
		return on_rss(m, t, ev);
	case FOL_EV_FILEMAP_ADD:
		if (t->open && ev->filemap.order > t->f.filemap_order)
			t->f.filemap_order = ev->filemap.order;
		fol_model_populated_cached(t, ev);
		return filemap_add(m, ev);
	case FOL_EV_MUNMAP:
	case FOL_EV_MREMAP:
	case FOL_EV_MREMAP_EXIT:
	case FOL_EV_MADVISE:
		return on_syscall(m, t, ev);
	case FOL_EV_MPROTECT:
	case FOL_EV_MMAP_CALL:
	case FOL_EV_MLOCK:
		fol_model_call_begin(t, ev);
		return 0;
	case FOL_EV_SYSCALL_EXIT:
		fol_model_call_end(m, t, ev->tid, ev);
		return 0;
	case FOL_EV_SCAN_PMD:
	case FOL_EV_COLLAPSE_ISOLATE:
	case FOL_EV_COLLAPSE:
		return fol_model_on_collapse(m, t, ev->tid, ev);
	case FOL_EV_PAGE_FREE: {
		int *kernel = fol_u64map_get(m->kernel_pages, ev->page.pfn);

		/* Counted always, kept only between a call's entry (which clears them) and its
		 * exit: a user folio's, not a page the kernel allocated for itself (with every
		 * mTHP size off, a build's mprotect "freed 16K 22": slab pages, gfp 0x252800),
		 * nor one inside a call that frees no user memory (a build's mprotect "freed 4K
		 * 64": page tables, 56 of them allocated by another process), nor one an
		 * interrupt or an RCU callback freed meanwhile (the thread's call did not).
		 * One allocated before the recording cannot be told otherwise. */
		if (kernel && *kernel == ev->page.order)
			fol_u64map_del(m->kernel_pages, ev->page.pfn, NULL);
		else if (ev->page.order >= 0 && ev->page.order <= FOL_MAX_ORDER && !ev->page.in_irq &&
			 fol_call_frees_user(t->call.call))
			t->call.freed[ev->page.order]++;
		if (!m->o.no_swap_writes)
			fol_swapout_free(m->swap, ev->page.pfn, ev->page.order);
		return 0;
	}
	case FOL_EV_WRITE_FOLIO:
		fol_model_on_write_folio(m, t, ev->tid, ev);
		return 0;
	case FOL_EV_RECLAIM_BEGIN:
	case FOL_EV_RECLAIM_END:
	case FOL_EV_KSWAPD_WAKE:
	case FOL_EV_KSWAPD_SLEEP:
		fol_model_on_reclaim(m, t, ev->tid, ev);
		return 0;
	default:
		return 0;
	}
}

/* A sample of a task outside record -G's cgroup: left out, and counted. */
static int outside_cgroup(struct fol_model *m, const struct fol_event *ev)
{
	if (!m->cg.ids || !ev->cgroup || fol_cgroups_has(&m->cg, ev->cgroup) ||
	    fol_model_mm_thread(m, ev->tid))
		return 0;
	m->s.outside_cgroup++;
	return 1;
}

static int model_event(struct fol_model *m, const struct fol_event *ev);

int fol_model_event(struct fol_model *m, const struct fol_event *ev)
{
	int ret = model_event(m, ev);

	return ret ? ret : m->nomem ? -ENOMEM : 0;
}

static int model_event(struct fol_model *m, const struct fol_event *ev)
{
	if (!m->s.first_ns || ev->time < m->s.first_ns)
		m->s.first_ns = ev->time;
	if (ev->time > m->s.last_ns)
		m->s.last_ns = ev->time;

	switch (ev->kind) {
	case FOL_EV_COMM: {
		struct thread *t = fol_u64map_get(m->threads, (uint64_t)(unsigned)ev->tid);

		if (t)
			t->comm_id = 0; /* renamed: its sites' name is looked up again */
		if (ev->comm.exec && on_exec(m, ev))
			return -ENOMEM;
		if (ev->comm.exec && m->o.observer && m->o.observer->execed)
			m->o.observer->execed(m->o.observer->ctx, ev->pid);
		return fol_comms_update(m->comms, ev);
	}
	case FOL_EV_FORK:
		fol_comms_update(m->comms, ev);
		return on_fork(m, ev);
	case FOL_EV_EXIT:
		return on_thread_exit(m, ev);
	case FOL_EV_MMAP:
		return on_mmap(m, ev);
	case FOL_EV_LOST:
		m->s.lost += ev->lost.lost;
		return 0;
	case FOL_EV_FOLIOS:
		return fol_model_seed_folios(m, ev);
	case FOL_EV_MMAP_LOCK:
		return outside_cgroup(m, ev) ? 0 : fol_model_on_mmap_lock(m, ev);
	case FOL_EV_CGROUP:
		return fol_cgroups_made(&m->cg, ev->cg.id, ev->cg.path);
	case FOL_EV_HUGE:
		return 0;
	case FOL_EV_FILEMAP_ADD:
		/* The page cache is the machine's: a folio a task outside -G's cgroup added is
		 * the one the cgroup's tasks then fault on (as serve -a sees it). */
		if (outside_cgroup(m, ev))
			return ev->evidx < 0 ? 0 : filemap_add(m, ev);
		return on_thread_event(m, ev);
	default:
		return outside_cgroup(m, ev) ? 0 : on_thread_event(m, ev);
	}
}

int fol_model_finish(struct fol_model *m, struct fol_summary *s)
{
	size_t pos = 0;
	uint64_t key;
	struct thread *t;
	struct mm *mm;

	while ((t = fol_u64map_next(m->threads, &pos, &key))) {
		/* Its exit would have come after the end: in flight, not failed. */
		if (t->open && !m->o.sampled && !t->f.exit_early) {
			t->open = 0;
			m->s.in_flight += fol_model_selected(m, t->pid, (int)key);
		} else if (t->open && !m->o.sampled && fol_model_close_fault(m, (int)key, t, 0, 0)) {
			return -ENOMEM;
		}
		m->s.orphan_exits += t->early_exit != 0;
		/* kswapd still awake when the recording ended */
		if (t->awake_since && m->s.last_ns >= t->awake_since)
			m->s.reclaim.kswapd_ns += m->s.last_ns - t->awake_since;
	}
	/* Writes of calls whose exit is not in the recording, and kswapd's. */
	fol_swapout_settle(m->swap, -1, &m->s.swapout);
	pos = 0;
	while ((mm = fol_u64map_next(m->mms, &pos, NULL))) {
		size_t fp = 0;
		struct folio *f;

		fol_model_move_lost(m, mm);
		while ((f = fol_u64map_next(mm->folios, &fp, &key)))
			fol_model_end_episode(m, mm, key, f);
	}
	m->s.sites = m->sites;
	m->sites = NULL;
	if (m->nomem)
		return -ENOMEM;
	/* The summary moves to s: its histograms, bins and sites are s's now. */
	*s = m->s;
	memset(&m->s, 0, sizeof(m->s));
	m->bins_cap = 0;
	return 0;
}

const struct fol_summary *fol_model_peek(const struct fol_model *m)
{
	return &m->s;
}
