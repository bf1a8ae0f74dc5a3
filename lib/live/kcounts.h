/* SPDX-License-Identifier: GPL-2.0-only */
/* serve's faults decided in the kernel (bpf_record.h: reuse, allocations, file faults,
 * counted by the BPF programs by cgroup, class and order), pulled into a tally: each pull
 * adds what grew since the last; a pruning pull also forgets the keys of removed cgroups,
 * here and in the programs (no task is left in one to fault: nothing is lost). */
#ifndef FOL_LIVE_KCOUNTS_H
#define FOL_LIVE_KCOUNTS_H

#include <pthread.h>
#include <stdint.h>

#include "live/tally.h"
#include "record/record.h"

struct fol_kcounts;

struct fol_kcounts_opts {
	struct fol_tally *tally;
	int by_cgroup;		/* the tally's rows are cgroups (their paths found by id) */
	pthread_mutex_t *lock;	/* guards the tally (the scrapes'): held by each tick's work */
	const char *cgroup;	/* -G's, under the cgroup root: watched for its removal; NULL none */
};

/* 0 or -ENOMEM. */
int fol_kcounts_new(struct fol_kcounts **kc, const struct fol_kcounts_opts *o);
void fol_kcounts_free(struct fol_kcounts *kc);

/* serve's collector, at every tick of its recording: the kernel's counts pulled into the
 * tally four times a second (at once when soon: a scrape waits for them); by cgroup,
 * every 5 s, removed cgroups' counts pulled a last time and forgotten and the rows that
 * have lingered long enough dropped. Returns 1 at the tick that finds -G's cgroup removed
 * (nothing more can be counted), else 0. */
int fol_kcounts_tick(struct fol_kcounts *kc, struct fol_recorder *r, int soon);

/* The (cgroup, class, order) keys held; what the programs did with the faults they saw
 * (FOL_BPF_K_NR counts, bpf_record.h), NULL before a pull found kernel counts. */
uint64_t fol_kcounts_keys(const struct fol_kcounts *kc);
const uint64_t *fol_kcounts_stat(const struct fol_kcounts *kc);

#endif
