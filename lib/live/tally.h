/* SPDX-License-Identifier: GPL-2.0-only */
/* Faults tallied by task or cgroup while they come (top and serve): the model tells each
 * fault it counts (model.h's observer), a tally adds it to its row. Rows of tasks that
 * ended are kept for one interval more, then dropped, so that a tally left running for
 * days holds the tasks alive and no more; cgroup rows are bounded (the rest go to one
 * row named "other"). */
#ifndef FOL_TALLY_H
#define FOL_TALLY_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

/* Latency buckets: four to a power of two of nanoseconds, from 2^FOL_LAT_MIN_SHIFT
 * (256 ns; faster faults go to the first) to 2^32 ns (4.3 s; slower ones go to the last).
 * Fixed, so that a tally's memory does not grow with its faults, and subtracting two
 * tallies gives an interval's. */
#define FOL_LAT_MIN_SHIFT 8
#define FOL_LAT_SUB 4
#define FOL_LAT_BUCKETS ((32 - FOL_LAT_MIN_SHIFT) * FOL_LAT_SUB + 1)

/* The upper bound of bucket i (UINT64_MAX for the last). */
uint64_t fol_lat_bucket_top(int i);
int fol_lat_bucket(uint64_t ns);
/* The bucket top below which fraction q of the counted values fall: 0 when none. */
uint64_t fol_lat_quantile(const uint64_t *b, double q);

enum fol_tally_by { FOL_BY_ALL, FOL_BY_PROCESS, FOL_BY_THREAD, FOL_BY_CGROUP };

struct fol_tally_cell {
	uint64_t faults, timed, time_ns;
};

struct fol_tally_counts {
	struct fol_tally_cell cell[FOL_NR_ORDER_SLOTS][FOL_NR_CLASSES];
	uint64_t reuse[FOL_NR_ORDER_SLOTS];	/* wp_reuse faults */
	uint64_t episodes[FOL_NR_ORDER_SLOTS];	/* their folios' first since shared */
	uint64_t lat[FOL_LAT_BUCKETS];		/* every timed fault of the row */
	uint64_t faults, time_ns;
};

struct fol_tally_row {
	uint64_t key;
	int pid, tid;		/* by process or thread */
	char comm[16];
	char cgroup[256];	/* by cgroup: its path from the cgroup2 root, or "other" */
	int gone;		/* 1: its task ended in this interval; 2: in the one before */
	int removed;		/* by cgroup: its cgroup was found removed, at removed_ns */
	uint64_t removed_ns;
	struct fol_tally_counts total;	/* since the start */
	struct fol_tally_counts last;	/* the last interval that ended */
	struct fol_tally_counts mark;	/* total, when that interval ended */
	/* With cell histograms (serve): latency buckets per order and class, since the
	 * start. */
	uint64_t (*hist)[FOL_NR_CLASSES][FOL_LAT_BUCKETS];
};

struct fol_tally_opts {
	enum fol_tally_by by;
	int cell_hist;
	int max_rows;		/* by cgroup: rows before the rest go to "other"; 0: 64 */
	/* by cgroup: pid's cgroup path into buf (0, or -errno: the fault goes to "other").
	 * NULL: /proc/PID/cgroup (sys/cgroup.h). For a fault without its cgroup's id. */
	int (*cgroup_of)(int pid, char *buf, size_t len);
	/* ... the path of the cgroup whose id a fault carries. NULL: sys/cgroup.h's walk. */
	int (*cgroup_of_id)(uint64_t id, char *buf, size_t len);
	/* ... whether the cgroup at path is still there (1), removed (0), or cannot be told
	 * (-errno: kept). NULL: sys/cgroup.h's look under the cgroup2 mount. */
	int (*cgroup_alive)(const char *path);
	/* ... how long the row of a removed cgroup stays, its last counts for the scrapes
	 * still to come (fol_tally_prune). */
	uint64_t linger_ns;
};

struct fol_tally;

int fol_tally_new(struct fol_tally **out, const struct fol_tally_opts *o);
void fol_tally_free(struct fol_tally *t);
/* 0, or -ENOMEM (the fault is not counted). */
int fol_tally_fault(struct fol_tally *t, const struct fol_fault_seen *f);
/* Faults counted elsewhere (serve's kernel reuse, in the BPF programs), all of one order
 * and class: added to the cgroup's row (by cgroup; NULL or "" is "other") or to the one
 * row (all). 0, -ENOMEM, or -EINVAL for a tally by task. */
struct fol_tally_bulk {
	uint64_t faults, episodes, timed, time_ns;
	uint64_t lat[FOL_LAT_BUCKETS];
};
int fol_tally_add(struct fol_tally *t, const char *cgroup, int order, enum fol_class cls,
		  const struct fol_tally_bulk *b);
void fol_tally_exit(struct fol_tally *t, int pid, int tid);
/* pid exec'd: by cgroup, its cgroup is looked up again at its next fault (a shell that
 * moves itself into a cgroup, then execs the workload). */
void fol_tally_exec(struct fol_tally *t, int pid);
/* ppid forked pid: by cgroup, the child is counted in its parent's cgroup until it execs
 * (a child gone before its first fault is looked at has no /proc to look up). */
void fol_tally_fork(struct fol_tally *t, int ppid, int pid);
/* An interval ends: each row's faults since the last call become its last interval's;
 * the rows of tasks that ended before the previous call go. */
void fol_tally_interval(struct fol_tally *t);
/* By cgroup (else nothing): the rows of cgroups removed go once they have been found
 * removed for linger_ns (now_ns and the times before it: one monotonic clock), and what
 * pointed at them (ids, processes): containers come and go for days. A path made again
 * before then keeps its row. */
void fol_tally_prune(struct fol_tally *t, uint64_t now_ns);
/* The rows, in no order, into v (room for max): how many there are (more than max when
 * v was short). The pointers hold until the next call that changes the tally. */
size_t fol_tally_list(const struct fol_tally *t, const struct fol_tally_row **v, size_t max);
/* Tasks whose rows are held (by process or thread), and the faults that went to "other"
 * because the cgroup rows were all taken (by cgroup). */
size_t fol_tally_size(const struct fol_tally *t);
uint64_t fol_tally_overflow(const struct fol_tally *t);
/* Faults of class cls the model judged (fol_tally_fault), not the programs in the kernel
 * (fol_tally_add): each one streamed to user space. */
uint64_t fol_tally_streamed(const struct fol_tally *t, int cls);

/* Reuse faults per folio episode (1 is one fault per folio), and its inverse. 0 when
 * no reuse. */
double fol_tally_per_folio(const struct fol_tally_counts *c);
double fol_tally_effectiveness(const struct fol_tally_counts *c);

#endif
