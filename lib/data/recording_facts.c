// SPDX-License-Identifier: GPL-2.0-only
/* The facts a recording states of itself in its META, END, RUN and BARE chunks, a row
 * each, and in its PMU chunk, a row a field of each count: the chunk and key, the type and
 * bounds a reader accepts, the value read when it is not there, and where it lives in
 * struct fol_recording (a BARE chunk's in its struct fol_bare, a count's in its struct
 * fol_pmu_count). The writer (fol_recording_json), the check (fol_recording_check, which
 * holds the other chunks to recording_check.c's shapes) and the reader
 * (recording_facts_read) walk this one table, as perf keeps a header feature's write,
 * process and print in one row: a new fact is a field of struct fol_recording and a row
 * here. */
#include "data/recording_priv.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/file.h"
#include "util/errors.h"
#include "util/json.h"
#include "util/order.h"

enum kind {
	F_NUM,		/* a number in [min, max] (double) */
	F_INT,		/* the same, whole */
	F_STR,		/* a string (char *; NULL: not written) */
	F_STRS,		/* strings (struct fol_strings; have 0: not written) */
	F_PIDS,		/* pids (struct fol_numbers; have 0: not written) */
	F_OBJ,		/* an object of the rows that name it as theirs (int: have) */
	F_SCOPE,	/* record -G's cgroups (struct fol_cgroups; ids NULL: not written) */
	F_COUNTS,	/* counts by name (struct fol_named_counts; have 0: not written) */
	F_BUILD_IDS,	/* build-ids by path (struct fol_build_ids) */
	F_PHASES,	/* the workload's phases (struct fol_phases) */
	F_BOOL,		/* true or false (int) */
};

struct fact {
	uint32_t chunk;
	const char *in;		/* the F_OBJ row it is a member of; NULL: the chunk's own */
	const char *key;
	enum kind kind;
	double min, max;	/* numbers: what a reader accepts */
	double dflt;		/* numbers: read when absent */
	int omit;		/* numbers: not written when they are dflt */
	size_t at;		/* where it lives in the chunk's struct (see at()) */
};

#define AT(f) offsetof(struct fol_recording, f)
#define AT_BARE(f) offsetof(struct fol_bare, f)
#define AT_PMU(f) offsetof(struct fol_pmu_count, f)
#define META FOL_CHUNK_META
#define END FOL_CHUNK_END
#define RUN FOL_CHUNK_RUN
#define BARE FOL_CHUNK_BARE
#define PMU FOL_CHUNK_PMU
#define PROBE "probe_calibration"
#define U63 9.2e18		/* every u64 nanosecond count a run can reach */
#define BIG 1.9e19		/* every u64 */

