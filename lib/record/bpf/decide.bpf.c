// SPDX-License-Identifier: GPL-2.0-only
/* Kernel decisions (serve, stat -a and top take them): lib/model's rules run where the
 * fault happens, so that a fault whose class and folio order are known at its exit is
 * counted here, by cgroup, class and order, and never written out. Three kinds: an
 * allocation of a folio in an anonymous private VMA (its folio kept), a reuse fault of a
 * folio kept, a file fault on a page already cached (its folio read by file.bpf.c). Each
 * rule names the one of lib/model it restates.
 *
 * The programs are faults.bpf.c's, the fault pairing; they call in through decide.bpf.h's
 * functions, hidden: static in the object bpftool gen object links (this, faults.bpf.c,
 * file.bpf.c and settings.bpf.c), verified as part of their callers. */
#include <linux/bpf.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "data/bpf_record.h"
#include "decide.bpf.h"
#include "kernel.bpf.h"
#include "settings.bpf.h"

/* Kernel reuse's state. A process's allocations are kept under its address space's id
 * (a new one at exec; a thread shares its process's), with the generation of that
 * space: one more at each fork, which shares every folio again and so ends every reuse
 * episode (lib/model's rule). */
#define KSPACE_UNMAPS 4
struct kspace {
	__u64 id;
	/* The address space's own identity (its mm_struct's address): exec puts a new one in
	 * place before sched_process_exec, and faults of exec itself (the stack below its
	 * arguments, the bss) come in between. */
	__u64 mm;
	__u32 gen;
	__u32 orders; /* the orders of the folios kept for it */
	/* Where the process unmapped memory (munmap, mremap, mmap MAP_FIXED) since: a folio
	 * kept before in such a range is gone, and what is mapped there now may be no
	 * anonymous memory at all (a reuse fault is judged by its kept folio alone, the VMA
	 * being too dear to look up at the fault's exit: 9 us a fault here). A few boxes
	 * (unmapped()): once every slot is taken, the two nearest ranges become the box
	 * around both, gone since the later. A folio kept in such a box before then is
	 * taken for gone: its reuse faults go to the model, never a wrong order. */
	__u32 nunmap;
	__u32 puts; /* folios put: a thread's last folio (fol_bpf_pending.last) holds until one is */
	/* A forked child's: its parent's space, and where the folio sequence stood at the
	 * fork. The child maps the parent's folios born until then (lib/model shares the
	 * parent's folio map at the fork); each is copied into the child's own at its first
	 * look, never before (a fork would copy a whole map). */
	__u64 parent, parent_until;
	/* Where the folio sequence stood at its last fork (or a thread's clone), 0 before any:
	 * a folio born by then may be a child's (kfolio_put keeps its previous version). */
	__u64 forked_at;
	__u32 maps; /* calls that changed its mappings returned: fol_decide_maps_changed() */
	struct {
		__u64 start, end, seq;
	} unmapped[KSPACE_UNMAPS];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, __u32); /* tgid */
	__type(value, struct kspace);
} spaces SEC(".maps");

struct kfolio_key {
	__u64 space; /* with KFOLIO_PREVIOUS: the folio this one replaced */
	__u64 base; /* the folio's naturally aligned address, its order in the low bits */
};

#define KFOLIO_PREVIOUS (1ull << 63)

struct kfolio {
	__u64 born;	/* the order folios were put in (a later one hides those it covers) */
	__u32 gen;	/* its space's generation at its last reuse */
	__u32 reuse;	/* reuse faults in that episode */
	__u32 holed;	/* a smaller folio was put inside it since: it hides some of its pages */
	__u32 pad;
};

/* Least recently used first out: a process's folios are never taken out at its end, and
 * a folio pushed out only sends its next reuse fault to the model. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 262144);
	__type(key, struct kfolio_key);
	__type(value, struct kfolio);
} kfolios SEC(".maps");

/* Allocated as keys come (a value per possible CPU: preallocated, 2048 keys would take
 * 200 MB of a 128-CPU machine). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 2048);
	__type(key, struct fol_bpf_reuse_key);
	__type(value, struct fol_bpf_reuse);
} reuse SEC(".maps");

/* The same without cgroups, by class and order alone: an array's look-up is a few
 * instructions the verifier writes in place of the call, a hash's a function hashing the
 * key (60 ns a reuse fault here, a fifth of the exit program). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FOL_BPF_CLASSES * (FOL_BPF_MAX_ORDER + 1));
	__type(key, __u32);
	__type(value, struct fol_bpf_reuse);
} reuse_by_order SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FOL_BPF_K_NR);
	__type(key, __u32);
	__type(value, __u64);
} kstat SEC(".maps");

/* Where space_of() makes a new space before it goes in: a kspace on the stack took 152 of
 * the 512 bytes that a fault's exit and the calls under it share (Debian's 6.1 refused
 * the programs: "combined stack size of 5 calls is 544"). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kspace);
} space_scratch SEC(".maps");

__u64 next_space = 0, next_born = 0;
struct fol_bpf_reuse zero_reuse = {}; /* too large for the stack: the first counts of a key */

