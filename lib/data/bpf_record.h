/* SPDX-License-Identifier: GPL-2.0-only */
/* The record foliostat's BPF programs write for a fault (lib/record/bpf/faults.bpf.c), one per
 * fault where two samples would be: shared by the programs and the decoder, so it holds
 * kernel UAPI types only. A recording stores it as the RAW field of a bpf-output sample;
 * the decoder turns it back into the fault entry and exit events of the plain path. */
#ifndef FOL_BPF_RECORD_H
#define FOL_BPF_RECORD_H

#include <linux/types.h>

/* The fault entry tracepoint's own record, copied whole so that its fields are read by
 * name from the stored format, as for a sample: 32 bytes on x86-64 since 3.17 (a kernel
 * whose record is longer takes the plain path). */
#define FOL_BPF_RAW_MAX 32

/* What a record holds: the entry (a fault's entry went out before an event inside the
 * fault, or a fault that never returned), the exit alone (its entry went out earlier, or
 * began before the recording), or both. */
#define FOL_BPF_ENTRY 1
#define FOL_BPF_EXIT 2
#define FOL_BPF_FAULT (FOL_BPF_ENTRY | FOL_BPF_EXIT)

#define FOL_BPF_KERNEL 1 /* the entry is exceptions:page_fault_kernel */
#define FOL_BPF_MAJOR 2	 /* the exit is major-faults */

struct fol_bpf_rec {
	__u8 what;	/* FOL_BPF_ENTRY, _EXIT or _FAULT */
	__u8 flags;	/* FOL_BPF_KERNEL, FOL_BPF_MAJOR */
	__u16 raw_size; /* bytes of raw used */
	__u32 pad;
	__u64 t0, t1;	/* entry and exit, CLOCK_MONOTONIC ns (bpf_ktime_get_ns) */
	__u64 addr;	/* the exit's faulting address (the software event's) */
	__u8 raw[FOL_BPF_RAW_MAX]; /* not written without FOL_BPF_ENTRY */
};

/* The programs' state of a followed thread (their map "follow", keyed by tid): the fault
 * in progress. Shared so that foliostat can add a thread. */
enum { FOL_BPF_IDLE, FOL_BPF_OPEN, FOL_BPF_OUT };
struct fol_bpf_pending {
	__u64 t0;
	__u32 state;	/* FOL_BPF_IDLE, _OPEN (entry held), _OUT (entry written) */
	__u16 raw_size;
	__u8 flags;
	/* A workload's thread before its exec: its events are not on yet. They go on at
	 * the exec, the software events a moment before the tracepoints (and before
	 * sched_process_exec): the first exit seen says so too. */
	__u8 before_exec;
	__u8 raw[FOL_BPF_RAW_MAX];
};

#endif
