// SPDX-License-Identifier: GPL-2.0-only
/* The model's faults: opened at their entry, classified and timed at their exit, and
 * counted by order, class, site and stack. */
#include "model/model_priv.h"
#include "util/grow.h"

#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include "data/comm.h"
#include "util/u64map.h"

/* Faults per time bin and class. Bins start at 1 ms and double in width whenever the run
 * outgrows TIMELINE_BINS, so memory stays fixed however long the recording; the array
 * grows to the bins in use (a short run of a multi-run file needs a few, not 131 KB). */
#define TIMELINE_BINS 2048

/* Room for bins bins (each FOL_NR_CLASSES counts), the new ones zero; bins is at most
 * TIMELINE_BINS, a power of two, so doubling from 16 never passes it. */
static int bins_reserve(struct fol_model *m, uint64_t bins)
{
	size_t was = m->bins_cap;
	uint64_t(*b)[FOL_NR_CLASSES] = (void *)m->s.bins;

	if (bins <= was)
		return 0;
	if (FOL_GROW(b, m->bins_cap, (size_t)bins, 16))
		return -ENOMEM;
	memset(b + was, 0, (m->bins_cap - was) * sizeof(*b));
	m->s.bins = (uint64_t *)b;
	return 0;
}

static int timeline(struct fol_model *m, uint64_t t, int cls)
{
	uint64_t bin;

	if (!m->t0 || t < m->t0) {
		if (m->t0 && t < m->t0)
			return 0; /* before the first fault seen: merge order makes this rare */
		m->t0 = t;
		m->s.bins_t0 = t;
	}
	bin = (t - m->t0) / m->s.bin_ns;
	if (bins_reserve(m, bin < TIMELINE_BINS ? bin + 1 : TIMELINE_BINS))
		return -ENOMEM;
	while ((bin = (t - m->t0) / m->s.bin_ns) >= TIMELINE_BINS) {
		for (int i = 0; i < TIMELINE_BINS / 2; i++)
			for (int c = 0; c < FOL_NR_CLASSES; c++)
				m->s.bins[(size_t)i * FOL_NR_CLASSES + (size_t)c] =
					m->s.bins[(size_t)(2 * i) * FOL_NR_CLASSES + (size_t)c] +
					m->s.bins[(size_t)(2 * i + 1) * FOL_NR_CLASSES + (size_t)c];
		memset(m->s.bins + (size_t)(TIMELINE_BINS / 2) * FOL_NR_CLASSES, 0,
		       (size_t)(TIMELINE_BINS / 2) * FOL_NR_CLASSES * sizeof(*m->s.bins));
		m->s.bin_ns *= 2;
		m->s.nbins = (m->s.nbins + 1) / 2;
	}
	if ((int)bin >= m->s.nbins)
		m->s.nbins = (int)bin + 1;
	m->s.bins[bin * FOL_NR_CLASSES + (uint64_t)cls]++;
	return 0;
}

/* The class of a fault (summary.h), from its error code, its VMA and the events inside
 * it; with the sampled method, without the error code (known: the order the folio map
 * holds at the address, -1 none). */
