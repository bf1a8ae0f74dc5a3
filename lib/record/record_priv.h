/* SPDX-License-Identifier: GPL-2.0-only */
/* The recorder's insides, shared by the files that carry them out: record.c (the
 * lifecycle and the drain), record_events.c (the event set), record_bpf.c (the BPF fault
 * path), record_target.c (the command or process recorded), record_chunks.c (what is
 * written beside the samples). Not an API. */
#ifndef FOL_RECORD_PRIV_H
#define FOL_RECORD_PRIV_H

#include "record/record.h"

#include <perf/mmap.h>

#include "record/bpf_faults.h"
#include "record/calibrate.h"
#include "sys/cgroup.h"
#include "record/kprobe.h"
#include "record/start.h"
#include "util/indexed.h"

/* One sampled event of the recording, in the order it was added to the evlist. */
struct rec_event {
	char *name;
	const char *kind; /* "tracking", "software", "tracepoint" */
	char *format;	  /* tracepoints: the tracefs format text */
	struct perf_evsel *evsel;
	int mm_threads;	  /* opened on the kernel's mm threads (kevlist), not the target */
};

struct rec_counter {
	const char *name;
	struct perf_evsel *evsel; /* NULL: could not be opened */
	int err;
};

struct fol_recorder {
	const struct fol_record_opts *o;
	struct fol_calibration calibration; /* faults 0: not calibrated */
	struct fol_record_result *res;	/* &result */
	struct fol_record_result result;
	uint64_t start_real, start_mono;
	/* When the events were enabled: the recording's duration runs from here (opening
	 * them and writing what the machine had took 3 s of a 6 s --duration, busy). */
	uint64_t counting_mono;
	int mthp_applied;
	int fds_left;		/* ring buffers still worth polling */
	int interrupted_by;	/* the signal that ended the run, for the END chunk */
	struct perf_evlist *evlist;
	struct perf_cpu_map *cpus;
	struct perf_thread_map *threads;
	/* The kernel's mm threads, recorded beside the workload: their own events, enabled
	 * with the run rather than by the workload's exec. NULL when not recorded. */
	struct perf_evlist *kevlist;
	struct perf_thread_map *kthreads;
	struct perf_cpu_map *kcpus;
	struct fol_cgroups cg;	/* -G: the scope, its ids resolved at the start */
	/* The files mapped executable (MMAP2 records as they pass): their build-ids go in
	 * the END chunk, so that a report names code from these very files. */
	struct fol_indexed code; /* char *: the paths */
	/* Every file mapped (MMAP2 records, the mappings at attach): their page-cache folios
	 * are read at the end (pagecache.h). NULL out of memory. */
	struct fol_pc_files *pc;
	struct rec_event *ev;
	int nr_ev;
	size_t ev_cap;
	struct rec_counter counters[16];
	int nr_counters;
	struct fol_writer *w;
	char *chunk;
	size_t chunk_used;
	struct fol_kprobes kp;
	struct fol_msgs missing; /* events asked for that this kernel lacks */
	int sampled;		 /* latency method: cpu-clock samples */
	int no_format_lost;	 /* the kernel predates PERF_FORMAT_LOST */
	uint64_t ranges[16];	 /* fault handler text, for the sampled method */
	int nranges;
	struct fol_child child; /* the workload started (start.h) */
	/* The BPF fault path (bpf_faults.h), NULL on the plain path. carriers: events that
	 * only hold its tracepoint programs (carry[] says which); bevlist: a bpf-output event
	 * per CPU, writing into evlist's ring buffers. */
	struct fol_bpf_faults *bpf;
	int kernel_reuse;	/* serve's: on in the programs loaded */
	int file_folio;		/* the programs read file faults' page-cache folios */
	int bpf_time;		/* the kernel times the programs (fol_recorder_bpf_time) */
	struct perf_evlist *carriers, *bevlist;
	struct perf_cpu_map *carrier_cpu;
	struct perf_thread_map *no_thread;
	struct carried *carry;
	int ncarry;
	size_t carry_cap;
	char path_why[256]; /* the plain path, when BPF was possible or asked for: why */
};

struct carried {
	struct perf_evsel *evsel;
	enum fol_bpf_prog prog;
};

#define CHUNK_FLUSH (256u << 10)
/* Ring buffer per mm thread: khugepaged scanning at full speed writes a few thousand
 * samples a second, drained every poll. */
#define MM_THREAD_PAGES 64

