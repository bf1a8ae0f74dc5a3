// SPDX-License-Identifier: GPL-2.0-only
/* Pairs each fault's entry and exit in the kernel and writes one record where the plain
 * path writes two samples (issue 16: the second sample was most of the cost of tracing a
 * reuse fault). Attached by lib/record/bpf_faults.c to foliostat's own perf events.
 *
 * Ordering: the model needs a fault's entry before any event of the same thread inside
 * the fault (an allocation). So every other tracepoint foliostat records runs flush()
 * first, which writes the pending entry out before the kernel writes that sample; a
 * fault with nothing inside (a reuse) goes out whole at its exit. */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "data/bpf_record.h"
#include "kernel.bpf.h"

/* The threads recorded (the workload's, given by foliostat and then at each fork), and
 * each one's fault in progress. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, struct fol_bpf_pending);
} follow SEC(".maps");

/* One bpf-output event per CPU: the record goes into that CPU's ring buffer. */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} out SEC(".maps");

/* [0] threads not followed because follow was full, [1] records the kernel refused. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} dropped SEC(".maps");

/* From the tracepoints' formats, set before loading: fields by name, never by a fixed
 * offset. */
const volatile __u32 entry_size = 32;
const volatile __u32 fork_child_off = 44;
/* A system-wide recording (record -a, top -a, serve): every task's faults, each thread
 * given its slot at its first fault. */
const volatile __u32 every_task = 0;
/* Kernel reuse (bpf_record.h), with the fields it reads: the entry record's error code,
 * kmem:mm_page_alloc's order and gfp flags (4 or 8 bytes). */
const volatile __u32 kernel_reuse = 0;
const volatile __u32 by_cgroup = 0;
const volatile __u32 page_shift = 12;
const volatile __u32 error_code_off = 24;
const volatile __u32 address_off = 8;
const volatile __u32 alloc_order_off = 16;
const volatile __u32 alloc_gfp_off = 24;
/* Set when the recording stops: no fault begins to be followed, so that the ones in
 * flight can end (their exits written) before the events go off. */
__u32 stopping;
const volatile __u32 alloc_gfp_size = 8;
/* kmem:rss_stat's fields and record size. */
const volatile __u32 rss_mm_id_off = 8;
const volatile __u32 rss_member_off = 16;
const volatile __u32 rss_size_off = 24;
const volatile __u32 rss_record_size = 32;
/* File faults' page-cache folios read (file_mapped()). */
const volatile __u32 file_folio = 0;
/* serve --sample N: a fault is timed when a random draw at its entry is below 2^32 / N
 * (0: all). Not every Nth nor by address: a workload's own period would pick one class
 * each time. The others are counted all the same, without their two clock reads. */
const volatile __u32 sample_below = 0;

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
	__u32 forked; /* a child was forked (or a thread cloned): kfolio_keep_previous() */
	__u32 pad;
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

/* Each mm's anonymous and swap counters (kmem:rss_stat's mm_id << 2 | member) as their
 * last change left them: an RSS record says the value before, since the model sees only
 * the changes inside faults it is sent, not those of the faults decided here. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, __u64);
} rss_last SEC(".maps");

__u64 next_space = 0, next_born = 0;
struct fol_bpf_reuse zero_reuse = {}; /* too large for the stack: the first counts of a key */

static void kcount(__u32 which)
{
	__u64 *n = bpf_map_lookup_elem(&kstat, &which);

	if (n)
		(*n)++;
}

static void count(__u32 which)
{
	__u64 *n = bpf_map_lookup_elem(&dropped, &which);

	if (n)
		__sync_fetch_and_add(n, 1);
}

/* A record; with p (what has FOL_BPF_ENTRY), the entry p holds, else the exit alone; with
 * sum (kernel decisions, an exit), what the programs summed up inside the fault. */
