/* SPDX-License-Identifier: GPL-2.0-only */
/* A recording opened for reading: its metadata, and its events decoded and merged into
 * time order, streamed one at a time. */
#ifndef FOL_SESSION_H
#define FOL_SESSION_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "data/decode.h"
#include "data/event.h"
#include "data/file.h"
#include "data/recording.h"

struct fol_session;

struct fol_session_stats {
	uint64_t records;	/* perf records read */
	uint64_t events;	/* decoded and returned */
	uint64_t bad_records;	/* malformed: skipped */
	uint64_t unknown_records; /* of an event id the file does not describe */
	uint64_t bad_metadata;	/* JSON values of the wrong type or range: dropped */
	uint64_t lost;		/* the kernel dropped these (PERF_RECORD_LOST) */
	uint64_t out_of_order;	/* arrived after newer ones were released */
	uint64_t retimed;	/* out of place in their ring buffer: time from position */
	uint64_t merge_peak;	/* most records held by the merge at once */
	/* Of this run alone, from its start to its END chunk (to its stream's end without
	 * one): the damaged regions skipped inside it. Damage after END (between two runs)
	 * is the file's only. */
	uint64_t run_corrupt_chunks, run_corrupt_bytes;
	/* Its stream ran into another run's metadata: the RUN chunk between them was lost
	 * to damage, and the stream was ended there rather than merged with the next. */
	int run_boundary_lost;
	struct fol_reader_status file;
};

/* Reads the header chunks. The reader's errors (file.h), or -FOL_E_NO_METADATA: no
 * usable metadata or event descriptions;
 * other negative codes from open(2). */
int fol_session_open(struct fol_session **s, const char *path);
void fol_session_close(struct fol_session *s);
/* A recording of several runs (FOL_CHUNK_RUN): once prev has returned its last event, the
 * next run as a session of its own, the file reader handed over (prev keeps its metadata
 * and can still be asked for it). 1 and *s, 0 when prev was the last run. Runs without a
 * usable header are skipped. A run whose RUN chunk was lost starts at its META chunk
 * (its recording's place.have is 0 then). */
int fol_session_open_next(struct fol_session *prev, struct fol_session **s);
/* (When it returns 0, prev has the reader again: fol_session_stats(prev).file is the whole
 * file's.) */
/* A session fed chunk by chunk as they are recorded (foliostat stat), no file. Until
 * fol_session_feed_end(), fol_session_next() returns 0 when nothing is releasable yet. */
int fol_session_open_live(struct fol_session **s);
int fol_session_feed(struct fol_session *s, uint32_t type, const void *buf, size_t len);
void fol_session_feed_end(struct fol_session *s);
/* Every record up to this time (the records' clock) has been released in time order, or
 * can be now: fed ROUND chunks that say when their drains began move it on a quiet
 * machine too (merge.h's fol_merge_drained). */
uint64_t fol_session_released_until(const struct fol_session *s);
/* The header (META and EVENT chunks) has been seen: events can be decoded. */
int fol_session_ready(const struct fol_session *s);
/* 1: ev is the next event in time order (valid until the next call); 0: the end. */
int fol_session_next(struct fol_session *s, struct fol_event *ev);

const struct fol_decoder *fol_session_decoder(const struct fol_session *s);
/* What the recording says of itself, from the chunks read so far (recording.h: those
 * written after the records are known once the stream has ended), into rec: 0, or -ENOMEM.
 * rec is the caller's (fol_recording_free). */
int fol_session_recording(const struct fol_session *s, struct fol_recording *rec);
/* The recording kernel's symbols (ksyms.h), the session's own: NULL when it carries none. */
struct fol_ksyms;
struct fol_ksyms *fol_session_ksyms(const struct fol_session *s);
/* The page cache's folios at the end of the run (pagecache.h), or NULL. */
const cJSON *fol_session_pagecache(const struct fol_session *s);
struct fol_session_stats fol_session_stats(const struct fol_session *s);

#endif