void fol_decide_count(__u32 which)
{
	__u64 *n = bpf_map_lookup_elem(&kstat, &which);

	if (n)
		(*n)++;
}

/* Kernel reuse's spaces: which one a process's folios are kept under, across exec and
 * fork. */

/* The current task's address space, to tell one from the next (never dereferenced).
 * Loaded through the task's BTF pointer: a probe read took 26 ns more. */
static __u64 current_mm(void)
{
	return (__u64)bpf_get_current_task_btf()->mm;
}

/* The current process's space (tgid's). With create (a folio to put), one of the address
 * space exec has since replaced gives way to a fresh one. A look-up takes it as it is:
 * exec's own faults, the only ones between the two, reuse nothing (the mm's read, a probe
 * read then, added 26 ns to every reuse fault: make bench's kernel figure, 584 against
 * 558). */
static struct kspace *space_of(__u32 tgid, int create)
{
	struct kspace *s = bpf_map_lookup_elem(&spaces, &tgid), *fresh;
	__u32 zero = 0;
	__u64 mm;

	if (!create)
		return s;
	mm = current_mm();
	if (s && s->mm == mm)
		return s;
	fresh = bpf_map_lookup_elem(&space_scratch, &zero);
	if (!fresh)
		return 0;
	__builtin_memset(fresh, 0, sizeof(*fresh));
	fresh->id = __sync_fetch_and_add(&next_space, 1) + 1;
	fresh->mm = mm;
	bpf_map_update_elem(&spaces, &tgid, fresh, s ? BPF_ANY : BPF_NOEXIST);
	return bpf_map_lookup_elem(&spaces, &tgid);
}

/* A forked child's space: the parent's as it was at the fork (its unmapped ranges; the
 * ones since are the parent's alone), with its folios by reference. The parent's value
 * is copied as it is (a kspace on the stack would take a third of it). */
static void space_inherit(const struct kspace *parent, __u32 tgid, __u64 until)
{
	struct kspace *c;

	if (bpf_map_update_elem(&spaces, &tgid, parent, BPF_ANY))
		return;
	c = bpf_map_lookup_elem(&spaces, &tgid);
	if (!c)
		return;
	c->id = __sync_fetch_and_add(&next_space, 1) + 1;
	c->mm = current_mm(); /* inherit runs in the child */
	c->gen = 0;
	c->puts = 0;
	c->forked_at = 0; /* the parent's: the child keeps no previous folio until it forks */
	c->parent = parent->id;
	c->parent_until = until;
	for (int i = 0; i < KSPACE_UNMAPS; i++)
		if (c->unmapped[i].seq > until)
			c->unmapped[i].seq = 0;
}

/* A forked child whose first fault was exec's inherited its parent's space in exec's
 * new address space, which holds none of the parent's folios: only exec's own stay. */
static void space_disown(struct kspace *s)
{
	for (int i = 0; i < KSPACE_UNMAPS; i++)
		if (s->unmapped[i].seq <= s->parent_until)
			s->unmapped[i].seq = 0;
	s->parent = 0;
	s->parent_until = 0;
	__sync_fetch_and_add(&s->nunmap, 1); /* no thread's last folio holds across it */
}

/* A thread's first event since its fork: a new process (its own tgid) shares its
 * parent's folios, which ends the parent's episodes. Only then: no folio can be reused
 * while the child still maps it, and the child maps it until it runs. */
void fol_decide_fork_known(struct fol_bpf_pending *p, __u64 pid_tgid)
{
	__u32 parent = p->fork_parent;
	struct kspace *s;

	p->fork_parent = 0;
	if ((__u32)pid_tgid != (__u32)(pid_tgid >> 32))
		return; /* a thread */
	s = bpf_map_lookup_elem(&spaces, &parent);
	if (!s)
		return;
	space_inherit(s, (__u32)(pid_tgid >> 32), p->fork_seq);
	__sync_fetch_and_add(&s->gen, 1);
}

/* A VMA's kind, by lib/model's rules (fol_bpf_pending.anon's values): anonymous private
 * (no file, no special mapping: its faults are classed by error code alone); a file's,
 * private (a copy there is anonymous memory, classed as in the first); a special mapping
 * (no file, its own operations: the vDSO's, uprobes'; model_space.c's
 * fol_model_is_special names them); another (a shared file's). Where it lies, and its
 * THP advice (include/linux/mm.h's flags). */
enum { VMA_ANON = 1, VMA_OTHER, VMA_FILE_PRIVATE, VMA_SPECIAL };
#define VM_MAYSHARE 0x80 /* mapped MAP_SHARED, lib/model's "shared" */
#define VM_HUGEPAGE 0x20000000
#define VM_NOHUGEPAGE 0x40000000

struct vma_seen {
	__u64 start, end;
	int kind;
	__u8 huge;
};

