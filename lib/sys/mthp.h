/* SPDX-License-Identifier: GPL-2.0-only */
/* THP/mTHP policy for one run: set from a spec like "64K=always,2M=madvise", and put back
 * as it was afterwards. */
#ifndef FOL_MTHP_H
#define FOL_MTHP_H

#include <stddef.h>

struct fol_msgs;

struct fol_mthp_set {
	char path[192];
	char want[16];
	char old[16];
	int applied;
	int plain;	/* a number (khugepaged's knobs), not a [choice] */
};

struct fol_mthp {
	struct fol_mthp_set s[24];
	int n;
};

/* Check the spec against the sizes under root ("" for the running system): 0, or
 * -EINVAL (bad syntax or policy) / -ENOENT (no such size on this kernel) with a message
 * in why. A size is 16K..2M as the kernel offers them, or "thp" for the top-level switch
 * of PMD THP. Policies: always, madvise, never, and inherit for mTHP sizes. Also
 * khugepaged.KNOB=N for a numeric file of khugepaged's (scan_sleep_millisecs, ...). */
int fol_mthp_parse(const char *spec, const char *root, struct fol_mthp *m, struct fol_msgs *why);
/* Save the current policies, then write the new ones; on failure, put back what was
 * written and return the error (-EACCES when not root). */
int fol_mthp_apply(struct fol_mthp *m);
/* A sysfs attribute's text up to len - 1 bytes, its first line: 0, -errno, -EIO when
 * empty. And written whole (O_TRUNC, as the shell's >): 0 or -errno. */
int fol_sysfs_read(const char *path, char *out, size_t len);
int fol_sysfs_write(const char *path, const char *value);
/* The active choice of a policy file ("always [madvise] never" gives "madvise"). */
int fol_mthp_read_policy(const char *path, char *out, size_t len);
/* Put back what apply changed; safe to call again. */
int fol_mthp_restore(struct fol_mthp *m);

/* Where a kernel maps the huge zero page at a read fault (do_huge_pmd_anonymous_page):
 * never, in MADV_HUGEPAGE ranges, wherever a PMD range fits; by its THP policy for the
 * PMD size (the top-level one where that inherits) and use_zero_page. FOL_HZ_UNKNOWN
 * where a fact is missing (policy NULL, use_zero_page -1, pmd_order 0 or less: no PMD
 * THP known). The model's rule for a zero-page read's order and the BPF programs' both
 * take it from here. */
enum { FOL_HZ_UNKNOWN, FOL_HZ_NONE, FOL_HZ_MADVISE, FOL_HZ_ALWAYS };
int fol_huge_zero_policy(const char *enabled, const char *pmd_enabled, int use_zero_page, int pmd_order);
/* The same of the kernel running under root ("" for this machine), whose PMD order is
 * pmd_order (sys/maps.h's fol_maps_pmd_order). */
int fol_huge_zero_now(const char *root, int pmd_order);

/* A folio size of a sweep ("4K", "64K", "2M-pte", "2M") as a complete policy: that size
 * always, every other size never (4K: all never). -EINVAL for a value that is not a size,
 * -ENOENT for a size the kernel does not have. *policy: which built-in workload policy
 * gives folios of that size (2M-pte: PMD THP split to PTE mappings). */
enum { FOL_SWEEP_SMALL, FOL_SWEEP_MTHP, FOL_SWEEP_PTE_THP, FOL_SWEEP_THP };
int fol_mthp_sweep_spec(const char *value, const char *root, char *spec, size_t len, int *policy);

#endif
