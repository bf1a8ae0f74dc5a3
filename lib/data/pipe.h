/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef FOL_PIPE_H
#define FOL_PIPE_H

#include "data/event.h"
#include "data/session.h"

/*
 * A session's events to a consumer, the session read in a thread of its own: reading,
 * inflating, merging and decoding a recording took as long as the model took with its
 * events (a build's report: 36% and 32% of it), and a report had one CPU busy.
 *
 * The reading thread copies a batch of events at a time, with what they point to (file
 * names, call chains, stacks; not the raw payload, which only printing reads), and hands
 * it over; the consumer sees every event in the session's order, as fol_session_next()
 * gives them. Without a thread (none could be made), the events are read in turn.
 */

/* Every event of s to consume(arg, ev), until the session's end (0), its error, or
 * consume's (returned as they are). The session is the reading thread's until then. */
int fol_pipe_drain(struct fol_session *s, int (*consume)(void *arg, const struct fol_event *ev),
		   void *arg);

/* Events a batch holds (tests make it small, to cross many batches). */
void fol_pipe_set_batch(size_t n);

#endif
