/* SPDX-License-Identifier: GPL-2.0-only */
/* The BPF fault path: programs (lib/record/bpf/faults.bpf.c) attached to perf events the caller
 * opened with libperf, which pair each fault's entry and exit in the kernel and write one
 * record (bpf_record.h) into the caller's bpf-output events instead of two samples.
 * Loading needs CAP_BPF and CAP_PERFMON (root); a build without libbpf (NO_BPF=1) has
 * only the plain path, and fol_bpf_faults_new() says so. */
#ifndef FOL_BPF_FAULTS_H
#define FOL_BPF_FAULTS_H

#include <stddef.h>
#include <stdint.h>

struct fol_bpf_faults;
struct fol_msgs;

enum fol_bpf_prog {
	FOL_BPF_PROG_FAULT_USER,   /* exceptions:page_fault_user, on a carrier event */
	FOL_BPF_PROG_FAULT_KERNEL, /* exceptions:page_fault_kernel, on a carrier event */
	FOL_BPF_PROG_EXIT,	   /* minor-faults, on each of its events */
	FOL_BPF_PROG_EXIT_MAJOR,   /* major-faults, on each of its events */
	FOL_BPF_PROG_FLUSH,	   /* any other tracepoint recorded, on one of its events */
	FOL_BPF_PROG_FORK,	   /* sched:sched_process_fork, on a carrier event */
	FOL_BPF_PROG_EXEC,	   /* sched:sched_process_exec, on a carrier event */
	FOL_BPF_PROG_THREAD_EXIT,  /* sched:sched_process_exit, on a carrier event */
	FOL_BPF_PROG_ALLOC,	   /* kmem:mm_page_alloc with kernel reuse, on a carrier event */
	FOL_BPF_PROG_RSS,	   /* kmem:rss_stat, the same */
	FOL_BPF_PROG_MUNMAP,	   /* syscalls:sys_enter_munmap, the same */
	FOL_BPF_PROG_MREMAP,	   /* syscalls:sys_enter_mremap, the same */
	FOL_BPF_PROG_MMAP,	   /* syscalls:sys_enter_mmap, the same */
	FOL_BPF_PROG_RSS_FLUSH,	   /* kmem:rss_stat recorded, on one of its events */
	FOL_BPF_PROG_LOCK_FLUSH,   /* mmap_lock:mmap_lock_acquire_returned recorded, the same */
	FOL_BPF_PROG_LOCK_READ,	   /* mmap_lock:mmap_lock_acquire_returned, on a carrier event */
	FOL_BPF_PROG_MAPS,	   /* the mapping calls' exits with kernel reuse, on carrier events */
};

/* Where the programs find and put things, from the tracepoints' formats (by name). */
struct fol_bpf_layout {
	uint32_t entry_size;	/* the fault entry tracepoints' record */
	uint32_t fork_child_off; /* sched_process_fork's child_pid */
	/* Every task's faults (a system-wide recording), not only those of the threads
	 * followed. */
	int every_task;
	/* Kernel decisions (bpf_record.h): on, their counts by cgroup, and where they read
	 * the fault's error code, the allocation's order and gfp flags, and rss_stat's. */
	int kernel_reuse, by_cgroup;
	uint32_t page_shift, address_off, error_code_off, alloc_order_off, alloc_gfp_off, alloc_gfp_size;
	uint32_t rss_mm_id_off, rss_member_off, rss_size_off, rss_record_size;
	/* The page-cache folio of a file fault read inside it, where kmem:rss_stat says a
	 * file page was mapped or the fault takes its mm's lock (bpf_record.h's
	 * file_folio): rss_stat's fields and the entry's address are known. */
	int file_folio;
	/* One fault in sample timed, chosen at random at its entry (0 or 1: every fault). */
	unsigned sample;
	/* Kernel zero-page reads: where the huge zero page is mapped (sys/mthp.h's FOL_HZ_*)
	 * and the PMD's order (0: none). */
	int huge_zero, pmd_order;
};