static void emit(void *ctx, const struct fol_bpf_pending *p, const struct fol_bpf_pending *sum,
		 __u8 what, __u8 flags, __u64 t1, __u64 addr)
{
	struct fol_bpf_rec r = {
		.what = what,
		.flags = flags,
		.t1 = t1,
		.addr = addr,
	};
	__u64 size = __builtin_offsetof(struct fol_bpf_rec, raw);

	if (sum)
		r.file_folio = sum->file_folio;
	if (sum && kernel_reuse) {
		r.sum = sum->sum | FOL_BPF_SUM;
		r.alloc_order = sum->alloc_order;
		r.last_order = sum->last_order;
	}
	if (p) {
		r.flags |= p->flags;
		/* Not timed: the time it goes out places it among the events inside. */
		r.t0 = p->t0 ? p->t0 : t1 ? t1 : bpf_ktime_get_ns();
		r.raw_size = p->raw_size;
		__builtin_memcpy(r.raw, p->raw, sizeof(r.raw));
		size = sizeof(r);
	}
	if (bpf_perf_event_output(ctx, &out, BPF_F_CURRENT_CPU, &r, size))
		count(1);
}

#include "space.bpf.h"

/* A VMA's kind, by lib/model's rule (no file, no special mapping: anonymous private),
 * and where it ends. */
struct vma_seen {
	__u64 end;
	int anon;
};

static long vma_kind(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct vma_seen *v = data;

	v->anon = !vma->vm_file && !vma->vm_ops;
	v->end = vma->vm_end;
	return 0;
}

/* 1: addr is in an anonymous private VMA (no file, no special mapping: lib/model classes
 * its faults by error code alone); 0: another, none, or the mmap lock was busy. Only
 * where interrupts are on (an allocation): with them off (a fault's entry or exit event)
 * the helper unlocks through an irq_work, 9 us a fault in this VM. */
static int anon_vma(__u64 addr)
{
	struct vma_seen v = {};

	if (bpf_find_vma(bpf_get_current_task_btf(), addr, vma_kind, &v, 0))
		return 0;
	return v.anon;
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
	return v.anon || v.end < end;
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
		kcount(FOL_BPF_K_INHERITED);
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

/* The folio at k, before a new one takes its place: after a fork, most often the
 * parent's COW copy of a page the child still maps, and the child reuses once the
 * parent copied (kfolio_get looks here). One version back, only in a space that ever
 * forked: the parent's copy most often comes before the child first runs. */
static void kfolio_keep_previous(const struct kfolio_key *k)
{
	struct kfolio *old = bpf_map_lookup_elem(&kfolios, k);
	struct kfolio_key pk = { .space = k->space | KFOLIO_PREVIOUS, .base = k->base };

	if (old)
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
	if (s->forked)
		kfolio_keep_previous(&k);
	/* Put where one is kept (a swap-in, its order's bit set already): in place; an update
	 * takes a fresh LRU node, frees the old (1,100 against 912 ns a swap-in's exit). */
	old = bpf_map_lookup_elem(&kfolios, &k);
	if (old) {
		*old = f;
		kcount(FOL_BPF_K_INSERTED);
	} else if (!bpf_map_update_elem(&kfolios, &k, &f, BPF_ANY)) {
		__sync_fetch_and_or(&s->orders, 1u << order);
		kcount(FOL_BPF_K_INSERTED);
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
	kcount(unmapped ? FOL_BPF_K_UNMAPPED : FOL_BPF_K_NO_FOLIO);
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
			kcount(FOL_BPF_K_FULL);
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
		kcount(FOL_BPF_K_FULL);
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
		kcount(FOL_BPF_K_NO_FOLIO);
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
		kcount(FOL_BPF_K_INSIDE);
		return 0;
	}
	if (!(c = counts(FOL_BPF_CLS_REUSE, order)))
		return 0;
	c->episodes += reuse_step(p, s, &st, f, addr, order);
	count_fault(c, p, now);
	kcount(FOL_BPF_K_DECIDED);
	if (!f)
		kcount(FOL_BPF_K_LAST);
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
	kcount(FOL_BPF_K_ALLOC);
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
	kcount(FOL_BPF_K_FILE);
	return 1;
}

/* Kernel decisions at a fault's exit: a held fault is counted, and its folio kept (1); so
 * are a reuse fault of a kept folio and a file fault on a page already cached. Any other
 * goes out, a reuse fault with *flags. */
static int kernel_decides(struct fol_bpf_pending *p, __u64 now, __u64 addr, __u8 *flags)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tgid = (__u32)(pid_tgid >> 32);

	if (p->state == FOL_BPF_HELD)
		return alloc_counted(p, now, addr, tgid, !!(*flags & FOL_BPF_MAJOR));
	if (*flags)
		return 0; /* major */
	if (p->alloc_order >= 0) {
		if (p->anon == 1)
			kfolio_put(tgid, addr, p->alloc_order);
		return 0;
	}
	if (file_counted(p, now))
		return 1;
	if ((fault_ec(p) & 3) != 3) /* present and write: FOL_PF_PROT | FOL_PF_WRITE */
		return 0;
	return reuse_counted(p, now, addr, tgid, p->state != FOL_BPF_OPEN, flags);
}