static long vma_kind(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct vma_seen *v = data;
	unsigned long flags = vma->vm_flags;

	if (!vma->vm_file)
		v->kind = vma->vm_ops ? VMA_SPECIAL : VMA_ANON;
	else
		v->kind = flags & VM_MAYSHARE ? VMA_OTHER : VMA_FILE_PRIVATE;
	v->start = vma->vm_start;
	v->end = vma->vm_end;
	v->huge = (flags & VM_HUGEPAGE ? FOL_BPF_VMA_HUGE : 0) | (flags & VM_NOHUGEPAGE ? FOL_BPF_VMA_NOHUGE : 0);
	return 0;
}

/* The VMA at addr: the thread's last one (p->vma) while addr is in it and its process has
 * changed no mapping since, else looked up (once a VMA, not once a fault: 7.5 us at a
 * fault's exit here, where the helper unlocks through an irq_work; a fault's allocation,
 * with interrupts on, takes 45 to 90 ns less). NULL where there is none or the lock was
 * busy. The mapping calls' exits count the changes (maps): the look-up reads the count
 * before, so one that returns after it leaves the VMA out of date. The space is the
 * address space's (space_of checks the mm): a VMA of one exec replaced is never taken. */
static const struct fol_bpf_vma *vma_cached(struct fol_bpf_pending *p, __u64 addr, __u32 tgid)
{
	struct kspace *s = space_of(tgid, 1);
	struct vma_seen v = {};
	__u32 maps;

	if (!s)
		return 0;
	maps = *(volatile __u32 *)&s->maps;
	if (p->vma.space == s->id && p->vma.maps == maps && addr >= p->vma.start && addr < p->vma.end)
		return &p->vma;
	fol_decide_count(FOL_BPF_K_VMA);
	if (bpf_find_vma(bpf_get_current_task_btf(), addr, vma_kind, &v, 0)) {
		p->vma.space = 0;
		return 0;
	}
	p->vma.space = s->id;
	p->vma.maps = maps;
	p->vma.start = v.start;
	p->vma.end = v.end;
	p->vma.kind = (__u8)v.kind;
	p->vma.huge = v.huge;
	return &p->vma;
}

/* The kind of the VMA at p's faulting address, looked at once a fault (p->anon). */
static int fault_vma(struct fol_bpf_pending *p)
{
	if (!p->anon && address_off <= FOL_BPF_RAW_MAX - 8) {
		const struct fol_bpf_vma *v;
		__u64 addr;

		__builtin_memcpy(&addr, p->raw + address_off, sizeof(addr));
		v = vma_cached(p, addr, (__u32)(bpf_get_current_pid_tgid() >> 32));
		p->anon = v ? v->kind : VMA_OTHER;
	}
	return p->anon;
}

/* 0 when [start, end) lies in one VMA that is not anonymous and private: none of its
 * folios was kept (ld.so maps each library over its reservation, a file mapping, with
 * mmap MAP_FIXED, dozens a process: no box for them). 1 otherwise, or when the lock
 * was busy (syscalls' events come with interrupts on: bpf_find_vma is cheap here). */
static int may_hold_kept(__u64 start, __u64 end)
{
	struct vma_seen v = {};

	if (bpf_find_vma(bpf_get_current_task_btf(), start, vma_kind, &v, 0))
		return 1;
	return v.kind == VMA_ANON || v.end < end;
}

/* Whether a folio kept at addr since born is still mapped there. */
static int kept_mapped(const struct kspace *s, __u64 born, __u64 addr)
{
	for (int i = 0; i < KSPACE_UNMAPS; i++)
		if (s->unmapped[i].seq > born && addr >= s->unmapped[i].start && addr < s->unmapped[i].end)
			return 0;
	return 1;
}

/* The folio kept at key k (in s): s's own, or for a forked child one its parent kept
 * before the fork, copied into the child's at this first look (its episodes are the
 * child's from then on); holed as holes() marks it. */
static struct kfolio *kfolio_get(const struct kspace *s, struct kfolio_key *k, __u32 holed)
{
	struct kfolio *f = bpf_map_lookup_elem(&kfolios, k), *g, copy = {};
	struct kfolio_key pk;

	if (f || !s->parent)
		return f;
	pk.space = s->parent;
	pk.base = k->base;
	g = bpf_map_lookup_elem(&kfolios, &pk);
	if (g && g->born > s->parent_until) {
		pk.space |= KFOLIO_PREVIOUS;
		g = bpf_map_lookup_elem(&kfolios, &pk);
	}
	if (!g || g->born > s->parent_until)
		return 0;
	copy.born = g->born;
	copy.gen = s->gen;
	copy.holed = g->holed | holed;
	if (!bpf_map_update_elem(&kfolios, k, &copy, BPF_NOEXIST))
		fol_decide_count(FOL_BPF_K_INHERITED);
	return bpf_map_lookup_elem(&kfolios, k);
}

/* The folio kept at addr: of the ones covering it and still mapped, the smallest not
 * hidden by a larger one put in later (lib/model's folio map: a new folio replaces the
 * smaller ones in its range; a COW copy of one page stays inside the large folio around
 * it). *unmapped: one was kept there, but unmapped since. */
