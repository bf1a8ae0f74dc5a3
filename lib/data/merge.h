/* SPDX-License-Identifier: GPL-2.0-only */
/* Time-ordered merge of records from several CPU ring buffers.
 *
 * Each ring buffer is in time order, but a round of drains interleaves them. Like perf's
 * ordered events, at the end of round N every record up to the newest time seen by the
 * end of round N-1 could be released, since no ring buffer can still hold an older one;
 * but the session holds the last records of each buffer's chunk back for one round (to
 * judge their times by the buffer's next chunk, session.c), so the merge waits a round
 * more: up to the end of round N-2. Memory is bounded by three rounds of records, not by
 * the recording.
 */
#ifndef FOL_MERGE_H
#define FOL_MERGE_H

#include <stddef.h>
#include <stdint.h>

struct fol_merge;

struct fol_merge *fol_merge_new(void);
void fol_merge_free(struct fol_merge *m);
/* Queue a copy of rec. Records pushed between two fol_merge_end_run() calls come from
 * one ring buffer (they are in time order, but any order is handled). */
int fol_merge_push(struct fol_merge *m, uint64_t time, const void *rec, size_t size);
/* Room for n more records of the open run, bytes in all, made at once (a run grown a
 * record at a time was reallocated a dozen times: 5% of a build's report). -ENOMEM or 0. */
int fol_merge_reserve(struct fol_merge *m, size_t n, size_t bytes);
/* The records of one ring buffer drain (a chunk) are all pushed. */
int fol_merge_end_run(struct fol_merge *m);
/* A round ended; records up to the newest time of the round before the previous one
 * become releasable. */
void fol_merge_round(struct fol_merge *m);
/* Before fol_merge_round: this round's drains began at time drained (the records' clock),
 * so every record older was in a buffer they emptied (but one the kernel was still
 * writing: FOL_MERGE_DRAIN_MARGIN_NS). Those become releasable at the next round, once
 * the records the session held back from this one are pushed: a newest time moves only
 * with records, and a quiet machine's last records (serve's, after a workload ended)
 * waited for others to come, a scrape's counts short of what had happened before it. */
void fol_merge_drained(struct fol_merge *m, uint64_t drained);
#define FOL_MERGE_DRAIN_MARGIN_NS 10000000ull
/* Every record up to this time is released, or releasable. */
uint64_t fol_merge_limit(const struct fol_merge *m);
/* Release everything (end of file). */
void fol_merge_flush_all(struct fol_merge *m);
/* Oldest releasable record: 1 and its pointer (valid until the next pop), 0 if none. */
int fol_merge_pop(struct fol_merge *m, uint64_t *time, const void **rec, size_t *size);
/* Records queued but not yet popped, and the most ever queued (for benchmarks). */
size_t fol_merge_queued(const struct fol_merge *m);
size_t fol_merge_peak(const struct fol_merge *m);
/* Records that arrived older than what was already released (out of order). */
uint64_t fol_merge_late(const struct fol_merge *m);
/* Memory bound: past this many bytes of records held, everything held is released as if
 * a round had ended. Two rounds of a 64-CPU machine with default buffers are 512 MB. */
#define FOL_MERGE_MAX_BYTES (1024ul << 20)
void fol_merge_set_max_bytes(struct fol_merge *m, size_t bytes);
/* How often that bound released records early. */
uint64_t fol_merge_forced(const struct fol_merge *m);

/* The times of one ring buffer's records, in the order the kernel wrote them. The kernel
 * writes a buffer in time order, so a record whose time is out of place against both
 * neighbours did not get its time from this recording's clock: when another tool samples
 * the same software event (or tracepoint) on the same task, the kernel prepares one
 * sample for all of them (do_perf_sw_event()), and the first event's time, in its clock,
 * goes into every copy. Such a record is given its predecessor's time (its place in the
 * stream is known, its time is not) and flagged[i] set. With first_known, times[0] is
 * the time of the record before these (the buffer's previous chunk), taken as right.
 * Returns how many were moved. */
size_t fol_merge_retime(uint64_t *times, uint8_t *flagged, size_t n, int first_known);
/* How many records past the next one fol_merge_retime() looks at to judge a record. */
#define FOL_RETIME_WINDOW 8

#endif
