// SPDX-License-Identifier: GPL-2.0-only
#include "model/model.h"

#include <errno.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/cgroup.h"
#include "data/comm.h"
#include "util/madvise.h"
#include "model/model_priv.h"
#include "model/sites.h"
#include "model/swapout.h"
#include "util/u64map.h"
#include <sys/mman.h>

struct fol_model *fol_model_new(const struct fol_model_opts *o)
{
	struct fol_model *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->o = *o;
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
	    !m->rss_mms || !m->kernel_pages || m->kernel_code < 0) {
		fol_model_free(m);
		return NULL;
	}
	m->s.bin_ns = m->o.bin_ns;
	m->s.sampled = m->o.sampled;
	return m;
}

static void mm_release(struct mm *mm)
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
			mm_release(mm);
	fol_u64map_free(m->mms);
	fol_u64map_free(m->threads);
	fol_comms_free(m->comms);
	fol_swapout_map_free(m->swap);
	fol_pagecache_free(m->pc);
	fol_u64map_free(m->owners);
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

static struct mm *get_mm(struct fol_model *m, int pid)
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

/* The folio's reuse episode ends (it is shared again, or gone): into the summary, and
 * its counts start over. */
static void end_episode(struct fol_model *m, const struct mm *mm, uint64_t key, struct folio *f)
{
	struct fol_reuse *r;

	if (!f->reuse)
		return;
	r = &m->s.order[FOL_ORDER_SLOT((int)(key & FOLIO_ORDER_MASK))].reuse;
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

static int take_one(struct taken *t, uint64_t key, const struct folio *f)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct taken_folio *g = realloc(t->v, cap * sizeof(*g));

		if (!g)
			return -ENOMEM;
		t->v = g;
		t->cap = cap;
	}
	t->v[t->n].key = key;
	t->v[t->n].f = *f;
	t->n++;
	return 0;
}

/* Take every folio of order <= max_order that starts in [start, end) out of the map into
 * t (appended). A range larger than the map (a big reservation, or a hostile length) is
 * found by one walk of the map, the keys collected before any is deleted since deleting
 * moves entries; a smaller one address by address, counted rather than compared with
 * end so that a range at the top of the address space cannot wrap. */
static int take_range(struct fol_model *m, struct mm *mm, uint64_t start, uint64_t end,
		      int max_order, struct taken *t)
{
	uint64_t pages = (end - start) >> m->page_shift, key;
	size_t first = t->n, pos = 0;
	struct folio *f;

	if (end <= start)
		return 0;
	if (pages > fol_u64map_capacity(mm->folios)) {
		while ((f = fol_u64map_next(mm->folios, &pos, &key))) {
			uint64_t base = key & ~FOLIO_ORDER_MASK;

			if (base >= start && base < end && (int)(key & FOLIO_ORDER_MASK) <= max_order &&
			    take_one(t, key, f))
				return -ENOMEM;
		}
		if (t->n > first && fol_u64map_own(&mm->folios))
			return -ENOMEM;
		for (size_t i = first; i < t->n; i++)
			fol_u64map_del(mm->folios, t->v[i].key, NULL);
		return 0;
	}
	for (uint64_t i = 0, a = start & ~(((uint64_t)m->o.page_size) - 1); i <= pages && a < end;
	     i++, a += m->o.page_size)
		for (int o = 0; o <= FOL_MAX_ORDER; o++) {
			uint64_t size = (uint64_t)m->o.page_size << o;

			if (a & (size - 1) || o > max_order)
				break;
			if (!(mm->orders & (1u << o)) ||
			    !(f = fol_u64map_get(mm->folios, a | (uint64_t)o)))
				continue;
			if (take_one(t, a | (uint64_t)o, f) || fol_u64map_own(&mm->folios))
				return -ENOMEM;
			fol_u64map_del(mm->folios, a | (uint64_t)o, NULL);
		}
	return 0;
}

/* Drop every folio of order <= max_order that starts in [start, end): unmapped,
 * discarded, collapsed or replaced; the reuse faults they took are final. */
static int seed_cut(struct fol_model *m, struct mm *mm, uint64_t start, uint64_t end,
		    int max_order, struct seeds *taken);

static int drop_orders(struct fol_model *m, struct mm *mm, uint64_t start, uint64_t end,
		       int max_order)
{
	int ret;

	m->dropped.n = 0;
	ret = seed_cut(m, mm, start, end, max_order, NULL);
	if (!ret)
		ret = take_range(m, mm, start, end, max_order, &m->dropped);
	for (size_t i = 0; i < m->dropped.n; i++)
		end_episode(m, mm, m->dropped.v[i].key, &m->dropped.v[i].f);
	return ret;
}

static int drop_range(struct fol_model *m, struct mm *mm, uint64_t start, uint64_t end)
{
	return drop_orders(m, mm, start, end, FOL_MAX_ORDER);
}

