/* SPDX-License-Identifier: GPL-2.0-only */
/* What a recording says of itself (its META, COUNTERS, PMU, WORKLOAD, END, SYNTH, MAPS and
 * PAGECACHE chunks), parsed from the session's chunks (fol_session_recording): the report,
 * its renderers, compare and the TUI read these fields, never the chunks' JSON. Numbers
 * stay doubles, as the JSON held them, so that every output prints them as it did;
 * fol_recording_check checked their types and ranges when the chunks were read. */
#ifndef FOL_RECORDING_H
#define FOL_RECORDING_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "sys/cgroup.h"

/* The probe effect calibrated before the recording (record/calibrate.h). */
struct fol_probe {
	int have;		/* the recording was calibrated */
	double faults, passes, untraced_ns, traced_ns, samples;
	double exits, sample_bytes; /* < 0: not kept by the recording's foliostat */
};

/* A counted PMU or software event (the PMU chunk). */
struct fol_pmu_count {
	char *event;		/* NULL: not named */
	int supported;		/* the kernel could count it */
	double value;		/* 0 when not counted */
	int counted;		/* the recording has its value */
	double time_enabled_ns, time_running_ns; /* -1: not recorded */
};

/* A phase the workload timed itself (the WORKLOAD chunk), in the order it wrote them. */
struct fol_phase {
	char *name;		/* NULL: not named */
	double start_ns, end_ns; /* 0 when not given */
	int timed;		/* both ends given */
};
struct fol_phases {
	struct fol_phase *v;
	int n;
};

/* A run's place in a recording of several (record -r, --sweep: its RUN chunk). */
struct fol_run_place {
	int have;		/* the run has its RUN chunk */
	double run;		/* its number, from 0; -1 */
	double runs;		/* of how many; 0 */
	char *sweep, *config;	/* the swept key and this run's value; NULL outside a sweep */
};

/* An untraced run made with a traced one, for the probe effect by phase (a BARE chunk). */
struct fol_bare {
	double run;		/* the traced run's number; -1 */
	char *config;		/* its sweep's value; NULL */
	double duration_ns;	/* -1 */
	double exit_code, exit_signal; /* -1: it did not exit so */
	struct fol_phases phases;
};
struct fol_bares {
	struct fol_bare *v;
	int n;
};

/* An mTHP size's stat over the run: after - before (system-wide, as the kernel counts). */
struct fol_mthp_stat {
	char *size;		/* "hugepages-64kB" */
	char *stat;		/* "anon_fault_alloc", "split", ... */
	double delta;
};

/* The build-id the recording read for a code file it mapped (END's build_ids). */
struct fol_build_id {
	char *path;
	unsigned char id[20];
	int len;		/* 0: the recorded text was not a build-id */
};
struct fol_build_ids {
	struct fol_build_id *v;	/* sorted by path */
	int n;
};

/* A node of the kernel counters' change over the run (sys/counters.h's delta: after -
 * before for every number, the policies as after has them), in document order, so that the
 * JSON report writes back the tree they were. */
enum fol_node_type { FOL_NODE_OBJECT, FOL_NODE_NUMBER, FOL_NODE_TEXT };
struct fol_counter_node {
	int depth;		/* 0: a section ("vmstat", "thp", "mthp") */
	char *key;
	enum fol_node_type type;
	double number;
	char *text;
};

/* The MAPS chunk's totals (foliostat/maps/v1): the folios left in the page tables at the
 * end. A field's bit in present: the recording has it (older ones lack some). */
#define FOL_LEFT_ORDER_FIELDS 6	/* order, size_bytes, folios, bytes, partially_mapped, unaligned */
#define FOL_LEFT_FIELDS 5	/* anon_bytes, pmd_mapped_bytes, pmd_mapped_folios, swapped_bytes,
				 * zero_page_bytes */
