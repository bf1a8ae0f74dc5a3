// SPDX-License-Identifier: GPL-2.0-only
#include "data/metadata.h"
#include "util/errors.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "data/file.h"
#include "util/order.h"

/* A small schema: what each known key must hold. Written by hand because no packaged
 * JSON-schema validator for C is kept in this project, and the checks needed are few:
 * a type, a numeric range, a string length. */
enum type { T_NUM, T_INT, T_STR, T_BOOL, T_OBJ, T_MAP, T_ARR };

struct field {
	const char *key;	/* NULL ends an object's list */
	enum type type;
	double min, max;	/* numbers; T_MAP: max members, 0 for any number */
	const struct field *sub; /* T_OBJ: its keys; T_MAP, T_ARR: what every member is */
};

#define U63 9.2e18		/* every u64 nanosecond count a run can reach */
#define STR_MAX FOL_META_STR_MAX
#define NUM(k, lo, hi) { k, T_NUM, lo, hi, NULL }
#define INT(k, lo, hi) { k, T_INT, lo, hi, NULL }
#define STR(k) { k, T_STR, 0, 0, NULL }
#define END { NULL, T_NUM, 0, 0, NULL }

static const struct field a_string[] = { STR(NULL) };
static const struct field a_pid[] = { INT(NULL, 1, FOL_PID_MAX) };
static const struct field a_count[] = { NUM(NULL, 0, 1.9e19) };
/* /proc/vmstat and mTHP stats: counters, and gauges that per-CPU drift can leave
 * slightly negative. */
static const struct field a_counter[] = { NUM(NULL, -1e18, 1.9e19) };

/* The probe effect measured before the recording (calibrate.h). */
static const struct field calibration[] = {
	INT("faults", 1, 1 << 30),
	INT("passes", 1, 1000),
	NUM("untraced_ns", 0, 1e9),
	NUM("traced_ns", 0, 1e9),
	NUM("samples", 0, 1.9e19),
	NUM("exits", 0, 1.9e19),
	NUM("sample_bytes", 0, 1.9e19),
	END,
};

static const struct field meta[] = {
	{ "command", T_ARR, 0, 0, a_string },
	INT("pid", 0, FOL_PID_MAX),
	STR("kernel"), STR("kernel_build_id"), STR("kernel_version"), STR("machine"), STR("hostname"), STR("mode"),
	STR("clock"), STR("mthp"), STR("latency_method"), STR("tool"), STR("version"),
	INT("page_size", 1024, 1 << 20),
	INT("pmd_order", -1, FOL_MAX_ORDER),
	INT("cpus", 1, 1 << 20),
	NUM("started_realtime_ns", 0, U63),
	INT("started_ns", 0, U63),
	INT("mmap_pages", 1, 1 << 30),
	INT("sample_period_ns", 0, 1e12),
	{ "fault_ranges", T_ARR, 0, 0, a_string },
	{ "warnings", T_ARR, 0, 0, a_string },
	{ "missing_events", T_ARR, 0, 0, a_string },
	{ "probe_calibration", T_OBJ, 0, 0, calibration },
	{ "mm_threads", T_ARR, 0, 0, a_pid },
	{ "kernel_mm_threads", T_ARR, 0, 0, a_pid },
	END,
};

/* The counters are looked up by name in the snapshot before the run and compared: maps
 * of many more than a kernel has (the recorder takes 64 sizes at most; 6.18 has ~200
 * vmstat counters, ~20 stats a size) made that quadratic (100,000 sizes: 81 s). */
static const struct field mthp_size[] = {
	STR("policy"),
	{ "stats", T_MAP, 0, 256, a_counter },
	END,
};
static const struct field a_mthp_size[] = { { NULL, T_OBJ, 0, 0, mthp_size } };
static const struct field counters[] = {
	{ "vmstat", T_MAP, 0, 4096, a_counter },
	{ "mthp", T_MAP, 0, 64, a_mthp_size },
	END,
};

static const struct field pmu_event[] = {
	STR("event"),
	{ "supported", T_BOOL, 0, 0, NULL },
	NUM("value", 0, 1.9e19),
	NUM("time_enabled_ns", 0, 1.9e19),
	NUM("time_running_ns", 0, 1.9e19),
	END,
};
static const struct field pmu[] = { { NULL, T_OBJ, 0, 0, pmu_event } };

