/* SPDX-License-Identifier: GPL-2.0-only */
/* What a recording says, computed by the model and drawn by text, JSON and the TUI. */
#ifndef FOL_SUMMARY_H
#define FOL_SUMMARY_H

#include <stdint.h>

#include "util/hist.h"
#include "util/order.h"

enum fol_class {
	FOL_C_ANON_ALLOC, /* not present, allocated a user folio */
	FOL_C_ANON_ZERO,  /* read, not present, mapped without allocating (zero page) */
	FOL_C_WP_REUSE,	  /* present + write, no allocation */
	FOL_C_WP_COPY,	  /* present + write, allocated: COW */
	FOL_C_FILE,	  /* not present in a file-backed VMA */
	FOL_C_SWAP_IN,	  /* anonymous, brought back from swap */
	FOL_C_OTHER,
	/* in a mapping of the kernel's own pages ([vdso], [vvar], [vvar_vclock],
	 * [vsyscall]...): no folio of the process, no zero page */
	FOL_C_SPECIAL,
	FOL_NR_CLASSES
};

/* Why a fault's order is "unknown". */
enum fol_unknown {
	FOL_U_BEFORE,		/* anonymous, allocated before the recording, not seeded */
	FOL_U_NOT_SEEDED,	/* not among the folios seeded from the page tables at the start */
	FOL_U_MOVED_UNALIGNED,	/* mremap moved it to an address not aligned to its size */
	FOL_U_MREMAP_UNSEEN,	/* its process moved memory with mremap; no exit recorded */
	FOL_U_FILE_CACHED,	/* file fault on a page cache folio added before the fault */
	FOL_U_SWAP_CACHE,	/* swap-in without allocating: the folio was in the swap cache */
	FOL_U_ZERO_PAGE,	/* the zero page, 4K or huge: the events do not tell which */
	FOL_U_FILE_EVICTED,	/* file fault on a page not in the page cache at the end */
	FOL_U_FILE_UNREAD,	/* file fault on a file not read at the end (gone, replaced) */
	FOL_NR_UNKNOWN
};


/* System calls that change mappings in bulk, timed from entry to exit; madvise by its
 * advice. */
enum fol_call {
	FOL_CALL_MUNMAP,
	FOL_CALL_MREMAP,
	FOL_CALL_MPROTECT,
	FOL_CALL_MADV_DONTNEED,
	FOL_CALL_MADV_FREE,
	FOL_CALL_MADV_COLD,
	FOL_CALL_MADV_PAGEOUT,
	FOL_CALL_MADV_COLLAPSE,
	FOL_CALL_MADV_POPULATE,	/* MADV_POPULATE_READ and _WRITE */
	FOL_CALL_MADV_OTHER,
	FOL_CALL_MMAP_POPULATE,	/* mmap with MAP_POPULATE or MAP_LOCKED (other mmaps: none) */
	FOL_CALL_MLOCK,		/* mlock, mlock2, mlockall */
	FOL_NR_CALLS
};

/* Folios written to swap (swapout.h), by the order they were allocated at. */
struct fol_swapout {
	uint64_t whole[FOL_MAX_ORDER + 1];	/* written as one folio */
	uint64_t split[FOL_MAX_ORDER + 1];	/* split first, written in pieces */
	uint64_t pieces[FOL_MAX_ORDER + 1];	/* the writes of those pieces */
	uint64_t unknown;	/* writes of pages no allocation in the recording explains */
};

void fol_swapout_add(struct fol_swapout *to, const struct fol_swapout *from);
/* At most *most folios of order were written whole (the kernel's own count of the size's
 * whole swap-outs over the recording, system-wide): those judged whole beyond it were
 * split, their one write a piece. *most is what is left for the next; returns the folios
 * moved. */
uint64_t fol_swapout_bound(struct fol_swapout *sw, int order, uint64_t *most);

