#include "merge.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct item {
	uint64_t time;
	uint64_t seq; /* ties keep arrival order: a thread's records in one buffer stay in order */
	size_t size;
	void *rec;
};

struct fol_merge {
	struct item *heap;
	size_t n, cap, peak;
	uint64_t seq;
	uint64_t round_max;	/* newest time pushed so far */
	uint64_t round_prev;	/* newest time pushed by the end of the previous round */
	uint64_t limit;		/* records up to this time are releasable */
	uint64_t released;	/* newest time popped */
	uint64_t late;
	int all;
	void *last;		/* the popped record, freed on the next pop */
};

struct fol_merge *fol_merge_new(void)
{
	return calloc(1, sizeof(struct fol_merge));
}

void fol_merge_free(struct fol_merge *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		free(m->heap[i].rec);
	free(m->heap);
	free(m->last);
	free(m);
}

static int before(const struct item *a, const struct item *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

int fol_merge_push(struct fol_merge *m, uint64_t time, const void *rec, size_t size)
{
	struct item it = { .time = time, .seq = m->seq++, .size = size };
	size_t i;

	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 1024;
		struct item *h = realloc(m->heap, cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		m->heap = h;
		m->cap = cap;
	}
	it.rec = malloc(size ? size : 1);
	if (!it.rec)
		return -ENOMEM;
	memcpy(it.rec, rec, size);
	if (time < m->released)
		m->late++;
	if (time > m->round_max)
		m->round_max = time;
	i = m->n++;
	while (i && before(&it, &m->heap[(i - 1) / 2])) {
		m->heap[i] = m->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	m->heap[i] = it;
	if (m->n > m->peak)
		m->peak = m->n;
	return 0;
}

void fol_merge_round(struct fol_merge *m)
{
	/* What was newest at the end of the previous round is safe now; what is newest now
	 * becomes safe after the next round. */
	if (m->round_prev > m->limit)
		m->limit = m->round_prev;
	m->round_prev = m->round_max;
}

void fol_merge_flush_all(struct fol_merge *m)
{
	m->all = 1;
}

int fol_merge_pop(struct fol_merge *m, uint64_t *time, const void **rec, size_t *size)
{
	struct item top, last;
	size_t i = 0;

	free(m->last);
	m->last = NULL;
	if (!m->n || (!m->all && m->heap[0].time > m->limit))
		return 0;
	top = m->heap[0];
	last = m->heap[--m->n];
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= m->n)
			break;
		if (c + 1 < m->n && before(&m->heap[c + 1], &m->heap[c]))
			c++;
		if (!before(&m->heap[c], &last))
			break;
		m->heap[i] = m->heap[c];
		i = c;
	}
	if (m->n)
		m->heap[i] = last;
	m->last = top.rec;
	if (top.time > m->released)
		m->released = top.time;
	*time = top.time;
	*rec = top.rec;
	*size = top.size;
	return 1;
}

size_t fol_merge_queued(const struct fol_merge *m)
{
	return m->n;
}

size_t fol_merge_peak(const struct fol_merge *m)
{
	return m->peak;
}

uint64_t fol_merge_late(const struct fol_merge *m)
{
	return m->late;
}