static int entry(void *ctx, __u8 flags)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fol_bpf_pending *p = bpf_map_lookup_elem(&follow, &tid);
	__u32 size = entry_size;

	if (!p && every_task) {
		struct fol_bpf_pending idle = {};

		bpf_map_update_elem(&follow, &tid, &idle, BPF_NOEXIST);
		p = bpf_map_lookup_elem(&follow, &tid);
		if (!p)
			count(0); /* follow is full */
	}
	if (!p || stopping)
		return 1;
	/* The last fault never returned (SIGSEGV): its entry still goes out. */
	if ((p->state == FOL_BPF_OPEN || p->state == FOL_BPF_HELD) && !p->before_exec)
		emit(ctx, p, NULL, FOL_BPF_ENTRY, 0, 0, 0);
	if (size > FOL_BPF_RAW_MAX)
		size = FOL_BPF_RAW_MAX;
	if (kernel_reuse && p->fork_parent)
		fork_known(p, bpf_get_current_pid_tgid());
	p->untimed = sample_below && bpf_get_prandom_u32() >= sample_below;
	p->t0 = p->untimed ? 0 : bpf_ktime_get_ns();
	p->flags = flags;
	p->alloc_order = -1;
	p->last_order = -1;
	p->sum = 0;
	p->anon = 0;
	p->file_folio = 0;
	p->raw_size = (__u16)size;
	/* Whole words straight from the record (cheaper than a probe read; raw_size says
	 * where it ends). Its first word, the common fields, is where perf put the
	 * registers for the program: zero in the copy. */
	((__u64 *)p->raw)[0] = 0;
	for (int i = 1; i < FOL_BPF_RAW_MAX / 8; i++)
		((__u64 *)p->raw)[i] = ((__u64 *)ctx)[i];
	p->state = FOL_BPF_OPEN;
	/* Carrier events are never enabled: 1 leaves other tools' samples of this
	 * tracepoint as they are and writes none of ours. (A raw tracepoint instead of
	 * the perf event's program was measured slower: 131.6 against 124.8 ms for the
	 * write pass of 65,536 reuse faults, 9 runs each.) */
	return 1;
}

SEC("tracepoint")
int fault_user(void *ctx)
{
	return entry(ctx, 0);
}

/* The current task's page faults disabled (a futex's word read under its hash bucket's
 * lock, the signal frame's FPU state): the fault's cause when no exit follows. */
static __u8 faults_disabled(void)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	int n = 0;

	bpf_probe_read_kernel(&n, sizeof(n), &t->pagefault_disabled);
	return n > 0 ? FOL_BPF_NOFAULT : 0;
}

