/* SPDX-License-Identifier: GPL-2.0-only */
/* The model's insides, shared by model.c (faults, folios, address spaces) and
 * model_kernel.c (system calls, collapse, reclaim and swap-out). Not an API. */
#ifndef FOL_MODEL_PRIV_H
#define FOL_MODEL_PRIV_H

#include <stdint.h>

#include "sys/cgroup.h"
#include "model/model.h"
#include "sys/pagecache.h"
#include "model/sites.h"
#include "symbols/unwind.h"

/* A folio's key in the map: its naturally aligned base address, with the order in the
 * low bits (below any page size). mremap can move a large folio to an address not
 * aligned to its size (the kernel keeps it whole, mapped by PTEs): such a folio is keyed
 * by its first page's address, with FOLIO_UNALIGNED. */
#define FOLIO_KEY_LOW 0xfffull
#define FOLIO_UNALIGNED 0x800ull
#define FOLIO_ORDER(key) ((int)((key) & 0xff))

struct folio {
	uint64_t pfn;
	uint64_t reuse_ns;	/* latency of its reuse faults in this episode */
	uint32_t reuse;		/* wp_reuse faults taken in this episode */
	uint32_t first_ns;	/* latency of the first of them */
	/* An earlier episode counted it among the reused folios: the generation of the
	 * address space that did (a forked child starts a new one: none of the folios it
	 * shares with its parent are counted for it). */
	uint32_t counted;
};

/* [start, end): the key of the search trees of mappings, seeded runs and range sets
 * (model.c), whose elements begin with one. */
struct range {
	uint64_t start, end;
};

#define FOL_RANGE_FIRST union { struct range span; struct { uint64_t start, end; }; }

struct vma {
	FOL_RANGE_FIRST;
	int file;
	int name;	/* sites.h id of its name: a path, [heap], [stack], //anon; -1 unknown */
	int shared;	/* MAP_SHARED */
	int special;	/* the kernel's own pages: [vdso], [vvar]... (fol_model_is_special) */
	uint64_t pgoff;	/* file offset of start, bytes */
	struct fol_file_id id; /* the file's device and inode; ino 0: not known */
};

/* Folios taken out of the map (take_range), with their keys. */
struct taken_folio {
	uint64_t key;
	struct folio f;
};

struct taken {
	struct taken_folio *v;
	size_t n, cap;
};

/* An mremap between its entry and its exit: mmap_lock makes it the only one of its mm. */
/* A run of folios of one order found in the page tables at attach, laid end to end from
 * start: kept as a run (a file may claim 2^36 of them) until a fault looks one up, which
 * then goes into the folio map (model.c: seeds). */
struct seed {
	FOL_RANGE_FIRST;
	int order;
};

struct seeds {
	struct seed *v;
	size_t n, cap;
};

struct move {
	int tid;		/* 0: none in flight */
	uint64_t start, len, new_len;
	struct vma vma;		/* the mapping moved (start, end unused) */
	struct taken folios;	/* out of the map until the exit says where they went */
	struct seeds seeds;	/* ... and the runs of seeded folios */
};

struct mm {
	/* PMD-sized ranges that had a zero-page read fault (a byte: zero_page_order()): a
	 * second one there proves the 4K zero page (the huge one would have mapped the whole
	 * range at the first). */
	struct fol_u64map *zero_ranges;
	void *nohuge;		/* MADV_NOHUGEPAGE ranges: never the huge zero page */
	void *huge;		/* MADV_HUGEPAGE ranges: THP under the madvise policy */
	/* The last value of each RSS counter (kmem:rss_stat gives the value, not the change):
	 * MM_FILEPAGES, MM_ANONPAGES, MM_SWAPENTS, MM_SHMEMPAGES; for events without an mm_id
	 * (model.c rss_change). rss_mm_id: the mm_id its faults' events carry, 0 unknown. */
	struct rss_state {
		int64_t v[4];
		uint8_t known[4];
	} rss;
	uint32_t rss_mm_id;
	struct move move;
	void *unaligned;	/* sets of struct range (model.c: add_range) */
	int mremap_unseen;	/* an mremap whose exit was not recorded: destination unknown */
	int seeded;		/* its folio map was seeded from the page tables at attach */
	void *seeds;		/* tsearch tree of struct seed, not overlapping */
	uint64_t seeded_at;	/* when (the exec stop or the attach): an exec after it drops */
	/* key: folio base address | order; shared with a forked child until either changes
	 * it (fol_u64map_own before any change). */
	struct fol_u64map *folios;
	uint32_t gen;		   /* its generation: see struct folio's counted */
	uint32_t orders;	   /* bit o: the map has (or had) folios of order o */
	uint32_t unaligned_orders; /* ... of order o keyed FOLIO_UNALIGNED */
	struct vma *last_vma;	   /* where the last lookup of a faulting address hit */
	struct vma *last_code;	   /* ... of a faulting IP (a fault's site): its own, or they
				    * would push each other out */
	void *vmas;		   /* tsearch tree of struct vma (model.c) */
	int nvmas;
};