/* The layout, from this kernel's tracepoint formats: 0, or -errno with what failed added to why. */
int fol_bpf_faults_layout(struct fol_bpf_layout *l, struct fol_msgs *why);

/* A tracepoint program on a perf event runs wherever its tracepoint fires, for every
 * task: "carrier" events are opened only to hold one (disabled, never enabled, no ring
 * buffer).
 *
 * 0, or -errno with what failed added to why (-ENOSYS: built without BPF; -EPERM: not privileged). */
int fol_bpf_faults_new(struct fol_bpf_faults **out, const struct fol_bpf_layout *l, struct fol_msgs *why);
void fol_bpf_faults_free(struct fol_bpf_faults *b);
/* Run program p on each descriptor of the open event e (PERF_EVENT_IOC_SET_BPF); e must
 * read its id (PERF_FORMAT_ID). */
struct perf_evsel;
int fol_bpf_faults_attach(struct fol_bpf_faults *b, enum fol_bpf_prog p, struct perf_evsel *e);
/* The records of faults on each CPU go to e, a bpf-output event open on each; with into
 * (open on the same CPUs, mapped), e writes into into's ring buffer of that CPU
 * (PERF_EVENT_IOC_SET_OUTPUT): polled and drained with it, and in one order with the
 * samples of the same CPU. */
int fol_bpf_faults_output(struct fol_bpf_faults *b, struct perf_evsel *e, struct perf_evsel *into);
/* Record the faults of thread tid (its children are followed at fork), from its next
 * exec with at_exec / stop. */
int fol_bpf_faults_follow(struct fol_bpf_faults *b, int tid, int at_exec);
void fol_bpf_faults_unfollow(struct fol_bpf_faults *b, int tid);
/* Kernel decisions' counts so far, summed over the CPUs: each (cgroup, class, order) to each(),
 * which returns 0 to go on, FOL_BPF_FORGET to go on and have the programs forget that
 * (cgroup, class, order) once the walk is done (a cgroup removed: its counts start again
 * from 0 if it is seen again), or a negative code to stop. 0, that code, or -errno. */
struct fol_bpf_reuse_key;
struct fol_bpf_reuse;
int fol_bpf_faults_reuse(struct fol_bpf_faults *b,
			 int (*each)(void *ctx, const struct fol_bpf_reuse_key *k, const struct fol_bpf_reuse *v),
			 void *ctx);
/* What kernel reuse did with the faults it saw, by FOL_BPF_K_* (bpf_record.h). */
void fol_bpf_faults_kstat(const struct fol_bpf_faults *b, uint64_t *out, int n);
/* The programs' own time in the kernel: the kernel counts it (each program's run_time_ns
 * and run_cnt, as bpftool prog show gives them) only while its BPF statistics are on,
 * which fol_bpf_faults_time_on() asks for as long as b lives (BPF_ENABLE_STATS: every
 * run of every program then reads the clock twice). 0 or -errno. */
int fol_bpf_faults_time_on(struct fol_bpf_faults *b);
/* Their sums since fol_bpf_faults_time_on(): 0 or -errno. */
int fol_bpf_faults_time(const struct fol_bpf_faults *b, uint64_t *ns, uint64_t *runs);
/* The THP policy changed: kernel zero-page reads place the huge zero page by policy
 * (sys/mthp.h's FOL_HZ_*) from now on. */
void fol_bpf_faults_huge_zero(struct fol_bpf_faults *b, int policy);
/* The recording stops: no fault begins to be followed from now on. */
void fol_bpf_faults_stopping(struct fol_bpf_faults *b);
/* Threads with a fault in flight: entered, its exit not yet seen. */
int fol_bpf_faults_in_flight(struct fol_bpf_faults *b);
/* Threads not followed because the table was full, records the kernel could not write
 * (the bpf-output ring buffer full: PERF_RECORD_LOST counts those too). */
void fol_bpf_faults_dropped(const struct fol_bpf_faults *b, uint64_t *threads, uint64_t *records);

#endif
