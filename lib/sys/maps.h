/* SPDX-License-Identifier: GPL-2.0-only */
/* The folio composition of a live process, read from its page tables as the kernel's
 * tools/mm/thpmaps does: /proc/PID/maps for the VMAs, /proc/PID/pagemap for the PFN
 * mapped at each page, /proc/kpageflags for whether that page heads a large folio, is a
 * tail of one, or is a folio of its own, and /proc/PID/smaps for the PMD-mapped part.
 * Reading PFNs and page flags needs root (CAP_SYS_ADMIN). */
#ifndef FOL_MAPS_H
#define FOL_MAPS_H

#include <cjson/cJSON.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "util/order.h"

/* One anonymous folio mapped in the process. */
struct fol_maps_folio {
	uint64_t va;		/* where its first page would be: the folio's base address */
	uint64_t pfn;		/* its head page */
	int order;
	unsigned mapped;	/* pages of it mapped here, in place (< 1 << order: partially) */
	int aligned;		/* va is naturally aligned to the folio's size */
};

/* Anonymous memory of one VMA (or of the whole process) by folio order. */
struct fol_maps_sum {
	uint64_t folios[FOL_MAX_ORDER + 1];	/* folios with at least one page mapped */
	uint64_t bytes[FOL_MAX_ORDER + 1];	/* bytes mapped, by the order of their folio */
	uint64_t partial[FOL_MAX_ORDER + 1];	/* large folios not wholly mapped here */
	uint64_t unaligned[FOL_MAX_ORDER + 1];	/* large folios not naturally aligned */
	uint64_t pmd_bytes;			/* of those, mapped by PMDs (smaps AnonHugePages) */
	uint64_t swapped_bytes;			/* pages in swap, not mapped */
	uint64_t zero_bytes;			/* pages mapping the zero page (4K or huge) */
};

struct fol_maps_vma {
	uint64_t start, end;
	char perms[5];
	char name[64];		/* "[heap]", "[stack]", "[anon:NAME]", a path, or "" */
	struct fol_maps_sum sum;
};

struct fol_maps {
	int pid;
	unsigned page_size;
	int pmd_order;
	struct fol_maps_vma *vmas;	/* the VMAs with anonymous memory */
	int nvmas;
	struct fol_maps_folio *folios;	/* every anonymous folio, when asked for */
	size_t nfolios, folios_cap;
	struct fol_maps_sum total;
};

/* Page flags by page frame (/proc/kpageflags), read a block at a time: lookups run
 * mostly forward. The kernel takes ~110 ns a frame to read (57 µs a block of 512): for
 * frames scattered in memory (the page cache), a smaller block. */
#define FOL_KPF_BLOCK 512
struct fol_kpf {
	int fd;
	unsigned block;		/* frames read at a time: a power of two, FOL_KPF_BLOCK at most */
	uint64_t base, n;
	uint64_t v[FOL_KPF_BLOCK];
};

/* -EPERM without the rights (root), other -errno. */
int fol_kpf_open(struct fol_kpf *k, const char *root);
void fol_kpf_close(struct fol_kpf *k);
/* The folio that holds the page at pfn: its first page's frame, and its order in *order
 * (0: a page of its own). */
uint64_t fol_kpf_folio(struct fol_kpf *k, uint64_t pfn, int *order);
/* /proc/PID/pagemap: the frame of a present page. */
#define FOL_PM_PFN_MASK ((1ull << 55) - 1)
#define FOL_PM_PRESENT (1ull << 63)

/* Read pid's anonymous folios. root: "" or a test's fake /proc and /sys tree. signals:
 * a count a signal handler raises, or NULL: once it changes, the walk ends within a
 * window of pages (a kernel before 6.7 reads a reservation of terabytes page by page).
 * -ENOENT: no such process; -ESRCH: it exited while it was read; -EPERM: PFNs or page
 * flags not readable (not root); -EINVAL: a kernel thread; -EINTR: a signal came; other
 * -errno. */
int fol_maps_read(pid_t pid, const char *root, int want_folios,
		  const volatile sig_atomic_t *signals, struct fol_maps **out);
/* 1 when pid is a kernel thread (PF_KTHREAD in root/proc/PID/stat's flags): it has no
 * memory of its own (fol_maps_read() says -EINVAL, record -p refuses it). */
int fol_pid_is_kernel_thread(const char *root, pid_t pid);
void fol_maps_free(struct fol_maps *m);
/* The order of a PMD-mapped folio (transparent_hugepage/hpage_pmd_size), -1 without THP. */
int fol_maps_pmd_order(const char *root, unsigned page_size);
/* Text like thpmaps: per VMA and rolled up (all_vmas: every VMA, else the total only). */
void fol_maps_text(const struct fol_maps *m, int all_vmas, FILE *f);
/* Schema foliostat/maps/v1 (man foliostat-maps). */
cJSON *fol_maps_json(const struct fol_maps *m);
/* The folios read with want_folios, as runs for seeding a folio map: an array of
 * {"start": "0x...", "order": N, "n": COUNT} for naturally aligned folios of one order
 * laid end to end. Folios that are not naturally aligned cannot be keyed by address and
 * are counted in *unaligned instead. */
cJSON *fol_maps_seed_json(const struct fol_maps *m, uint64_t *unaligned);

#endif