struct open_fault {
	uint64_t start, address, error_code;
	uint64_t cgroup;	/* its task's cgroup (v2) id, where the samples carry it; 0 not */
	uint64_t ip;		/* where it faulted: a user IP, or a kernel one (kernel) */
	int kernel;
	int faults_disabled;	/* its task's page faults were off (event.h) */
	int alloc_order;	/* largest user folio allocated, -1 none */
	int last_order;		/* the last user folio allocated, -1 none */
	uint64_t last_pfn;
	uint64_t samples, period; /* sampled method: cpu-clock samples in the handler */
	uint64_t alloc_pfn;
	int filemap_order;
	int file_read, file_order; /* its exit's (event.h): the page-cache folio it found */
	int anon_rss, swap_rss;
	int64_t anon_delta, swap_delta; /* bytes the fault added to the anon and swap RSS */
	int untimed;		/* closed by a retimed exit (event.h): no latency */
	/* Its exit came before it (a retimed exit, placed before the entry): closed, untimed,
	 * when the thread's next fault or call would close it unclosed. */
	int exit_early, exit_major;
	int episode_kept;	/* its exit's (event.h): no new reuse episode told */
};

/* A system call that changes mappings, in progress in a thread: what it asked for and
 * what the kernel freed inside it. */
struct open_call {
	int open;
	enum fol_call call;
	uint64_t start, bytes;
	uint64_t freed[FOL_MAX_ORDER + 1];
	uint64_t populated[FOL_MAX_ORDER + 1];
	/* The last folio counted populated, taken back if the page cache takes it: a file
	 * page read in for the call is not the process's (it is added right after). */
	uint64_t populated_pfn;
	int populated_order;
	uint64_t unknown_writes; /* swap writes of pages of no known folio */
	int wrote;		 /* folios written to swap: judged at its end */
};

struct thread {
	int pid;
	int open;
	struct open_fault f;
	/* record -g: the open fault's user stack, innermost first; apart from f, which is
	 * cleared at every fault entry. */
	uint64_t chain[FOL_STACK_MAX];
	int nchain;
	int comm_id;		/* its name's id in the sites (sites.h) + 1; 0: not looked up */
	uint64_t last_exit;
	/* A retimed exit that found no fault open: its page + 1, kept for the thread's next
	 * entry (0: none); and whether it was a major fault's. */
	uint64_t early_exit;
	int early_major;
	struct open_call call;
	/* A user folio allocated outside its faults and recorded calls, until its anonymous
	 * RSS grows by the folio's size (model_kernel.c fol_model_gup_claim): its page + 1,
	 * 0 none. */
	uint64_t gup_pfn;
	int gup_order;
	uint64_t isolated_at;	/* a collapse's pages isolated at (mm_collapse_huge_page_isolate) */
	uint64_t reclaim_since;	/* in direct reclaim since */
	uint64_t awake_since;	/* kswapd: awake since */
	int kswapd_seen;	/* kswapd: an event of it was seen (a sleep may be its first) */
};

