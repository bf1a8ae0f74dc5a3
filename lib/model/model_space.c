// SPDX-License-Identifier: GPL-2.0-only
/* The model's address spaces: mappings, the folio map and the runs of folios seeded from
 * page tables, kept as mmap, munmap, mremap, fork and exec change them. */
#include "model/model_priv.h"

#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include "util/madvise.h"
#include "model/swapout.h"
#include "util/u64map.h"
#include "util/grow.h"
#include "util/indexed.h"

static int take_one(struct taken *t, uint64_t key, const struct folio *f)
{
	if (FOL_GROW(t->v, t->cap, t->n + 1, 64))
		return -ENOMEM;
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
/* The folio at key, if any, out of the map into t. */
static int take_key(struct mm *mm, struct taken *t, uint64_t key)
{
	struct folio *f = fol_u64map_get(mm->folios, key);

	if (!f)
		return 0;
	if (take_one(t, key, f) || fol_u64map_own(&mm->folios))
		return -ENOMEM;
	fol_u64map_del(mm->folios, key, NULL);
	return 0;
}

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
			uint64_t base = key & ~FOLIO_KEY_LOW;

			if (base >= start && base < end && FOLIO_ORDER(key) <= max_order &&
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
	     i++, a += m->o.page_size) {
		for (int o = 0; o <= max_order && o <= FOL_MAX_ORDER; o++) {
			if (a & (((uint64_t)m->o.page_size << o) - 1))
				break; /* nor aligned to a larger order */
			if ((mm->orders & (1u << o)) && take_key(mm, t, a | (uint64_t)o))
				return -ENOMEM;
		}
		for (int o = 1; mm->unaligned_orders && o <= max_order && o <= FOL_MAX_ORDER; o++)
			if ((mm->unaligned_orders & (1u << o)) &&
			    take_key(mm, t, a | (uint64_t)o | FOLIO_UNALIGNED))
				return -ENOMEM;
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
		fol_model_end_episode(m, mm, m->dropped.v[i].key, &m->dropped.v[i].f);
	return ret;
}

int fol_model_drop_range(struct fol_model *m, struct mm *mm, uint64_t start, uint64_t end)
{
	return drop_orders(m, mm, start, end, FOL_MAX_ORDER);
}

int fol_model_range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	if (x->end <= y->start)
		return -1;
	return x->start >= y->end ? 1 : 0;
}

int fol_model_tree_insert(void **root, const void *elem, size_t size)
{
	void *v = malloc(size), **node;

	if (!v)
		return -ENOMEM;
	memcpy(v, elem, size);
	node = tsearch(v, root, fol_model_range_cmp);
	if (node && *node == v)
		return 1;
	free(v);
	return node ? 0 : -ENOMEM;
}

static int vma_insert(struct mm *mm, const struct vma *nv)
{
	int ret = fol_model_tree_insert(&mm->vmas, nv, sizeof(*nv));

	mm->nvmas += ret > 0;
	return ret < 0 ? ret : 0;
}