SEC("tracepoint")
int fault_kernel(void *ctx)
{
	return entry(ctx, FOL_BPF_KERNEL | faults_disabled());
}

static int exit_(struct bpf_perf_event_data *ctx, __u8 flags)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fol_bpf_pending *p = bpf_map_lookup_elem(&follow, &tid);
	int untimed = p && p->state != FOL_BPF_IDLE && p->untimed;
	__u64 now = untimed ? 0 : bpf_ktime_get_ns();

	/* Stopping: only the faults in flight end; one that began after is not recorded. */
	if (stopping && (!p || p->state == FOL_BPF_IDLE))
		return 0;
	if (kernel_reuse && p && p->state != FOL_BPF_IDLE && kernel_decides(p, now, ctx->addr, &flags)) {
		p->before_exec = 0;
		p->state = FOL_BPF_IDLE;
		return 0;
	}
	if (untimed) { /* written out: its time places it among the events */
		now = bpf_ktime_get_ns();
		flags |= FOL_BPF_UNTIMED;
	}
	if (p && (p->state == FOL_BPF_OPEN || p->state == FOL_BPF_HELD))
		emit(ctx, p, p, FOL_BPF_FAULT, flags, now, ctx->addr);
	else
		emit(ctx, NULL, p && p->state == FOL_BPF_OUT ? p : NULL, FOL_BPF_EXIT, flags, now, ctx->addr);
	if (p) {
		p->before_exec = 0;
		p->state = FOL_BPF_IDLE;
	}
	/* No sample of this event: the record above is it. */
	return 0;
}

SEC("perf_event")
int fault_exit(struct bpf_perf_event_data *ctx)
{
	return exit_(ctx, 0);
}

SEC("perf_event")
int fault_exit_major(struct bpf_perf_event_data *ctx)
{
	return exit_(ctx, FOL_BPF_MAJOR);
}

/* A sample of this thread is about to be written: its fault's entry goes first. */
struct fol_bpf_pending *flush_entry(void *ctx) __hidden;
struct fol_bpf_pending *flush_entry(void *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fol_bpf_pending *p = bpf_map_lookup_elem(&follow, &tid);

	if (p && (p->state == FOL_BPF_OPEN || p->state == FOL_BPF_HELD) && !p->before_exec) {
		if (p->state == FOL_BPF_HELD)
			kcount(FOL_BPF_K_UNHELD);
		emit(ctx, p, NULL, FOL_BPF_ENTRY, 0, 0, 0);
		p->state = FOL_BPF_OUT;
	}
	return p;
}

/* Any other tracepoint recorded. */
SEC("tracepoint")
int flush(void *ctx)
{
	flush_entry(ctx);
	return 1;
}

/* kmem:mm_page_alloc, not sampled with kernel decisions: the order of a user folio
 * (movable) allocated inside a fault, into its summary. A fault that allocates one in an
 * anonymous private VMA, with nothing recorded inside so far, is held: counted at its
 * exit unless a recorded event comes inside. */
SEC("tracepoint")
int alloc(void *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fol_bpf_pending *p = bpf_map_lookup_elem(&follow, &tid);
	__u32 order = 0;
	__u64 gfp = 0;

	if (!p || p->state == FOL_BPF_IDLE)
		return 1;
	bpf_probe_read_kernel(&order, sizeof(order), (char *)ctx + alloc_order_off);
	bpf_probe_read_kernel(&gfp, alloc_gfp_size == 4 ? 4 : 8, (char *)ctx + alloc_gfp_off);
	if (!(gfp & 0x08) || order > FOL_BPF_MAX_ORDER) /* __GFP_MOVABLE: event.h's FOL_GFP_MOVABLE */
		return 1;
	if ((int)order > p->alloc_order)
		p->alloc_order = (__s8)order;
	p->last_order = (__s8)order;
	if (!p->anon && address_off <= FOL_BPF_RAW_MAX - 8) {
		__u64 addr;

		__builtin_memcpy(&addr, p->raw + address_off, sizeof(addr));
		p->anon = anon_vma(addr) ? 1 : 2;
	}
	if (p->state == FOL_BPF_OPEN && !p->before_exec && p->anon == 1 && alloc_class(fault_ec(p), 0) >= 0)
		p->state = FOL_BPF_HELD;
	return 1;
}

