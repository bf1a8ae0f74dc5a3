// SPDX-License-Identifier: GPL-2.0-only
/* The shapes of the chunks other than the facts' (COUNTERS, WORKLOAD, SYNTH, MAPS,
 * PAGECACHE), which fol_recording_check (recording_facts.c) holds them to when they are
 * read; META, END, RUN, PMU and BARE are the facts table's own. */
#include "data/recording_priv.h"
#include "util/errors.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "data/file.h"
#include "util/order.h"

#define U63 9.2e18		/* every u64 nanosecond count a run can reach */
#define STR_MAX FOL_META_STR_MAX
#define NUM(k, lo, hi) { k, RC_NUM, lo, hi, NULL }
#define INT(k, lo, hi) { k, RC_INT, lo, hi, NULL }
#define STR(k) { k, RC_STR, 0, 0, NULL }
#define END { NULL, RC_NUM, 0, 0, NULL }

const struct rc_field rc_a_string[] = { STR(NULL) };
const struct rc_field rc_a_pid[] = { INT(NULL, 1, FOL_PID_MAX) };
const struct rc_field rc_a_count[] = { NUM(NULL, 0, 1.9e19) };
/* /proc/vmstat and mTHP stats: counters, and gauges that per-CPU drift can leave
 * slightly negative. */
static const struct rc_field a_counter[] = { NUM(NULL, -1e18, 1.9e19) };

/* The counters are looked up by name in the snapshot before the run and compared: maps
 * of many more than a kernel has (the recorder takes 64 sizes at most; 6.18 has ~200
 * vmstat counters, ~20 stats a size) made that quadratic (100,000 sizes: 81 s). */
static const struct rc_field mthp_size[] = {
	STR("enabled"),
	{ "stats", RC_MAP, 0, 256, a_counter },
	END,
};
static const struct rc_field a_mthp_size[] = { { NULL, RC_OBJ, 0, 0, mthp_size } };
static const struct rc_field thp[] = {
	STR("enabled"), STR("defrag"),
	NUM("pmd_size", 0, 1.9e19),
	INT("use_zero_page", 0, 1),
	END,
};
static const struct rc_field counters[] = {
	{ "vmstat", RC_MAP, 0, 4096, a_counter },
	{ "thp", RC_OBJ, 0, 0, thp },
	{ "mthp", RC_MAP, 0, 64, a_mthp_size },
	END,
};


static const struct rc_field phase[] = {
	STR("phase"),
	INT("start_ns", 0, U63),
	INT("end_ns", 0, U63),
	END,
};

const struct rc_field rc_a_phase[] = { { NULL, RC_OBJ, 0, 0, phase } };

static const struct rc_field synth_map[] = {
	STR("start"), STR("end"), STR("file"), STR("pgoff"), STR("perms"),
	INT("maj", 0, 4294967295.0), INT("min", 0, 4294967295.0), NUM("ino", 0, 1.9e19), END
};
static const struct rc_field a_synth_map[] = { { NULL, RC_OBJ, 0, 0, synth_map } };
/* A run of folios from the page tables; n bounded so that a file cannot make the model
 * insert more folios than a process of 256 TiB of 4K pages could hold at once. */
static const struct rc_field synth_run[] = {
	STR("start"),
	INT("order", 0, FOL_MAX_ORDER),
	INT("n", 1, 1ull << 36),
	END,
};
static const struct rc_field a_synth_run[] = { { NULL, RC_OBJ, 0, 0, synth_run } };
static const struct rc_field synth[] = {
	INT("pid", 1, FOL_PID_MAX),
	INT("time_ns", 0, U63),
	{ "comm", RC_MAP, 0, 0, rc_a_string },
	{ "maps", RC_ARR, 0, 0, a_synth_map },
	{ "folios", RC_ARR, 0, 0, a_synth_run },
	INT("unaligned_folios", 0, U63),
	STR("folios_error"),
	END,
};


/* Every member of a map or array against one description; the misfits removed. */
static int check_members(const struct rc_field *each, cJSON *container)
{
	cJSON *v = container->child;
	int bad = 0;

	while (v) {
		cJSON *next = v->next;
		int b = recording_check_value(each, v);

		if (b < 0 || (cJSON_IsObject(container) && !v->string)) {
			cJSON_Delete(cJSON_DetachItemViaPointer(container, v));
			bad++;
		} else {
			bad += b;
		}
		v = next;
	}
	return bad;
}

static int check_object(const struct rc_field *keys, cJSON *o)
{
	int bad = 0;

	for (const struct rc_field *f = keys; f->key; f++) {
		cJSON *v = cJSON_GetObjectItemCaseSensitive(o, f->key);
		int b;

		if (!v)
			continue;
		b = recording_check_value(f, v);
		if (b < 0) {
			cJSON_DeleteItemFromObjectCaseSensitive(o, f->key);
			bad++;
		} else {
			bad += b;
		}
	}
	return bad;
}

int recording_check_value(const struct rc_field *f, cJSON *v)
{
	switch (f->type) {
	case RC_NUM:
	case RC_INT:
		if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < f->min ||
		    v->valuedouble > f->max)
			return -1;
		return f->type == RC_INT && v->valuedouble != floor(v->valuedouble) ? -1 : 0;
	case RC_STR:
		return cJSON_IsString(v) && v->valuestring &&
		       strnlen(v->valuestring, STR_MAX + 1) <= STR_MAX ? 0 : -1;
	case RC_BOOL:
		return cJSON_IsBool(v) ? 0 : -1;
	case RC_OBJ:
		return cJSON_IsObject(v) ? check_object(f->sub, v) : -1;
	case RC_MAP:
		if (!cJSON_IsObject(v) || (f->max && cJSON_GetArraySize(v) > f->max))
			return -1;
		return check_members(f->sub, v);
	case RC_ARR:
		return cJSON_IsArray(v) ? check_members(f->sub, v) : -1;
	}
	return -1;
}