static int classify(const struct fol_model *m, const struct open_fault *f, const struct vma *v,
		    int major, int known)
{
	int prot = !!(f->error_code & FOL_PF_PROT), write = !!(f->error_code & FOL_PF_WRITE);

	if (v && v->special)
		return FOL_C_SPECIAL;
	if (m->o.sampled) {
		/* A folio known at the address means the fault was on a present page (a write,
		 * most likely, after fork); none means not present. */
		if (v && v->file)
			return FOL_C_FILE;
		if (major || f->swap_rss)
			return FOL_C_SWAP_IN;
		if (known >= 0)
			return f->alloc_order >= 0 ? FOL_C_WP_COPY : FOL_C_WP_REUSE;
		return f->alloc_order >= 0 ? FOL_C_ANON_ALLOC : FOL_C_OTHER;
	}
	/* A write to a present page of a shared file mapping is the file's: dirty tracking
	 * (page_mkwrite), no copy and no reuse of an anonymous folio. */
	if (prot && write && v && v->shared && v->file)
		return FOL_C_FILE;
	if (prot && write)
		return f->alloc_order >= 0 ? FOL_C_WP_COPY : FOL_C_WP_REUSE;
	if (prot)
		return FOL_C_OTHER; /* read or fetch of a present page: spurious, NUMA hint */
	if (v && v->file)
		return FOL_C_FILE;
	if (major || f->swap_rss)
		return FOL_C_SWAP_IN;
	if (f->alloc_order >= 0)
		return FOL_C_ANON_ALLOC;
	if (!write && !f->anon_rss)
		return FOL_C_ANON_ZERO;
	return FOL_C_OTHER;
}

/* The anonymous folio a fault created or brought back, whatever the VMA: its order and
 * pfn, or -1. In an anonymous VMA, the largest user folio allocated. In a file VMA, a write that raised the
 * anonymous RSS made a private copy (do_cow_fault), the last user folio allocated: a page
 * cache folio read in for it comes first. */
static int anon_folio(const struct fol_model *m, const struct open_fault *f, int cls,
		      uint64_t *pfn)
{
	if (cls == FOL_C_SWAP_IN && f->alloc_order < 0) {
		/* From the swap cache: as many pages left the swap count as joined the anon
		 * count, and that is the folio. */
		int64_t pages = f->swap_delta == INT64_MIN ? 0 : -f->swap_delta / (int64_t)m->o.page_size;

		*pfn = 0;
		if (pages <= 0 || f->anon_delta != -f->swap_delta || (pages & (pages - 1)) ||
		    pages > (1 << FOL_MAX_ORDER))
			return -1;
		return __builtin_ctzll((unsigned long long)pages);
	}
	if (cls != FOL_C_FILE) {
		*pfn = f->alloc_pfn;
		return f->alloc_order;
	}
	if ((f->error_code & FOL_PF_WRITE) && f->anon_rss && f->last_order >= 0) {
		*pfn = f->last_pfn;
		return f->last_order;
	}
	return -1;
}

/* Sets of ranges (madvise'd, moved unaligned), a search tree of disjoint ones: a program
 * may madvise every block it allocates, and each read fault looks its address up. */
static int in_ranges(void *const *set, uint64_t a)
{
	struct range key = { a, a + 1 };

	return key.end && tfind(&key, set, fol_model_range_cmp) != NULL;
}

int fol_model_add_range(void **set, uint64_t start, uint64_t end)
{
	struct range key = { start, end }, **node, *v;

	if (end <= start)
		return 0;
	while ((node = tfind(&key, set, fol_model_range_cmp))) {
		v = *node;
		if (v->start < key.start)
			key.start = v->start;
		if (v->end > key.end)
			key.end = v->end;
		tdelete(v, set, fol_model_range_cmp);
		free(v);
	}
	return fol_model_tree_insert(set, &key, sizeof(key)) < 0 ? -ENOMEM : 0;
}

void fol_model_set_huge_zero(struct fol_model *m, int policy)
{
	m->o.huge_zero = policy;
}

/* Whether the recorded kernel's THP policy lets a read fault at addr map the huge zero
 * page (do_huge_pmd_anonymous_page): 1, 0, or -1 not known. */
static int huge_zero_allowed(const struct fol_model *m, const struct mm *mm, uint64_t addr)
{
	switch (m->o.huge_zero) {
	case FOL_HZ_ALWAYS:
		return 1;
	case FOL_HZ_MADVISE:
		return in_ranges(&mm->huge, addr);
	case FOL_HZ_NONE:
		return 0;
	default:
		return -1;
	}
}

