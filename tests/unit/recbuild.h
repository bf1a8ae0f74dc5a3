/* SPDX-License-Identifier: GPL-2.0-only */
/* Synthetic recordings for tests: the real writer, a header and events of foliostat's
 * own layout, and perf records built byte by byte, so that a test can put exactly the
 * hostile value it means into an otherwise valid file (the CRCs are the writer's). */
#ifndef FOL_RECBUILD_H
#define FOL_RECBUILD_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "data/file.h"

#define RB_ST_TP (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		  PERF_SAMPLE_CPU | PERF_SAMPLE_RAW)
#define RB_ST_SW (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		  PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU)
/* Ids of the events rb_default_events() describes. */
enum { RB_ID_FAULT = 11, RB_ID_EXIT = 12, RB_ID_ALLOC = 13, RB_ID_MUNMAP = 14, RB_ID_TRACK = 15 };

#define RB_COMMON                                                                  \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"      \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"      \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char rb_fmt_fault[] =
	"name: page_fault_user\nID: 190\nformat:\n" RB_COMMON
	"\tfield:unsigned long address;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long ip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long error_code;\toffset:24;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"address=%ps\", (void *)REC->address\n";

/* order is 8 bytes wide here so that a test can write any u64 into it. */
static const char rb_fmt_alloc[] =
	"name: mm_page_alloc\nID: 300\nformat:\n" RB_COMMON
	"\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long order;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long gfp_flags;\toffset:24;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"order=%lu\", REC->order\n";

static const char rb_fmt_munmap[] =
	"name: sys_enter_munmap\nID: 400\nformat:\n" RB_COMMON
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long addr;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t len;\toffset:24;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"addr: 0x%08lx\", REC->addr\n";

struct rb {
	struct fol_writer *w;
	char path[64];
};

struct rb_recs {
	char *b;
	size_t n, cap;
};

/* Every file rb_open made, removed at exit: a failed assertion longjmps past the test's
 * own unlink. */
static char rb_made[256][64];
static int rb_nmade;

static inline void rb_cleanup(void)
{
	char old[80];

	for (int i = 0; i < rb_nmade; i++) {
		unlink(rb_made[i]);
		snprintf(old, sizeof(old), "%.63s.old", rb_made[i]);
		unlink(old);
	}
}

static inline void rb_open(struct rb *b)
{
	int fd;

	snprintf(b->path, sizeof(b->path), "/tmp/foliostat-rb.XXXXXX");
	fd = mkstemp(b->path);
	if (fd >= 0)
		close(fd);
	unlink(b->path);
	if (!rb_nmade)
		atexit(rb_cleanup);
	if (rb_nmade < 256)
		snprintf(rb_made[rb_nmade++], sizeof(rb_made[0]), "%s", b->path);
	if (fol_writer_open(&b->w, b->path) || fol_writer_commit(b->w))
		abort();
}

static inline void rb_chunk(struct rb *b, uint32_t type, const void *p, size_t n)
{
	if (fol_writer_chunk_buf(b->w, type, p, n))
		abort();
}

static inline void rb_json(struct rb *b, uint32_t type, const char *json)
{
	rb_chunk(b, type, json, strlen(json));
}

/* The META chunk; extra's keys (members of an object, without its braces) are put in its
 * object, in place of the defaults of the same name: a chunk naming a key twice is dropped
 * when read. */
static inline void rb_meta(struct rb *b, const char *extra)
{
	cJSON *m = cJSON_Parse("{\"tool\":\"foliostat\",\"command\":[\"test\"],\"pid\":100,"
			       "\"page_size\":4096,\"pmd_order\":9,\"cpus\":2,\"started_ns\":1000,"
			       "\"latency_method\":\"exact\"}");
	char *j = NULL;

	if (extra) {
		cJSON *x;

		if (asprintf(&j, "{%s}", extra) < 0 || !(x = cJSON_Parse(j)))
			abort();
		free(j);
		while (x->child) {
			cJSON *item = cJSON_DetachItemViaPointer(x, x->child);

			cJSON_DeleteItemFromObjectCaseSensitive(m, item->string);
			cJSON_AddItemToObject(m, item->string, item);
		}
		cJSON_Delete(x);
	}
	j = cJSON_PrintUnformatted(m);
	if (!j)
		abort();
	rb_json(b, FOL_CHUNK_META, j);
	free(j);
	cJSON_Delete(m);
}

/* An EVENT chunk's JSON, as the recorder writes it (cJSON escapes the format text);
 * fmt may be NULL. malloc'ed. */
static inline char *rb_event_json(const char *name, const char *kind, uint64_t st, uint64_t id,
				  const char *fmt)
{
	cJSON *e = cJSON_CreateObject(), *attr;
	char *json;

	cJSON_AddNumberToObject(e, "index", 0);
	cJSON_AddStringToObject(e, "name", name);
	cJSON_AddStringToObject(e, "kind", kind);
	attr = cJSON_AddObjectToObject(e, "attr");
	cJSON_AddNumberToObject(attr, "type", 2);
	cJSON_AddNumberToObject(attr, "config", 1);
	cJSON_AddNumberToObject(attr, "sample_type", (double)st);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(e, "ids"), cJSON_CreateNumber((double)id));
	if (fmt)
		cJSON_AddStringToObject(e, "format", fmt);
	json = cJSON_PrintUnformatted(e);
	cJSON_Delete(e);
	if (!json)
		abort();
	return json;
}

