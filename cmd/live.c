// SPDX-License-Identifier: GPL-2.0-only
#include "live.h"

#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/clock.h"

static void on_fault(void *ctx, const struct fol_fault_seen *f)
{
	struct live *l = ctx;

	for (int i = 0; i < l->ntally; i++)
		if (fol_tally_fault(l->tally[i], f))
			l->nomem = 1;
}

static void on_exec(void *ctx, int pid)
{
	struct live *l = ctx;

	for (int i = 0; i < l->ntally; i++)
		fol_tally_exec(l->tally[i], pid);
}

static void on_fork(void *ctx, int ppid, int pid)
{
	struct live *l = ctx;

	for (int i = 0; i < l->ntally; i++)
		fol_tally_fork(l->tally[i], ppid, pid);
}

static void on_exit_task(void *ctx, int pid, int tid)
{
	struct live *l = ctx;

	for (int i = 0; i < l->ntally; i++)
		fol_tally_exit(l->tally[i], pid, tid);
}

/* What the merge can release, into the model (under serve's lock). */
static int drain(struct live *l)
{
	int ret;

	if (l->lock)
		pthread_mutex_lock(l->lock);
	ret = fol_report_drain(&l->r, l->s);
	if (l->lock)
		pthread_mutex_unlock(l->lock);
	return ret ? ret : l->nomem ? -ENOMEM : 0;
}

/* The recorder's chunks, as stat takes them: into the session, and after each pass over
 * the ring buffers what the merge can release into the model. */
static int live_sink(void *ctx, uint32_t type, const void *buf, size_t len)
{
	struct live *l = ctx;
	int ret = fol_session_feed(l->s, type, buf, len);

	if (ret)
		return ret;
	ret = fol_report_begin_at(&l->r, &l->begun, l->s, &l->mo, type);
	if (ret)
		return ret;
	if (!l->begun || type != FOL_CHUNK_ROUND)
		return 0;
	return drain(l);
}

void live_malloc_policy(void)
{
	mallopt(M_MMAP_THRESHOLD, 64 * 1024);
	mallopt(M_TRIM_THRESHOLD, 1024 * 1024);
}

void live_trim(struct live *l)
{
	static uint64_t last;
	uint64_t now = fol_mono_ns();

	if (now - last < 60000000000ull)
		return;
	last = now;
	if (l->begun) {
		if (l->lock)
			pthread_mutex_lock(l->lock);
		fol_model_forget_files(l->r.model); /* out of memory: the next minute's */
		if (l->lock)
			pthread_mutex_unlock(l->lock);
	}
	malloc_trim(0);
}

int live_open(struct live *l, struct fol_writer **w)
{
	int ret;

	l->obs = (struct fol_model_observer){ .fault = on_fault, .exit = on_exit_task,
					 .execed = on_exec, .forked = on_fork, .ctx = l };
	l->mo = (struct fol_model_opts){ .order = FOL_ANY, .cls = FOL_ANY, .observer = &l->obs,
					 .live = 1 };
	ret = fol_session_open_live(&l->s);
	if (!ret)
		ret = fol_writer_open_sink(w, live_sink, l);
	return ret;
}

int live_add_tally(struct live *l, const struct fol_tally_opts *o, struct fol_tally **t)
{
	int ret;

	if (l->ntally == LIVE_MAX_TALLIES)
		return -ENOSPC;
	ret = fol_tally_new(t, o);
	if (!ret)
		l->tally[l->ntally++] = *t;
	return ret;
}

int live_end(struct live *l)
{
	fol_session_feed_end(l->s);
	return l->begun ? drain(l) : 0;
}

const struct fol_summary *live_summary(const struct live *l)
{
	return l->begun ? fol_model_peek(l->r.model) : NULL;
}

const char *live_meta(const struct live *l, const char *key)
{
	const cJSON *v = l->begun ? cJSON_GetObjectItemCaseSensitive(l->r.meta, key) : NULL;

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

void live_close(struct live *l)
{
	if (l->begun)
		fol_report_free(&l->r);
	fol_session_close(l->s);
	for (int i = 0; i < l->ntally; i++)
		fol_tally_free(l->tally[i]);
	memset(l, 0, sizeof(*l));
}
