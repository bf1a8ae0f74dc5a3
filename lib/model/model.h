/* SPDX-License-Identifier: GPL-2.0-only */
/* The fault model: threads, address spaces (VMAs, folio map) and the fault tracker.
 * Consumes struct fol_event in time order; produces struct fol_summary. Streaming: its
 * memory grows with threads, processes and folios, never with events. */
#ifndef FOL_MODEL_H
#define FOL_MODEL_H

#include <stdint.h>

#include "data/event.h"
#include "model/summary.h"
#include "sys/mthp.h"

struct fol_model;

/* A fault as the model counts it, for those who tally faults by task while they come
 * (top and serve: live/tally.h). */
struct fol_fault_seen {
	int pid, tid;
	const char *comm;	/* the thread's name; the process's is pid's */
	const char *proc_comm;
	int order;		/* -1: unknown */
	enum fol_class cls;
	int timed;		/* lat_ns is the handler's latency */
	uint64_t lat_ns;
	int major;
	int new_episode;	/* a reuse fault, the first on its folio since it was last shared */
	uint64_t cgroup;	/* its task's cgroup (v2) id at the fault; 0 where not recorded */
};

struct fol_model_observer {
	void (*fault)(void *ctx, const struct fol_fault_seen *f);
	/* A task ended: its process's when tid == pid. */
	void (*exit)(void *ctx, int pid, int tid);
	/* Process pid exec'd another program (it may have moved to another cgroup first). */
	void (*execed)(void *ctx, int pid);
	/* Process ppid forked process pid (which starts in its parent's cgroup). */
	void (*forked)(void *ctx, int ppid, int pid);
	void *ctx;
};

struct fol_model_opts {
	unsigned page_size;	/* 4096 when 0 */
	int pid;		/* account only this process's faults; 0 = all */
	const char *comm;	/* ... only threads of this name; NULL = all */
	int order;		/* ... only this order (-1 unknown); FOL_ANY = all */
	int cls;		/* ... only this class; FOL_ANY = all */
	uint64_t t_start, t_end; /* ... only faults entered in [t_start, t_end); 0 = open */
	uint64_t bin_ns;	/* first timeline resolution (it coarsens as needed); 0: 1 ms */
	/* Sampled method: there are no fault entry events. A thread's fault is everything
	 * between two of its exit samples; its time is the cpu-clock samples that fell in
	 * the fault handler; its class comes from the events and the folio map, without the
	 * error code. */
	int sampled;
	/* The PMD order of the recorded machine (0: not known, nor the huge zero page). */
	int pmd_order;
	/* Where the recorded kernel maps the huge zero page at a read fault (its THP policy
	 * for the PMD size and use_zero_page, at the start): FOL_HZ_UNKNOWN (a recording made
	 * before they were kept), _NONE, _MADVISE (MADV_HUGEPAGE ranges), _ALWAYS. */
	int huge_zero;
	/* record -a -G: only samples of tasks in these cgroups (and those made below them
	 * during the recording); the kernel's mm threads are judged by whose memory they
	 * touch instead. NULL: all. */
	const struct fol_cgroups *cgroups;
	/* --call-graph dwarf stacks are unwound with the binaries found under symfs (report
	 * --symfs) or at their recorded paths (NULL); the report names code from the same
	 * files. */
	const char *symfs;
	/* Not the model's: carried to every run's report. report --kallsyms FILE: the
	 * recording kernel's symbols, in place of those the recording carries. */
	const char *kallsyms;
	/* The recorded kernel's mm threads (khugepaged, kswapd, kcompactd: children of
	 * kthreadd), by tid, when the recording names them (mm_threads_known); else they
	 * are known by name, and a workload named khugepaged is taken for one. */
	const int *mm_threads;
	int nr_mm_threads, mm_threads_known;
	/* The recording's page cache at the end (a PAGECACHE chunk), or NULL: the order of
	 * file faults on pages already cached. */
	const struct cJSON *pagecache;
	/* The recording has no swap write event (vmscan:mm_vmscan_write_folio): the folios
	 * allocated are not kept by page frame for one (a build's million allocations, a
	 * tenth of its report's time). */
	int no_swap_writes;
	/* ... nor a page free event (kmem:mm_page_free): the kernel's own pages are not kept
	 * by frame to tell their frees apart. */
	int no_page_frees;
	/* top and serve: told every fault and task exit. */
	const struct fol_model_observer *observer;
	/* ... which run for days: nothing is kept that grows with the time recorded (no
	 * sites; the names and process ids of tasks gone are forgotten). */
	int live;
};

#define FOL_ANY (-100)
/* A fault's latency past this (2^40 ns, 18 minutes) is no fault's: a crafted or damaged
 * record's. The fault is counted untimed, and no sum of latencies can wrap. */
#define FOL_LATENCY_MAX (1ull << 40)

struct fol_model *fol_model_new(const struct fol_model_opts *o);
void fol_model_free(struct fol_model *m);
/* 0, or -ENOMEM. Events must come in time order (session.h merges them). */
int fol_model_event(struct fol_model *m, const struct fol_event *ev);
/* Close what is open and fill s; s->bins is malloc'ed: release with fol_summary_free. */
int fol_model_finish(struct fol_model *m, struct fol_summary *s);
/* The figures so far, while events come in (stat -I): read only; sites and bins not
 * final. */
const struct fol_summary *fol_model_peek(const struct fol_model *m);
/* Live (top and serve, from time to time): forget the page cache of the files no process
 * maps any more (the orders of folios added before a fault; a file mapped again is
 * followed anew from its mmap). 0, or -ENOMEM with nothing forgotten. */
int fol_model_forget_files(struct fol_model *m);
/* Live (serve): the THP policy changed while it runs; the huge zero page is placed by
 * policy (sys/mthp.h's FOL_HZ_*) from the next event on. */
void fol_model_set_huge_zero(struct fol_model *m, int policy);
void fol_summary_free(struct fol_summary *s);

#endif
