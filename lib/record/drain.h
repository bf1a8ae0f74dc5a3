/* SPDX-License-Identifier: GPL-2.0-only */
/* An evlist's ring buffers read: the one drain loop of the recorder and the calibration. */
#ifndef FOL_DRAIN_H
#define FOL_DRAIN_H

struct perf_evlist;
union perf_event;

/* Each record waiting in evlist's ring buffers handed to each(), in the order of each ring
 * buffer, and consumed once each() took it; after each ring buffer, ring_done() when given.
 * The first non-zero return of either ends the drain (the record each() refused is left
 * in its ring buffer) and is returned; 0 when all was read. */
int fol_drain(struct perf_evlist *evlist, int (*each)(const union perf_event *ev, void *ctx),
	      int (*ring_done)(void *ctx), void *ctx);

#endif