/* A read fault that mapped a zero page: its order. The huge zero page maps a whole
 * naturally aligned PMD range of an anonymous VMA at the first read fault there, where the
 * THP policy allows it; a range that does not fit the VMA, that MADV_NOHUGEPAGE covers, or
 * that the policy leaves out gets the 4K zero page, and so does one that takes a second
 * such fault (the huge one would have mapped it whole at the first: that first one is
 * counted 2M, wrongly, and said so). -1 where the policy is not known (an older
 * recording) and nothing proves 4K. */
static int zero_page_order(struct fol_model *m, struct mm *mm, const struct vma *v, uint64_t addr,
			   int *err)
{
	uint64_t pmd = (uint64_t)m->o.page_size << m->o.pmd_order, base = addr & ~(pmd - 1);
	int created = 0, allowed;
	uint8_t *first; /* 1: its first read fault was counted 2M; 2: refuted since */

	*err = 0;
	if (!m->o.pmd_order)
		return 0; /* no PMD THP on the recorded machine: no huge zero page */
	if (!mm->zero_ranges && !(mm->zero_ranges = fol_u64map_new(1))) {
		*err = -ENOMEM;
		return 0;
	}
	if (!(first = fol_u64map_put(mm->zero_ranges, base, &created))) {
		*err = -ENOMEM;
		return 0;
	}
	if (!created) {
		m->s.huge_zero_refuted += *first == 1;
		*first = 2;
		return 0;
	}
	*first = 0;
	if (in_ranges(&mm->nohuge, addr) || (v && (base < v->start || base + pmd > v->end)))
		return 0;
	allowed = v ? huge_zero_allowed(m, mm, addr) : -1;
	if (allowed < 0)
		return -1;
	*first = (uint8_t)allowed;
	return allowed ? m->o.pmd_order : 0;
}

/* Why a fault's folio has no known order: one cause, the first that holds. */
static enum fol_unknown unknown_cause(const struct mm *mm, const struct open_fault *f, int cls)
{
	if (cls == FOL_C_FILE)
		return FOL_U_FILE_CACHED;
	if (cls == FOL_C_SWAP_IN)
		return FOL_U_SWAP_CACHE;
	if (cls == FOL_C_ANON_ZERO)
		return FOL_U_ZERO_PAGE;
	if (in_ranges(&mm->unaligned, f->address))
		return FOL_U_MOVED_UNALIGNED;
	if (mm->mremap_unseen)
		return FOL_U_MREMAP_UNSEEN;
	return mm->seeded ? FOL_U_NOT_SEEDED : FOL_U_BEFORE;
}

/* The fault of thread t ends: at its exit sample (end != 0) or unclosed. */
/* What a closed fault was: its class, the order of its folio, why the order is unknown,
 * and the folio in the map (for reuse accounting). */
struct verdict {
	int cls, order, cause;
	struct folio *fo;
	const struct vma *vma;	/* the mapping of the faulting address, or NULL */
};

_Static_assert(FOL_PC_AT_FAULT < sizeof(((struct fol_summary *)0)->file_order) / sizeof(uint64_t),
	       "summary.h's file_order holds every source counted");

/* A file fault's folio order: the folio the fault added to the page cache, else the one
 * the programs found there inside the fault, else the page cache's as the recording saw
 * it (pagecache.h), counted by source; else why not, in *cause. */
static int file_order(struct fol_model *m, const struct open_fault *f, const struct vma *vma,
		      int *cause)
{
	enum fol_pc_source src = FOL_PC_NO_SNAPSHOT;
	int order = f->filemap_order;

	if (order >= 0)
		return order;
	if (f->file_read) {
		m->s.file_order[FOL_PC_AT_FAULT]++;
		return f->file_order;
	}
	if (vma && vma->id.ino && f->address >= vma->start)
		order = fol_pagecache_order(m->pc, &vma->id, (vma->pgoff >> m->page_shift) +
					    ((f->address - vma->start) >> m->page_shift), &src);
	if (order >= 0)
		m->s.file_order[src]++;
	else
		*cause = src == FOL_PC_EVICTED ? FOL_U_FILE_EVICTED
			 : src == FOL_PC_UNREAD ? FOL_U_FILE_UNREAD : FOL_U_FILE_CACHED;
	return order;
}