struct fol_model {
	struct fol_model_opts o;
	unsigned page_shift;
	struct fol_u64map *threads; /* tid -> struct thread */
	struct fol_u64map *mms;	    /* pid -> struct mm */
	struct fol_comms *comms;
	struct fol_swapout_map *swap;
	struct fol_pagecache *pc; /* page-cache folio orders (pagecache.h) */
	struct fol_u64map *owners; /* mm_struct address -> pid, from the mmap_lock events */
	struct fol_u64map *pids;   /* processes counted (summary processes), by pid */
	struct fol_u64map *mm_tids; /* o.mm_threads, when known */
	struct fol_u64map *rss_mms; /* rss_stat's mm_id -> struct rss_state */
	struct fol_u64map *kernel_pages; /* pfn -> order: the kernel's own, allocated here */
	/* live: tid -> the time of its exit. The kernel tears a process's memory down after
	 * its exit record (6.18: page frees, rss_stat, TLB flushes of the exited tid), and
	 * those events made the thread and address space anew, never to be dropped: serve
	 * grew by 12 MB a minute under a fork/exit loop. Forgotten 2 s after. */
	struct fol_u64map *exited;
	uint32_t exits;
	struct fol_cgroups cg;	   /* record -G's scope, grown by the cgroups made in it */
	struct fol_sites *sites;   /* handed to the summary at the end */
	int kernel_code;	   /* the sites' name of kernel code, "[kernel]" */
	struct fol_unwinder *unwinder; /* --call-graph dwarf, made at its first stack */
	/* ... the file mappings its modules were made of, and the next fault's, compared
	 * so that the files are read again only when the set changes (fork, exec, mmap). */
	struct fol_unwind_map *umaps, *unext;
	int numaps, nunext;
	size_t cap_umaps;
	/* The thread of the previous event: most events come in runs from one thread.
	 * Reset whenever the threads map changes, since entries move then. */
	int last_tid, last_pid;
	struct thread *last_thread;
	struct mm *last_mm;
	struct fol_summary s;
	size_t bins_cap;
	uint32_t generations;	/* of address spaces, made so far */
	struct taken dropped;	/* drop_orders' scratch, kept between calls */
	/* A histogram could not grow (out of memory) where no error can be returned: the
	 * event, or the finish, fails with -ENOMEM. */
	int nomem;
	uint64_t t0;
};

/* A value into a histogram of the summary; out of memory is remembered (nomem). */
static inline void fol_model_hist_add(struct fol_model *m, struct fol_hist *h, uint64_t v)
{
	if (fol_hist_add(h, v))
		m->nomem = 1;
}

/* A thread of the kernel's that works on other processes' memory (khugepaged, kswapd). */
int fol_model_mm_thread(const struct fol_model *m, int tid);
/* A task the options (--pid, --comm) select. */
int fol_model_selected(const struct fol_model *m, int pid, int tid);
/* The entry and exit of a bulk system call (munmap, mremap, mprotect, madvise). */
void fol_model_call_begin(struct thread *t, const struct fol_event *ev);
void fol_model_call_end(struct fol_model *m, struct thread *t, int tid, const struct fol_event *ev);
int fol_model_populated(struct thread *t, const struct fol_event *ev);
void fol_model_populated_cached(struct thread *t, const struct fol_event *ev);
void fol_model_gup_note(struct thread *t, const struct fol_event *ev);
void fol_model_gup_claim(struct fol_model *m, struct thread *t, int tid, int64_t anon_bytes);
int fol_model_on_collapse(struct fol_model *m, struct thread *t, int tid, const struct fol_event *ev);
int fol_model_on_mmap_lock(struct fol_model *m, const struct fol_event *ev);
void fol_model_on_reclaim(struct fol_model *m, struct thread *t, int tid, const struct fol_event *ev);
void fol_model_on_write_folio(struct fol_model *m, struct thread *t, int tid, const struct fol_event *ev);

/* Between model.c (the events), model_space.c and model_fault.c. */

void fol_model_mm_release(struct mm *mm);

struct mm *fol_model_get_mm(struct fol_model *m, int pid);

/* The folio's reuse episode ends (it is shared again, or gone): into the summary, and
 * its counts start over. */
void fol_model_end_episode(struct fol_model *m, const struct mm *mm, uint64_t key, struct folio *f);

int fol_model_drop_range(struct fol_model *m, struct mm *mm, uint64_t start, uint64_t end);