struct fol_left_order {
	double v[FOL_LEFT_ORDER_FIELDS];
	unsigned present;
};
struct fol_left_behind {
	int have;
	struct fol_left_order *orders;
	int norders;
	double v[FOL_LEFT_FIELDS];
	unsigned present;
};
extern const char *const fol_left_order_keys[FOL_LEFT_ORDER_FIELDS];
extern const char *const fol_left_keys[FOL_LEFT_FIELDS];
enum { FOL_LO_ORDER, FOL_LO_SIZE, FOL_LO_FOLIOS, FOL_LO_BYTES, FOL_LO_PARTIAL, FOL_LO_UNALIGNED };
enum { FOL_LB_ANON, FOL_LB_PMD_BYTES, FOL_LB_PMD_FOLIOS, FOL_LB_SWAPPED, FOL_LB_ZERO };

/* The page cache read at the end of the recording (PAGECACHE chunk): how far it went. */
struct fol_unread_file {
	char *path, *why;	/* NULL: not given */
};
struct fol_pagecache_read {
	int have;
	int files;		/* files read */
	double unreadable_files;
	struct fol_unread_file *unread; /* the first few not read, and why */
	int nunread;
	char *error;		/* why nothing was read, or NULL */
};

/* The THP policy when the recording started (the counters' first snapshot), which says
 * where a read fault maps the huge zero page. NULL, < 0: not recorded. */
struct fol_thp_start {
	int have;		/* the recording has the snapshot */
	char *enabled;		/* transparent_hugepage/enabled */
	char *pmd_enabled;	/* the PMD size's own (hugepages-<PMD>kB/enabled) */
	double use_zero_page;
	int mthp_sizes;		/* the sizes listed (0: a kernel without mTHP) */
};

/* A list the recording may hold; have 0: it has none (an empty one is had). */
struct fol_strings {
	char **v;
	int n, have;
};
struct fol_numbers {
	double *v;
	int n, have;
};
struct fol_named_counts {
	char **names;
	double *counts;
	int n, have;
};

/* A recording's facts (META, END, RUN, PMU's counts, and each BARE) are described once, in recording_facts.c's table:
 * a row a fact (chunk, key, type, bounds, and where it lives here) drives the writer
 * (fol_recording_json), the check of what is read (fol_recording_check) and the reading
 * (fol_recording_parse). Numbers are doubles, as JSON holds them; a number not recorded
 * reads as its row's default (given here), a string as NULL. */
struct fol_recording {
	/* META: how it was recorded. */
	char *tool, *version;
	struct fol_strings command; /* have 0: no command recorded */
	char *mode;		/* "workload", "attach", "system-wide" */
	double pid;		/* 0 */
	char *kernel, *kernel_build_id, *kernel_version, *machine, *hostname;
	double page_size;	/* 0 (fol_recording_page_size: what a reader takes) */
	double pmd_order;	/* -1 */
	char *clock;
	double cpus, started_realtime_ns, started_ns, mmap_pages; /* 0 */
	char *fault_path, *fault_path_why; /* "bpf" or "samples"; why not "bpf" */
	char *mthp_spec;	/* record --mthp */
	char *latency_method;	/* "exact", "sampled" */
	struct fol_strings fault_ranges; /* sampled: the fault handler's text, "0x..." pairs */
	double sample_period_ns; /* 0 */
	struct fol_probe probe;
	struct fol_cgroups scope; /* record -G's (scope.ids NULL: none) */
	/* The kernel's mm threads whose events were recorded beside it, and all of them,
	 * recorded or not (by tid: a workload can take their names). */
	struct fol_numbers mm_threads, kernel_mm_threads;
	struct fol_strings warnings; /* what the recorder warned of */
	struct fol_strings missing_events; /* events asked for that the kernel lacked */
	/* END: how it ended. */
	int ended;		/* the recording has an END chunk */
	double duration_ns;	/* -1 */
	double exit_code, exit_signal; /* -1: it did not exit so, or no command */
	double user_ns, system_ns; /* the workload's CPU times; -1 */
	double interrupted_by;	/* the signal that stopped the recording; 0 */
	double records, samples, lost; /* 0 */
	/* The BPF path's losses: threads its table could not hold, records its ring buffer
	 * could not take; -1: not the BPF path. */
	double bpf_threads_not_followed, bpf_records_not_written;
	struct fol_named_counts lost_by_event; /* PERF_FORMAT_LOST's, by event */
	double lost_samples;	/* their sum; -1: not counted */
	struct fol_build_ids build_ids;
	/* The other chunks, and what follows from them. */
	struct fol_thp_start thp;
	/* The attached process's folios at the start (SYNTH): why they were not read (NULL:
	 * they were), and how many were not naturally aligned. */
	char *seed_error;
	double seed_unaligned;
	struct fol_pmu_count *pmu;
	int npmu;
	struct fol_phases phases; /* the workload's own (WORKLOAD) */
	struct fol_run_place place; /* RUN */
	struct fol_bares bare;	/* the untraced runs made with it (BARE) */
	int counted;		/* the counters were read before and after the run */
	struct fol_mthp_stat *mthp; /* every size's numeric stats, as after lists them */
	int nmthp;
	int seeded_at_attach;	/* the folios at the start came from an attach (SYNTH) */
	struct fol_counter_node *counters; /* none without both snapshots */
	int ncounters;
	struct fol_left_behind left;
	struct fol_pagecache_read pagecache;
};