/* In the order the recorder writes them. */
static const struct fact facts[] = {
	/* chunk, in, key, kind, min, max, default, omit, field */
	{ META, NULL, "tool", F_STR, 0, 0, 0, 0, AT(tool) },
	{ META, NULL, "version", F_STR, 0, 0, 0, 0, AT(version) },
	{ META, NULL, "command", F_STRS, 0, 0, 0, 0, AT(command) },
	{ META, NULL, "mode", F_STR, 0, 0, 0, 0, AT(mode) },
	{ META, NULL, "pid", F_INT, 0, FOL_PID_MAX, 0, 0, AT(pid) },
	{ META, NULL, "kernel", F_STR, 0, 0, 0, 0, AT(kernel) },
	{ META, NULL, "kernel_build_id", F_STR, 0, 0, 0, 0, AT(kernel_build_id) },
	{ META, NULL, "kernel_version", F_STR, 0, 0, 0, 0, AT(kernel_version) },
	{ META, NULL, "machine", F_STR, 0, 0, 0, 0, AT(machine) },
	{ META, NULL, "hostname", F_STR, 0, 0, 0, 0, AT(hostname) },
	{ META, NULL, "page_size", F_INT, 1024, 1 << 20, 0, 0, AT(page_size) },
	{ META, NULL, "pmd_order", F_INT, -1, FOL_MAX_ORDER, -1, 0, AT(pmd_order) },
	{ META, NULL, "clock", F_STR, 0, 0, 0, 0, AT(clock) },
	{ META, NULL, "cpus", F_INT, 1, 1 << 20, 0, 0, AT(cpus) },
	{ META, NULL, "started_realtime_ns", F_NUM, 0, U63, 0, 0, AT(started_realtime_ns) },
	{ META, NULL, "started_ns", F_INT, 0, U63, 0, 0, AT(started_ns) },
	{ META, NULL, "mmap_pages", F_INT, 1, 1 << 30, 0, 0, AT(mmap_pages) },
	{ META, NULL, "fault_path", F_STR, 0, 0, 0, 0, AT(fault_path) },
	{ META, NULL, "fault_path_why", F_STR, 0, 0, 0, 0, AT(fault_path_why) },
	{ META, NULL, "mthp", F_STR, 0, 0, 0, 0, AT(mthp_spec) },
	{ META, NULL, "latency_method", F_STR, 0, 0, 0, 0, AT(latency_method) },
	{ META, NULL, "fault_ranges", F_STRS, 0, 0, 0, 0, AT(fault_ranges) },
	{ META, NULL, "sample_period_ns", F_INT, 0, 1e12, 0, 1, AT(sample_period_ns) },
	{ META, NULL, PROBE, F_OBJ, 0, 0, 0, 0, AT(probe.have) },
	{ META, PROBE, "faults", F_INT, 1, 1 << 30, 0, 0, AT(probe.faults) },
	{ META, PROBE, "passes", F_INT, 1, 1000, 0, 0, AT(probe.passes) },
	{ META, PROBE, "untraced_ns", F_NUM, 0, 1e9, 0, 0, AT(probe.untraced_ns) },
	{ META, PROBE, "traced_ns", F_NUM, 0, 1e9, 0, 0, AT(probe.traced_ns) },
	{ META, PROBE, "samples", F_NUM, 0, BIG, 0, 0, AT(probe.samples) },
	{ META, PROBE, "exits", F_NUM, 0, BIG, -1, 0, AT(probe.exits) },
	{ META, PROBE, "sample_bytes", F_NUM, 0, BIG, -1, 0, AT(probe.sample_bytes) },
	{ META, NULL, "cgroup", F_SCOPE, 0, 0, 0, 0, AT(scope) },
	{ META, NULL, "mm_threads", F_PIDS, 0, 0, 0, 0, AT(mm_threads) },
	{ META, NULL, "kernel_mm_threads", F_PIDS, 0, 0, 0, 0, AT(kernel_mm_threads) },
	{ META, NULL, "warnings", F_STRS, 0, 0, 0, 0, AT(warnings) },
	{ META, NULL, "missing_events", F_STRS, 0, 0, 0, 0, AT(missing_events) },
	{ END, NULL, "duration_ns", F_INT, 0, U63, -1, 0, AT(duration_ns) },
	{ END, NULL, "exit_code", F_INT, 0, 255, -1, 1, AT(exit_code) },
	{ END, NULL, "exit_signal", F_INT, 1, 128, -1, 1, AT(exit_signal) },
	{ END, NULL, "user_ns", F_INT, 0, U63, -1, 1, AT(user_ns) },
	{ END, NULL, "system_ns", F_INT, 0, U63, -1, 1, AT(system_ns) },
	{ END, NULL, "interrupted_by", F_INT, 1, 128, 0, 1, AT(interrupted_by) },
	{ END, NULL, "records", F_NUM, 0, BIG, 0, 0, AT(records) },
	{ END, NULL, "samples", F_NUM, 0, BIG, 0, 0, AT(samples) },
	{ END, NULL, "lost", F_NUM, 0, BIG, 0, 0, AT(lost) },
	{ END, NULL, "bpf_threads_not_followed", F_NUM, 0, BIG, -1, 1, AT(bpf_threads_not_followed) },
	{ END, NULL, "bpf_records_not_written", F_NUM, 0, BIG, -1, 1, AT(bpf_records_not_written) },
	{ END, NULL, "lost_samples", F_COUNTS, 0, 0, 0, 0, AT(lost_by_event) },
	{ END, NULL, "build_ids", F_BUILD_IDS, 0, 0, 0, 0, AT(build_ids) },
	{ RUN, NULL, "run", F_INT, 0, 1 << 20, -1, 0, AT(place.run) },
	{ RUN, NULL, "runs", F_INT, 1, 1 << 20, 0, 0, AT(place.runs) },
	{ RUN, NULL, "sweep", F_STR, 0, 0, 0, 0, AT(place.sweep) },
	{ RUN, NULL, "config", F_STR, 0, 0, 0, 0, AT(place.config) },
	{ BARE, NULL, "duration_ns", F_INT, 0, U63, -1, 0, AT_BARE(duration_ns) },
	{ BARE, NULL, "exit_code", F_INT, 0, 255, -1, 1, AT_BARE(exit_code) },
	{ BARE, NULL, "exit_signal", F_INT, 1, 128, -1, 1, AT_BARE(exit_signal) },
	{ BARE, NULL, "phases", F_PHASES, 0, 0, 0, 0, AT_BARE(phases) },
	{ BARE, NULL, "run", F_INT, 0, 1 << 20, -1, 0, AT_BARE(run) },
	{ BARE, NULL, "config", F_STR, 0, 0, 0, 0, AT_BARE(config) },
	/* PMU: a list, one object a counted event. */
	{ PMU, NULL, "event", F_STR, 0, 0, 0, 0, AT_PMU(event) },
	{ PMU, NULL, "supported", F_BOOL, 0, 0, 0, 0, AT_PMU(supported) },
	{ PMU, NULL, "value", F_NUM, 0, BIG, -1, 1, AT_PMU(value) },
	{ PMU, NULL, "time_enabled_ns", F_NUM, 0, BIG, -1, 1, AT_PMU(time_enabled_ns) },
	{ PMU, NULL, "time_running_ns", F_NUM, 0, BIG, -1, 1, AT_PMU(time_running_ns) },
};