/* The rules: which class (classify), which order (a folio the fault allocated, the page
 * cache's, the zero page's, or the folio map's), and else why not. Inserts a folio the
 * fault allocated into the map. */
static int judge(struct fol_model *m, struct mm *mm, const struct open_fault *f, int major,
		 struct verdict *v)
{
	const struct vma *vma = fol_model_vma_find(mm, f->address);
	int known = -1, ret = fol_model_seed_take_at(m, mm, f->address);
	uint64_t pfn = 0;

	if (ret)
		return ret;
	v->vma = vma;
	v->fo = NULL;
	v->cause = -1;
	if (m->o.sampled)
		v->fo = fol_model_folio_lookup(m, mm, f->address, &known);
	v->cls = classify(m, f, vma, major, known);
	if ((v->order = anon_folio(m, f, v->cls, &pfn)) >= 0)
		ret = fol_model_folio_insert(m, mm, f->address, v->order, pfn);
	else if (v->cls == FOL_C_FILE)
		v->order = file_order(m, f, vma, &v->cause);
	else if (v->cls == FOL_C_ANON_ZERO)
		v->order = zero_page_order(m, mm, vma, f->address, &ret);
	else if (v->cls == FOL_C_SPECIAL)
		v->order = 0; /* one of the kernel's pages */
	else if (m->o.sampled)
		v->order = known; /* looked up already */
	else
		v->fo = fol_model_folio_lookup(m, mm, f->address, &v->order);
	if (!ret && v->order < 0 && v->cause < 0)
		v->cause = (int)unknown_cause(mm, f, v->cls);
	/* A reuse changes its folio: in a map of its own (shared since a fork, the copy
	 * has it at the same key). */
	if (!ret && v->fo && v->cls == FOL_C_WP_REUSE && fol_u64map_shared(mm->folios)) {
		if (fol_u64map_own(&mm->folios))
			return -ENOMEM;
		v->fo = fol_model_folio_lookup(m, mm, f->address, &known);
	}
	return ret;
}

/* A reuse fault's time, for its folio's episode: the first one's apart (surplus). */
static void reuse_time(struct folio *fo, uint64_t ns)
{
	if (!fo->reuse)
		fo->first_ns = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
	fo->reuse_ns += ns;
}

/* The fault's time into its cell: latency and the gap before it, or why there is none. */
static void account_time(struct fol_model *m, struct thread *t, struct fol_cell *c,
			 const struct verdict *v, uint64_t end)
{
	const struct open_fault *f = &t->f;
	struct folio *reused = v->cls == FOL_C_WP_REUSE ? v->fo : NULL;

	if (m->o.sampled) {
		c->sampled_ns += f->samples * f->period;
		if (reused)
			reuse_time(reused, f->samples * f->period);
	} else if (end && (f->untimed || end - f->start > FOL_LATENCY_MAX)) {
		c->untimed++;
		m->s.untimed++;
		t->last_exit = 0; /* the next gap has no known start */
	} else if (end) {
		uint64_t lat = end - f->start;

		fol_model_hist_add(m, &c->lat, lat);
		fol_model_hist_add(m, &m->s.all_lat, lat);
		if (t->last_exit && f->start >= t->last_exit) {
			fol_model_hist_add(m, &c->gap, f->start - t->last_exit);
			fol_model_hist_add(m, &m->s.all_gap, f->start - t->last_exit);
		}
		t->last_exit = end;
		if (reused)
			reuse_time(reused, lat);
	} else {
		c->unclosed++;
		m->s.unclosed++;
		m->s.unclosed_kernel += !!f->kernel;
		m->s.unclosed_faults_disabled += f->kernel && f->faults_disabled;
	}
}

