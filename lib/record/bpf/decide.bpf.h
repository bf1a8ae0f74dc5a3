/* SPDX-License-Identifier: GPL-2.0-only */
/* What faults.bpf.c, the fault pairing, calls of decide.bpf.c, the kernel decisions:
 * declarations only, the two linked into one object (bpftool gen object). */
#ifndef FOL_DECIDE_BPF_H
#define FOL_DECIDE_BPF_H

/* At a fault's exit: 1 when it was decided and counted here (nothing written out); else
 * 0, with *flags for the record. */
int fol_decide_exit(struct fol_bpf_pending *p, __u64 now, __u64 addr, __u8 *flags) __hidden;
/* A thread's first event since its fork. */
void fol_decide_fork_known(struct fol_bpf_pending *p, __u64 pid_tgid) __hidden;
__u64 fol_decide_fork(__u32 parent_tgid) __hidden;
void fol_decide_exec(struct fol_bpf_pending *p) __hidden;
void fol_decide_exit_thread(struct fol_bpf_pending *p, __u64 pid_tgid) __hidden;
/* At a change of the anonymous or swap count inside p's fault: 1 when the fault may be a
 * swap-in that fol_decide_exit() decides, its changes to be held rather than written. */
int fol_decide_rss_hold(struct fol_bpf_pending *p) __hidden;
/* A user folio allocated inside p's fault: the fault may be held (counted at its exit). */
void fol_decide_alloc(struct fol_bpf_pending *p) __hidden;
/* A call that changes the current process's mappings returned. */
void fol_decide_maps_changed(void) __hidden;
/* The current process unmapped [start, start + len): its folios kept there are gone. */
void fol_decide_unmapped(__u64 start, __u64 len) __hidden;
/* One more of the kernel decisions' own counts (bpf_record.h's FOL_BPF_K_*). */
void fol_decide_count(__u32 which) __hidden;

#endif