#define NFACTS (int)(sizeof(facts) / sizeof(facts[0]))

/* The chunk's struct: a BARE chunk's fol_bare, a PMU count's fol_pmu_count, the others'
 * fol_recording. */
static void *at(void *base, const struct fact *f)
{
	return (char *)base + f->at;
}

static const void *at_c(const void *base, const struct fact *f)
{
	return (const char *)base + f->at;
}

/* A row of the object in (NULL: the chunk's top level). */
static int member_of(const struct fact *f, uint32_t chunk, const char *in)
{
	return f->chunk == chunk && (in ? f->in && !strcmp(f->in, in) : !f->in);
}

/* The writer. */

/* s as a reader keeps it (FOL_META_STR_MAX), cut saying so: an argument of megabytes was
 * recorded whole and dropped when read back. */
static cJSON *string_cut(const char *s)
{
	size_t n = strlen(s), keep = FOL_META_STR_MAX - 64;
	cJSON *j;
	char *cut;

	if (n <= FOL_META_STR_MAX)
		return cJSON_CreateString(s);
	cut = malloc(FOL_META_STR_MAX);
	if (!cut)
		return NULL;
	snprintf(cut, FOL_META_STR_MAX, "%.*s... [%zu bytes cut]", (int)keep, s, n - keep);
	j = cJSON_CreateString(cut);
	free(cut);
	return j;
}

static cJSON *strings_json(const struct fol_strings *l)
{
	cJSON *a = cJSON_CreateArray();

	for (int i = 0; a && i < l->n; i++)
		if (!cJSON_AddItemToArray(a, string_cut(l->v[i]))) {
			cJSON_Delete(a);
			return NULL;
		}
	return a;
}

static cJSON *counts_json(const struct fol_named_counts *c)
{
	cJSON *o = cJSON_CreateObject();

	for (int i = 0; o && i < c->n; i++)
		if (!cJSON_AddNumberToObject(o, c->names[i], c->counts[i])) {
			cJSON_Delete(o);
			return NULL;
		}
	return o;
}

static cJSON *build_ids_json(const struct fol_build_ids *ids)
{
	cJSON *o = cJSON_CreateObject();

	for (int i = 0; o && i < ids->n; i++) {
		const struct fol_build_id *b = &ids->v[i];
		char hex[2 * sizeof(b->id) + 1] = "";

		for (int k = 0; k < b->len; k++)
			snprintf(hex + 2 * k, 3, "%02x", b->id[k]);
		if (b->len && !cJSON_AddStringToObject(o, b->path, hex)) {
			cJSON_Delete(o);
			return NULL;
		}
	}
	return o;
}