/* record -g: the fault's stack, each frame in its mapping as the sites are. A return
 * address is one past its call: the call's own address is the one before it. */
static int add_stack(struct fol_model *m, struct mm *mm, const struct thread *t,
		     const struct fol_site *site, uint64_t ns)
{
	struct fol_stack st = { .site = *site, .n = t->nchain };

	for (int i = 0; i < t->nchain; i++) {
		uint64_t ip = t->chain[i] - (i > 0);
		const struct vma *v = fol_model_vma_find_from(mm, ip, &mm->last_code);

		st.f[i] = v ? (struct fol_frame){ v->name, ip - v->start + v->pgoff }
			    : (struct fol_frame){ -1, ip };
	}
	return fol_sites_add_stack(m->sites, &st, ns);
}

/* The fault's site: the code (the mapping its IP is in, and the offset there, as perf's
 * map_ip: what a symbol table is searched by) and the mapping of its address. */
static int add_site(struct fol_model *m, struct mm *mm, struct thread *t, int tid,
		    const struct verdict *v, uint64_t ns)
{
	const struct open_fault *f = &t->f;
	const struct vma *code = f->kernel ? NULL : fol_model_vma_find_from(mm, f->ip, &mm->last_code);
	const struct vma *data = v->vma;
	struct fol_site k;

	/* The thread's name, interned once until it changes (a COMM record clears it). */
	if (!t->comm_id) {
		int id = fol_sites_intern(m->sites, fol_comms_get(m->comms, tid));

		if (id < 0)
			return -ENOMEM;
		t->comm_id = id + 1;
	}
	k = (struct fol_site){
		.pid = t->pid,
		.comm = t->comm_id - 1,
		.ip_map = f->kernel ? m->kernel_code : code ? code->name : -1,
		.ip = code ? f->ip - code->start + code->pgoff : f->ip,
		.map = data ? data->name : -1,
		.shared = data && data->shared,
		.order = v->order,
		.cls = v->cls,
	};

	if (t->nchain > 0 && add_stack(m, mm, t, &k, ns))
		return -ENOMEM;
	return fol_sites_add(m->sites, &k, ns);
}

/* The fault, to the observer: as the cell counted it. */
static void observe(struct fol_model *m, const struct thread *t, int tid, const struct verdict *v,
		    uint64_t end, int major)
{
	const struct open_fault *f = &t->f;
	struct fol_fault_seen s = {
		.pid = t->pid,
		.tid = tid,
		.comm = fol_comms_get(m->comms, tid),
		.proc_comm = fol_comms_get(m->comms, t->pid),
		.order = v->order,
		.cls = (enum fol_class)v->cls,
		.timed = end && !m->o.sampled && !f->untimed && end >= f->start &&
			 end - f->start <= FOL_LATENCY_MAX,
		.major = major,
		.cgroup = f->cgroup,
		.new_episode = v->cls == FOL_C_WP_REUSE && v->fo && !v->fo->reuse && !f->episode_kept,
	};

	if (s.timed)
		s.lat_ns = end - f->start;
	m->o.observer->fault(m->o.observer->ctx, &s);
}