static const struct field end[] = {
	INT("duration_ns", 0, U63),
	INT("exit_code", 0, 255),
	INT("exit_signal", 1, 128),
	INT("user_ns", 0, U63),
	INT("system_ns", 0, U63),
	NUM("records", 0, 1.9e19),
	NUM("samples", 0, 1.9e19),
	NUM("lost", 0, 1.9e19),
	{ "lost_samples", T_MAP, 0, 0, a_count },
	NUM("bpf_threads_not_followed", 0, 1.9e19),
	NUM("bpf_records_not_written", 0, 1.9e19),
	END,
};

static const struct field phase[] = {
	STR("phase"),
	INT("start_ns", 0, U63),
	INT("end_ns", 0, U63),
	END,
};

/* A run of several (record -r, --sweep). */
static const struct field run[] = {
	INT("run", 0, 1 << 20),
	INT("runs", 1, 1 << 20),
	STR("sweep"), STR("config"),
	END,
};
static const struct field a_phase[] = { { NULL, T_OBJ, 0, 0, phase } };
static const struct field bare[] = {
	INT("run", 0, 1 << 20),
	STR("config"),
	INT("duration_ns", 0, U63),
	INT("exit_code", 0, 255),
	INT("exit_signal", 1, 128),
	{ "phases", T_ARR, 0, 0, a_phase },
	END,
};

static const struct field synth_map[] = {
	STR("start"), STR("end"), STR("file"), STR("pgoff"), STR("perms"),
	INT("maj", 0, 4294967295.0), INT("min", 0, 4294967295.0), NUM("ino", 0, 1.9e19), END
};
static const struct field a_synth_map[] = { { NULL, T_OBJ, 0, 0, synth_map } };
/* A run of folios from the page tables; n bounded so that a file cannot make the model
 * insert more folios than a process of 256 TiB of 4K pages could hold at once. */
static const struct field synth_run[] = {
	STR("start"),
	INT("order", 0, FOL_MAX_ORDER),
	INT("n", 1, 1ull << 36),
	END,
};
static const struct field a_synth_run[] = { { NULL, T_OBJ, 0, 0, synth_run } };
static const struct field synth[] = {
	INT("pid", 1, FOL_PID_MAX),
	INT("time_ns", 0, U63),
	{ "comm", T_MAP, 0, 0, a_string },
	{ "maps", T_ARR, 0, 0, a_synth_map },
	{ "folios", T_ARR, 0, 0, a_synth_run },
	INT("unaligned_folios", 0, U63),
	STR("folios_error"),
	END,
};

static int check_value(const struct field *f, cJSON *v);