/* The mappings of an address space, the runs of seeded folios and the range sets are
 * search trees (glibc's tsearch) of disjoint ranges, where two that overlap compare equal,
 * so that finding an address, or any element a range touches, takes log n: a recording
 * can hold 100,000 mappings, and an array searched or kept sorted took seconds. */
int fol_model_range_cmp(const void *a, const void *b);

/* A copy of elem (size bytes, a struct range first) into the tree at root: 1 when it went
 * in, 0 when an element there overlaps it (the callers cut those first), -ENOMEM. */
int fol_model_tree_insert(void **root, const void *elem, size_t size);

/* Every mapping [start, end) touches goes, a part outside it staying: each found one is
 * deleted, its head and tail put back (they do not touch the range, so the search ends). */
int fol_model_vma_remove(struct mm *mm, uint64_t start, uint64_t end);

/* A mapping that ends before it starts (a length past the top of the address space)
 * maps nothing. */
int fol_model_vma_add(struct mm *mm, const struct vma *nv);

/* Faults come in runs over one region: try where the last lookup (through last) hit. */
const struct vma *fol_model_vma_find_from(struct mm *mm, uint64_t addr, struct vma **last);

int fol_model_vma_each(const struct mm *mm, int (*fn)(const struct vma *v, void *arg), void *arg);

const struct vma *fol_model_vma_find(struct mm *mm, uint64_t addr);

/* Anonymous memory as perf names it; everything else with a path is a file (shmem and
 * memfd included: their faults go through the page cache). */
int fol_model_is_file(const char *name);

/* The seeded folio at addr, if any, into the folio map (where it would have been had the
 * runs been put there whole), and out of its run. A folio a fault made at its key since
 * stays. */
int fol_model_seed_take_at(struct fol_model *m, struct mm *mm, uint64_t addr);

/* A forked child's copy of its parent's runs. */
int fol_model_seeds_copy(const struct mm *parent, struct mm *child);

/* A mapping of pages the kernel provides (a vm_special_mapping): a read there maps the
 * kernel's page, as anon_zero would look, but it is neither anonymous memory nor a zero
 * page (a C build's 642 "anon_zero" faults were all on these). */
int fol_model_is_special(const char *name);

struct folio *fol_model_folio_lookup(struct fol_model *m, struct mm *mm, uint64_t addr, int *order);

int fol_model_folio_insert(struct fol_model *m, struct mm *mm, uint64_t addr, int order, uint64_t pfn);

int fol_model_accepted(struct fol_model *m, const struct thread *t, int tid, uint64_t start,
		       int order, int cls);

/* [start, end) into the set, merged with those it overlaps. */
int fol_model_add_range(void **set, uint64_t start, uint64_t end);

int fol_model_close_fault(struct fol_model *m, int tid, struct thread *t, uint64_t end, int major);

/* mremap moves the folios of [start, start + len) to wherever its exit says: they leave
 * the map at the entry and come back at the exit, at the same offsets, with their reuse
 * episodes going on (a move shares nothing). */
int fol_model_move_begin(struct fol_model *m, struct mm *mm, const struct fol_event *ev);

int fol_model_move_end(struct fol_model *m, struct mm *mm, int64_t ret);

/* An mremap whose exit never came (a recording without sys_exit_mremap): its folios are
 * gone from where the model can see them. */
void fol_model_move_lost(struct fol_model *m, struct mm *mm);

int fol_model_drop_mm(struct fol_model *m, int pid);

int fol_model_copy_vma(const struct vma *v, void *child);

/* Folios found in the page tables at attach: a run, as if the faults that made them had
 * been recorded (their folios go into the map when a fault looks them up). One that would
 * pass the top of the address space is cut there. */
int fol_model_seed_folios(struct fol_model *m, const struct fol_event *ev);

/* Sampled method: a thread is always inside its next fault, which began at its previous
 * exit; nothing opens it but that. */
void fol_model_open_sampled(struct thread *t, uint64_t time);

int fol_model_on_fault_entry(struct fol_model *m, struct thread *t, const struct fol_event *ev);

int fol_model_on_clock(struct fol_model *m, struct thread *t, const struct fol_event *ev);

int fol_model_on_fault_exit(struct fol_model *m, struct thread *t, const struct fol_event *ev);

#endif