static struct kfolio *kfolio_at(const struct kspace *s, __u64 addr, __u32 *order, int *unmapped)
{
	struct kfolio *best = 0;
	__u64 newest = 0;

	for (int o = FOL_BPF_MAX_ORDER; o >= 0; o--) {
		struct kfolio_key k;
		struct kfolio *f;

		if (!(s->orders & (1u << o)))
			continue;
		k.space = s->id;
		k.base = (addr & ~((1ull << (page_shift + o)) - 1)) | (__u64)o;
		f = kfolio_get(s, &k, 0);
		if (f && !kept_mapped(s, f->born, addr)) {
			*unmapped = 1;
			continue;
		}
		if (f && f->born > newest) {
			newest = f->born;
			best = f;
			*order = (__u32)o;
		}
	}
	return best;
}

/* A folio of order is put at addr: the larger ones kept around it lose that part of their
 * range to it (kfolio_at takes the newer), so none of them is a thread's last folio again. */
static void holes(const struct kspace *s, __u64 addr, int order)
{
	for (int o = FOL_BPF_MAX_ORDER; o > 0; o--) {
		struct kfolio_key k;
		struct kfolio *f;

		if (o <= order || !(s->orders & (1u << o)))
			continue;
		k.space = s->id;
		k.base = (addr & ~((1ull << (page_shift + o)) - 1)) | (__u64)o;
		f = kfolio_get(s, &k, 1);
		if (f)
			f->holed = 1;
	}
}

/* The folio old at k, before a new one takes its place, where a child forked since may
 * still map it: most often the parent's COW copy of a page the child still maps, and the
 * child reuses once the parent copied (kfolio_get looks here; the parent's copy most
 * often comes before the child first runs). One version back, and only of a folio born
 * by the last fork: a later one is no child's, and the version kept before it stays for
 * the children that may still look (a swap-in puts its folio in place again: its exit
 * took 428 ns, not 744, in a process that had forked once before, for mkswap). */
static void kfolio_keep_previous(const struct kfolio_key *k, const struct kfolio *old)
{
	struct kfolio_key pk = { .space = k->space | KFOLIO_PREVIOUS, .base = k->base };

	bpf_map_update_elem(&kfolios, &pk, old, BPF_ANY);
}

/* A fault that allocated a folio of an anonymous private VMA: the folio is kept. */
static void kfolio_put(__u32 tgid, __u64 addr, int order)
{
	struct kfolio f = {}, *old;
	struct kfolio_key k;
	struct kspace *s;

	if (order < 0 || order > FOL_BPF_MAX_ORDER)
		return;
	s = space_of(tgid, 1);
	if (!s)
		return;
	k.space = s->id;
	k.base = (addr & ~((1ull << (page_shift + order)) - 1)) | (__u64)order;
	f.born = __sync_fetch_and_add(&next_born, 1) + 1;
	f.gen = s->gen;
	holes(s, addr, order);
	old = bpf_map_lookup_elem(&kfolios, &k);
	if (old && old->born <= s->forked_at) {
		kfolio_keep_previous(&k, old);
		old = bpf_map_lookup_elem(&kfolios, &k); /* the insert may have pushed it out */
	}
	/* Put where one is kept (a swap-in, its order's bit set already): in place; an update
	 * takes a fresh LRU node, frees the old (1,100 against 912 ns a swap-in's exit). */
	if (old) {
		*old = f;
		fol_decide_count(FOL_BPF_K_INSERTED);
	} else if (!bpf_map_update_elem(&kfolios, &k, &f, BPF_ANY)) {
		__sync_fetch_and_or(&s->orders, 1u << order);
		fol_decide_count(FOL_BPF_K_INSERTED);
	}
	/* After the folio is in: a thread that looked before it was sees puts change. */
	__sync_fetch_and_add(&s->puts, 1);
}

/* A reuse fault of folio f: 1 when it is the first of an episode (since the folio was
 * kept, or its process last forked). */
static int episode_step(struct kfolio *f, const struct kspace *s)
{
	int first = f->gen != s->gen || !f->reuse;

	if (first) {
		f->gen = s->gen;
		f->reuse = 0;
	}
	f->reuse++;
	return first;
}

/* Whether the thread's last folio is still the one kept at addr. */
static int last_holds(const struct fol_bpf_pending *p, const struct kspace *s, __u64 addr)
{
	return p->last.space == s->id && p->last.gen == s->gen && p->last.puts == s->puts &&
	       p->last.nunmap == s->nunmap && addr >= p->last.base && addr < p->last.end &&
	       kept_mapped(s, p->last.born, addr);
}

/* What of a space the last folio holds by, as it was before the fault looked its folio up:
 * a fork, put or unmap by another thread meanwhile leaves the last folio out of date. */
struct kstamp {
	__u32 gen, puts, nunmap;
};

/* Folio f (of order, kept at addr) is the thread's last, its episode under way: unless a
 * smaller folio hides some of its pages, where the map would answer otherwise. */