/* A field of a tracepoint's record, 4 or 8 bytes. */
static __u64 tp_field(void *ctx, __u32 off, __u32 size)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, size == 4 ? 4 : 8, (char *)ctx + off);
	return v;
}

/* file.bpf.c's: inside a followed fault, its page-cache folio read (once a fault). */
void fol_file_read(void) __hidden;

/* An RSS counter of file (0) or shmem (3) pages changed inside a fault: it mapped a page
 * of a file, PTE by PTE (fault-around, or the fault's own page) or a whole folio by its
 * PMD. Each such fault from 6.2; before, a task's RSS changes were batched (and traced
 * every 64 events). */
static int file_member(__u32 member)
{
	return member == 0 || member == 3;
}

/* kmem:rss_stat, recorded (no kernel decisions): a flush, and a file page mapped. */
SEC("tracepoint")
int rss_flush(void *ctx)
{
	flush_entry(ctx);
	if (file_member((__u32)tp_field(ctx, rss_member_off, 4)))
		fol_file_read();
	return 1;
}

/* kmem:rss_stat, not sampled with kernel decisions: a change of the anonymous (1) or swap
 * (2) counter inside a fault, into its summary; inside one not held, also written out
 * (after its entry) with the value before, for the model's swap-in rule. */
SEC("tracepoint")
int rss(void *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), member = (__u32)tp_field(ctx, rss_member_off, 4);
	__u64 size = tp_field(ctx, rss_size_off, 8), key, before = 0, *last;
	struct fol_bpf_pending *p;
	struct fol_bpf_rec r = { .what = FOL_BPF_RSS };

	if (member != 1 && member != 2) {
		if (file_member(member))
			fol_file_read();
		return 1;
	}
	key = tp_field(ctx, rss_mm_id_off, 4) << 2 | member;
	last = bpf_map_lookup_elem(&rss_last, &key);
	if (last) {
		before = *last;
		*last = size;
		r.sum = FOL_BPF_SUM_PREV;
	} else {
		bpf_map_update_elem(&rss_last, &key, &size, BPF_ANY);
	}
	p = bpf_map_lookup_elem(&follow, &tid);
	if (!p || p->state == FOL_BPF_IDLE)
		return 1;
	p->sum |= member == 1 ? FOL_BPF_SUM_ANON : FOL_BPF_SUM_SWAP;
	if (p->state == FOL_BPF_HELD || p->before_exec || rss_record_size > FOL_BPF_RAW_MAX)
		return 1;
	flush_entry(ctx);
	r.t1 = bpf_ktime_get_ns();
	r.addr = before;
	r.raw_size = (__u16)rss_record_size;
	for (int i = 1; i < FOL_BPF_RAW_MAX / 8; i++)
		((__u64 *)r.raw)[i] = ((__u64 *)ctx)[i];
	if (bpf_perf_event_output(ctx, &out, BPF_F_CURRENT_CPU, &r, sizeof(r)))
		count(1);
	return 1;
}

#include "unmapped.bpf.h"

/* A syscall tracepoint's argument n: its record is the common fields, the syscall's
 * number (an int, padded) and the arguments, unsigned longs (struct syscall_trace_enter;
 * fol_bpf_faults_layout() checks munmap's format says so). */
static __u64 sys_arg(void *ctx, int n)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), (char *)ctx + 16 + 8 * n);
	return v;
}

