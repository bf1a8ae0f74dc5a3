/* SPDX-License-Identifier: GPL-2.0-only */
/* record --call-graph dwarf: a fault's user stack unwound from the registers and the copy
 * of the stack its sample carries, by the binaries' call frame information (libdwfl, as
 * perf's unwind-libdw), for code built without frame pointers. x86-64 only. */
#ifndef FOL_UNWIND_H
#define FOL_UNWIND_H

#include <stddef.h>
#include <stdint.h>

/* The user registers a sample asks for (perf_event_attr.sample_regs_user, bits of
 * PERF_REG_X86_*): AX..SP, IP, R8..R15; the flags and segments are no use to an unwinder. */
#define FOL_UNWIND_REGS (0x1ffull | (0xffull << 16))

/* A file mapping of the process: where its code is. */
struct fol_unwind_map {
	uint64_t start, pgoff;
	const char *path;
};

/* What one sample carries: its registers (sample order: ascending bits of regs_mask,
 * maybe unaligned) and the stack bytes copied from the stack pointer up. */
struct fol_unwind_sample {
	uint64_t regs_mask;
	const void *regs;
	const void *stack;
	uint64_t stack_size;
};

struct fol_unwinder;

/* symfs: a directory the mapped paths are looked up under (report --symfs), or NULL. */
struct fol_unwinder *fol_unwinder_new(const char *symfs);
void fol_unwinder_free(struct fol_unwinder *u);

/* The faulting process's file mappings, as libdwfl modules for the unwinds that follow
 * (each file read once here, not per unwind: call it when the set changes). 0, -ENOMEM. */
int fol_unwinder_set_maps(struct fol_unwinder *u, const struct fol_unwind_map *maps, int nmaps);
/* The frames' PCs, innermost (the faulting IP) first, as perf's call chains (a return
 * address as it is): how many (0 when the sample cannot be unwound). */
int fol_unwind(struct fol_unwinder *u, const struct fol_unwind_sample *s, uint64_t *ips, int max);

#endif
