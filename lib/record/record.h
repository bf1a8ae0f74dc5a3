/* SPDX-License-Identifier: GPL-2.0-only */
/* Recording: run or attach to a workload, record its events through libperf, write the
 * foliostat data file (file.h) as the ring buffers are drained. */
#ifndef FOL_RECORD_H
#define FOL_RECORD_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "data/file.h"
#include "util/msgs.h"
#include "sys/mthp.h"

struct fol_record_opts {
	char *const *argv;	 /* workload to start; NULL with pid */
	pid_t pid;		 /* attach to this process (all its threads) */
	/* Every task on every CPU (perf record -a), while argv runs or until the caller
	 * stops; the tasks that were there before have no folios seeded. */
	int system_wide;
	const char *const *events; /* -e names; NULL: the default set */
	int nr_events;
	int mmap_pages;		 /* per CPU ring buffer, pages (power of two) */
	/* A count the caller's signal handler raises (NULL: none): a walk of the page
	 * tables (seeding at attach, the maps at the end) stops when it changes. */
	const volatile sig_atomic_t *signals;
	/* Set before the workload starts, e.g. FOLIOSTAT_PHASES for built-in workloads;
	 * whatever the workload writes to that file ends up in a WORKLOAD chunk. */
	const char *phase_file;
	/* THP/mTHP policy for the run (NULL: leave it): set by fol_recorder_start, put back
	 * by fol_recorder_stop or fol_recorder_delete, whatever ended the run. */
	struct fol_mthp *mthp;
	const char *mthp_spec;	/* as given, for the file's metadata */
	/* Add foliostat's own kprobe events (kprobe.h) where the kernel has them: created by
	 * fol_recorder_new, removed by fol_recorder_delete. */
	int kprobes;
	/* How fault time is measured: FOL_METHOD_AUTO takes exact where the page fault
	 * tracepoints exist, else sampled (a cpu-clock sampler every clock_period_ns with
	 * kernel call chains). */
	int method;
	uint64_t clock_period_ns;
	/* Do not record the kernel's mm threads (khugepaged, kswapd*, kcompactd*) beside the
	 * workload or attached process; system-wide and -e recordings never do. */
	int no_mm_threads;
	/* With system_wide: only the tasks of this cgroup (v2, a path under its mount) and
	 * the cgroups below it, as perf record -a -G (cgroup.h). */
	const char *cgroup;
	/* -g: the user call chain of every fault (exceptions:page_fault_user/kernel), by
	 * frame pointers (FOL_CALLCHAIN_FP), or (--call-graph dwarf) the user registers and
	 * stack_dump bytes of the user stack, unwound by the report with the binaries' CFI. */
	int callchain;
	unsigned stack_dump;
	/* How a fault's entry and exit reach the file: FOL_PATH_AUTO takes the BPF path
	 * (bpf_faults.h: one record per fault, paired in the kernel) where this recording and
	 * machine allow it, else the samples of both events. */
	int fault_path;
	/* The kernel's symbols are in the file already (a later run of an experiment): no
	 * FOL_CHUNK_KSYMS again. */
	int no_ksyms;
	/* serve: on the BPF path, the faults the programs can decide (bpf_record.h) are
	 * counted in the kernel and never reach the file (fol_recorder_reuse). Not with
	 * cgroup: the programs do not select. */
	int kernel_reuse;
	/* serve --by-cgroup: each sample carries its task's cgroup (PERF_SAMPLE_CGROUP), and
	 * the kernel's counts are by cgroup. */
	int by_cgroup;
	/* No counting events (fol_counting_events): where nothing reads the file's PMU
	 * chunk (serve, top), their software counters only add to every fault's cost. */
	int no_counters;
	/* top and serve: only the tracepoints a live model reads (fol_live_tracepoints), and
	 * not the kernel's mm threads. */
	int live;
	/* Have the kernel time the BPF programs (fol_recorder_bpf_time): top's cost. */
	int bpf_time;
	/* serve --sample N: the BPF programs time one fault in N, at random, and count every
	 * one (bpf_record.h's FOL_BPF_UNTIMED); 0 or 1: every fault timed. Needs the BPF
	 * path: fol_recorder_open fails where it cannot be taken. */
	unsigned sample;
};

enum { FOL_PATH_AUTO, FOL_PATH_BPF, FOL_PATH_SAMPLES };

enum { FOL_CALLCHAIN_NONE, FOL_CALLCHAIN_FP, FOL_CALLCHAIN_DWARF };
#define FOL_STACK_DUMP_DEFAULT 8192

enum { FOL_METHOD_AUTO, FOL_METHOD_EXACT, FOL_METHOD_SAMPLED };
#define FOL_CLOCK_PERIOD_DEFAULT 100000