static void last_set(struct fol_bpf_pending *p, const struct kspace *s, const struct kstamp *st,
		     const struct kfolio *f, __u64 addr, __u32 order)
{
	__u64 size = 1ull << (page_shift + order);

	p->last.space = f->holed ? 0 : s->id;
	p->last.gen = st->gen;
	p->last.puts = st->puts;
	p->last.nunmap = st->nunmap;
	p->last.base = addr & ~(size - 1);
	p->last.end = p->last.base + size;
	p->last.born = f->born;
	p->last.order = order;
}

/* The folio kept at a reuse fault's addr (0: none, counted why), from the thread's last
 * folio when it holds (*f NULL: the fault is not its episode's first) or the map. */
static int reuse_folio(const struct fol_bpf_pending *p, const struct kspace *s, __u64 addr,
		       struct kfolio **f, __u32 *order)
{
	int unmapped = 0;

	*f = 0;
	if (last_holds(p, s, addr)) {
		*order = p->last.order;
		return 1;
	}
	if ((*f = kfolio_at(s, addr, order, &unmapped)))
		return 1;
	fol_decide_count(unmapped ? FOL_BPF_K_UNMAPPED : FOL_BPF_K_NO_FOLIO);
	return 0;
}

/* The fault's step in its folio's episode: 1 when it is the first. */
static int reuse_step(struct fol_bpf_pending *p, const struct kspace *s, const struct kstamp *st,
		      struct kfolio *f, __u64 addr, __u32 order)
{
	int first;

	if (!f)
		return 0;
	first = episode_step(f, s);
	last_set(p, s, st, f, addr, order);
	return first;
}

/* A decided fault's counts, by cgroup, class and order (NULL: no room). */
static struct fol_bpf_reuse *counts(__u32 cls, __u32 order)
{
	struct fol_bpf_reuse_key rk = {};
	struct fol_bpf_reuse *c;

	if (!by_cgroup) {
		__u32 i = cls * (FOL_BPF_MAX_ORDER + 1) + order;

		c = bpf_map_lookup_elem(&reuse_by_order, &i);
		if (!c)
			fol_decide_count(FOL_BPF_K_FULL);
		return c;
	}
	rk.cgroup = bpf_get_current_cgroup_id();
	rk.order = order;
	rk.cls = cls;
	c = bpf_map_lookup_elem(&reuse, &rk);
	if (!c) {
		bpf_map_update_elem(&reuse, &rk, &zero_reuse, BPF_NOEXIST);
		c = bpf_map_lookup_elem(&reuse, &rk);
	}
	if (!c)
		fol_decide_count(FOL_BPF_K_FULL);
	return c;
}

/* A decided fault into its counts, with its latency when it is timed (now its exit). */
static void count_fault(struct fol_bpf_reuse *c, const struct fol_bpf_pending *p, __u64 now)
{
	__u64 lat = now - p->t0;
	__u32 b;

	c->faults++;
	if (p->untimed || lat > FOL_BPF_LATENCY_MAX)
		return;
	b = fol_bpf_lat_bucket(lat);
	c->timed++;
	c->time_ns += lat;
	if (b < FOL_BPF_LAT_BUCKETS)
		c->lat[b]++;
}

/* A reuse fault of a folio kept: counted here, and 1 (nothing written out). With events
 * inside (its entry is out already) it goes to the model, which counts it, and its
 * episode if it is the first: the folio's episode is under way for the programs too, and
 * if they counted it already, *flags tells the model (FOL_BPF_EPISODE_KEPT). Inlined:
 * six arguments, one more than a BPF call takes. */
static __always_inline int reuse_counted(struct fol_bpf_pending *p, __u64 now, __u64 addr,
					 __u32 tgid, int inside, __u8 *flags)
{
	struct fol_bpf_reuse *c;
	struct kspace *s = space_of(tgid, 0);
	struct kstamp st;
	struct kfolio *f;
	__u32 order = 0;

	if (!s) {
		fol_decide_count(FOL_BPF_K_NO_FOLIO);
		return 0;
	}
	/* Read once each, before the look-up (its helper calls keep the order). */
	st.gen = *(volatile __u32 *)&s->gen;
	st.puts = *(volatile __u32 *)&s->puts;
	st.nunmap = *(volatile __u32 *)&s->nunmap;
	if (!reuse_folio(p, s, addr, &f, &order))
		return 0;
	if (inside) {
		if (!reuse_step(p, s, &st, f, addr, order))
			*flags |= FOL_BPF_EPISODE_KEPT;
		fol_decide_count(FOL_BPF_K_INSIDE);
		return 0;
	}
	if (!(c = counts(FOL_BPF_CLS_REUSE, order)))
		return 0;
	c->episodes += reuse_step(p, s, &st, f, addr, order);
	count_fault(c, p, now);
	fol_decide_count(FOL_BPF_K_DECIDED);
	if (!f)
		fol_decide_count(FOL_BPF_K_LAST);
	return 1;
}