static const struct rc_field maps_order[] = {
	INT("order", 0, FOL_MAX_ORDER),
	NUM("size_bytes", 0, 1.9e19), NUM("folios", 0, 1.9e19), NUM("bytes", 0, 1.9e19),
	NUM("partially_mapped", 0, 1.9e19), NUM("unaligned", 0, 1.9e19),
	END,
};
static const struct rc_field a_maps_order[] = { { NULL, RC_OBJ, 0, 0, maps_order } };
#define MAPS_SUM                                                                       \
	{ "orders", RC_ARR, 0, 0, a_maps_order }, NUM("anon_bytes", 0, 1.9e19),         \
	NUM("pmd_mapped_bytes", 0, 1.9e19), NUM("pmd_mapped_folios", 0, 1.9e19),       \
	NUM("swapped_bytes", 0, 1.9e19), NUM("zero_page_bytes", 0, 1.9e19)
static const struct rc_field maps_sum[] = { MAPS_SUM, END };
static const struct rc_field maps_vma[] = { MAPS_SUM, STR("start"), STR("end"), STR("perms"),
					 STR("name"), END };
static const struct rc_field a_maps_vma[] = { { NULL, RC_OBJ, 0, 0, maps_vma } };
static const struct rc_field maps[] = {
	STR("schema"),
	INT("pid", 0, FOL_PID_MAX),
	INT("page_size", 1024, 1 << 20),
	INT("pmd_order", -1, FOL_MAX_ORDER),
	{ "total", RC_OBJ, 0, 0, maps_sum },
	{ "vmas", RC_ARR, 0, 0, a_maps_vma },
	END,
};

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* 1 when the object o names a key twice (compared sorted: O(n log n) for a large one). */
static int object_repeats(const cJSON *o)
{
	const char **names;
	size_t n = 0, i = 0;
	const cJSON *c;
	int dup = 0;

	for (c = o->child; c; c = c->next)
		n++;
	if (n < 2)
		return 0;
	names = malloc(n * sizeof(*names));
	if (!names)
		return 1; /* cannot tell: not trusted */
	for (c = o->child; c; c = c->next)
		names[i++] = c->string ? c->string : "";
	qsort(names, n, sizeof(*names), cmp_names);
	for (i = 1; i < n && !dup; i++)
		dup = !strcmp(names[i - 1], names[i]);
	free(names);
	return dup;
}

int fol_json_repeats_keys(const cJSON *j)
{
	if (!j)
		return 0;
	if (cJSON_IsObject(j) && object_repeats(j))
		return 1;
	for (const cJSON *c = j->child; c; c = c->next)
		if (fol_json_repeats_keys(c))
			return 1;
	return 0;
}

/* The page cache at the end (pagecache.h): runs of folios by file index. */
static const struct rc_field pc_run[] = {
	NUM("index", 0, 4.5e15),
	INT("order", 0, FOL_MAX_ORDER),
	NUM("n", 1, 4.5e15),
	END,
};
static const struct rc_field a_pc_run[] = { { NULL, RC_OBJ, 0, 0, pc_run } };
static const struct rc_field pc_file[] = {
	STR("path"),
	INT("maj", 0, 4294967295.0),
	INT("min", 0, 4294967295.0),
	NUM("ino", 0, 1.9e19),
	{ "runs", RC_ARR, 0, 0, a_pc_run },
	END,
};
static const struct rc_field a_pc_file[] = { { NULL, RC_OBJ, 0, 0, pc_file } };
static const struct rc_field pc_unread[] = { STR("path"), STR("why"), END };
static const struct rc_field a_pc_unread[] = { { NULL, RC_OBJ, 0, 0, pc_unread } };
static const struct rc_field pagecache[] = {
	{ "files", RC_ARR, 0, 0, a_pc_file },
	{ "unread", RC_ARR, 0, 0, a_pc_unread },
	NUM("unreadable_files", 0, 1.9e19),
	NUM("hidden_pages", 0, 1.9e19),
	STR("error"),
	END,
};

const struct rc_field *recording_shape(uint32_t chunk_type)
{
	static const struct rc_field top_counters = { NULL, RC_OBJ, 0, 0, counters };
	static const struct rc_field top_phase = { NULL, RC_OBJ, 0, 0, phase };
	static const struct rc_field top_synth = { NULL, RC_OBJ, 0, 0, synth };
	static const struct rc_field top_maps = { NULL, RC_OBJ, 0, 0, maps };
	static const struct rc_field top_pagecache = { NULL, RC_OBJ, 0, 0, pagecache };

	switch (chunk_type) {
	case FOL_CHUNK_COUNTERS: return &top_counters;
	case FOL_CHUNK_WORKLOAD: return &top_phase;
	case FOL_CHUNK_SYNTH: return &top_synth;
	case FOL_CHUNK_MAPS: return &top_maps;
	case FOL_CHUNK_PAGECACHE: return &top_pagecache;
	default: return NULL;
	}
}