struct fol_call_stats {
	uint64_t calls, errors;
	uint64_t bytes;			/* the ranges asked for */
	struct fol_hist time;		/* entry to exit, per call */
	/* Pages the kernel freed inside the calls (kmem:mm_page_free in the calling thread),
	 * by the order they were freed at: a large folio freed whole is one of its order. */
	uint64_t freed[FOL_MAX_ORDER + 1];
	/* User folios (movable) the kernel allocated for a populating call, outside any
	 * fault, by order: no fault event comes with them (GUP calls handle_mm_fault()
	 * without the exception). Also in the order's folios_allocated. */
	uint64_t populated[FOL_MAX_ORDER + 1];
	struct fol_swapout swapped;	/* written to swap inside the calls */
};

/* THP collapse, by khugepaged or MADV_COLLAPSE: every PMD looked at and every collapse
 * tried, by result (the kernel's enum scan_result, named by the recording's format). */
#define FOL_SCAN_RESULTS 64
struct fol_collapse {
	/* Of the recorded processes' memory: by MADV_COLLAPSE in their threads or by
	 * khugepaged (an mm the recording saw them lock, mmap_lock tracepoints). */
	uint64_t scans[FOL_SCAN_RESULTS];
	uint64_t collapses[FOL_SCAN_RESULTS];
	struct fol_hist time;		/* isolation to the collapse's end, per collapse */
	/* The part of scans and collapses that khugepaged did. */
	uint64_t khugepaged_scans[FOL_SCAN_RESULTS];
	uint64_t khugepaged_collapses[FOL_SCAN_RESULTS];
	/* khugepaged's work on other memory: of a process the options leave out, or of an
	 * mm no recorded task was seen to lock (not attributable). */
	uint64_t other_scans, other_collapses;
	uint64_t unattributed_scans, unattributed_collapses;
};

/* Reclaim overlapping the recording: direct reclaim in the recorded threads, kswapd awake
 * (from its wake to its sleep, within the recording). */
struct fol_reclaim {
	uint64_t direct, direct_reclaimed;	/* reclaims entered; pages they reclaimed */
	struct fol_hist direct_time;		/* begin to end, per reclaim */
	uint64_t kswapd_wakes, kswapd_ns;
};

/* Faults per folio buckets: 1, 2-3, 4-7, ..., 256-511, 512+ */
#define FOL_REUSE_BUCKETS 10

struct fol_cell {
	struct fol_hist lat;	/* handler latency: entry to exit sample */
	struct fol_hist gap;	/* from the thread's previous fault exit to this entry */
	uint64_t faults;	/* all faults of the cell, closed or not */
	uint64_t unclosed;	/* no exit sample: failed, retried away, or lost */
	uint64_t untimed;	/* closed by an exit whose time was another clock's */
	uint64_t major;
	uint64_t sampled_ns;	/* sampled method: cpu-clock samples inside these faults x period */
};

/* Reuse is counted per episode: from the time a folio becomes exclusive to its owner to
 * the time it is shared again (the owner forks) or goes away. A program that forks in a
 * loop gives its 64K folios one episode of 16 faults per fork, not 16 x forks. */
struct fol_reuse {
	uint64_t folios;	/* distinct folios that took at least one wp_reuse fault */
	uint64_t episodes;	/* (folio, episode) pairs with reuse faults: the ratios' base */
	uint64_t faults;
	uint64_t time_ns;	/* all their reuse faults */
	uint64_t surplus_ns;	/* all but each episode's first reuse fault */
	uint64_t hist[FOL_REUSE_BUCKETS]; /* episodes by faults in them */
};

struct fol_order_stats {
	uint64_t folios_allocated; /* user folios allocated by faults and populating calls */
	struct fol_cell cell[FOL_NR_CLASSES];
	struct fol_reuse reuse;
};