/* The fault's error code, from its entry's record. */
static __u64 fault_ec(const struct fol_bpf_pending *p)
{
	__u64 ec = 0;

	if (error_code_off <= FOL_BPF_RAW_MAX - 8)
		__builtin_memcpy(&ec, p->raw + error_code_off, sizeof(ec));
	return ec;
}

/* The class of a fault that allocated a user folio in an anonymous private VMA, by
 * lib/model's rules (model_fault.c's classify: such a VMA is no file's and not special;
 * anon_folio: the order is the folio's), swap: major, or the swap entries changed; -1
 * where the model would count it "other" (a read of a present page). */
static int alloc_class(__u64 ec, int swap)
{
	if ((ec & 3) == 3) /* FOL_PF_PROT | FOL_PF_WRITE */
		return FOL_BPF_CLS_COPY;
	if (ec & 1)
		return -1;
	return swap ? FOL_BPF_CLS_SWAP : FOL_BPF_CLS_ALLOC;
}

/* Whether a fault of class cls (alloc_class's) that allocated a folio in a VMA of that
 * kind is the model's to class as cls: any in an anonymous private VMA; a copy in a
 * file's private one too (model_fault.c's classify: a write to a present page is a copy
 * but in a shared file's mapping). */
static int allocates_in(int cls, int kind)
{
	return cls >= 0 && (kind == VMA_ANON || (cls == FOL_BPF_CLS_COPY && kind == VMA_FILE_PRIVATE));
}

/* Whether the model keeps the folio a fault of error code ec allocated in a VMA of that
 * kind, whatever its class (model_fault.c's anon_folio): any in an anonymous private VMA
 * (a NUMA hint's read of a present page that migrated it too), and in a file's private
 * one a present page's (a copy, or a migration). */
static int keeps_folio(__u64 ec, int kind)
{
	return kind == VMA_ANON || (kind == VMA_FILE_PRIVATE && (ec & 1));
}

/* A held fault at its exit: its folio is kept, and it is counted (1), or goes out with
 * its summary (no room). */
static int alloc_counted(struct fol_bpf_pending *p, __u64 now, __u64 addr, __u32 tgid, int major)
{
	int cls = alloc_class(fault_ec(p), major || (p->sum & FOL_BPF_SUM_SWAP));
	struct fol_bpf_reuse *c;

	kfolio_put(tgid, addr, p->alloc_order);
	if (cls < 0 || p->alloc_order < 0 || p->alloc_order > FOL_BPF_MAX_ORDER)
		return 0;
	if (!(c = counts((__u32)cls, (__u32)p->alloc_order)))
		return 0;
	count_fault(c, p, now);
	fol_decide_count(FOL_BPF_K_ALLOC);
	return 1;
}

/* A file fault on a page already cached (bpf_record.h): counted here, of its page-cache
 * folio's order (lib/model's classify: a fault on a page not present in a file VMA is
 * the file's; file_order: the folio read inside the fault), 1; else 0. */
static int file_counted(struct fol_bpf_pending *p, __u64 now)
{
	__u32 order = (__u32)p->file_folio - 1;
	struct fol_bpf_reuse *c;

	if (p->state != FOL_BPF_OPEN || !p->file_folio || order > FOL_BPF_MAX_ORDER ||
	    (fault_ec(p) & 1) || (p->sum & (FOL_BPF_SUM_ANON | FOL_BPF_SUM_SWAP)))
		return 0;
	if (!(c = counts(FOL_BPF_CLS_FILE, order)))
		return 0;
	count_fault(c, p, now);
	fol_decide_count(FOL_BPF_K_FILE);
	return 1;
}

/* The fault at its first change of the anonymous or swap count: whether it may be a
 * swap-in from the swap cache (model_fault.c's classify: not present, in an anonymous
 * private VMA, the swap entries changed; anon_folio: nothing allocated), looking at its
 * VMA once. */
int fol_decide_rss_hold(struct fol_bpf_pending *p)
{
	if (p->state != FOL_BPF_OPEN || p->alloc_order >= 0 || (fault_ec(p) & 1))
		return 0;
	return fault_vma(p) == VMA_ANON;
}

/* A swap-in from the swap cache, its changes held (fol_decide_rss_hold): counted here, 1,
 * of the order of its folio, as many pages as joined the anonymous count and left the
 * swap entries, a power of two (model_fault.c's anon_folio), and the folio kept; else 0. */
static int swap_counted(struct fol_bpf_pending *p, __u64 now, __u64 addr, __u32 tgid)
{
	__s64 anon = (__s64)(p->rss_hold[0].after - p->rss_hold[0].before);
	__s64 swap = (__s64)(p->rss_hold[1].after - p->rss_hold[1].before);
	__u64 pages = (__u64)-swap >> page_shift;
	struct fol_bpf_reuse *c;
	int order = -1;

	if (p->state != FOL_BPF_OPEN || p->rss_holds != (FOL_BPF_SUM_ANON | FOL_BPF_SUM_SWAP) ||
	    p->alloc_order >= 0 || swap >= 0 || anon != -swap || (pages << page_shift) != (__u64)-swap)
		return 0;
	for (int o = 0; o <= FOL_BPF_MAX_ORDER; o++)
		if (pages == 1ull << o)
			order = o;
	if (order < 0)
		return 0;
	kfolio_put(tgid, addr, order);
	if (!(c = counts(FOL_BPF_CLS_SWAP, (__u32)order)))
		return 0;
	count_fault(c, p, now);
	fol_decide_count(FOL_BPF_K_SWAP);
	return 1;
}

