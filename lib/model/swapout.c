// SPDX-License-Identifier: GPL-2.0-only
#include "model/swapout.h"

#include <errno.h>
#include <stdlib.h>

#include "util/u64map.h"

/* A folio the recording saw allocated, by the page frame of its first page. */
struct sfolio {
	int order;
	int tid;	  /* the thread of its first pending write */
	uint32_t writes;  /* pending: not judged yet */
	int at_head;	  /* one of them was of its first page */
	int pieces_freed; /* pages of it freed at a smaller order: it was split */
};

struct fol_swapout_map {
	struct fol_u64map *folios; /* pfn -> struct sfolio */
	uint64_t pending;	   /* folios with writes not judged yet */
};

struct fol_swapout_map *fol_swapout_map_new(void)
{
	struct fol_swapout_map *m = calloc(1, sizeof(*m));

	if (m && !(m->folios = fol_u64map_new(sizeof(struct sfolio)))) {
		free(m);
		return NULL;
	}
	return m;
}

void fol_swapout_map_free(struct fol_swapout_map *m)
{
	if (!m)
		return;
	fol_u64map_free(m->folios);
	free(m);
}

int fol_swapout_alloc(struct fol_swapout_map *m, uint64_t pfn, int order)
{
	struct sfolio *f;

	if (order < 0 || order > FOL_MAX_ORDER)
		return 0;
	f = fol_u64map_put(m->folios, pfn, NULL);
	if (!f)
		return -ENOMEM;
	/* A new folio at a page frame whose old one had writes still pending: those were
	 * over long since. */
	m->pending -= f->writes != 0;
	*f = (struct sfolio){ .order = order };
	return 0;
}

/* The known folio that holds pfn, and its first page's frame. */
static struct sfolio *holder(struct fol_swapout_map *m, uint64_t pfn, uint64_t *head);

void fol_swapout_free(struct fol_swapout_map *m, uint64_t pfn, int order)
{
	uint64_t head;
	struct sfolio *f = holder(m, pfn, &head);

	if (!f)
		return;
	/* Freed in pieces: split (a partly mapped folio's unmapped pages go at its split,
	 * before its mapped ones are written; a piece written is freed at order 0). Kept
	 * until judged or allocated again. */
	if (order < f->order) {
		f->pieces_freed = 1;
		return;
	}
	/* Written and freed in the same breath: judged later. */
	if (head == pfn && f->order == order && !f->writes)
		fol_u64map_del(m->folios, pfn, NULL);
}

static struct sfolio *holder(struct fol_swapout_map *m, uint64_t pfn, uint64_t *head)
{
	struct sfolio *f = fol_u64map_get(m->folios, pfn);

	*head = pfn;
	for (int k = 1; !f && k <= FOL_MAX_ORDER; k++) {
		*head = pfn & ~((1ull << k) - 1);
		f = fol_u64map_get(m->folios, *head);
		if (f && f->order < k)
			f = NULL;
	}
	return f;
}

int fol_swapout_write(struct fol_swapout_map *m, uint64_t pfn, int tid)
{
	uint64_t head;
	struct sfolio *f = holder(m, pfn, &head);

	if (!f)
		return 0;
	if (!f->writes++) {
		f->tid = tid;
		m->pending++;
	}
	f->at_head |= pfn == head;
	return 1;
}

static void judge(struct sfolio *f, struct fol_swapout *into)
{
	if (f->writes == 1 && f->at_head && !f->pieces_freed) {
		into->whole[f->order]++;
	} else {
		into->split[f->order]++;
		into->pieces[f->order] += f->writes;
	}
}

void fol_swapout_settle(struct fol_swapout_map *m, int tid, struct fol_swapout *into)
{
	size_t pos = 0;
	struct sfolio *f;
	uint64_t pfn;
	uint64_t *gone = NULL;
	size_t ngone = 0;

	if (!m->pending)
		return;
	/* Judged folios leave the map (their frames are swap now): collected first, since
	 * the map must not change while it is walked. */
	gone = malloc(sizeof(*gone) * m->pending);
	while ((f = fol_u64map_next(m->folios, &pos, &pfn))) {
		if (!f->writes || (tid >= 0 && f->tid != tid))
			continue;
		judge(f, into);
		f->writes = 0;
		f->at_head = 0;
		f->pieces_freed = 0;
		m->pending--;
		if (gone)
			gone[ngone++] = pfn;
	}
	for (size_t i = 0; i < ngone; i++)
		fol_u64map_del(m->folios, gone[i], NULL);
	free(gone);
}
