/* SPDX-License-Identifier: GPL-2.0-only */
/* madvise(2) advice as the kernel's ABI numbers it (uapi asm-generic/mman-common.h): the
 * model reads raw advice from traces of any kernel, and the workloads must build where
 * the C library's headers predate MADV_PAGEOUT (5.4), MADV_POPULATE_* (5.14) and
 * MADV_COLLAPSE (6.1). */
#ifndef FOL_MADVISE_H
#define FOL_MADVISE_H

#define FOL_MADV_DONTNEED 4
#define FOL_MADV_FREE 8
#define FOL_MADV_REMOVE 9
#define FOL_MADV_HUGEPAGE 14
#define FOL_MADV_NOHUGEPAGE 15
#define FOL_MADV_COLD 20
#define FOL_MADV_PAGEOUT 21
#define FOL_MADV_POPULATE_READ 22
#define FOL_MADV_POPULATE_WRITE 23
#define FOL_MADV_DONTNEED_LOCKED 24
#define FOL_MADV_COLLAPSE 25

/* Syscall return values from -1 to -4095 are errors (the kernel's MAX_ERRNO). */
#define FOL_MAX_ERRNO 4095

#endif