int fol_model_vma_remove(struct mm *mm, uint64_t start, uint64_t end)
{
	struct vma key = { .start = start, .end = end }, **node;

	if (end <= start)
		return 0;
	while ((node = tfind(&key, &mm->vmas, fol_model_range_cmp))) {
		struct vma *v = *node, head = *v, tail = *v;

		tdelete(v, &mm->vmas, fol_model_range_cmp);
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

int fol_model_vma_add(struct mm *mm, const struct vma *nv)
{
	if (fol_model_vma_remove(mm, nv->start, nv->end))
		return -ENOMEM;
	return nv->end > nv->start ? vma_insert(mm, nv) : 0;
}

const struct vma *fol_model_vma_find_from(struct mm *mm, uint64_t addr, struct vma **last)
{
	struct vma key = { .start = addr, .end = addr + 1 }, **node;

	if (*last && addr >= (*last)->start && addr < (*last)->end)
		return *last;
	if (!key.end)
		return NULL;
	node = tfind(&key, &mm->vmas, fol_model_range_cmp);
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

int fol_model_vma_each(const struct mm *mm, int (*fn)(const struct vma *v, void *arg), void *arg)
{
	struct vma_walk w = { fn, arg, 0 };

	twalk_r(mm->vmas, vma_visit, &w);
	return w.ret;
}

const struct vma *fol_model_vma_find(struct mm *mm, uint64_t addr)
{
	return fol_model_vma_find_from(mm, addr, &mm->last_vma);
}

int fol_model_is_file(const char *name)
{
	if (!name || name[0] != '/')
		return 0;
	return strncmp(name, "/dev/zero", 9) != 0 && strncmp(name, "//anon", 6) != 0;
}

static int seed_insert(struct mm *mm, const struct seed *sd)
{
	int ret = sd->end > sd->start ? fol_model_tree_insert(&mm->seeds, sd, sizeof(*sd)) : 0;

	return ret < 0 ? ret : 0;
}

static int seeds_add(struct seeds *to, const struct seed *sd)
{
	if (FOL_GROW(to->v, to->cap, to->n + 1, 8))
		return -ENOMEM;
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
	while (!ret && (node = tfind(&key, &mm->seeds, fol_model_range_cmp))) {
		struct seed *v = *node;

		tdelete(v, &mm->seeds, fol_model_range_cmp);
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

int fol_model_seed_take_at(struct fol_model *m, struct mm *mm, uint64_t addr)
{
	struct seed key = { .start = addr, .end = addr + 1 }, **node, *v, r;
	uint64_t size, base;

	if (!mm->seeds || !key.end || !(node = tfind(&key, &mm->seeds, fol_model_range_cmp)))
		return 0;
	v = *node;
	r = *v;
	tdelete(v, &mm->seeds, fol_model_range_cmp);
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

int fol_model_seeds_copy(const struct mm *parent, struct mm *child)
{
	struct seeds_copy c = { child, 0 };

	twalk_r(parent->seeds, seed_visit, &c);
	return c.ret;
}

int fol_model_is_special(const char *name)
{
	static const char *const names[] = { "[vdso]", "[vvar]", "[vvar_vclock]", "[vsyscall]",
					      "[sigpage]", "[vectors]", "[uprobes]" };

	for (size_t i = 0; name && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return 1;
	return 0;
}

/* A folio mremap left at an address not aligned to its size, covering addr: one of the
 * 2^o pages before addr may be its first. */
static struct folio *unaligned_lookup(struct fol_model *m, struct mm *mm, uint64_t addr, int *order)
{
	uint64_t page = addr & ~((uint64_t)m->o.page_size - 1);

	for (int o = 1; o <= FOL_MAX_ORDER; o++) {
		if (!(mm->unaligned_orders & (1u << o)))
			continue;
		for (uint64_t i = 0; i < (1ull << o) && i * m->o.page_size <= page; i++) {
			struct folio *f = fol_u64map_get(mm->folios, (page - i * m->o.page_size) | (uint64_t)o |
								     FOLIO_UNALIGNED);

			if (f) {
				*order = o;
				return f;
			}
		}
	}
	return NULL;
}

struct folio *fol_model_folio_lookup(struct fol_model *m, struct mm *mm, uint64_t addr, int *order)
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
	return mm->unaligned_orders ? unaligned_lookup(m, mm, addr, order) : NULL;
}

int fol_model_folio_insert(struct fol_model *m, struct mm *mm, uint64_t addr, int order, uint64_t pfn)
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

int fol_model_move_begin(struct fol_model *m, struct mm *mm, const struct fol_event *ev)
{
	struct move *mv = &mm->move;
	const struct vma *v = fol_model_vma_find(mm, ev->vm.start);

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

int fol_model_move_end(struct fol_model *m, struct mm *mm, int64_t ret)
{
	struct move *mv = &mm->move;
	int failed = ret < 0 && ret >= -FOL_MAX_ERRNO;
	uint64_t to = failed ? mv->start : (uint64_t)ret;
	uint64_t keep = failed || mv->new_len > mv->len ? mv->len : mv->new_len;

	for (size_t i = 0; i < mv->folios.n; i++) {
		struct taken_folio *x = &mv->folios.v[i];
		int order = FOLIO_ORDER(x->key);
		uint64_t size = (uint64_t)m->o.page_size << order;
		uint64_t off = (x->key & ~FOLIO_KEY_LOW) - mv->start, at = to + off, key = at | (uint64_t)order;
		struct folio *f;

		if (off >= keep) {
			fol_model_end_episode(m, mm, x->key, &x->f); /* cut off by a shrinking mremap */
			continue;
		}
		if (at & (size - 1)) {
			m->s.moved_unaligned += !(x->key & FOLIO_UNALIGNED);
			key |= FOLIO_UNALIGNED;
			mm->unaligned_orders |= 1u << order;
		} else {
			mm->orders |= 1u << order;
		}
		if (fol_u64map_own(&mm->folios) || !(f = fol_u64map_put(mm->folios, key, NULL)))
			return -ENOMEM;
		*f = x->f;
	}
	if (move_seeds(m, mm, to, keep))
		return -ENOMEM;
	if (!failed) {
		struct vma nv = mv->vma;

		nv.pgoff += mv->start - mv->vma.start;
		nv.start = to;
		nv.end = to + mv->new_len;
		if (fol_model_vma_remove(mm, mv->start, mv->start + mv->len) || fol_model_vma_add(mm, &nv))
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
			if (fol_model_add_range(&mm->unaligned, r.start, r.end))
				return -ENOMEM;
		} else if (seed_put(m, mm, &r)) {
			return -ENOMEM;
		}
	}
	mv->seeds.n = 0;
	return 0;
}

void fol_model_move_lost(struct fol_model *m, struct mm *mm)
{
	struct taken *t = &mm->move.folios;

	if (!mm->move.tid)
		return;
	for (size_t i = 0; i < t->n; i++)
		fol_model_end_episode(m, mm, t->v[i].key, &t->v[i].f);
	mm->move.tid = 0;
	mm->move.seeds.n = 0;
	t->n = 0;
	mm->mremap_unseen = 1;
}

int fol_model_drop_mm(struct fol_model *m, int pid)
{
	struct mm mm;

	m->last_mm = NULL;
	if (!fol_u64map_del(m->mms, (uint64_t)(unsigned)pid, &mm))
		return 0;
	/* Its mm_struct may be another's later, with the same mm_id. */
	if (mm.rss_mm_id)
		fol_u64map_del(m->rss_mms, mm.rss_mm_id, NULL);
	fol_model_move_lost(m, &mm);
	{
		size_t pos = 0;
		uint64_t key;
		struct folio *f;

		while ((f = fol_u64map_next(mm.folios, &pos, &key)))
			fol_model_end_episode(m, &mm, key, f);
	}
	fol_model_mm_release(&mm);
	return 0;
}

int fol_model_copy_vma(const struct vma *v, void *child)
{
	return vma_insert(child, v);
}

int fol_model_seed_folios(struct fol_model *m, const struct fol_event *ev)
{
	struct mm *mm = fol_model_get_mm(m, ev->pid);
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

/* The files mapped, by a hash of their id: a clash only keeps a file unmapped since. */
static uint64_t file_key(const struct fol_file_id *id)
{
	return fol_hash(FOL_HASH_INIT, id, sizeof(*id));
}

static int note_file(const struct vma *v, void *set)
{
	if (!v->file || !v->id.ino)
		return 0;
	return fol_u64map_put(set, file_key(&v->id), NULL) ? 0 : -ENOMEM;
}

static int file_mapped(const struct fol_file_id *id, void *set)
{
	return fol_u64map_get(set, file_key(id)) != NULL;
}

int fol_model_forget_files(struct fol_model *m)
{
	struct fol_u64map *set = fol_u64map_new(1);
	size_t pos = 0;
	struct mm *mm;
	int ret = set ? 0 : -ENOMEM;

	while (!ret && (mm = fol_u64map_next(m->mms, &pos, NULL)))
		ret = fol_model_vma_each(mm, note_file, set);
	if (!ret)
		ret = fol_pagecache_sweep(m->pc, file_mapped, set);
	fol_u64map_free(set);
	return ret;
}