/* Whether a read at addr of an anonymous VMA v maps the 4K zero page by lib/model's rule
 * (model_fault.c's zero_page_order) whatever came before it: no huge zero page there (the
 * policy, MADV_NOHUGEPAGE, its PMD range not inside the VMA). Elsewhere the first read of
 * a PMD range maps the huge one and the next ones the 4K one: the range's history, the
 * model's. */
static int zero_page_small(const struct fol_bpf_vma *v, __u64 addr)
{
	__u64 pmd = 1ull << (page_shift + pmd_order), base = addr & ~(pmd - 1);

	if (!pmd_order || huge_zero == FOL_BPF_HZ_NONE)
		return 1;
	if (huge_zero == FOL_BPF_HZ_UNKNOWN)
		return 0;
	if ((v->huge & FOL_BPF_VMA_NOHUGE) || base < v->start || base + pmd > v->end)
		return 1;
	return huge_zero == FOL_BPF_HZ_MADVISE && !(v->huge & FOL_BPF_VMA_HUGE);
}

/* A read of a page not present that allocated nothing and changed no count (model_fault.c's
 * classify): in an anonymous private VMA it mapped the zero page, counted here of order 0
 * where zero_page_small says so, 1; in a special mapping, one of the kernel's pages (order
 * 0, judge's rule), 1. Else 0. */
static int zero_counted(struct fol_bpf_pending *p, __u64 now, __u64 addr, __u32 tgid)
{
	const struct fol_bpf_vma *v;
	struct fol_bpf_reuse *c;
	__u32 cls;

	if (p->state != FOL_BPF_OPEN || p->alloc_order >= 0 || (fault_ec(p) & 3) || p->file_folio ||
	    (p->sum & (FOL_BPF_SUM_ANON | FOL_BPF_SUM_SWAP)) || !(v = vma_cached(p, addr, tgid)))
		return 0;
	if (v->kind == VMA_ANON && zero_page_small(v, addr))
		cls = FOL_BPF_CLS_ZERO;
	else if (v->kind == VMA_SPECIAL)
		cls = FOL_BPF_CLS_SPECIAL;
	else
		return 0;
	if (!(c = counts(cls, 0)))
		return 0;
	count_fault(c, p, now);
	fol_decide_count(FOL_BPF_K_ZERO);
	return 1;
}

/* Kernel decisions at a fault's exit: a held fault is counted, and its folio kept (1); so
 * are a reuse fault of a kept folio, a file fault on a page already cached, a swap-in
 * from the swap cache and a zero-page read. Any other goes out, a reuse fault with
 * *flags. */
int fol_decide_exit(struct fol_bpf_pending *p, __u64 now, __u64 addr, __u8 *flags)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tgid = (__u32)(pid_tgid >> 32);

	if (p->state == FOL_BPF_HELD)
		return alloc_counted(p, now, addr, tgid, !!(*flags & FOL_BPF_MAJOR));
	if (*flags)
		return 0; /* major */
	/* The VMA looked at here when the allocation did not (a fault written out before it
	 * allocated, rare: not the cost of looking at every fault's): a folio the model keeps
	 * and this side did not would leave the larger one around it to the page's next
	 * reuse (6.1: 5 reuse faults of 56 counted 2M that were of the 4K copy inside). */
	if (p->alloc_order >= 0) {
		if (keeps_folio(fault_ec(p), fault_vma(p)))
			kfolio_put(tgid, addr, p->alloc_order);
		return 0;
	}
	if (file_counted(p, now) || swap_counted(p, now, addr, tgid) || zero_counted(p, now, addr, tgid))
		return 1;
	if ((fault_ec(p) & 3) != 3) /* present and write: FOL_PF_PROT | FOL_PF_WRITE */
		return 0;
	return reuse_counted(p, now, addr, tgid, p->state != FOL_BPF_OPEN, flags);
}

/* The unmapped ranges of a space: where its kept folios are gone. */

/* How far apart [s1, e1) and [s2, e2) are: 0 when they touch. */
static __u64 range_gap(__u64 s1, __u64 e1, __u64 s2, __u64 e2)
{
	if (e1 < s2)
		return s2 - e1;
	if (e2 < s1)
		return s1 - e2;
	return 0;
}

/* Slot i takes [start, end), gone since seq, too: the box around both, gone since the
 * later (a folio kept between the two in the older one's part is taken for gone). */