static cJSON *phases_json(const struct fol_phases *ph)
{
	cJSON *a = cJSON_CreateArray();

	for (int i = 0; a && i < ph->n; i++) {
		const struct fol_phase *p = &ph->v[i];
		cJSON *o = cJSON_CreateObject();

		if (!cJSON_AddItemToArray(a, o) ||
		    (p->name && !cJSON_AddItemToObject(o, "phase", string_cut(p->name))) ||
		    (p->timed && (!cJSON_AddNumberToObject(o, "start_ns", p->start_ns) ||
				  !cJSON_AddNumberToObject(o, "end_ns", p->end_ns)))) {
			cJSON_Delete(a);
			return NULL;
		}
	}
	return a;
}

static cJSON *object_json(const void *base, uint32_t chunk, const char *in);

/* The row's value, or NULL with *none set when base has none to write. */
static cJSON *value_json(const void *base, const struct fact *f, int *none)
{
	const void *p = at_c(base, f);

	*none = 0;
	switch (f->kind) {
	case F_NUM:
	case F_INT:
		*none = f->omit && *(const double *)p == f->dflt;
		return *none ? NULL : cJSON_CreateNumber(*(const double *)p);
	case F_STR:
		*none = !*(char *const *)p;
		return *none ? NULL : string_cut(*(char *const *)p);
	case F_STRS:
		*none = !((const struct fol_strings *)p)->have;
		return *none ? NULL : strings_json(p);
	case F_PIDS:
		*none = !((const struct fol_numbers *)p)->have;
		return *none ? NULL : cJSON_CreateDoubleArray(((const struct fol_numbers *)p)->v,
							       ((const struct fol_numbers *)p)->n);
	case F_OBJ:
		*none = !*(const int *)p;
		return *none ? NULL : object_json(base, f->chunk, f->key);
	case F_SCOPE:
		*none = !((const struct fol_cgroups *)p)->ids;
		return *none ? NULL : fol_cgroups_json(p);
	case F_COUNTS:
		*none = !((const struct fol_named_counts *)p)->have;
		return *none ? NULL : counts_json(p);
	case F_BUILD_IDS:
		return build_ids_json(p);
	case F_PHASES:
		return phases_json(p);
	case F_BOOL:
		return cJSON_CreateBool(*(const int *)p);
	}
	return NULL;
}

static cJSON *object_json(const void *base, uint32_t chunk, const char *in)
{
	cJSON *o = cJSON_CreateObject();

	for (int i = 0; o && i < NFACTS; i++) {
		cJSON *v;
		int none;

		if (!member_of(&facts[i], chunk, in))
			continue;
		v = value_json(base, &facts[i], &none);
		if (!none && !v) {
			cJSON_Delete(o);
			return NULL;
		}
		if (v)
			cJSON_AddItemToObject(o, facts[i].key, v);
	}
	return o;
}

/* The PMU chunk: a list of counts. */
static cJSON *pmu_json(const struct fol_recording *rec)
{
	cJSON *a = cJSON_CreateArray();

	for (int i = 0; a && i < rec->npmu; i++)
		if (!cJSON_AddItemToArray(a, object_json(&rec->pmu[i], FOL_CHUNK_PMU, NULL))) {
			cJSON_Delete(a);
			return NULL;
		}
	return a;
}

cJSON *fol_recording_json(const struct fol_recording *rec, uint32_t chunk)
{
	if (chunk == FOL_CHUNK_PMU)
		return pmu_json(rec);
	return chunk == FOL_CHUNK_BARE ? NULL : object_json(rec, chunk, NULL);
}

cJSON *fol_recording_bare_json(const struct fol_bare *b)
{
	return object_json(b, FOL_CHUNK_BARE, NULL);
}

/* The checker. */

static const struct rc_field scope_keys[] = {
	{ "path", RC_STR, 0, 0, NULL },
	{ "ids", RC_ARR, 0, 0, rc_a_string },
	{ NULL, RC_NUM, 0, 0, NULL },
};

static int check_object(cJSON *o, uint32_t chunk, const char *in);

