/* SPDX-License-Identifier: GPL-2.0-only */
/* serve's /metrics: a tally (by cgroup, or all in one) with the cell histograms, the
 * model's figures that no task owns (faults of unknown order by cause, lost events) and
 * the kernel's mTHP counters, in the Prometheus text format (0.0.4) or OpenMetrics. */
#ifndef FOL_LIVE_METRICS_H
#define FOL_LIVE_METRICS_H

#include <stdio.h>

#include "live/tally.h"
#include "model/summary.h"
#include "report/report.h"
#include "sys/self.h"

struct cJSON;

struct fol_scrape {
	const struct fol_tally *tally;	/* by cgroup (a cgroup label) or all */
	int by_cgroup;
	/* One fault in sample was timed (serve --sample): the histogram's counts and sum are
	 * multiplied by it, and labelled so. 0 or 1: every fault. */
	unsigned sample;
	const struct fol_summary *s;	/* the model's, so far */
	uint64_t lost;			/* events the kernel dropped */
	const struct cJSON *counters;	/* sys/counters.h's snapshot, or NULL */
	unsigned page_size;
	const char *kernel, *fault_path;
	uint64_t started_ns;		/* CLOCK_REALTIME of serve's start */
	/* Kernel reuse's FOL_BPF_K_* counts (bpf_record.h), or NULL when it is off. */
	const uint64_t *kernel_reuse;
	uint64_t kernel_keys;		/* ... its (cgroup, class, order) counts held */
	/* serve's connections (connguard.h): 0 when not serving; kept now, refused at once,
	 * ended past the request deadline. */
	int http, http_kept;
	const struct fol_self *self;	/* serve's own memory and CPU, or NULL */
	uint64_t http_refused, http_ended;
};

/* 0, or -ENOMEM. */
int fol_scrape_write(const struct fol_scrape *sc, enum fol_metrics fmt, FILE *f);

#endif