static void unmap_merge(struct kspace *s, __u32 i, __u64 start, __u64 end, __u64 seq)
{
	i &= KSPACE_UNMAPS - 1;
	if (start < s->unmapped[i].start)
		s->unmapped[i].start = start;
	if (end > s->unmapped[i].end)
		s->unmapped[i].end = end;
	if (seq > s->unmapped[i].seq)
		s->unmapped[i].seq = seq;
}

/* The process unmapped [start, start + len): kept folios there are gone. A free slot
 * takes it; else the two nearest of the slots' ranges and this one are merged (a
 * process's startup unmaps dozens of ranges, its libraries' mmap MAP_FIXED: they become
 * one box there, and its stack and heap keep their folios: one limit for the whole
 * space would leave a forked child's reuse of its first stack pages to the model). */
void fol_decide_unmapped(__u64 start, __u64 len)
{
	__u32 tgid = (__u32)(bpf_get_current_pid_tgid() >> 32), ba = 0, bb = KSPACE_UNMAPS;
	struct kspace *s = space_of(tgid, 0);
	__u64 seq, end = start + len, best = ~0ull, g;

	if (!s || !len || !may_hold_kept(start, end))
		return;
	seq = __sync_fetch_and_add(&next_born, 1) + 1;
	__sync_fetch_and_add(&s->nunmap, 1);
	for (__u32 i = 0; i < KSPACE_UNMAPS; i++) {
		if (!s->unmapped[i].seq) {
			s->unmapped[i].start = start;
			s->unmapped[i].end = end;
			s->unmapped[i].seq = seq;
			return;
		}
		g = range_gap(start, end, s->unmapped[i].start, s->unmapped[i].end);
		if (g < best) {
			best = g;
			ba = i;
		}
	}
	for (__u32 i = 0; i < KSPACE_UNMAPS; i++)
		for (__u32 j = i + 1; j < KSPACE_UNMAPS; j++) {
			g = range_gap(s->unmapped[i].start, s->unmapped[i].end,
				      s->unmapped[j].start, s->unmapped[j].end);
			if (g < best) {
				best = g;
				ba = i;
				bb = j;
			}
		}
	if (bb >= KSPACE_UNMAPS) {
		unmap_merge(s, ba, start, end, seq);
		return;
	}
	bb &= KSPACE_UNMAPS - 1;
	unmap_merge(s, ba, s->unmapped[bb].start, s->unmapped[bb].end, s->unmapped[bb].seq);
	s->unmapped[bb].start = start;
	s->unmapped[bb].end = end;
	s->unmapped[bb].seq = seq;
}

/* A call that changes the current process's mappings returned (faults.bpf.c's
 * maps_changed): the VMA each of its threads holds (vma_cached) is looked up again. */
void fol_decide_maps_changed(void)
{
	__u32 tgid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	struct kspace *s = bpf_map_lookup_elem(&spaces, &tgid);

	if (s)
		__sync_fetch_and_add(&s->maps, 1);
}

/* A user folio allocated inside p's fault (faults.bpf.c's alloc(), its order in the
 * summary): a fault the model would class by its error code, with nothing recorded
 * inside so far, is held: counted at its exit unless a recorded event comes inside. */
void fol_decide_alloc(struct fol_bpf_pending *p)
{
	if (p->state == FOL_BPF_OPEN && !p->before_exec &&
	    allocates_in(alloc_class(fault_ec(p), 0), fault_vma(p)))
		p->state = FOL_BPF_HELD;
}

/* sched:sched_process_fork of a followed parent (faults.bpf.c's fork()): its space
 * keeps the previous version of a folio born by now that a new one replaces; where the
 * folio sequence stands, for the child's first event (fol_decide_fork_known). */
__u64 fol_decide_fork(__u32 parent_tgid)
{
	__u64 seq = *(volatile __u64 *)&next_born;
	struct kspace *s = bpf_map_lookup_elem(&spaces, &parent_tgid);

	if (s)
		s->forked_at = seq;
	return seq;
}

/* sched:sched_process_exec (p: the thread's slot, or NULL). */
void fol_decide_exec(struct fol_bpf_pending *p)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tgid = (__u32)(pid_tgid >> 32);
	struct kspace *s;

	if (p && p->fork_parent)
		fol_decide_fork_known(p, pid_tgid);
	/* A new address space: its space is the one made at exec's own first fault
	 * (space_of), if any, with the folios exec's faults put. */
	s = bpf_map_lookup_elem(&spaces, &tgid);
	if (s && s->mm != current_mm())
		bpf_map_delete_elem(&spaces, &tgid);
	else if (s && s->parent)
		space_disown(s);
}

/* sched:sched_process_exit (p: the thread's slot, or NULL): a process's space goes with
 * its last thread, the leader. */
void fol_decide_exit_thread(struct fol_bpf_pending *p, __u64 pid_tgid)
{
	__u32 tid = (__u32)pid_tgid, tgid = (__u32)(pid_tgid >> 32);

	if (p && p->fork_parent)
		fol_decide_fork_known(p, pid_tgid);
	if (tid == tgid)
		bpf_map_delete_elem(&spaces, &tgid);
}

char LICENSE[] SEC("license") = "GPL";
