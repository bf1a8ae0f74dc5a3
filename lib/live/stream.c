// SPDX-License-Identifier: GPL-2.0-only
#include "live/stream.h"

#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "data/session.h"
#include "model/model.h"
#include "report/report.h"
#include "sys/maps.h"
#include "sys/mthp.h"
#include "util/clock.h"

struct fol_live {
	struct fol_session *s;
	struct fol_report r;
	struct fol_model_opts mo;
	struct fol_model_observer obs;
	int begun;
	struct fol_tally *tally[FOL_LIVE_MAX_TALLIES];
	int ntally;
	pthread_mutex_t *lock;
	int nomem;		/* a fault a tally could not count */
	uint64_t trimmed_ns;
	/* The huge zero page's policy (sys/mthp.h) fol_live_policy_tick last gave, + 1 (0:
	 * none yet, the recording's own), when it read it, and the PMD's order to read it. */
	int huge_zero, pmd_order;
	uint64_t policy_read_ns;
};

static void on_fault(void *ctx, const struct fol_fault_seen *f)
{
	struct fol_live *l = ctx;

	for (int i = 0; i < l->ntally; i++)
		if (fol_tally_fault(l->tally[i], f))
			l->nomem = 1;
}

static void on_exec(void *ctx, int pid)
{
	struct fol_live *l = ctx;

	for (int i = 0; i < l->ntally; i++)
		fol_tally_exec(l->tally[i], pid);
}

static void on_fork(void *ctx, int ppid, int pid)
{
	struct fol_live *l = ctx;

	for (int i = 0; i < l->ntally; i++)
		fol_tally_fork(l->tally[i], ppid, pid);
}

static void on_exit_task(void *ctx, int pid, int tid)
{
	struct fol_live *l = ctx;

	for (int i = 0; i < l->ntally; i++)
		fol_tally_exit(l->tally[i], pid, tid);
}

/* What the merge can release, into the model (under serve's lock). */
static int drain(struct fol_live *l)
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
	struct fol_live *l = ctx;
	int ret = fol_session_feed(l->s, type, buf, len), begun = l->begun;

	if (ret)
		return ret;
	ret = fol_report_begin_at(&l->r, &l->begun, l->s, &l->mo, type);
	if (ret)
		return ret;
	/* The policy the recording's head gave may be older than the last one said. */
	if (!begun && l->begun && l->huge_zero)
		fol_model_set_huge_zero(l->r.model, l->huge_zero - 1);
	if (!l->begun || type != FOL_CHUNK_ROUND)
		return 0;
	return drain(l);
}

void fol_live_malloc_policy(void)
{
	mallopt(M_MMAP_THRESHOLD, 64 * 1024);
	mallopt(M_TRIM_THRESHOLD, 1024 * 1024);
}

void fol_live_trim(struct fol_live *l)
{
	uint64_t now = fol_mono_ns();

	if (now - l->trimmed_ns < 60000000000ull)
		return;
	l->trimmed_ns = now;
	if (l->begun) {
		if (l->lock)
			pthread_mutex_lock(l->lock);
		fol_model_forget_files(l->r.model); /* out of memory: the next minute's */
		if (l->lock)
			pthread_mutex_unlock(l->lock);
	}
	malloc_trim(0);
}

int fol_live_policy_tick(struct fol_live *l)
{
	uint64_t now = fol_mono_ns();
	int policy;

	if (l->huge_zero && now - l->policy_read_ns < 1000000000ull)
		return -1;
	l->policy_read_ns = now;
	policy = fol_huge_zero_now("", l->pmd_order);
	if (l->huge_zero == policy + 1)
		return -1;
	if (l->lock)
		pthread_mutex_lock(l->lock);
	l->huge_zero = policy + 1;
	if (l->begun)
		fol_model_set_huge_zero(l->r.model, policy);
	if (l->lock)
		pthread_mutex_unlock(l->lock);
	return policy;
}

int fol_live_open(struct fol_live **lp, pthread_mutex_t *lock, struct fol_writer **w)
{
	struct fol_live *l = calloc(1, sizeof(*l));
	int ret;

	if (!l)
		return -ENOMEM;
	l->lock = lock;
	l->pmd_order = fol_maps_pmd_order("", (unsigned)sysconf(_SC_PAGESIZE));
	l->obs = (struct fol_model_observer){ .fault = on_fault, .exit = on_exit_task,
					 .execed = on_exec, .forked = on_fork, .ctx = l };
	l->mo = (struct fol_model_opts){ .order = FOL_ANY, .cls = FOL_ANY, .observer = &l->obs,
					 .live = 1 };
	ret = fol_session_open_live(&l->s);
	if (!ret)
		ret = fol_writer_open_sink(w, live_sink, l);
	if (ret)
		fol_live_close(l);
	else
		*lp = l;
	return ret;
}

int fol_live_add_tally(struct fol_live *l, const struct fol_tally_opts *o, struct fol_tally **t)
{
	int ret;

	if (l->ntally == FOL_LIVE_MAX_TALLIES)
		return -ENOSPC;
	ret = fol_tally_new(t, o);
	if (!ret)
		l->tally[l->ntally++] = *t;
	return ret;
}

int fol_live_end(struct fol_live *l)
{
	fol_session_feed_end(l->s);
	return l->begun ? drain(l) : 0;
}

const struct fol_summary *fol_live_summary(const struct fol_live *l)
{
	return l->begun ? fol_model_peek(l->r.model) : NULL;
}

const struct fol_recording *fol_live_recording(const struct fol_live *l)
{
	return l->begun ? &l->r.rec : NULL;
}

unsigned fol_live_page_size(const struct fol_live *l)
{
	return l->begun ? l->r.page_size : (unsigned)sysconf(_SC_PAGESIZE);
}

uint64_t fol_live_released_until(const struct fol_live *l)
{
	return l->begun ? fol_session_released_until(l->s) : 0;
}

void fol_live_close(struct fol_live *l)
{
	if (!l)
		return;
	if (l->begun)
		fol_report_free(&l->r);
	fol_session_close(l->s);
	for (int i = 0; i < l->ntally; i++)
		fol_tally_free(l->tally[i]);
	free(l);
}