struct fol_summary {
	struct fol_order_stats order[FOL_NR_ORDER_SLOTS];
	int sampled;			/* latency method: cpu-clock samples, not entry/exit */
	uint64_t clock_samples, clock_in_fault;
	struct fol_hist all_lat, all_gap;
	uint64_t faults, unclosed, mismatched_exits, orphan_exits;
	uint64_t unclosed_kernel; /* of the unclosed, taken in kernel mode */
	/* ... of those, the ones whose task had page faults disabled at their entry (the BPF
	 * path reads it): fixed up by the kernel, no exit to come. */
	uint64_t unclosed_faults_disabled;
	/* Open when the recording ended (attached, --duration, a signal): a fault in flight,
	 * whose class and time are not known yet. Not in faults or the tables. */
	uint64_t in_flight;
	/* PMD ranges whose first read fault was counted on the huge zero page (the THP policy
	 * allowed it) but which took a second one: the 4K zero page was mapped there. */
	uint64_t huge_zero_refuted;
	uint64_t untimed;		/* faults whose exit carried another sampler's time */
	/* Exits placed by their position (a retimed sample, session.h); the rest of the
	 * retimed samples are entries and allocations, whose clock stepped back. */
	uint64_t retimed_exits;
	uint64_t first_ns, last_ns;	/* time span of the events seen */
	uint64_t lost;
	uint64_t outside_cgroup;	/* samples of tasks outside record -G's cgroup */
	uint64_t threads, processes;
	/* Folios put in the folio map from the page tables at attach, by order; and those
	 * that ran past the top of the address space, left out. */
	uint64_t seeded[FOL_MAX_ORDER + 1], seed_dropped;
	uint64_t moved_unaligned;	/* folios mremap moved to an unaligned address */
	uint64_t unknown[FOL_NR_UNKNOWN]; /* faults of order unknown, by cause */
	/* File faults on pages already cached whose order the page cache told: indexed by
	 * enum fol_pc_source, FOL_PC_ADDED (added earlier in the recording),
	 * FOL_PC_AT_END (the page cache at the end) and FOL_PC_AT_FAULT (read inside the
	 * fault); the others stay 0. */
	uint64_t file_order[3];
	struct fol_call_stats calls[FOL_NR_CALLS];
	/* User folios the kernel faulted in for a system call the recording does not follow
	 * (get_user_pages: O_DIRECT I/O, /proc/pid/mem, io_uring's fixed buffers), by order:
	 * a movable allocation outside faults and calls, then the thread's own anonymous RSS
	 * grown by its size. Also in the order's folios_allocated. */
	uint64_t populated_other[FOL_MAX_ORDER + 1];
	struct fol_collapse collapse;
	struct fol_swapout swapout;	/* every folio written to swap, in a call or not */
	struct fol_reclaim reclaim;
	/* Faults per second over the run, per class, for the timeline. */
	uint64_t bin_ns;
	uint64_t bins_t0;	/* bin 0 starts here: the first fault's entry */
	int nbins;
	uint64_t *bins;		/* nbins x FOL_NR_CLASSES */
	struct fol_sites *sites; /* where the faults come from (sites.h) */
};

const char *fol_class_name(enum fol_class c);
/* "munmap", "madvise(PAGEOUT)"; and the JSON key: "munmap", "madvise_pageout". */
const char *fol_call_name(enum fol_call c);
/* 1 for the calls whose folios the kernel allocates without a fault (populated). */
int fol_call_populates(enum fol_call c);
/* 0 for the calls that free no user memory (mprotect, madvise(COLD), the populating
 * ones): what is freed inside them is the kernel's (page tables, slab). */
int fol_call_frees_user(enum fol_call c);
const char *fol_call_key(enum fol_call c);
/* "before_recording", ...: the JSON key; and the sentence the report says. */
const char *fol_unknown_name(enum fol_unknown u);
const char *fol_unknown_text(enum fol_unknown u);
int fol_class_parse(const char *s);
/* Which of FOL_REUSE_BUCKETS n faults per folio falls in, and its label. */
int fol_reuse_bucket(uint64_t n);
const char *fol_reuse_bucket_label(int b);

#endif
