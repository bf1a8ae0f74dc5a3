// SPDX-License-Identifier: GPL-2.0-only
#include "data/recording_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/file.h"
#include "sys/counters.h"
#include "util/json.h"

/* A copy of o's string member key, or NULL when there is none. *bad on no memory. */
static char *string(const cJSON *o, const char *key, int *bad)
{
	const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
	char *copy = s ? strdup(s) : NULL;

	*bad |= s && !copy;
	return copy;
}

/* The counted events (PMU: a list of the table's counts). */
static void pmu_counts(struct fol_recording *rec, const cJSON *pmu, int *bad)
{
	rec->pmu = recording_facts_list(FOL_CHUNK_PMU, pmu, sizeof(*rec->pmu), &rec->npmu, bad);
	for (int i = 0; i < rec->npmu; i++) {
		rec->pmu[i].counted = rec->pmu[i].value >= 0;
		if (!rec->pmu[i].counted)
			rec->pmu[i].value = 0;
	}
}

static void mthp_stats(struct fol_recording *rec, const cJSON *before, const cJSON *after,
		       int *bad)
{
	const cJSON *sizes = cJSON_GetObjectItemCaseSensitive(after, "mthp"), *sz, *st;
	int n = 0;

	cJSON_ArrayForEach(sz, sizes)
		n += cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(sz, "stats"));
	if (!n)
		return;
	rec->mthp = calloc((size_t)n, sizeof(*rec->mthp));
	if (!rec->mthp) {
		*bad = 1;
		return;
	}
	cJSON_ArrayForEach(sz, sizes)
	{
		const cJSON *bs = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(before, "mthp"),
							 sz->string), "stats");

		cJSON_ArrayForEach(st, cJSON_GetObjectItemCaseSensitive(sz, "stats"))
		{
			struct fol_mthp_stat *x;

			if (!cJSON_IsNumber(st))
				continue;
			x = &rec->mthp[rec->nmthp++];
			x->size = strdup(sz->string);
			x->stat = strdup(st->string);
			x->delta = st->valuedouble - fol_json_num(bs, st->string, 0);
			*bad |= !x->size || !x->stat;
		}
	}
}

const char *const fol_left_order_keys[FOL_LEFT_ORDER_FIELDS] = {
	"order", "size_bytes", "folios", "bytes", "partially_mapped", "unaligned",
};
const char *const fol_left_keys[FOL_LEFT_FIELDS] = {
	"anon_bytes", "pmd_mapped_bytes", "pmd_mapped_folios", "swapped_bytes", "zero_page_bytes",
};

/* The numbers of o named by keys, and which of them o has. */
static unsigned fields(const cJSON *o, const char *const *keys, int n, double *v)
{
	unsigned present = 0;

	for (int i = 0; i < n; i++) {
		v[i] = fol_json_num(o, keys[i], 0);
		if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, keys[i])))
			present |= 1u << i;
	}
	return present;
}

static void left_behind(struct fol_left_behind *l, const cJSON *maps, int *bad)
{
	const cJSON *total = cJSON_GetObjectItemCaseSensitive(maps, "total"), *o;
	const cJSON *orders = cJSON_GetObjectItemCaseSensitive(total, "orders");

	l->have = total != NULL;
	l->present = fields(total, fol_left_keys, FOL_LEFT_FIELDS, l->v);
	if (!cJSON_GetArraySize(orders))
		return;
	l->orders = calloc((size_t)cJSON_GetArraySize(orders), sizeof(*l->orders));
	if (!l->orders) {
		*bad = 1;
		return;
	}
	cJSON_ArrayForEach(o, orders)
	{
		struct fol_left_order *x = &l->orders[l->norders++];

		x->present = fields(o, fol_left_order_keys, FOL_LEFT_ORDER_FIELDS, x->v);
	}
}

static void pagecache_read(struct fol_pagecache_read *p, const cJSON *pc, int *bad)
{
	const cJSON *unread = cJSON_GetObjectItemCaseSensitive(pc, "unread"), *u;

	p->have = pc != NULL;
	p->files = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(pc, "files"));
	p->unreadable_files = fol_json_num(pc, "unreadable_files", 0);
	p->error = string(pc, "error", bad);
	if (!cJSON_GetArraySize(unread))
		return;
	p->unread = calloc((size_t)cJSON_GetArraySize(unread), sizeof(*p->unread));
	if (!p->unread) {
		*bad = 1;
		return;
	}
	cJSON_ArrayForEach(u, unread)
	{
		struct fol_unread_file *x = &p->unread[p->nunread++];

		x->path = string(u, "path", bad);
		x->why = string(u, "why", bad);
	}
}

/* The delta's tree (counters.h), flattened in document order. */
static void counter_nodes(struct fol_recording *rec, const cJSON *o, int depth, int *bad)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, o)
	{
		struct fol_counter_node *x;

		if (!cJSON_IsObject(e) && !cJSON_IsNumber(e) && !cJSON_IsString(e))
			continue;
		x = &rec->counters[rec->ncounters++];
		x->depth = depth;
		*bad |= !(x->key = strdup(e->string ? e->string : ""));
		x->type = cJSON_IsObject(e) ? FOL_NODE_OBJECT : cJSON_IsNumber(e) ? FOL_NODE_NUMBER
										  : FOL_NODE_TEXT;
		x->number = cJSON_IsNumber(e) ? e->valuedouble : 0;
		if (x->type == FOL_NODE_TEXT)
			*bad |= !(x->text = strdup(e->valuestring));
		if (x->type == FOL_NODE_OBJECT)
			counter_nodes(rec, e, depth + 1, bad);
	}
}

