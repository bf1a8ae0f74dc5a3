/* SPDX-License-Identifier: GPL-2.0-only */
/* What a recording says of itself (its META and END chunks), parsed once when the report
 * is computed: the renderers, compare and the TUI read these fields, not the chunks' JSON.
 * Numbers stay doubles, as the JSON held them, so that every output prints them as it did;
 * metadata.c checked their types and ranges when the chunks were read. */
#ifndef FOL_RECORDING_H
#define FOL_RECORDING_H

#include <cjson/cJSON.h>

/* The probe effect calibrated before the recording (record/calibrate.h). */
struct fol_probe {
	int have;		/* the recording was calibrated */
	double faults, passes, untraced_ns, traced_ns, samples;
	double exits, sample_bytes; /* < 0: not kept by the recording's foliostat */
};

/* A counted PMU or software event (the PMU chunk). */
struct fol_pmu_count {
	char *event;		/* NULL: not named */
	double value;		/* 0 when not counted */
	int counted;		/* the recording has its value */
	int supported;		/* the kernel could count it */
};

/* A phase the workload timed itself (the WORKLOAD chunk), in the order it wrote them. */
struct fol_phase {
	char *name;		/* NULL: not named */
	double start_ns, end_ns; /* 0 when not given */
	int timed;		/* both ends given */
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

struct fol_recording {
	char **command;		/* the command line; NULL with have_command 0: none recorded */
	int ncommand, have_command;
	double pid;
	double *mm_threads;	/* the kernel's mm threads recorded beside it (pids) */
	int nmm_threads;
	/* NULL: not recorded. mode: "attach", "system-wide", or a command's. */
	char *kernel, *machine, *mode, *kernel_build_id, *fault_path, *fault_path_why;
	double cpus, started_realtime_ns, sample_period_ns;
	char **missing_events;	/* events asked for that the kernel lacked */
	int nmissing;
	struct fol_probe probe;
	double duration_ns;	/* END's; < 0: the recording has no END chunk */
	struct fol_pmu_count *pmu;
	int npmu;
	struct fol_phase *phases;
	int nphases;
	int counted;		/* the counters were read before and after the run */
	struct fol_mthp_stat *mthp; /* every size's numeric stats, as after lists them */
	int nmthp;
	struct fol_build_id *build_ids; /* sorted by path */
	int nbuild_ids;
	int seeded_at_attach;	/* the folios at the start came from an attach (SYNTH) */
};

/* The chunks (any may be NULL) into rec: 0 or -ENOMEM. before and after: the COUNTERS
 * snapshots (sys/counters.h); synth: the SYNTH chunk. */
int fol_recording_parse(struct fol_recording *rec, const cJSON *meta, const cJSON *end,
			const cJSON *pmu, const cJSON *phases, const cJSON *before,
			const cJSON *after, const cJSON *synth);
void fol_recording_free(struct fol_recording *rec);
/* The recorded build-id of the file at path into b (20 bytes): its length, 0 when none. */
int fol_recording_build_id(const struct fol_recording *rec, const char *path, unsigned char *b);

#endif