/* The row's value v: as recording_check_value. */
static int check_fact(const struct fact *f, cJSON *v)
{
	struct rc_field s = { f->key, RC_NUM, f->min, f->max, NULL };

	switch (f->kind) {
	case F_NUM: break;
	case F_INT: s.type = RC_INT; break;
	case F_STR: s.type = RC_STR; break;
	case F_STRS: s.type = RC_ARR; s.sub = rc_a_string; break;
	case F_PIDS: s.type = RC_ARR; s.sub = rc_a_pid; break;
	case F_SCOPE: s.type = RC_OBJ; s.sub = scope_keys; break;
	case F_COUNTS: s.type = RC_MAP; s.sub = rc_a_count; break;
	case F_BUILD_IDS: s.type = RC_MAP; s.sub = rc_a_string; break;
	case F_PHASES: s.type = RC_ARR; s.sub = rc_a_phase; break;
	case F_BOOL: s.type = RC_BOOL; break;
	case F_OBJ: return cJSON_IsObject(v) ? check_object(v, f->chunk, f->key) : -1;
	}
	return recording_check_value(&s, v);
}

static int check_object(cJSON *o, uint32_t chunk, const char *in)
{
	int bad = 0;

	for (int i = 0; i < NFACTS; i++) {
		cJSON *v;
		int b;

		if (!member_of(&facts[i], chunk, in) ||
		    !(v = cJSON_GetObjectItemCaseSensitive(o, facts[i].key)))
			continue;
		b = check_fact(&facts[i], v);
		if (b < 0) {
			cJSON_DeleteItemFromObjectCaseSensitive(o, facts[i].key);
			bad++;
		} else {
			bad += b;
		}
	}
	return bad;
}

/* A chunk that is a list of objects of its rows (PMU): those that are not objects
 * removed, each one's facts checked. */
static int check_list(cJSON *a, uint32_t chunk)
{
	cJSON *e = a->child;
	int bad = 0;

	while (e) {
		cJSON *next = e->next;

		if (cJSON_IsObject(e)) {
			bad += check_object(e, chunk, NULL);
		} else {
			cJSON_Delete(cJSON_DetachItemViaPointer(a, e));
			bad++;
		}
		e = next;
	}
	return bad;
}

static int has_facts(uint32_t chunk)
{
	for (int i = 0; i < NFACTS; i++)
		if (facts[i].chunk == chunk)
			return 1;
	return 0;
}

int fol_recording_check(uint32_t chunk_type, cJSON *j)
{
	const struct rc_field *shape = recording_shape(chunk_type);
	int bad;

	if (!shape && !has_facts(chunk_type))
		return 0;
	/* The check holds one copy of a key; cJSON hands later readers another. */
	if (!j || fol_json_repeats_keys(j))
		return -FOL_E_BAD_METADATA;
	if (!shape && chunk_type == FOL_CHUNK_PMU)
		return cJSON_IsArray(j) ? check_list(j, chunk_type) : -FOL_E_BAD_METADATA;
	if (!shape)
		return cJSON_IsObject(j) ? check_object(j, chunk_type, NULL) : -FOL_E_BAD_METADATA;
	bad = recording_check_value(shape, j);
	return bad < 0 ? -FOL_E_BAD_METADATA : bad;
}

/* The reader. */

static char *string(const cJSON *v, int *bad)
{
	char *copy = cJSON_IsString(v) ? strdup(v->valuestring) : NULL;

	*bad |= cJSON_IsString(v) && !copy;
	return copy;
}

static void strings(struct fol_strings *l, const cJSON *a, int *bad)
{
	const cJSON *e;

	l->have = cJSON_IsArray(a);
	if (!l->have || !(l->v = calloc((size_t)cJSON_GetArraySize(a) + 1, sizeof(*l->v)))) {
		*bad |= l->have;
		return;
	}
	cJSON_ArrayForEach(e, a)
		if (cJSON_IsString(e) && !(l->v[l->n++] = strdup(e->valuestring)))
			*bad = 1;
}

static void numbers(struct fol_numbers *l, const cJSON *a, int *bad)
{
	const cJSON *e;

	l->have = cJSON_IsArray(a);
	if (!l->have || !cJSON_GetArraySize(a))
		return;
	if (!(l->v = calloc((size_t)cJSON_GetArraySize(a), sizeof(*l->v)))) {
		*bad = 1;
		return;
	}
	cJSON_ArrayForEach(e, a)
		if (cJSON_IsNumber(e))
			l->v[l->n++] = e->valuedouble;
}