static int count_nodes(const cJSON *o)
{
	const cJSON *e;
	int n = 0;

	cJSON_ArrayForEach(e, o)
		n += 1 + (cJSON_IsObject(e) ? count_nodes(e) : 0);
	return n;
}

static void counter_changes(struct fol_recording *rec, const cJSON *before, const cJSON *after,
			    int *bad)
{
	cJSON *d = fol_counters_delta(before, after);
	int n = count_nodes(d);

	if (d && n && !(rec->counters = calloc((size_t)n, sizeof(*rec->counters))))
		*bad = 1;
	else if (d && n)
		counter_nodes(rec, d, 0, bad);
	*bad |= before && after && !d;
	cJSON_Delete(d);
}

unsigned fol_recording_page_size(const struct fol_recording *rec)
{
	unsigned p = (unsigned)rec->page_size;

	return p < 1024 || (p & (p - 1)) ? 4096 : p;
}

/* The policy at the start, from the counters' first snapshot (counters.h). */
static void thp_start(struct fol_thp_start *t, const cJSON *before, unsigned page_size,
		      double pmd_order, int *bad)
{
	const cJSON *thp = cJSON_GetObjectItemCaseSensitive(before, "thp");
	const cJSON *sizes = cJSON_GetObjectItemCaseSensitive(before, "mthp");
	char kb[32];

	t->have = before != NULL;
	t->enabled = string(thp, "enabled", bad);
	t->use_zero_page = fol_json_num(thp, "use_zero_page", -1);
	t->mthp_sizes = cJSON_GetArraySize(sizes);
	if (pmd_order <= 0)
		return;
	snprintf(kb, sizeof(kb), "%llukB", ((unsigned long long)page_size << (int)pmd_order) >> 10);
	t->pmd_enabled = string(cJSON_GetObjectItemCaseSensitive(sizes, kb), "enabled", bad);
}

/* The samples the kernel dropped (PERF_FORMAT_LOST), summed over the events; -1 when the
 * recording predates that count or the kernel has none. */
static double lost_samples(const struct fol_named_counts *c)
{
	double n = 0;

	for (int i = 0; i < c->n; i++)
		n += c->counts[i];
	return c->have ? n : -1;
}

int fol_recording_parse(struct fol_recording *rec, const struct fol_recording_chunks *c)
{
	int bad = 0;

	memset(rec, 0, sizeof(*rec));
	recording_facts_read(FOL_CHUNK_META, c->meta, rec, &bad);
	recording_facts_read(FOL_CHUNK_END, c->end, rec, &bad);
	recording_facts_read(FOL_CHUNK_RUN, c->run, rec, &bad);
	rec->place.have = c->run != NULL;
	/* The untraced runs made with this one (BARE chunks). */
	rec->bare.v = recording_facts_list(FOL_CHUNK_BARE, c->bare, sizeof(*rec->bare.v),
					   &rec->bare.n, &bad);
	rec->ended = c->end != NULL;
	rec->lost_samples = lost_samples(&rec->lost_by_event);
	pmu_counts(rec, c->pmu, &bad);
	recording_phases_read(&rec->phases, c->phases, &bad);
	rec->counted = c->before && c->after;
	mthp_stats(rec, c->before, c->after, &bad);
	thp_start(&rec->thp, c->before, fol_recording_page_size(rec), rec->pmd_order, &bad);
	rec->seeded_at_attach = c->synth && rec->mode && !strcmp(rec->mode, "attach");
	rec->seed_error = string(c->synth, "folios_error", &bad);
	rec->seed_unaligned = fol_json_num(c->synth, "unaligned_folios", 0);
	counter_changes(rec, c->before, c->after, &bad);
	left_behind(&rec->left, c->maps, &bad);
	pagecache_read(&rec->pagecache, c->pagecache, &bad);
	if (bad) {
		fol_recording_free(rec);
		return -ENOMEM;
	}
	return 0;
}

void fol_recording_free(struct fol_recording *rec)
{
	recording_facts_free(FOL_CHUNK_META, rec);
	recording_facts_free(FOL_CHUNK_END, rec);
	recording_facts_free(FOL_CHUNK_RUN, rec);
	for (int i = 0; i < rec->bare.n; i++)
		fol_recording_bare_free(&rec->bare.v[i]);
	free(rec->bare.v);
	free(rec->thp.enabled);
	free(rec->thp.pmd_enabled);
	free(rec->seed_error);
	for (int i = 0; i < rec->npmu; i++)
		recording_facts_free(FOL_CHUNK_PMU, &rec->pmu[i]);
	free(rec->pmu);
	recording_phases_free(&rec->phases);
	for (int i = 0; i < rec->nmthp; i++) {
		free(rec->mthp[i].size);
		free(rec->mthp[i].stat);
	}
	free(rec->mthp);
	for (int i = 0; i < rec->ncounters; i++) {
		free(rec->counters[i].key);
		free(rec->counters[i].text);
	}
	free(rec->counters);
	free(rec->left.orders);
	for (int i = 0; i < rec->pagecache.nunread; i++) {
		free(rec->pagecache.unread[i].path);
		free(rec->pagecache.unread[i].why);
	}
	free(rec->pagecache.unread);
	free(rec->pagecache.error);
	memset(rec, 0, sizeof(*rec));
}
