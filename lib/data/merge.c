// SPDX-License-Identifier: GPL-2.0-only
#include "data/merge.h"
#include "util/grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Records arrive in runs: a ring buffer's records come out of it in time order, so each
 * chunk is one sorted run (the rare record written out of order, or a hostile file's
 * shuffled chunk, gets the run sorted when it is sealed: one run per chunk whatever the
 * order, so memory stays that of the records). The merge keeps runs, each a block of copied
 * records, in a heap keyed by the time of their first unreleased record: a k-way merge
 * over a handful of runs per round instead of a heap of every record, and one allocation
 * per run instead of one per record. */

struct rec {
	uint64_t time;
	uint32_t off, size; /* in the run's data */
};

struct run {
	uint64_t seq;	/* ties between runs keep arrival order */
	struct rec *recs;
	size_t n, cap, next;
	char *data;
	size_t used, dcap;
	int unsorted;
};

/* What a run costs beyond its records, for the bound on what the merge holds: the run
 * and the allocator's headers of its three blocks. */
#define RUN_COST (sizeof(struct run) + 3 * 16)

struct fol_merge {
	struct run **heap;	/* runs with records left, by head time */
	size_t n, cap;
	struct run *open;	/* the run being filled */
	size_t queued, peak;
	size_t bytes, max_bytes; /* held: records, their index, runs; past max_bytes all
				  * are released */
	uint64_t seq;
	uint64_t round_max, round_prev, round_prev2, limit, released, late, forced;
	uint64_t drained, drained_prev; /* fol_merge_drained's, this round's and the last's */
	int all;
	struct run *spent;	/* the popped record's run, freed on the next pop */
};

struct fol_merge *fol_merge_new(void)
{
	struct fol_merge *m = calloc(1, sizeof(struct fol_merge));

	if (m)
		m->max_bytes = FOL_MERGE_MAX_BYTES;
	return m;
}

void fol_merge_set_max_bytes(struct fol_merge *m, size_t bytes)
{
	m->max_bytes = bytes;
}

static void run_free(struct run *r)
{
	if (!r)
		return;
	free(r->recs);
	free(r->data);
	free(r);
}

void fol_merge_free(struct fol_merge *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		run_free(m->heap[i]);
	run_free(m->open);
	run_free(m->spent);
	free(m->heap);
	free(m);
}

static uint64_t head(const struct run *r)
{
	return r->recs[r->next].time;
}

static int before(const struct run *a, const struct run *b)
{
	return head(a) < head(b) || (head(a) == head(b) && a->seq < b->seq);
}

static void sift_down(struct fol_merge *m, size_t i)
{
	struct run *r = m->heap[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= m->n)
			break;
		if (c + 1 < m->n && before(m->heap[c + 1], m->heap[c]))
			c++;
		if (!before(m->heap[c], r))
			break;
		m->heap[i] = m->heap[c];
		i = c;
	}
	m->heap[i] = r;
}