static void counts(struct fol_named_counts *c, const cJSON *o, int *bad)
{
	size_t n = (size_t)cJSON_GetArraySize(o) + 1;
	const cJSON *e;

	c->have = cJSON_IsObject(o);
	if (!c->have)
		return;
	c->names = calloc(n, sizeof(*c->names));
	c->counts = calloc(n, sizeof(*c->counts));
	if (!c->names || !c->counts) {
		*bad = 1;
		return;
	}
	cJSON_ArrayForEach(e, o)
	{
		if (!cJSON_IsNumber(e) || !e->string)
			continue;
		c->counts[c->n] = e->valuedouble;
		if (!(c->names[c->n++] = strdup(e->string)))
			*bad = 1;
	}
}

/* A recorded scope that does not parse is none: the report then keeps every task. */
static void scope(struct fol_cgroups *c, const cJSON *v, int *bad)
{
	int ret;

	if (!v)
		return;
	ret = fol_cgroups_from_json(v, c);
	*bad |= ret == -ENOMEM;
	if (ret)
		fol_cgroups_free(c);
}

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : -1;
}

/* hex as bytes: their number, 0 when it is not whole hex pairs of at most 20 bytes. */
static int build_id_of(const char *hex, unsigned char *b)
{
	int n = 0;

	for (; hex[0] && hex[1] && n < 20; hex += 2) {
		int hi = hex_digit(hex[0]), lo = hex_digit(hex[1]);

		if (hi < 0 || lo < 0)
			return 0;
		b[n++] = (unsigned char)(hi << 4 | lo);
	}
	return *hex ? 0 : n;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct fol_build_id *)a)->path, ((const struct fol_build_id *)b)->path);
}

static void build_ids(struct fol_build_ids *ids, const cJSON *o, int *bad)
{
	const cJSON *e;

	if (!cJSON_GetArraySize(o))
		return;
	ids->v = calloc((size_t)cJSON_GetArraySize(o), sizeof(*ids->v));
	if (!ids->v) {
		*bad = 1;
		return;
	}
	cJSON_ArrayForEach(e, o)
	{
		struct fol_build_id *x;

		if (!e->string || !cJSON_IsString(e))
			continue;
		x = &ids->v[ids->n++];
		x->len = build_id_of(e->valuestring, x->id);
		*bad |= !(x->path = strdup(e->string));
	}
	if (!*bad)
		qsort(ids->v, (size_t)ids->n, sizeof(*ids->v), by_path);
}

int fol_recording_build_id(const struct fol_recording *rec, const char *path, unsigned char *b)
{
	const struct fol_build_id key = { .path = (char *)path };
	const struct fol_build_id *x = rec->build_ids.n ? bsearch(&key, rec->build_ids.v,
		(size_t)rec->build_ids.n, sizeof(key), by_path) : NULL;

	if (!x || !x->len)
		return 0;
	memcpy(b, x->id, (size_t)x->len);
	return x->len;
}

void recording_phases_read(struct fol_phases *ph, const cJSON *a, int *bad)
{
	const cJSON *p;

	if (!cJSON_GetArraySize(a))
		return;
	ph->v = calloc((size_t)cJSON_GetArraySize(a), sizeof(*ph->v));
	if (!ph->v) {
		*bad = 1;
		return;
	}
	cJSON_ArrayForEach(p, a)
	{
		struct fol_phase *x = &ph->v[ph->n++];

		x->name = string(cJSON_GetObjectItemCaseSensitive(p, "phase"), bad);
		x->start_ns = fol_json_num(p, "start_ns", 0);
		x->end_ns = fol_json_num(p, "end_ns", 0);
		x->timed = cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(p, "start_ns")) &&
			   cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(p, "end_ns"));
	}
}

static void read_object(const cJSON *o, uint32_t chunk, const char *in, void *base, int *bad);