/* The run failed: err, with what to do in the result's error text. */
int rec_fail(struct fol_recorder *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

int rec_add_event(struct fol_recorder *r, struct perf_evlist *to, const char *name,
		  const char *kind, char *format, struct perf_event_attr *attr);

/* A recorded command's events start at its exec (enable_on_exec), so that nothing of
 * foliostat's own is in them; per-CPU events cannot wait for one task's exec, so a
 * system-wide recording enables them just before letting the command go. */
int rec_enabled_by_exec(const struct fol_recorder *r);

void rec_sample_attr(struct fol_recorder *r, struct perf_event_attr *a, int mm_threads);

/* -g / --call-graph on a fault entry event: the user stack of each fault (the kernel's is
 * the fault handler, always). */
void rec_user_stack_attr(const struct fol_record_opts *o, struct perf_event_attr *a);

/* A tracepoint the BPF path's programs read instead of its samples: the fault entries
 * (paired with their exits), and with kernel decisions the allocations and RSS changes
 * (summed up in the faults' records). Described in the file like any event (its format
 * decodes the records' copies of it), opened as a carrier of its program. 1 when name is
 * one, after adding it (or 0 and -errno), 0 when it is not. */
int rec_add_unsampled(struct fol_recorder *r, const char *name, char *format,
		      struct perf_event_attr *a);

/* Load the programs when this recording can take the BPF path; the plain path and why
 * otherwise, or a failure when --fault-path bpf asked for it. */
int rec_bpf_setup(struct fol_recorder *r);

/* The carriers and their programs: before the calibration, which measures the path with
 * them, and before the target's events, so that an attached process's faults meanwhile
 * go nowhere but where the samples path would put them. */
int rec_bpf_open_carriers(struct fol_recorder *r);

/* With the target's events open and mapped: their exit programs, the outputs into their
 * ring buffers, and the target's threads followed (a workload's from its exec, as its
 * events are enabled: not its faults in foliostat's code before). */
int rec_bpf_open_target(struct fol_recorder *r);

void rec_close_bpf(struct fol_recorder *r);

int rec_setup_events(struct fol_recorder *r);

/* The kernel threads (children of kthreadd, pid 2) that are mm threads (comm.h). */
int rec_find_mm_threads(pid_t *out, int max);

/* Beside a workload or an attached process (not system-wide, which sees them anyway, and
 * not with -e: the user chose the events). */
int rec_setup_mm_threads(struct fol_recorder *r);

/* Their events leave the list too: nothing of them goes into the file. */
void rec_close_mm_threads(struct fol_recorder *r);

int rec_uncork(struct fol_recorder *r);

int rec_flush_chunk(struct fol_recorder *r);

void rec_note_mapping(struct fol_recorder *r, const union perf_event *ev);

/* The attached process is gone: no task of it left but zombies (its threads exited and
 * nobody reaped it yet). A main thread that called pthread_exit() is a zombie while
 * the others run, so every task is looked at, not the process alone. */
int rec_target_gone(pid_t pid);

uint64_t rec_now_ns(clockid_t c);

int rec_write_meta(struct fol_recorder *r, uint64_t start_real, uint64_t start_mono);

/* The kernel's text symbols, so that the report names kernel addresses on any machine.
 * Unreadable (kptr_restrict shows zeros to this user) they are left out, and the report
 * names what the running kernel's kallsyms gives where its build-id is the same. */
int rec_write_ksyms(struct fol_recorder *r);

int rec_write_events(struct fol_recorder *r);

void rec_open_counters(struct fol_recorder *r);

int rec_write_counters_pmu(struct fol_recorder *r);

/* Attached to a running process, the kernel reports no MMAP/COMM for what existed before:
 * read them from /proc (as perf synthesizes them), so that faults on file mappings are
 * told from anonymous ones and threads have names. */
/* The folios the attached process holds already, from its page tables: without them
 * every write-protect fault on memory older than the attach would have order "unknown". */
void rec_add_seed(struct fol_recorder *r, cJSON *synth, pid_t pid);

/* The mm threads' names (as tid -> comm), for the model to know them. */
void rec_add_mm_thread_comms(const struct fol_recorder *r, cJSON *comms);

/* System-wide: the names of the tasks already running (their COMM events happened before
 * the recording), so that --comm and the thread names work for them too. */
int rec_write_system_comms(struct fol_recorder *r, uint64_t now);

int rec_write_synth(struct fol_recorder *r, uint64_t now);

/* The workload's phases (JSON lines it wrote to the phase file), whole: a file larger
 * than a chunk is cut at its last full line, and the recording says so. */
int rec_write_phases(struct fol_recorder *r);

int rec_write_end(struct fol_recorder *r, uint64_t dur);

/* The folio composition of pid's memory now (maps.h), as a MAPS chunk: what the run left
 * behind. Without the rights to read it, nothing (the warning of the seeding says why). */
int rec_write_maps(struct fol_recorder *r, pid_t pid);

/* The page cache's folios of the files the recorded processes mapped (pagecache.h). */
int rec_write_pagecache(struct fol_recorder *r);

/* The traced workload stopped: at its exit (its memory still mapped: a last look), at a
 * later exec (let go), for a signal (passed on), or in a group stop (left stopped, as it
 * would be untraced). */
int rec_traced_stop(struct fol_recorder *r, int st);

/* The reaped workload's CPU times into res. */
struct rusage;
void rec_note_rusage(struct fol_record_result *res, const struct rusage *ru);

/* The workload forked and waiting, or the attach target's threads: the thread map. */
int rec_open_target(struct fol_recorder *r);

int rec_open_events(struct fol_recorder *r);

#endif