/* The chunks of a recording, as the session holds them (any may be NULL). */
struct fol_recording_chunks {
	const cJSON *meta, *end, *pmu, *phases, *before, *after, *synth, *maps, *pagecache;
	const cJSON *run;	/* RUN */
	const cJSON *bare;	/* an array of BARE chunks */
};
/* c into rec: 0 or -ENOMEM (rec freed). */
int fol_recording_parse(struct fol_recording *rec, const struct fol_recording_chunks *c);
void fol_recording_free(struct fol_recording *rec);
/* The facts of rec that chunk (FOL_CHUNK_META, _END, _RUN, _PMU) holds, as the recorder
 * writes them: strings longer than a reader keeps are cut, saying so; a PMU count not
 * counted has value < 0 there. NULL on ENOMEM. */
cJSON *fol_recording_json(const struct fol_recording *rec, uint32_t chunk);
/* An untraced run as its BARE chunk. NULL on ENOMEM. */
cJSON *fol_recording_bare_json(const struct fol_bare *b);
/* A workload's phases as it writes them, JSON lines (a WORKLOAD chunk; record/bare.c reads
 * its own into b): 0 or -ENOMEM; a line that is not a phase is skipped. */
int fol_recording_phases_read(struct fol_phases *p, const char *lines, size_t len);
/* The same lines checked (fol_recording_check) into the array into, as the session keeps
 * them: returns how many lines were dropped and values removed. */
uint64_t fol_recording_phase_lines(cJSON *into, const char *lines, size_t len);
void fol_recording_bare_free(struct fol_bare *b);

/* A chunk is untrusted input, made on another machine or by anyone: every value foliostat
 * reads later is removed from j here unless it has the type and range foliostat expects,
 * so that what reads it takes what it finds at face value; keys foliostat does not know
 * are left alone (newer writers). Returns how many values were removed (0 for a
 * well-formed chunk), or -FOL_E_BAD_METADATA when j is NULL (not JSON), an object in it
 * names a key twice, or its top level has the wrong type: the caller drops the chunk. */
int fol_recording_check(uint32_t chunk_type, cJSON *j);
/* 1 when an object anywhere in j names a key twice: cJSON keeps both, and a lookup finds
 * the first, so a check and a later read could see different copies. */
int fol_json_repeats_keys(const cJSON *j);
/* The longest string a chunk's value may hold (a command line's argument, a path): the
 * writer cuts what is longer, the reader drops it. */
#define FOL_META_STR_MAX 65536
/* The largest pid Linux hands out (PID_MAX_LIMIT on 64-bit). */
#define FOL_PID_MAX (4 * 1024 * 1024)

/* The page size of the recording machine: 4096 where the recording says none a kernel has. */
unsigned fol_recording_page_size(const struct fol_recording *rec);
/* The recorded build-id of the file at path into b (20 bytes): its length, 0 when none. */
int fol_recording_build_id(const struct fol_recording *rec, const char *path, unsigned char *b);

#endif