/* The mappings of an address space, the runs of seeded folios and the range sets are
 * search trees (glibc's tsearch) of disjoint ranges, where two that overlap compare equal,
 * so that finding an address, or any element a range touches, takes log n: a recording
 * can hold 100,000 mappings, and an array searched or kept sorted took seconds. */
static int range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	if (x->end <= y->start)
		return -1;
	return x->start >= y->end ? 1 : 0;
}

/* A copy of elem (size bytes, a struct range first) into the tree at root: 1 when it went
 * in, 0 when an element there overlaps it (the callers cut those first), -ENOMEM. */
static int tree_insert(void **root, const void *elem, size_t size)
{
	void *v = malloc(size), **node;

	if (!v)
		return -ENOMEM;
	memcpy(v, elem, size);
	node = tsearch(v, root, range_cmp);
	if (node && *node == v)
		return 1;
	free(v);
	return node ? 0 : -ENOMEM;
}

static int vma_insert(struct mm *mm, const struct vma *nv)
{
	int ret = tree_insert(&mm->vmas, nv, sizeof(*nv));

	mm->nvmas += ret > 0;
	return ret < 0 ? ret : 0;
}

/* Every mapping [start, end) touches goes, a part outside it staying: each found one is
 * deleted, its head and tail put back (they do not touch the range, so the search ends). */
static int vma_remove(struct mm *mm, uint64_t start, uint64_t end)
{
	struct vma key = { .start = start, .end = end }, **node;

	if (end <= start)
		return 0;
	while ((node = tfind(&key, &mm->vmas, range_cmp))) {
		struct vma *v = *node, head = *v, tail = *v;

		tdelete(v, &mm->vmas, range_cmp);
		free(v);
		mm->nvmas--;
		mm->last_vma = mm->last_code = NULL;
		head.end = start;
		tail.start = end;
		tail.pgoff += end - head.start;
		if ((head.start < start && vma_insert(mm, &head)) ||
		    (tail.end > end && vma_insert(mm, &tail)))
			return -ENOMEM;
	}
	return 0;
}

/* A mapping that ends before it starts (a length past the top of the address space)
 * maps nothing. */
static int vma_add(struct mm *mm, const struct vma *nv)
{
	if (vma_remove(mm, nv->start, nv->end))
		return -ENOMEM;
	return nv->end > nv->start ? vma_insert(mm, nv) : 0;
}

/* Faults come in runs over one region: try where the last lookup (through last) hit. */
static const struct vma *vma_find_from(struct mm *mm, uint64_t addr, struct vma **last)
{
	struct vma key = { .start = addr, .end = addr + 1 }, **node;

	if (*last && addr >= (*last)->start && addr < (*last)->end)
		return *last;
	if (!key.end)
		return NULL;
	node = tfind(&key, &mm->vmas, range_cmp);
	*last = node ? *node : NULL;
	return *last;
}

/* The mappings in address order, to fn(vma, arg) until it returns non-zero: that value. */
struct vma_walk {
	int (*fn)(const struct vma *v, void *arg);
	void *arg;
	int ret;
};

static void vma_visit(const void *node, VISIT which, void *closure)
{
	struct vma_walk *w = closure;

	if ((which == postorder || which == leaf) && !w->ret)
		w->ret = w->fn(*(const struct vma *const *)node, w->arg);
}

static int vma_each(const struct mm *mm, int (*fn)(const struct vma *v, void *arg), void *arg)
{
	struct vma_walk w = { fn, arg, 0 };

	twalk_r(mm->vmas, vma_visit, &w);
	return w.ret;
}

static const struct vma *vma_find(struct mm *mm, uint64_t addr)
{
	return vma_find_from(mm, addr, &mm->last_vma);
}

/* Anonymous memory as perf names it; everything else with a path is a file (shmem and
 * memfd included: their faults go through the page cache). */
static int is_file(const char *name)
{
	if (!name || name[0] != '/')
		return 0;
	return strncmp(name, "/dev/zero", 9) != 0 && strncmp(name, "//anon", 6) != 0;
}

static int seed_insert(struct mm *mm, const struct seed *sd)
{
	int ret = sd->end > sd->start ? tree_insert(&mm->seeds, sd, sizeof(*sd)) : 0;

	return ret < 0 ? ret : 0;
}