/* Every member of a map or array against one description; the misfits removed. */
static int check_members(const struct field *each, cJSON *container)
{
	cJSON *v = container->child;
	int bad = 0;

	while (v) {
		cJSON *next = v->next;
		int b = check_value(each, v);

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

static int check_object(const struct field *keys, cJSON *o)
{
	int bad = 0;

	for (const struct field *f = keys; f->key; f++) {
		cJSON *v = cJSON_GetObjectItemCaseSensitive(o, f->key);
		int b;

		if (!v)
			continue;
		b = check_value(f, v);
		if (b < 0) {
			cJSON_DeleteItemFromObjectCaseSensitive(o, f->key);
			bad++;
		} else {
			bad += b;
		}
	}
	return bad;
}

/* -1: v does not fit f (the caller removes it); else the number of misfits removed
 * inside it. */
static int check_value(const struct field *f, cJSON *v)
{
	switch (f->type) {
	case T_NUM:
	case T_INT:
		if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < f->min ||
		    v->valuedouble > f->max)
			return -1;
		return f->type == T_INT && v->valuedouble != floor(v->valuedouble) ? -1 : 0;
	case T_STR:
		return cJSON_IsString(v) && v->valuestring &&
		       strnlen(v->valuestring, STR_MAX + 1) <= STR_MAX ? 0 : -1;
	case T_BOOL:
		return cJSON_IsBool(v) ? 0 : -1;
	case T_OBJ:
		return cJSON_IsObject(v) ? check_object(f->sub, v) : -1;
	case T_MAP:
		if (!cJSON_IsObject(v) || (f->max && cJSON_GetArraySize(v) > f->max))
			return -1;
		return check_members(f->sub, v);
	case T_ARR:
		return cJSON_IsArray(v) ? check_members(f->sub, v) : -1;
	}
	return -1;
}

static const struct field maps_order[] = {
	INT("order", 0, FOL_MAX_ORDER),
	NUM("size_bytes", 0, 1.9e19), NUM("folios", 0, 1.9e19), NUM("bytes", 0, 1.9e19),
	NUM("partially_mapped", 0, 1.9e19), NUM("unaligned", 0, 1.9e19),
	END,
};
static const struct field a_maps_order[] = { { NULL, T_OBJ, 0, 0, maps_order } };
#define MAPS_SUM                                                                       \
	{ "orders", T_ARR, 0, 0, a_maps_order }, NUM("anon_bytes", 0, 1.9e19),         \
	NUM("pmd_mapped_bytes", 0, 1.9e19), NUM("pmd_mapped_folios", 0, 1.9e19),       \
	NUM("swapped_bytes", 0, 1.9e19), NUM("zero_page_bytes", 0, 1.9e19)
static const struct field maps_sum[] = { MAPS_SUM, END };
static const struct field maps_vma[] = { MAPS_SUM, STR("start"), STR("end"), STR("perms"),
					 STR("name"), END };
static const struct field a_maps_vma[] = { { NULL, T_OBJ, 0, 0, maps_vma } };
static const struct field maps[] = {
	STR("schema"),
	INT("pid", 0, FOL_PID_MAX),
	INT("page_size", 1024, 1 << 20),
	INT("pmd_order", -1, FOL_MAX_ORDER),
	{ "total", T_OBJ, 0, 0, maps_sum },
	{ "vmas", T_ARR, 0, 0, a_maps_vma },
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
static const struct field pc_run[] = {
	NUM("index", 0, 4.5e15),
	INT("order", 0, FOL_MAX_ORDER),
	NUM("n", 1, 4.5e15),
	END,
};
static const struct field a_pc_run[] = { { NULL, T_OBJ, 0, 0, pc_run } };
static const struct field pc_file[] = {
	STR("path"),
	INT("maj", 0, 4294967295.0),
	INT("min", 0, 4294967295.0),
	NUM("ino", 0, 1.9e19),
	{ "runs", T_ARR, 0, 0, a_pc_run },
	END,
};
static const struct field a_pc_file[] = { { NULL, T_OBJ, 0, 0, pc_file } };
static const struct field pc_unread[] = { STR("path"), STR("why"), END };
static const struct field a_pc_unread[] = { { NULL, T_OBJ, 0, 0, pc_unread } };
static const struct field pagecache[] = {
	{ "files", T_ARR, 0, 0, a_pc_file },
	{ "unread", T_ARR, 0, 0, a_pc_unread },
	NUM("unreadable_files", 0, 1.9e19),
	NUM("hidden_pages", 0, 1.9e19),
	STR("error"),
	END,
};

int fol_metadata_check(uint32_t chunk_type, cJSON *j)
{
	static const struct field top_meta = { NULL, T_OBJ, 0, 0, meta };
	static const struct field top_counters = { NULL, T_OBJ, 0, 0, counters };
	static const struct field top_pmu = { NULL, T_ARR, 0, 0, pmu };
	static const struct field top_end = { NULL, T_OBJ, 0, 0, end };
	static const struct field top_phase = { NULL, T_OBJ, 0, 0, phase };
	static const struct field top_synth = { NULL, T_OBJ, 0, 0, synth };
	static const struct field top_maps = { NULL, T_OBJ, 0, 0, maps };
	static const struct field top_run = { NULL, T_OBJ, 0, 0, run };
	static const struct field top_bare = { NULL, T_OBJ, 0, 0, bare };
	static const struct field top_pagecache = { NULL, T_OBJ, 0, 0, pagecache };
	const struct field *top;
	int bad;

	switch (chunk_type) {
	case FOL_CHUNK_META: top = &top_meta; break;
	case FOL_CHUNK_COUNTERS: top = &top_counters; break;
	case FOL_CHUNK_PMU: top = &top_pmu; break;
	case FOL_CHUNK_END: top = &top_end; break;
	case FOL_CHUNK_WORKLOAD: top = &top_phase; break;
	case FOL_CHUNK_SYNTH: top = &top_synth; break;
	case FOL_CHUNK_MAPS: top = &top_maps; break;
	case FOL_CHUNK_RUN: top = &top_run; break;
	case FOL_CHUNK_BARE: top = &top_bare; break;
	case FOL_CHUNK_PAGECACHE: top = &top_pagecache; break;
	default: return 0;
	}
	/* The schema checks one copy of a key; cJSON hands later readers another. */
	if (!j || fol_json_repeats_keys(j))
		return -FOL_E_BAD_METADATA;
	bad = check_value(top, j);
	return bad < 0 ? -FOL_E_BAD_METADATA : bad;
}