static void read_fact(const struct fact *f, const cJSON *o, void *base, int *bad)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, f->key);
	void *p = at(base, f);

	switch (f->kind) {
	case F_NUM:
	case F_INT:
		*(double *)p = cJSON_IsNumber(v) ? v->valuedouble : f->dflt;
		break;
	case F_STR: *(char **)p = string(v, bad); break;
	case F_STRS: strings(p, v, bad); break;
	case F_PIDS: numbers(p, v, bad); break;
	case F_OBJ:
		*(int *)p = cJSON_IsObject(v);
		read_object(v, f->chunk, f->key, base, bad);
		break;
	case F_SCOPE: scope(p, v, bad); break;
	case F_COUNTS: counts(p, v, bad); break;
	case F_BUILD_IDS: build_ids(p, v, bad); break;
	case F_PHASES: recording_phases_read(p, v, bad); break;
	case F_BOOL: *(int *)p = cJSON_IsTrue(v); break;
	}
}

static void read_object(const cJSON *o, uint32_t chunk, const char *in, void *base, int *bad)
{
	for (int i = 0; i < NFACTS; i++)
		if (member_of(&facts[i], chunk, in))
			read_fact(&facts[i], o, base, bad);
}

void recording_facts_read(uint32_t chunk, const cJSON *o, void *base, int *bad)
{
	read_object(o, chunk, NULL, base, bad);
}

void *recording_facts_list(uint32_t chunk, const cJSON *a, size_t size, int *n, int *bad)
{
	const cJSON *e;
	char *v;

	*n = 0;
	if (!cJSON_GetArraySize(a))
		return NULL;
	v = calloc((size_t)cJSON_GetArraySize(a), size);
	if (!v) {
		*bad = 1;
		return NULL;
	}
	cJSON_ArrayForEach(e, a)
		recording_facts_read(chunk, e, v + size * (size_t)(*n)++, bad);
	return v;
}

uint64_t fol_recording_phase_lines(cJSON *into, const char *lines, size_t len)
{
	const char *s = lines, *end = lines + len;
	uint64_t bad = 0;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		cJSON *j = n ? cJSON_ParseWithLength(s, n) : NULL;
		int removed = n ? fol_recording_check(FOL_CHUNK_WORKLOAD, j) : 0;

		if (j && removed >= 0)
			cJSON_AddItemToArray(into, j);
		else
			cJSON_Delete(j);
		bad += removed < 0 ? 1 : (uint64_t)removed;
		s += n + 1;
	}
	return bad;
}

int fol_recording_phases_read(struct fol_phases *p, const char *lines, size_t len)
{
	cJSON *a = cJSON_CreateArray();
	int bad = !a;

	memset(p, 0, sizeof(*p));
	if (a) {
		fol_recording_phase_lines(a, lines, len);
		recording_phases_read(p, a, &bad);
	}
	cJSON_Delete(a);
	if (bad)
		recording_phases_free(p);
	return bad ? -ENOMEM : 0;
}

/* Freeing. */

static void free_strings(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void recording_phases_free(struct fol_phases *ph)
{
	for (int i = 0; i < ph->n; i++)
		free(ph->v[i].name);
	free(ph->v);
	memset(ph, 0, sizeof(*ph));
}

static void free_fact(const struct fact *f, void *base)
{
	void *p = at(base, f);

	switch (f->kind) {
	case F_NUM:
	case F_INT:
	case F_OBJ:
	case F_BOOL:
		break;
	case F_STR: free(*(char **)p); break;
	case F_STRS: free_strings(((struct fol_strings *)p)->v, ((struct fol_strings *)p)->n); break;
	case F_PIDS: free(((struct fol_numbers *)p)->v); break;
	case F_SCOPE: fol_cgroups_free(p); break;
	case F_COUNTS:
		free_strings(((struct fol_named_counts *)p)->names, ((struct fol_named_counts *)p)->n);
		free(((struct fol_named_counts *)p)->counts);
		break;
	case F_BUILD_IDS:
		for (int i = 0; i < ((struct fol_build_ids *)p)->n; i++)
			free(((struct fol_build_ids *)p)->v[i].path);
		free(((struct fol_build_ids *)p)->v);
		break;
	case F_PHASES: recording_phases_free(p); break;
	}
}

void recording_facts_free(uint32_t chunk, void *base)
{
	for (int i = 0; i < NFACTS; i++)
		if (facts[i].chunk == chunk)
			free_fact(&facts[i], base);
}

void fol_recording_bare_free(struct fol_bare *b)
{
	recording_facts_free(FOL_CHUNK_BARE, b);
	memset(b, 0, sizeof(*b));
}