/* syscalls:sys_enter_munmap, recorded: a flush, and the range is unmapped. */
SEC("tracepoint")
int munmap_enter(void *ctx)
{
	flush_entry(ctx);
	unmapped(sys_arg(ctx, 0), sys_arg(ctx, 1));
	return 1;
}

/* syscalls:sys_enter_mremap, recorded: the old range goes (moved or shrunk), and the new
 * one with MREMAP_FIXED (what was there is unmapped). */
SEC("tracepoint")
int mremap_enter(void *ctx)
{
	flush_entry(ctx);
	unmapped(sys_arg(ctx, 0), sys_arg(ctx, 1));
	if (sys_arg(ctx, 3) & 2) /* MREMAP_FIXED */
		unmapped(sys_arg(ctx, 4), sys_arg(ctx, 2));
	return 1;
}

/* syscalls:sys_enter_mmap, not recorded: MAP_FIXED replaces what was mapped there. */
SEC("tracepoint")
int mmap_enter(void *ctx)
{
	if (sys_arg(ctx, 3) & 0x10) /* MAP_FIXED */
		unmapped(sys_arg(ctx, 0), sys_arg(ctx, 1));
	return 1;
}

/* sched:sched_process_fork, in the parent: a followed thread's children are followed. */
SEC("tracepoint")
int fork(void *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid;
	struct fol_bpf_pending *parent = bpf_map_lookup_elem(&follow, &tid);
	struct fol_bpf_pending idle = {};
	__u32 parent_tgid = (__u32)(pid_tgid >> 32);
	struct kspace *s;
	__s32 child = 0;

	if (!parent && kernel_reuse && every_task) {
		bpf_map_update_elem(&follow, &tid, &idle, BPF_NOEXIST);
		parent = bpf_map_lookup_elem(&follow, &tid);
	}
	if (!parent)
		return 1;
	idle.before_exec = parent->before_exec;
	idle.fork_parent = kernel_reuse ? parent_tgid : 0;
	idle.fork_seq = *(volatile __u64 *)&next_born;
	if (kernel_reuse && (s = bpf_map_lookup_elem(&spaces, &parent_tgid)))
		s->forked = 1;
	bpf_probe_read_kernel(&child, sizeof(child), (char *)ctx + fork_child_off);
	tid = (__u32)child;
	if (bpf_map_update_elem(&follow, &tid, &idle, BPF_ANY))
		count(0);
	return 1;
}

/* sched:sched_process_exec: a workload's thread starts being recorded. */
SEC("tracepoint")
int exec(void *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fol_bpf_pending *p = bpf_map_lookup_elem(&follow, &tid);

	if (kernel_reuse) {
		__u64 pid_tgid = bpf_get_current_pid_tgid();
		__u32 tgid = (__u32)(pid_tgid >> 32);
		struct kspace *s;

		if (p && p->fork_parent)
			fork_known(p, pid_tgid);
		/* A new address space: its space is the one made at exec's own first fault
		 * (space_of), if any, with the folios exec's faults put. */
		s = bpf_map_lookup_elem(&spaces, &tgid);
		if (s && s->mm != current_mm())
			bpf_map_delete_elem(&spaces, &tgid);
		else if (s && s->parent)
			space_disown(s);
	}
	if (p)
		p->before_exec = 0;
	return 1;
}

/* sched:sched_process_exit: the thread's slot is free for others. */
SEC("tracepoint")
int exit_thread(void *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid, tgid = (__u32)(pid_tgid >> 32);
	struct fol_bpf_pending *p;

	if (kernel_reuse && (p = bpf_map_lookup_elem(&follow, &tid)) && p->fork_parent)
		fork_known(p, pid_tgid);
	if (kernel_reuse && tid == tgid)
		bpf_map_delete_elem(&spaces, &tgid);
	bpf_map_delete_elem(&follow, &tid);
	return 1;
}

char LICENSE[] SEC("license") = "GPL";