int fol_model_close_fault(struct fol_model *m, int tid, struct thread *t, uint64_t end, int major)
{
	const struct open_fault *f = &t->f;
	struct mm *mm = fol_model_get_mm(m, t->pid);
	struct verdict v;
	struct fol_cell *c;
	int ret;

	t->open = 0;
	if (!end && f->exit_early) {
		end = f->start;
		major = f->exit_major;
	}
	if (!mm)
		return -ENOMEM;
	ret = judge(m, mm, f, major, &v);
	if (ret || !fol_model_accepted(m, t, tid, f->start, v.order, v.cls))
		return ret;
	c = &m->s.order[FOL_ORDER_SLOT(v.order)].cell[v.cls];
	c->faults++;
	c->major += major;
	m->s.faults++;
	if (v.cause >= 0)
		m->s.unknown[v.cause]++;
	if (f->alloc_order >= 0 && v.cls != FOL_C_FILE)
		m->s.order[FOL_ORDER_SLOT(v.order)].folios_allocated++;
	account_time(m, t, c, &v, end);
	if (m->o.observer)
		observe(m, t, tid, &v, end, major);
	if (v.cls == FOL_C_WP_REUSE && v.fo)
		v.fo->reuse++;
	if (m->o.live)
		return timeline(m, f->start, v.cls);
	ret = add_site(m, mm, t, tid, &v, end && !f->untimed && end >= f->start ? end - f->start : 0);
	return ret ? ret : timeline(m, f->start, v.cls);
}

void fol_model_open_sampled(struct thread *t, uint64_t time)
{
	if (t->open)
		return;
	t->open = 1;
	t->f = (struct open_fault){ .start = time, .alloc_order = -1, .last_order = -1,
				    .filemap_order = -1 };
}

/* The unwinder's modules: the process's file mappings at this fault. The interned path
 * pointers are stable, so the arrays compare bytewise; only a changed set (another
 * process, an mmap) makes libdwfl read the files again. */
static int unwind_map_add(const struct vma *v, void *arg)
{
	struct fol_model *m = arg;

	if (v->file && v->name >= 0)
		m->unext[m->nunext++] = (struct fol_unwind_map){ v->start, v->pgoff,
								fol_sites_str(m->sites, v->name) };
	return 0;
}

static int unwind_maps(struct fol_model *m, const struct mm *mm)
{
	struct fol_unwind_map *swap;
	size_t cap = m->cap_umaps;
	int n;

	/* The two are swapped below: grown alike, one room is both's. */
	if (FOL_GROW(m->unext, cap, (size_t)mm->nvmas, 16) ||
	    FOL_GROW(m->umaps, m->cap_umaps, (size_t)mm->nvmas, 16))
		return -ENOMEM;
	m->nunext = 0;
	fol_model_vma_each(mm, unwind_map_add, m);
	n = m->nunext;
	if (n == m->numaps && (!n || !memcmp(m->unext, m->umaps, sizeof(*m->umaps) * (size_t)n)))
		return 0;
	swap = m->umaps;
	m->umaps = m->unext;
	m->unext = swap;
	m->numaps = n;
	return fol_unwinder_set_maps(m->unwinder, m->umaps, n);
}

/* --call-graph dwarf: the user stack of the fault unwound from its sample's registers and
 * stack copy, by the CFI of the files the process maps now, into the thread's chain as
 * -g's frame pointers would have put it. A stack that does not unwind leaves no chain. */
static int unwind_stack(struct fol_model *m, struct thread *t, const struct fol_event *ev)
{
	const struct fol_unwind_sample s = { ev->regs_mask, ev->regs, ev->stack, ev->stack_size };
	struct mm *mm = fol_model_get_mm(m, ev->pid);
	int ret;

	if (!mm)
		return -ENOMEM;
	if (!m->unwinder && !(m->unwinder = fol_unwinder_new(m->o.symfs)))
		return -ENOMEM;
	ret = unwind_maps(m, mm);
	if (ret)
		return ret;
	t->nchain = fol_unwind(m->unwinder, &s, t->chain, FOL_STACK_MAX);
	return 0;
}

