/* SPDX-License-Identifier: GPL-2.0-only */
/* What top and serve share: stat's streaming path (the recording straight into the model,
 * no file), with the model telling each fault and task exit to tallies (live/tally.h),
 * and nothing kept that grows with the time recorded. */
#ifndef FOL_LIVE_STREAM_H
#define FOL_LIVE_STREAM_H

#include <pthread.h>
#include <stdint.h>

#include "data/file.h"
#include "live/tally.h"
#include "model/summary.h"

#define FOL_LIVE_MAX_TALLIES 4

struct fol_live;

/* For days of running: buffers of 64 KB and more are mapped on their own and returned to
 * the system when freed, and the heap is trimmed (fol_live_trim, from the command's tick,
 * at most once a minute, after the model forgets the files no process maps any more).
 * glibc's own threshold rises with each large block freed, and the merge's runs (grown,
 * then cut to size) left serve's heap at 44 MB for 25 MB in use after 15 minutes of a
 * fork/exit loop. Once, before the first allocation that matters. */
void fol_live_malloc_policy(void);

/* The live stream and its writer (the recorder writes into it): 0, or -ENOMEM. lock (or
 * NULL) is held while the model and tallies change: serve's scrapes read them under it.
 * Add the tallies before the recording starts. */
int fol_live_open(struct fol_live **l, pthread_mutex_t *lock, struct fol_writer **w);
int fol_live_add_tally(struct fol_live *l, const struct fol_tally_opts *o, struct fol_tally **t);
/* The recording has ended: what the merge still holds, into the model. 0 or -errno. */
int fol_live_end(struct fol_live *l);
void fol_live_close(struct fol_live *l);
/* At most once a minute (from the recorder's tick): forgotten files, the heap trimmed. */
void fol_live_trim(struct fol_live *l);
/* From the recorder's tick (top, serve: they run for weeks, across changes of the THP
 * policy): the policy read again once a second (a tick comes after each poll, thousands a
 * second when busy; three sysfs files). A change is given to the model, from the next
 * event released on, and returned (sys/mthp.h's FOL_HZ_*) for the recorder's kernel
 * zero-page reads (record.h's fol_recorder_huge_zero); -1 when there is none. The faults
 * of that second are judged by the policy before. */
int fol_live_policy_tick(struct fol_live *l);

/* The model's figures so far (NULL before the recording's first events). */
const struct fol_summary *fol_live_summary(const struct fol_live *l);
/* What the recording says of itself at its start (recording.h: its metadata, the counters
 * before it); NULL before the start. */
const struct fol_recording *fol_live_recording(const struct fol_live *l);
/* The recording's page size; this machine's before its first events. */
unsigned fol_live_page_size(const struct fol_live *l);
/* Every record of an event before this time (CLOCK_MONOTONIC ns) is in the model (0
 * before the recording's first events). */
uint64_t fol_live_released_until(const struct fol_live *l);

#endif