#define FOL_RECORD_DEFAULT_PAGES 1024
/* --call-graph dwarf: a stack copy in every fault sample, 128 MiB a CPU, 1 GiB in all at
 * most (record's dwarf_pages). */
#define FOL_RECORD_DWARF_PAGES 32768
#define FOL_RECORD_DWARF_TOTAL_PAGES (256 * 1024)
/* 1 GiB per CPU: more cannot be locked by default, and the wake-up watermark (a u32 of
 * bytes) must not wrap. */
#define FOL_RECORD_MAX_PAGES (256 * 1024)

struct fol_record_result {
	int wait_status;	/* of the workload, as from waitpid(); -1 in attach mode */
	/* The workload's user and system CPU time with its reaped children's (wait4's
	 * rusage), mmtests' Duration; -1 where it was not reaped here (attach mode). */
	double user_ns, system_ns;
	int exec_errno;		/* the workload could not be executed */
	uint64_t records;	/* perf records written */
	uint64_t samples;
	uint64_t lost;		/* samples the kernel dropped (PERF_RECORD_LOST) */
	double seconds;
	struct fol_msgs warnings; /* skipped events, unsupported counters */
	struct fol_msgs errors;	/* what failed and what to do, when a call fails */
};

/* The recorder, as perf_evlist: made, opened, started, polled, stopped, deleted. It
 * never installs signal handlers or changes process-wide state: the caller keeps the
 * policy (what a signal does, when to stop an attached recording, how the tear-down is
 * paid for). Functions return 0 or a negative errno; the result's errors say what failed
 * and what to do. */
struct fol_recorder;

/* Check the options and make the events (the default set or o->events; kprobes). o must
 * outlive the recorder. On failure *r is still made, for its result: delete it. */
int fol_recorder_new(struct fol_recorder **r, const struct fol_record_opts *o);
/* Start the workload corked (forked, waiting: nothing it does escapes the recording) or
 * find the attach target's threads, open and map the events, write the header chunks
 * (metadata, event descriptions, counters before) to w, which stays the caller's. */
int fol_recorder_open(struct fol_recorder *r, struct fol_writer *w);
/* Set the THP policy, let the workload exec (or enable the events on the attached
 * process), and commit the writer (fol_writer_commit): the run has begun. */
int fol_recorder_start(struct fol_recorder *r);
/* Wait up to timeout_ms for data, drain the ring buffers into the writer, look at the
 * workload: 1 while it runs, 0 when it has exited (or the attached process is gone),
 * negative on error. */
int fol_recorder_poll(struct fol_recorder *r, int timeout_ms);
/* End the run: a last drain, counters after, phases, the end chunk (signal: the one that
 * ended the run, 0 for none), the THP policy put back, the writer flushed. */
int fol_recorder_stop(struct fol_recorder *r, int signal);
/* The workload's pid while it runs (0 when attached or ended): for passing signals on. */
pid_t fol_recorder_pid(const struct fol_recorder *r);
/* Whether kprobe events are in use: their perf events must be closed before the kprobes
 * are removed, so the tear-down cannot be left to another process. */
int fol_recorder_has_kprobes(const struct fol_recorder *r);
const struct fol_record_result *fol_recorder_result(const struct fol_recorder *r);
/* Kernel reuse's counts so far (bpf_faults.h's fol_bpf_faults_reuse), and what it did
 * with the faults it looked at (out[FOL_BPF_K_NR]). -ENOENT: no kernel reuse in this
 * recording (not asked for, or the plain path). */
struct fol_bpf_reuse_key;
struct fol_bpf_reuse;
int fol_recorder_reuse(struct fol_recorder *r,
		       int (*each)(void *ctx, const struct fol_bpf_reuse_key *k, const struct fol_bpf_reuse *v),
		       void *ctx, uint64_t *kstat, int n);
/* The BPF programs' own time in the kernel since the start, and their runs, where
 * opts.bpf_time asked for it (bpf_faults.h). -ENOENT: not asked, or the plain path. */
int fol_recorder_bpf_time(const struct fol_recorder *r, uint64_t *ns, uint64_t *runs);
/* The THP policy changed (serve): kernel zero-page reads follow policy (sys/mthp.h's
 * FOL_HZ_*) from now on. -ENOENT: no kernel decisions in this recording. */
int fol_recorder_huge_zero(struct fol_recorder *r, int policy);
/* Close everything (a still corked workload is killed), put the THP policy back.
 * -EBUSY when foliostat's kprobe events could not be removed. */
int fol_recorder_delete(struct fol_recorder *r);

#endif
