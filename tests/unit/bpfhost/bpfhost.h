/* SPDX-License-Identifier: GPL-2.0-only */
/* What a unit test sets and reads of the programs compiled for the host (bpf/bpf_helpers.h
 * says why): the current task, the VMAs bpf_find_vma() finds, the records written out. */
#ifndef FOL_BPFHOST_H
#define FOL_BPFHOST_H

#include <linux/types.h>

struct fol_bpf_rec;

/* Empties every map and forgets the VMAs and records. */
void bpfhost_reset(void);
/* The task the next program runs in; its mm is its process's (mm: 0 for tgid's own). */
void bpfhost_current(__u32 tgid, __u32 tid, __u64 mm);
/* [start, end) is mapped, a VMA of that kind. */
enum bpfhost_vma { BPFHOST_ANON, BPFHOST_FILE_PRIVATE, BPFHOST_FILE_SHARED, BPFHOST_SPECIAL };
int bpfhost_vma(__u64 start, __u64 end, enum bpfhost_vma kind);
/* The VMA at start gets vm_flags too (VM_HUGEPAGE, VM_NOHUGEPAGE); or is unmapped. */
int bpfhost_vma_flags(__u64 start, unsigned long flags);
int bpfhost_vma_drop(__u64 start);
/* The records bpf_perf_event_output() wrote since the reset, of kind what
 * (bpf_record.h's FOL_BPF_*; -1: all). */
unsigned long bpfhost_records(int what);
/* The i-th of the last records written (0 the first of them kept), or NULL. */
const struct fol_bpf_rec *bpfhost_record(unsigned long i);
/* What bpf_get_prandom_u32() draws from now on. */
void bpfhost_random(__u32 v);

#endif
