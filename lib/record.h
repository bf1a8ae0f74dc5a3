/* Recording: run or attach to a workload, record its events through libperf, write the
 * foliostat data file (file.h) as the ring buffers are drained. */
#ifndef FOL_RECORD_H
#define FOL_RECORD_H

#include <stdint.h>
#include <sys/types.h>

#include "file.h"
#include "msgs.h"
#include "mthp.h"

struct fol_record_opts {
	const char *output;
	char *const *argv;	 /* workload to start; NULL with pid */
	pid_t pid;		 /* attach to this process (all its threads) */
	double duration;	 /* with pid: seconds, 0 = until SIGINT/SIGTERM */
	const char *const *events; /* -e names; NULL: the default set */
	int nr_events;
	int mmap_pages;		 /* per CPU ring buffer, pages (power of two) */
	/* Set before the workload starts, e.g. FOLIOSTAT_PHASES for built-in workloads;
	 * whatever the workload writes to that file ends up in a WORKLOAD chunk. */
	const char *phase_file;
	/* THP/mTHP policy for the run (NULL: leave it): set once the signal handlers are in
	 * place, put back before fol_record returns, whatever ended the run. */
	struct fol_mthp *mthp;
	const char *mthp_spec;	/* as given, for the file's metadata */
	/* Add foliostat's own kprobe events (kprobe.h) where the kernel has them: created
	 * before the run, removed after it on every exit path but SIGKILL. */
	int kprobes;
	/* How fault time is measured: FOL_METHOD_AUTO takes exact where the page fault
	 * tracepoints exist, else sampled (a cpu-clock sampler every clock_period_ns with
	 * kernel call chains). */
	int method;
	uint64_t clock_period_ns;
	/* No file: every chunk goes here as it is recorded (output is then only a name for
	 * messages). */
	fol_chunk_sink sink;
	void *sink_ctx;
	/* A writer the caller opened and closes (a recording of several runs): this run's
	 * chunks are added to it. Takes the place of output and sink. */
	struct fol_writer *writer;
};

enum { FOL_METHOD_AUTO, FOL_METHOD_EXACT, FOL_METHOD_SAMPLED };
#define FOL_CLOCK_PERIOD_DEFAULT 100000

#define FOL_RECORD_DEFAULT_PAGES 1024
/* 1 GiB per CPU: more cannot be locked by default, and the wake-up watermark (a u32 of
 * bytes) must not wrap. */
#define FOL_RECORD_MAX_PAGES (256 * 1024)

struct fol_record_result {
	int wait_status;	/* of the workload, as from waitpid(); -1 in attach mode */
	int exec_errno;		/* the workload could not be executed */
	uint64_t records;	/* perf records written */
	uint64_t samples;
	uint64_t lost;		/* samples the kernel dropped (PERF_RECORD_LOST) */
	uint64_t bytes;		/* file size */
	double seconds;
	struct fol_msgs warnings; /* skipped events, unsupported counters */
	char error[512];	/* what failed and what to do, when the call fails */
};

/* The default events of DESIGN.md; tracepoints may carry a glob. */
extern const char *const fol_default_tracepoints[];
extern const char *const fol_software_events[];	/* sampled at period 1 */
extern const char *const fol_counting_events[];	/* PMU and software, counted */

/* Fill attr for a software or hardware event name ("minor-faults", "dTLB-load-misses");
 * -ENOENT for an unknown name. */
struct perf_event_attr;
int fol_record_named_attr(const char *name, struct perf_event_attr *attr);

/* 0 when the recording was written; the workload's own status is in the result.
 * Negative: nothing useful was recorded, error[] says why. */
int fol_record(const struct fol_record_opts *o, struct fol_record_result *res);
void fol_record_result_free(struct fol_record_result *res);

#endif