static inline void rb_event(struct rb *b, const char *name, const char *kind, uint64_t st,
			    uint64_t id, const char *fmt)
{
	char *json = rb_event_json(name, kind, st, id, fmt);

	rb_json(b, FOL_CHUNK_EVENT, json);
	free(json);
}

static inline void rb_default_events(struct rb *b)
{
	rb_event(b, "exceptions:page_fault_user", "tracepoint", RB_ST_TP, RB_ID_FAULT, rb_fmt_fault);
	rb_event(b, "minor-faults", "software", RB_ST_SW, RB_ID_EXIT, NULL);
	rb_event(b, "kmem:mm_page_alloc", "tracepoint", RB_ST_TP, RB_ID_ALLOC, rb_fmt_alloc);
	rb_event(b, "syscalls:sys_enter_munmap", "tracepoint", RB_ST_TP, RB_ID_MUNMAP,
		 rb_fmt_munmap);
	rb_event(b, "tracking", "tracking", PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID |
		 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU, RB_ID_TRACK, NULL);
}

/* A recording's start as most tests want it: the default META and events. */
static inline void rb_start(struct rb *b)
{
	rb_open(b);
	rb_meta(b, NULL);
	rb_default_events(b);
}

static inline void rb_close(struct rb *b)
{
	rb_chunk(b, FOL_CHUNK_END, "{}", 2);
	if (fol_writer_close(b->w))
		abort();
}

static inline void rb_put(struct rb_recs *r, const void *p, size_t n)
{
	if (r->n + n > r->cap) {
		r->cap = (r->n + n) * 2;
		r->b = realloc(r->b, r->cap);
		if (!r->b)
			abort();
	}
	memcpy(r->b + r->n, p, n);
	r->n += n;
}

static inline void rb_put64(struct rb_recs *r, uint64_t v)
{
	rb_put(r, &v, 8);
}

static inline void rb_put32x2(struct rb_recs *r, uint32_t a, uint32_t c)
{
	uint32_t v[2] = { a, c };

	rb_put(r, v, 8);
}

static inline void rb_header(struct rb_recs *r, size_t start, uint32_t type)
{
	struct perf_event_header h = { .type = type, .size = (uint16_t)(r->n - start) };

	memcpy(r->b + start, &h, sizeof(h));
}

/* A tracepoint sample (RB_ST_TP); raw is padded to the record's 8-byte alignment. */
static inline void rb_tp(struct rb_recs *r, uint64_t id, uint32_t pid, uint32_t tid,
			 uint64_t time, const void *raw, uint32_t rawlen)
{
	size_t start = r->n;
	static const char zero[8];

	rb_put64(r, 0);
	rb_put64(r, id);
	rb_put32x2(r, pid, tid);
	rb_put64(r, time);
	rb_put32x2(r, 0, 0);
	rb_put(r, &rawlen, 4);
	rb_put(r, raw, rawlen);
	rb_put(r, zero, (8 - (r->n - start) % 8) % 8);
	rb_header(r, start, PERF_RECORD_SAMPLE);
}

/* A minor-faults sample (RB_ST_SW). */
static inline void rb_exit(struct rb_recs *r, uint32_t pid, uint32_t tid, uint64_t time,
			   uint64_t addr)
{
	size_t start = r->n;

	rb_put64(r, 0);
	rb_put64(r, RB_ID_EXIT);
	rb_put64(r, 0x401000);
	rb_put32x2(r, pid, tid);
	rb_put64(r, time);
	rb_put64(r, addr);
	rb_put32x2(r, 0, 0);
	rb_header(r, start, PERF_RECORD_SAMPLE);
}

static inline void rb_fault(struct rb_recs *r, uint32_t pid, uint32_t tid, uint64_t time,
			    uint64_t addr, uint64_t ec)
{
	uint64_t raw[4] = { 0, addr, 0x401000, ec };

	rb_tp(r, RB_ID_FAULT, pid, tid, time, raw, sizeof(raw));
}

static inline void rb_alloc(struct rb_recs *r, uint32_t pid, uint32_t tid, uint64_t time,
			    uint64_t order)
{
	uint64_t raw[4] = { 0, 0x1000, order, 0x140cca /* GFP_HIGHUSER_MOVABLE */ };

	rb_tp(r, RB_ID_ALLOC, pid, tid, time, raw, sizeof(raw));
}

static inline void rb_munmap(struct rb_recs *r, uint32_t pid, uint32_t tid, uint64_t time,
			     uint64_t addr, uint64_t len)
{
	uint64_t raw[4] = { 0, 0, addr, len };

	rb_tp(r, RB_ID_MUNMAP, pid, tid, time, raw, sizeof(raw));
}

/* PERF_RECORD_COMM with the tracking event's trailer. */
static inline void rb_comm(struct rb_recs *r, uint32_t pid, uint32_t tid, uint64_t time,
			   const char *comm)
{
	size_t start = r->n, len = strlen(comm) + 1;
	static const char zero[8];

	rb_put64(r, 0);
	rb_put32x2(r, pid, tid);
	rb_put(r, comm, len);
	rb_put(r, zero, (8 - len % 8) % 8);
	rb_put32x2(r, pid, tid);
	rb_put64(r, time);
	rb_put32x2(r, 0, 0);
	rb_put64(r, RB_ID_TRACK);
	rb_header(r, start, PERF_RECORD_COMM);
}

static inline void rb_records(struct rb *b, struct rb_recs *r)
{
	rb_chunk(b, FOL_CHUNK_RECORDS, r->b, r->n);
	rb_chunk(b, FOL_CHUNK_ROUND, NULL, 0);
	r->n = 0;
}

#endif
