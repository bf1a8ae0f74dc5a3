/* SPDX-License-Identifier: GPL-2.0-only */
/* Built-in workloads: the reference scenarios of the linux-mm threads, with phase timings
 * measured inside the workload. */
#ifndef FOL_WORKLOAD_H
#define FOL_WORKLOAD_H

#include <stddef.h>

enum fol_wl_policy {
	FOL_WL_PTE_THP,	/* MADV_HUGEPAGE, then split each PMD mapping: PTE-mapped 2M folios */
	FOL_WL_THP,	/* MADV_HUGEPAGE: PMD-mapped 2M folios where THP allows */
	FOL_WL_MTHP,	/* no madvise: whatever the mTHP "always" sizes give */
	FOL_WL_SMALL,	/* MADV_NOHUGEPAGE: 4K pages only */
};

enum fol_wl_mode {
	FOL_WL_BYTE,	/* one store per stride, in address order */
	FOL_WL_RANDOM,	/* one store per page, in random order */
	FOL_WL_MEMSET,	/* memset of the whole region */
};

enum fol_wl_kind {
	FOL_WL_FORK_REUSE,
	FOL_WL_FORK_LOOP,
	FOL_WL_COW,
	FOL_WL_POPULATE,
	FOL_WL_PAGEOUT,
	FOL_WL_COLLAPSE,
};

/* How the region is populated: its first touch (faults), or asked of the kernel, which
 * allocates the folios without a fault. */
enum fol_wl_populate {
	FOL_WL_BY_TOUCH,
	FOL_WL_BY_MADVISE, /* madvise(MADV_POPULATE_WRITE), 5.14 and later */
	FOL_WL_BY_MMAP,	   /* mapped again with MAP_POPULATE */
	FOL_WL_BY_MLOCK,   /* mlock */
	FOL_WL_BY_PROCMEM, /* written through /proc/self/mem: get_user_pages() */
	FOL_WL_BY_DIO,	   /* read into from a file with O_DIRECT: pin_user_pages() */
	/* Faults other than anonymous allocations (serve's per-class costs in make bench): */
	FOL_WL_BY_READ,	   /* a load from each page: the zero page, where the kernel maps it */
	FOL_WL_BY_FILE,	   /* the region a file's private mapping, a load from each page */
};

struct fol_wl_opts {
	enum fol_wl_kind kind;
	size_t size;
	enum fol_wl_policy policy;
	size_t stride;		/* bytes between stores in the write pass; page size by default */
	enum fol_wl_mode mode;
	int threads;		/* write pass split over this many threads (byte mode) */
	const char *phase_file;	/* JSON lines of phase timings, or NULL */
	const char *swapfile;	/* pageout: set up this swap file for the run, remove it after */
	int swapin;		/* pageout: read the region back afterwards (swap-in faults); 2: a
				 * forked child reads it */
	int loops;		/* fork-loop: forks and write passes (default 50) */
	int child_writes;	/* cow: then the child writes the region (reuse of what it
				 * inherited, the parent's copies made) */
	unsigned hold_ms;	/* stay this long before unmapping the region at the end */
	unsigned delay_ms;	/* wait this long after populating, before what follows */
	int readonly;		/* collapse: make the region read-only first */
	enum fol_wl_populate populate_by; /* how the kernel populates it */
	const char *dio_file;	/* FOL_WL_BY_DIO: the file read */
	const char *map_file;	/* FOL_WL_BY_FILE: the file mapped */
	int khugepaged;		/* collapse: leave it to khugepaged (tuned for the run) */
	int zram;		/* pageout: swap on zram0 for the run, reset after */
	size_t keep_one;	/* pageout: first unmap all but one page of each block this
				 * size (partly mapped folios, which reclaim splits first) */
};

struct fol_wl_info {
	const char *name;
	enum fol_wl_kind kind;
	const char *help;
};

/* The built-in workloads, ended by a NULL name; and one by name (NULL: no such). */
extern const struct fol_wl_info fol_workloads[];
const struct fol_wl_info *fol_wl_find(const char *name);
int fol_wl_parse_policy(const char *s, enum fol_wl_policy *out);
int fol_wl_parse_mode(const char *s, enum fol_wl_mode *out);
/* Runs in the calling process; returns 0 or a negative errno: -ENOSPC when pageout has
 * no swap to page out to (give a swap file). */
int fol_wl_run(const struct fol_wl_opts *o);

#endif