int fol_model_on_fault_entry(struct fol_model *m, struct thread *t, const struct fol_event *ev)
{
	if (t->open && fol_model_close_fault(m, ev->tid, t, 0, 0))
		return -ENOMEM;
	t->open = 1;
	t->f = (struct open_fault){
		.start = ev->time,
		.address = ev->fault.address,
		.error_code = ev->fault.error_code,
		.ip = ev->fault.ip,
		.kernel = ev->kind == FOL_EV_FAULT_KERNEL,
		.faults_disabled = ev->fault.faults_disabled,
		.cgroup = ev->cgroup,
		.alloc_order = -1,
		.last_order = -1,
		.filemap_order = -1,
	};
	if (t->early_exit) {
		if (t->early_exit - 1 == ev->fault.address >> m->page_shift) {
			t->f.exit_early = t->f.untimed = 1;
			t->f.exit_major = t->early_major;
		} else {
			m->s.orphan_exits++;
		}
		t->early_exit = 0;
	}
	t->nchain = ev->fault.nchain < FOL_STACK_MAX ? ev->fault.nchain : FOL_STACK_MAX;
	if (t->nchain > 0)
		memcpy(t->chain, ev->fault.chain, sizeof(uint64_t) * (size_t)t->nchain);
	else if (ev->stack && !ev->fault.nchain)
		return unwind_stack(m, t, ev);
	return 0;
}

int fol_model_on_clock(struct fol_model *m, struct thread *t, const struct fol_event *ev)
{
	m->s.clock_samples++;
	if (m->o.sampled && ev->clock.in_fault) {
		m->s.clock_in_fault++;
		fol_model_open_sampled(t, ev->time);
		t->f.samples++;
		t->f.period = ev->clock.period;
	}
	return 0;
}

/* What the record of a summed fault (serve's kernel decisions: its allocations and RSS
 * changes were not sampled) says of them, as on_page_alloc and on_rss would have kept it
 * (the folio's frame is not known: 0). */
static void summed(struct open_fault *f, const struct fol_event *ev)
{
	if (ev->exit.alloc_order > f->alloc_order) {
		f->alloc_order = ev->exit.alloc_order;
		f->alloc_pfn = 0;
	}
	if (ev->exit.last_order >= 0) {
		f->last_order = ev->exit.last_order;
		f->last_pfn = 0;
	}
	f->anon_rss |= ev->exit.anon_rss;
	f->swap_rss |= ev->exit.swap_rss;
}

int fol_model_on_fault_exit(struct fol_model *m, struct thread *t, const struct fol_event *ev)
{
	int major = ev->kind == FOL_EV_FAULT_EXIT_MAJ;

	m->s.retimed_exits += ev->retimed;
	if (m->o.sampled) {
		int ret;

		fol_model_open_sampled(t, ev->time);
		t->f.address = ev->exit.addr;
		ret = fol_model_close_fault(m, ev->tid, t, ev->time, major);
		fol_model_open_sampled(t, ev->time);
		return ret;
	}
	/* A retimed exit (its time another event's clock, its place the ring buffer's) may be
	 * placed a little before its own entry, or after the next one's: paired by the page
	 * it names. Placed early, it waits for the thread's next entry; late, it is the
	 * earlier fault's, closed unclosed already, and cannot close this one. */
	if (ev->retimed && (!t->open || t->f.exit_early ||
			    (ev->exit.addr >> m->page_shift) != (t->f.address >> m->page_shift))) {
		if (t->early_exit)
			m->s.orphan_exits++;
		t->early_exit = (ev->exit.addr >> m->page_shift) + 1;
		t->early_major = major;
		return 0;
	}
	if (!t->open) {
		m->s.orphan_exits++;
		return 0;
	}
	if ((ev->exit.addr >> m->page_shift) != (t->f.address >> m->page_shift))
		m->s.mismatched_exits++;
	t->f.untimed = ev->retimed || ev->exit.untimed;
	t->f.episode_kept = ev->exit.episode_kept;
	t->f.file_read = ev->exit.file_read;
	t->f.file_order = ev->exit.file_order;
	if (ev->exit.summed)
		summed(&t->f, ev);
	return fol_model_close_fault(m, ev->tid, t, ev->time, major);
}