static int heap_add(struct fol_merge *m, struct run *r)
{
	size_t i;

	if (FOL_GROW(m->heap, m->cap, m->n + 1, 16))
		return -ENOMEM;
	i = m->n++;
	while (i && before(r, m->heap[(i - 1) / 2])) {
		m->heap[i] = m->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	m->heap[i] = r;
	return 0;
}

/* By time, then by arrival (a record's offset in the run's data grows with it). */
static int rec_cmp(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* The open run is complete: into the heap with it. */
static int seal(struct fol_merge *m)
{
	struct run *r = m->open;

	m->open = NULL;
	if (!r)
		return 0;
	if (!r->n) {
		m->bytes -= RUN_COST;
		run_free(r);
		return 0;
	}
	if (r->unsorted)
		qsort(r->recs, r->n, sizeof(*r->recs), rec_cmp);
	/* Down to what it holds: a file of 100,000 one-record chunks without rounds held a
	 * run's first allocations (20 KB) for each, 851 MB. */
	if (r->n < r->cap) {
		struct rec *g = realloc(r->recs, r->n * sizeof(*g));

		if (g) {
			r->recs = g;
			r->cap = r->n;
		}
	}
	if (r->used < r->dcap) {
		char *g = realloc(r->data, r->used);

		if (g) {
			r->data = g;
			r->dcap = r->used;
		}
	}
	if (heap_add(m, r)) {
		run_free(r);
		return -ENOMEM;
	}
	return 0;
}

static struct run *open_run(struct fol_merge *m)
{
	struct run *r = m->open;

	if (!r) {
		r = m->open = calloc(1, sizeof(*r));
		if (!r)
			return NULL;
		r->seq = m->seq++;
		m->bytes += RUN_COST;
	}
	return r;
}

/* Room in r for n more records (at least doubling) and bytes more of data. */
static int grow(struct run *r, size_t n, size_t bytes)
{
	if (FOL_GROW(r->recs, r->cap, r->n + n, 16) ||
	    FOL_GROW(r->data, r->dcap, r->used + bytes, 1024))
		return -ENOMEM;
	return 0;
}

int fol_merge_reserve(struct fol_merge *m, size_t n, size_t bytes)
{
	struct run *r = open_run(m);

	return r ? grow(r, n, bytes) : -ENOMEM;
}

int fol_merge_push(struct fol_merge *m, uint64_t time, const void *rec, size_t size)
{
	struct run *r = open_run(m);

	if (!r || grow(r, 1, size))
		return -ENOMEM;
	if (r->n && time < r->recs[r->n - 1].time)
		r->unsorted = 1;
	memcpy(r->data + r->used, rec, size);
	r->recs[r->n++] = (struct rec){ time, (uint32_t)r->used, (uint32_t)size };
	r->used += size;
	if (time < m->released)
		m->late++;
	if (time > m->round_max)
		m->round_max = time;
	if (++m->queued > m->peak)
		m->peak = m->queued;
	m->bytes += size + sizeof(struct rec);
	if (m->bytes > m->max_bytes && m->limit < m->round_max) {
		/* A file without round markers (damaged, hostile, or a writer that never
		 * drained) would be held whole: release what is here, as a round would. */
		m->limit = m->round_max;
		m->forced++;
	}
	return 0;
}

int fol_merge_end_run(struct fol_merge *m)
{
	return seal(m);
}

void fol_merge_round(struct fol_merge *m)
{
	seal(m);
	/* What was newest at the end of the round before the previous one is safe now; what
	 * is newest now becomes safe two rounds on. */
	if (m->round_prev2 > m->limit)
		m->limit = m->round_prev2;
	m->round_prev2 = m->round_prev;
	m->round_prev = m->round_max;
	if (m->drained_prev > FOL_MERGE_DRAIN_MARGIN_NS && m->drained_prev - FOL_MERGE_DRAIN_MARGIN_NS > m->limit)
		m->limit = m->drained_prev - FOL_MERGE_DRAIN_MARGIN_NS;
	m->drained_prev = m->drained;
	m->drained = 0;
}

void fol_merge_drained(struct fol_merge *m, uint64_t drained)
{
	m->drained = drained;
}

uint64_t fol_merge_limit(const struct fol_merge *m)
{
	return m->all ? UINT64_MAX : m->limit;
}

void fol_merge_flush_all(struct fol_merge *m)
{
	seal(m);
	m->all = 1;
}

int fol_merge_pop(struct fol_merge *m, uint64_t *time, const void **rec, size_t *size)
{
	struct run *r;
	struct rec *x;

	run_free(m->spent);
	m->spent = NULL;
	if (!m->n || (!m->all && head(m->heap[0]) > m->limit))
		return 0;
	r = m->heap[0];
	x = &r->recs[r->next++];
	*time = x->time;
	*rec = r->data + x->off;
	*size = x->size;
	if (x->time > m->released)
		m->released = x->time;
	m->queued--;
	m->bytes -= x->size + sizeof(struct rec);
	if (r->next == r->n) {
		m->bytes -= RUN_COST;
		/* The run is spent; its data stays until the caller is done with the record. */
		m->spent = r;
		m->heap[0] = m->heap[--m->n];
		if (m->n)
			sift_down(m, 0);
	} else {
		sift_down(m, 0);
	}
	return 1;
}

size_t fol_merge_queued(const struct fol_merge *m)
{
	return m->queued;
}

size_t fol_merge_peak(const struct fol_merge *m)
{
	return m->peak;
}

uint64_t fol_merge_late(const struct fol_merge *m)
{
	return m->late;
}

uint64_t fol_merge_forced(const struct fol_merge *m)
{
	return m->forced;
}

/* Some record soon after i+1 continues from next below t[i]: next is not the odd one. The
 * records right after may be out of place too (another sampler's exits alternate with
 * this recording's entries), so a few are looked at, not only the one after next. */
static int continues_below(const uint64_t *t, size_t i, size_t n, uint64_t next)
{
	for (size_t k = i + 2; k < n && k < i + 2 + FOL_RETIME_WINDOW; k++)
		if (t[k] >= next && t[k] < t[i])
			return 1;
	return 0;
}

size_t fol_merge_retime(uint64_t *t, uint8_t *flagged, size_t n, int first_known)
{
	size_t moved = 0;

	if (first_known && n)
		flagged[0] = 0;
	for (size_t i = first_known ? 1 : 0; i < n; i++) {
		/* The neighbours as written: the previous record's (corrected) time, the next
		 * one's as found. A record without a time (0) has no say. */
		uint64_t prev = i ? t[i - 1] : 0, next = i + 1 < n ? t[i + 1] : 0;
		int early, late;

		flagged[i] = 0;
		if (!t[i])
			continue;
		early = prev && t[i] < prev && (!next || next >= prev);
		/* Too late: ahead of the next record, which follows on from the previous one,
		 * and of one that follows on from it. Ahead of the next alone is not enough:
		 * after a long gap (the CPU was idle) the next record may be the one out of
		 * place, too early, and the ones after it say which. */
		late = next && t[i] > next && (!prev || next >= prev) && continues_below(t, i, n, next);
		if (!early && !late)
			continue;
		t[i] = prev ? prev : next;
		flagged[i] = 1;
		moved++;
	}
	return moved;
}