static int seeds_add(struct seeds *to, const struct seed *sd)
{
	if (to->n == to->cap) {
		size_t cap = to->cap ? to->cap * 2 : 8;
		struct seed *v = realloc(to->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		to->v = v;
		to->cap = cap;
	}
	to->v[to->n++] = *sd;
	return 0;
}

static uint64_t align_up(uint64_t a, uint64_t size)
{
	uint64_t up = (a + size - 1) & ~(size - 1);

	return up < a ? UINT64_MAX & ~(size - 1) : up;
}

/* Take the seeded folios of order <= max_order whose base is in [start, end) out of the
 * runs (into taken when not NULL), as take_range does the map's; with touching, every
 * folio that overlaps the range. The runs that touch the range come out whole, and what
 * is outside it, or of a larger order, goes back. */
static int seed_cut_range(struct fol_model *m, struct mm *mm, uint64_t start, uint64_t end,
			  int max_order, int touching, struct seeds *taken)
{
	struct seed key = { .start = start, .end = end }, **node;
	struct seeds out = { 0 };
	int ret = 0;

	if (!mm->seeds || end <= start)
		return 0;
	while (!ret && (node = tfind(&key, &mm->seeds, range_cmp))) {
		struct seed *v = *node;

		tdelete(v, &mm->seeds, range_cmp);
		ret = seeds_add(&out, v);
		free(v);
	}
	for (size_t i = 0; i < out.n && !ret; i++) {
		struct seed r = out.v[i];
		uint64_t size = (uint64_t)m->o.page_size << r.order;
		uint64_t lo = touching ? start & ~(size - 1) : align_up(start, size);
		uint64_t hi = align_up(end, size);
		struct seed head = { .start = r.start, .end = lo < r.end ? lo : r.end, .order = r.order };
		struct seed mid = { .start = lo > r.start ? lo : r.start, .end = hi < r.end ? hi : r.end,
				    .order = r.order };
		struct seed tail = { .start = hi > r.start ? hi : r.start, .end = r.end, .order = r.order };

		if (r.order > max_order) {
			ret = seed_insert(mm, &r);
			continue;
		}
		ret = seed_insert(mm, &head);
		if (!ret)
			ret = seed_insert(mm, &tail);
		if (!ret && taken && mid.end > mid.start)
			ret = seeds_add(taken, &mid);
	}
	free(out.v);
	return ret;
}

static int seed_cut(struct fol_model *m, struct mm *mm, uint64_t start, uint64_t end,
		    int max_order, struct seeds *taken)
{
	return seed_cut_range(m, mm, start, end, max_order, 0, taken);
}

/* A run of seeded folios in place of the seeded folios it overlaps. */
static int seed_put(struct fol_model *m, struct mm *mm, const struct seed *sd)
{
	if (seed_cut_range(m, mm, sd->start, sd->end, FOL_MAX_ORDER, 1, NULL))
		return -ENOMEM;
	return seed_insert(mm, sd);
}

/* The seeded folio at addr, if any, into the folio map (where it would have been had the
 * runs been put there whole), and out of its run. A folio a fault made at its key since
 * stays. */
static int seed_take_at(struct fol_model *m, struct mm *mm, uint64_t addr)
{
	struct seed key = { .start = addr, .end = addr + 1 }, **node, *v, r;
	uint64_t size, base;

	if (!mm->seeds || !key.end || !(node = tfind(&key, &mm->seeds, range_cmp)))
		return 0;
	v = *node;
	r = *v;
	tdelete(v, &mm->seeds, range_cmp);
	free(v);
	size = (uint64_t)m->o.page_size << r.order;
	base = addr & ~(size - 1);
	if (seed_insert(mm, &(struct seed){ .start = r.start, .end = base, .order = r.order }) ||
	    seed_insert(mm, &(struct seed){ .start = base + size, .end = r.end, .order = r.order }) ||
	    fol_u64map_own(&mm->folios) ||
	    !fol_u64map_put(mm->folios, base | (uint64_t)r.order, NULL))
		return -ENOMEM;
	return 0;
}

struct seeds_copy {
	struct mm *to;
	int ret;
};

static void seed_visit(const void *node, VISIT which, void *closure)
{
	struct seeds_copy *c = closure;

	if ((which == postorder || which == leaf) && !c->ret)
		c->ret = seed_insert(c->to, *(const struct seed *const *)node);
}

/* A forked child's copy of its parent's runs. */
static int seeds_copy(const struct mm *parent, struct mm *child)
{
	struct seeds_copy c = { child, 0 };

	twalk_r(parent->seeds, seed_visit, &c);
	return c.ret;
}

/* A mapping of pages the kernel provides (a vm_special_mapping): a read there maps the
 * kernel's page, as anon_zero would look, but it is neither anonymous memory nor a zero
 * page (a C build's 642 "anon_zero" faults were all on these). */
static int is_special(const char *name)
{
	static const char *const names[] = { "[vdso]", "[vvar]", "[vvar_vclock]", "[vsyscall]",
					      "[sigpage]", "[vectors]", "[uprobes]" };

	for (size_t i = 0; name && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return 1;
	return 0;
}

static struct folio *folio_lookup(struct fol_model *m, struct mm *mm, uint64_t addr, int *order)
{
	for (int o = 0; o <= FOL_MAX_ORDER; o++) {
		uint64_t base = addr & ~(((uint64_t)m->o.page_size << o) - 1);
		struct folio *f;

		if (!(mm->orders & (1u << o)))
			continue; /* no folio of this order was ever mapped here */
		f = fol_u64map_get(mm->folios, base | (uint64_t)o);

		if (f) {
			*order = o;
			return f;
		}
	}
	*order = -1;
	return NULL;
}

static int folio_insert(struct fol_model *m, struct mm *mm, uint64_t addr, int order, uint64_t pfn)
{
	uint64_t size = (uint64_t)m->o.page_size << order;
	uint64_t base = addr & ~(size - 1);
	struct folio *f;

	/* A new folio replaces the folios no larger than itself in its range. A larger one
	 * around it stays: a COW copy of one page of a large folio leaves the rest of that
	 * folio mapped, and lookups try the smaller orders first. */
	if (drop_orders(m, mm, base, base + size, order) || fol_u64map_own(&mm->folios))
		return -ENOMEM;
	f = fol_u64map_put(mm->folios, base | (uint64_t)order, NULL);
	if (!f)
		return -ENOMEM;
	f->pfn = pfn;
	mm->orders |= 1u << order;
	return pfn && !m->o.no_swap_writes ? fol_swapout_alloc(m->swap, pfn, order) : 0;
}

int fol_model_mm_thread(const struct fol_model *m, int tid)
{
	if (m->mm_tids)
		return fol_u64map_get(m->mm_tids, (uint64_t)(unsigned)tid) != NULL;
	return fol_comm_mm_thread(fol_comms_get(m->comms, tid));
}

/* A task the options (--pid, --comm) select. */
int fol_model_selected(const struct fol_model *m, int pid, int tid)
{
	return (!m->o.pid || pid == m->o.pid) &&
	       (!m->o.comm || !strcmp(m->o.comm, fol_comms_get(m->comms, tid)));
}

static int accepted(struct fol_model *m, const struct thread *t, int tid, uint64_t start,
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

/* Faults per time bin and class. Bins start at 1 ms and double in width whenever the run
 * outgrows TIMELINE_BINS, so memory stays fixed however long the recording; the array
 * grows to the bins in use (a short run of a multi-run file needs a few, not 131 KB). */
#define TIMELINE_BINS 2048

static int bins_reserve(struct fol_model *m, uint64_t bins)
{
	size_t cap = m->bins_cap ? m->bins_cap : 16;
	uint64_t *b;

	if (bins <= m->bins_cap)
		return 0;
	while (cap < bins && cap < TIMELINE_BINS)
		cap *= 2;
	b = realloc(m->s.bins, cap * FOL_NR_CLASSES * sizeof(*b));
	if (!b)
		return -ENOMEM;
	memset(b + m->bins_cap * FOL_NR_CLASSES, 0,
	       (cap - m->bins_cap) * FOL_NR_CLASSES * sizeof(*b));
	m->s.bins = b;
	m->bins_cap = cap;
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

	return key.end && tfind(&key, set, range_cmp) != NULL;
}

/* [start, end) into the set, merged with those it overlaps. */
static int add_range(void **set, uint64_t start, uint64_t end)
{
	struct range key = { start, end }, **node, *v;

	if (end <= start)
		return 0;
	while ((node = tfind(&key, set, range_cmp))) {
		v = *node;
		if (v->start < key.start)
			key.start = v->start;
		if (v->end > key.end)
			key.end = v->end;
		tdelete(v, set, range_cmp);
		free(v);
	}
	return tree_insert(set, &key, sizeof(key)) < 0 ? -ENOMEM : 0;
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

/* A file fault's folio order: the folio the fault added to the page cache, else the
 * page cache's (pagecache.h), counted by source; else why not, in *cause. */
static int file_order(struct fol_model *m, const struct open_fault *f, const struct vma *vma,
		      int *cause)
{
	enum fol_pc_source src = FOL_PC_NO_SNAPSHOT;
	int order = f->filemap_order;

	if (order >= 0)
		return order;
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
	const struct vma *vma = vma_find(mm, f->address);
	int known = -1, ret = seed_take_at(m, mm, f->address);
	uint64_t pfn = 0;

	if (ret)
		return ret;
	v->vma = vma;
	v->fo = NULL;
	v->cause = -1;
	if (m->o.sampled)
		v->fo = folio_lookup(m, mm, f->address, &known);
	v->cls = classify(m, f, vma, major, known);
	if ((v->order = anon_folio(m, f, v->cls, &pfn)) >= 0)
		ret = folio_insert(m, mm, f->address, v->order, pfn);
	else if (v->cls == FOL_C_FILE)
		v->order = file_order(m, f, vma, &v->cause);
	else if (v->cls == FOL_C_ANON_ZERO)
		v->order = zero_page_order(m, mm, vma, f->address, &ret);
	else if (v->cls == FOL_C_SPECIAL)
		v->order = 0; /* one of the kernel's pages */
	else if (m->o.sampled)
		v->order = known; /* looked up already */
	else
		v->fo = folio_lookup(m, mm, f->address, &v->order);
	if (!ret && v->order < 0 && v->cause < 0)
		v->cause = (int)unknown_cause(mm, f, v->cls);
	/* A reuse changes its folio: in a map of its own (shared since a fork, the copy
	 * has it at the same key). */
	if (!ret && v->fo && v->cls == FOL_C_WP_REUSE && fol_u64map_shared(mm->folios)) {
		if (fol_u64map_own(&mm->folios))
			return -ENOMEM;
		v->fo = folio_lookup(m, mm, f->address, &known);
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
		const struct vma *v = vma_find_from(mm, ip, &mm->last_code);

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
	const struct vma *code = f->kernel ? NULL : vma_find_from(mm, f->ip, &mm->last_code);
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

static int close_fault(struct fol_model *m, int tid, struct thread *t, uint64_t end, int major)
{
	const struct open_fault *f = &t->f;
	struct mm *mm = get_mm(m, t->pid);
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
	if (ret || !accepted(m, t, tid, f->start, v.order, v.cls))
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
	if (v.cls == FOL_C_WP_REUSE && v.fo)
		v.fo->reuse++;
	ret = add_site(m, mm, t, tid, &v, end && !f->untimed && end >= f->start ? end - f->start : 0);
	return ret ? ret : timeline(m, f->start, v.cls);
}

/* mremap moves the folios of [start, start + len) to wherever its exit says: they leave
 * the map at the entry and come back at the exit, at the same offsets, with their reuse
 * episodes going on (a move shares nothing). */
static int move_begin(struct fol_model *m, struct mm *mm, const struct fol_event *ev)
{
	struct move *mv = &mm->move;
	const struct vma *v = vma_find(mm, ev->vm.start);

	mv->folios.n = 0;
	mv->seeds.n = 0;
	mv->tid = ev->tid;
	mv->start = ev->vm.start;
	mv->len = ev->vm.len;
	mv->new_len = ev->vm.new_len;
	/* Unknown mapping: one of its own, starting where the move does. */
	mv->vma = v ? *v : (struct vma){ .start = ev->vm.start, .name = -1 };
	if (seed_cut(m, mm, ev->vm.start, ev->vm.start + ev->vm.len, FOL_MAX_ORDER, &mv->seeds))
		return -ENOMEM;
	return take_range(m, mm, ev->vm.start, ev->vm.start + ev->vm.len, FOL_MAX_ORDER,
			  &mv->folios);
}

/* The exit of the mremap: ret is the range's new address, or -errno (nothing moved). */
static int move_seeds(struct fol_model *m, struct mm *mm, uint64_t to, uint64_t keep);

static int move_end(struct fol_model *m, struct mm *mm, int64_t ret)
{
	struct move *mv = &mm->move;
	int failed = ret < 0 && ret >= -FOL_MAX_ERRNO;
	uint64_t to = failed ? mv->start : (uint64_t)ret;
	uint64_t keep = failed || mv->new_len > mv->len ? mv->len : mv->new_len;

	for (size_t i = 0; i < mv->folios.n; i++) {
		struct taken_folio *x = &mv->folios.v[i];
		int order = (int)(x->key & FOLIO_ORDER_MASK);
		uint64_t size = (uint64_t)m->o.page_size << order;
		uint64_t off = (x->key & ~FOLIO_ORDER_MASK) - mv->start, at = to + off;
		struct folio *f;

		if (off >= keep) {
			end_episode(m, mm, x->key, &x->f); /* cut off by a shrinking mremap */
			continue;
		}
		if (at & (size - 1)) {
			end_episode(m, mm, x->key, &x->f);
			m->s.moved_unaligned++;
			if (add_range(&mm->unaligned, at, at + size))
				return -ENOMEM;
			continue;
		}
		if (fol_u64map_own(&mm->folios) ||
		    !(f = fol_u64map_put(mm->folios, at | (uint64_t)order, NULL)))
			return -ENOMEM;
		*f = x->f;
		mm->orders |= 1u << order;
	}
	if (move_seeds(m, mm, to, keep))
		return -ENOMEM;
	if (!failed) {
		struct vma nv = mv->vma;

		nv.pgoff += mv->start - mv->vma.start;
		nv.start = to;
		nv.end = to + mv->new_len;
		if (vma_remove(mm, mv->start, mv->start + mv->len) || vma_add(mm, &nv))
			return -ENOMEM;
	}
	mv->tid = 0;
	mv->folios.n = 0;
	return 0;
}

/* The runs of seeded folios an mremap took, at the same offsets from to: what starts past
 * keep is cut off, a run at an address not aligned to its folios is unaligned (whole). */
static int move_seeds(struct fol_model *m, struct mm *mm, uint64_t to, uint64_t keep)
{
	struct move *mv = &mm->move;

	for (size_t i = 0; i < mv->seeds.n; i++) {
		struct seed r = mv->seeds.v[i];
		uint64_t size = (uint64_t)m->o.page_size << r.order;
		uint64_t off = r.start - mv->start, end = r.end - mv->start;

		if (off >= keep)
			continue;
		if (end > keep) /* its folios that start before keep */
			end = off + align_up(keep - off, size);
		r.start = to + off;
		r.end = to + end;
		if (r.start & (size - 1)) {
			m->s.moved_unaligned += (end - off) / size;
			if (add_range(&mm->unaligned, r.start, r.end))
				return -ENOMEM;
		} else if (seed_put(m, mm, &r)) {
			return -ENOMEM;
		}
	}
	mv->seeds.n = 0;
	return 0;
}

/* An mremap whose exit never came (a recording without sys_exit_mremap): its folios are
 * gone from where the model can see them. */
static void move_lost(struct fol_model *m, struct mm *mm)
{
	struct taken *t = &mm->move.folios;

	if (!mm->move.tid)
		return;
	for (size_t i = 0; i < t->n; i++)
		end_episode(m, mm, t->v[i].key, &t->v[i].f);
	mm->move.tid = 0;
	mm->move.seeds.n = 0;
	t->n = 0;
	mm->mremap_unseen = 1;
}

static int drop_mm(struct fol_model *m, int pid)
{
	struct mm mm;

	m->last_mm = NULL;
	if (!fol_u64map_del(m->mms, (uint64_t)(unsigned)pid, &mm))
		return 0;
	/* Its mm_struct may be another's later, with the same mm_id. */
	if (mm.rss_mm_id)
		fol_u64map_del(m->rss_mms, mm.rss_mm_id, NULL);
	move_lost(m, &mm);
	{
		size_t pos = 0;
		uint64_t key;
		struct folio *f;

		while ((f = fol_u64map_next(mm.folios, &pos, &key)))
			end_episode(m, &mm, key, f);
	}
	mm_release(&mm);
	return 0;
}

/* An exec replaces the address space: what the map knew of the old one goes, unless it
 * was seeded after this exec (the recorded command's own exec, seeded at its exec stop,
 * whose COMM event the stream hands out after the seed). */
static int on_exec(struct fol_model *m, const struct fol_event *ev)
{
	struct mm *mm = fol_u64map_get(m->mms, (uint64_t)(unsigned)ev->pid);

	return mm && ev->time > mm->seeded_at ? drop_mm(m, ev->pid) : 0;
}

static int copy_vma(const struct vma *v, void *child)
{
	return vma_insert(child, v);
}

static int on_fork(struct fol_model *m, const struct fol_event *ev)
{
	struct mm *parent, *child;

	if (!get_thread(m, ev->fork.pid, ev->fork.tid))
		return -ENOMEM;
	if (ev->fork.pid == ev->fork.ppid)
		return 0; /* a thread: it shares the address space */
	parent = fol_u64map_get(m->mms, (uint64_t)(unsigned)ev->fork.ppid);
	drop_mm(m, ev->fork.pid);
	fol_u64map_del(m->pids, (uint64_t)(unsigned)ev->fork.pid, NULL); /* a new process */
	child = get_mm(m, ev->fork.pid);
	if (!child)
		return -ENOMEM;
	if (!parent)
		return 0;
	/* get_mm may have moved the parent: look it up again. */
	parent = fol_u64map_get(m->mms, (uint64_t)(unsigned)ev->fork.ppid);
	/* Its folios are shared with the child now: every reuse episode of the parent ends
	 * here, and a write after the child is gone starts a new one. A map shared already
	 * has none going on (a holder owns its copy before it counts a reuse). */
	if (!fol_u64map_shared(parent->folios)) {
		size_t pos = 0;
		uint64_t key;
		struct folio *f;

		while ((f = fol_u64map_next(parent->folios, &pos, &key)))
			end_episode(m, parent, key, f); /* shared again */
	}
	/* The child holds the parent's map until one of them changes it, as the kernel
	 * shares the pages: 40 forks of a process of a million folios took 3.4 GB when
	 * each copied it. Its own folios are not yet counted among the reused ones: it
	 * counts by its own generation. */
	fol_u64map_free(child->folios);
	child->folios = fol_u64map_share(parent->folios);
	child->orders = parent->orders;
	child->gen = ++m->generations;
	if (seeds_copy(parent, child))
		return -ENOMEM;
	return vma_each(parent, copy_vma, child);
}

/* Folios found in the page tables at attach: a run, as if the faults that made them had
 * been recorded (their folios go into the map when a fault looks them up). One that would
 * pass the top of the address space is cut there. */
static int seed_folios(struct fol_model *m, const struct fol_event *ev)
{
	struct mm *mm = get_mm(m, ev->pid);
	int order = ev->folios.order;
	uint64_t size = (uint64_t)m->o.page_size << order;
	uint64_t start = ev->folios.start & ~(size - 1), n = ev->folios.n;
	uint64_t room = (UINT64_MAX - start) / size;

	if (!mm)
		return -ENOMEM;
	if (n > room) {
		m->s.seed_dropped += n - room;
		n = room;
	}
	if (!n)
		return 0;
	m->s.seeded[order] += n;
	mm->seeded = 1;
	mm->seeded_at = ev->time;
	mm->orders |= 1u << order;
	return seed_put(m, mm, &(struct seed){ .start = start, .end = start + n * size, .order = order });
}

/* What an rss_stat event changed, for the fault open on its thread: the counter's value
 * against its previous one in the same process. */
static int rss_change(struct fol_model *m, struct thread *t, const struct fol_event *ev)
{
	struct mm *mm = get_mm(m, ev->pid);
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
	if (!st->known[k] || __builtin_sub_overflow(ev->rss.size, st->v[k], &d))
		d = 0;
	st->v[k] = ev->rss.size;
	st->known[k] = 1;
	if (t->open && k == 1 && __builtin_add_overflow(t->f.anon_delta, d, &t->f.anon_delta))
		t->f.anon_delta = 0;
	if (t->open && k == 2 && __builtin_add_overflow(t->f.swap_delta, d, &t->f.swap_delta))
		t->f.swap_delta = 0;
	return 0;
}

/* Sampled method: a thread is always inside its next fault, which began at its previous
 * exit; nothing opens it but that. */
static void open_sampled(struct thread *t, uint64_t time)
{
	if (t->open)
		return;
	t->open = 1;
	t->f = (struct open_fault){ .start = time, .alloc_order = -1, .last_order = -1,
				    .filemap_order = -1 };
}

/* Handlers, one per kind of event (fol_model_event dispatches). */

static int on_thread_exit(struct fol_model *m, const struct fol_event *ev)
{
	struct thread *t = fol_u64map_get(m->threads, (uint64_t)(unsigned)ev->fork.tid);

	if (t && t->open && !m->o.sampled && close_fault(m, ev->fork.tid, t, 0, 0))
		return -ENOMEM;
	if (t && t->early_exit)
		m->s.orphan_exits++;
	fol_u64map_del(m->threads, (uint64_t)(unsigned)ev->fork.tid, NULL);
	m->last_thread = NULL;
	return ev->fork.tid == ev->fork.pid ? drop_mm(m, ev->fork.pid) : 0;
}

static int on_mmap(struct fol_model *m, const struct fol_event *ev)
{
	struct mm *mm = get_mm(m, ev->pid);

	struct vma nv = {
		.start = ev->mmap.start,
		.end = ev->mmap.start + ev->mmap.len,
		.file = is_file(ev->mmap.filename),
		.name = fol_sites_intern(m->sites, ev->mmap.filename ?: "?"),
		.shared = !!(ev->mmap.flags & MAP_SHARED),
		.special = is_special(ev->mmap.filename),
		.pgoff = ev->mmap.pgoff,
		.id = { ev->mmap.maj, ev->mmap.min, ev->mmap.ino },
	};

	if (nv.name < 0)
		return -ENOMEM;
	if (nv.file && nv.id.ino && fol_pagecache_mapped(m->pc, &nv.id))
		return -ENOMEM;
	return mm ? vma_add(mm, &nv) : -ENOMEM;
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
	int n;

	if (mm->nvmas > m->cap_umaps) {
		struct fol_unwind_map *a = realloc(m->umaps, sizeof(*a) * (size_t)mm->nvmas);
		struct fol_unwind_map *b = a ? realloc(m->unext, sizeof(*b) * (size_t)mm->nvmas) : NULL;

		if (a)
			m->umaps = a;
		if (!b)
			return -ENOMEM;
		m->unext = b;
		m->cap_umaps = mm->nvmas;
	}
	m->nunext = 0;
	vma_each(mm, unwind_map_add, m);
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
	struct mm *mm = get_mm(m, ev->pid);
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

static int on_fault_entry(struct fol_model *m, struct thread *t, const struct fol_event *ev)
{
	if (t->open && close_fault(m, ev->tid, t, 0, 0))
		return -ENOMEM;
	t->open = 1;
	t->f = (struct open_fault){
		.start = ev->time,
		.address = ev->fault.address,
		.error_code = ev->fault.error_code,
		.ip = ev->fault.ip,
		.kernel = ev->kind == FOL_EV_FAULT_KERNEL,
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

static int on_clock(struct fol_model *m, struct thread *t, const struct fol_event *ev)
{
	m->s.clock_samples++;
	if (m->o.sampled && ev->clock.in_fault) {
		m->s.clock_in_fault++;
		open_sampled(t, ev->time);
		t->f.samples++;
		t->f.period = ev->clock.period;
	}
	return 0;
}

static int on_fault_exit(struct fol_model *m, struct thread *t, const struct fol_event *ev)
{
	int major = ev->kind == FOL_EV_FAULT_EXIT_MAJ;

	m->s.retimed_exits += ev->retimed;
	if (m->o.sampled) {
		int ret;

		open_sampled(t, ev->time);
		t->f.address = ev->exit.addr;
		ret = close_fault(m, ev->tid, t, ev->time, major);
		open_sampled(t, ev->time);
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
	t->f.untimed = ev->retimed;
	return close_fault(m, ev->tid, t, ev->time, major);
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
	if (m->o.sampled)
		open_sampled(t, ev->time);
	if (!m->o.no_page_frees && note_kernel_page(m, ev))
		return -ENOMEM;
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
		open_sampled(t, ev->time);
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
		return add_range(&mm->nohuge, ev->vm.start, end);
	if (b == FOL_MADV_HUGEPAGE)
		return add_range(&mm->huge, ev->vm.start, end);
	if (b == FOL_MADV_DONTNEED || b == FOL_MADV_FREE || b == FOL_MADV_REMOVE || b == FOL_MADV_PAGEOUT ||
	    b == FOL_MADV_DONTNEED_LOCKED || b == FOL_MADV_COLLAPSE)
		return drop_range(m, mm, ev->vm.start, end);
	return 0;
}

/* munmap, mremap (entry and exit), madvise: the thread is in a system call, not in a
 * fault any more. */
static int on_syscall(struct fol_model *m, struct thread *t, const struct fol_event *ev)
{
	struct mm *mm;

	if (m->o.sampled)
		t->open = 0; /* what it allocated so far was the system call's */
	else if (t->open && close_fault(m, ev->tid, t, 0, 0))
		return -ENOMEM;
	mm = get_mm(m, ev->pid);
	if (!mm)
		return -ENOMEM;
	if (ev->kind != FOL_EV_MREMAP_EXIT || mm->move.tid != ev->tid)
		move_lost(m, mm);
	if (ev->kind == FOL_EV_MREMAP_EXIT)
		fol_model_call_end(m, t, ev->tid, ev);
	else
		fol_model_call_begin(t, ev);
	switch (ev->kind) {
	case FOL_EV_MREMAP:
		return move_begin(m, mm, ev);
	case FOL_EV_MREMAP_EXIT:
		return move_end(m, mm, ev->vm.ret);
	case FOL_EV_MADVISE:
		return on_madvise(m, mm, ev);
	default: /* munmap */
		if (drop_range(m, mm, ev->vm.start, ev->vm.start + ev->vm.len))
			return -ENOMEM;
		return vma_remove(mm, ev->vm.start, ev->vm.start + ev->vm.len);
	}
}

/* Events of a thread: its faults and what happens inside them. */
static int on_thread_event(struct fol_model *m, const struct fol_event *ev)
{
	struct thread *t;

	if (ev->evidx < 0)
		return 0;
	t = get_thread(m, ev->pid, ev->tid);
	if (!t)
		return -ENOMEM;
	switch (ev->kind) {
	case FOL_EV_FAULT_USER:
	case FOL_EV_FAULT_KERNEL:
		return on_fault_entry(m, t, ev);
	case FOL_EV_CLOCK:
		return on_clock(m, t, ev);
	case FOL_EV_FAULT_EXIT:
	case FOL_EV_FAULT_EXIT_MAJ:
		return on_fault_exit(m, t, ev);
	case FOL_EV_PAGE_ALLOC:
		return on_page_alloc(m, t, ev);
	case FOL_EV_RSS_STAT:
		return on_rss(m, t, ev);
	case FOL_EV_FILEMAP_ADD: {
		/* s_dev is the kernel's dev_t: 12 bits of major above 20 of minor. */
		struct fol_file_id id = { ev->filemap.dev >> 20, ev->filemap.dev & 0xfffff,
					  ev->filemap.ino };

		if (t->open && ev->filemap.order > t->f.filemap_order)
			t->f.filemap_order = ev->filemap.order;
		return fol_pagecache_add(m->pc, &id, ev->filemap.index, ev->filemap.order);
	}
	case FOL_EV_MUNMAP:
	case FOL_EV_MREMAP:
	case FOL_EV_MREMAP_EXIT:
	case FOL_EV_MADVISE:
		return on_syscall(m, t, ev);
	case FOL_EV_MPROTECT:
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
		 * mTHP size off, a build's mprotect "freed 16K 22": slab pages, gfp 0x252800).
		 * One allocated before the recording cannot be told. */
		if (kernel && *kernel == ev->page.order)
			fol_u64map_del(m->kernel_pages, ev->page.pfn, NULL);
		else if (ev->page.order >= 0 && ev->page.order <= FOL_MAX_ORDER)
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
		return seed_folios(m, ev);
	case FOL_EV_MMAP_LOCK:
		return outside_cgroup(m, ev) ? 0 : fol_model_on_mmap_lock(m, ev);
	case FOL_EV_CGROUP:
		return fol_cgroups_made(&m->cg, ev->cg.id, ev->cg.path);
	case FOL_EV_HUGE:
		return 0;
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
		} else if (t->open && !m->o.sampled && close_fault(m, (int)key, t, 0, 0)) {
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

		move_lost(m, mm);
		while ((f = fol_u64map_next(mm->folios, &fp, &key)))
			end_episode(m, mm, key, f);
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
