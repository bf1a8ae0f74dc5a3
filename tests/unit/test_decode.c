// SPDX-License-Identifier: GPL-2.0-only
/* Decoder: fields by name from stored format text, sample layouts, side-band trailers,
 * malformed records. */
#include <errno.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/errors.h"

#include "data/bpf_record.h"
#include "data/decode.h"
#include "data/symbolic.h"
#include "util/order.h"

#include "recbuild.h"

/* The 6.18 format, and a made-up one with the same fields moved around: the decoder
 * must read both by name. */
static const char fmt_618[] =
	"name: page_fault_user\nID: 190\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:unsigned long address;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long ip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long error_code;\toffset:24;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"address=%ps ip=%ps error_code=0x%lx\", (void *)REC->address, (void *)REC->ip, REC->error_code\n";

static const char fmt_moved[] =
	"name: page_fault_user\nID: 77\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:unsigned int error_code;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long ip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long address;\toffset:24;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"address=%lx\", REC->address\n";

static const char fmt_rss[] =
	"name: rss_stat\nID: 646\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:unsigned int mm_id;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int curr;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:int member;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:long size;\toffset:24;\tsize:8;\tsigned:1;\n\n"
	"print fmt: \"size=%ldB\", REC->size\n";

#define ST_TP (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
	       PERF_SAMPLE_RAW)
#define ST_SW (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	       PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU)

static void add_event(struct fol_decoder *d, const char *name, const char *kind, uint64_t st,
		      uint64_t id, const char *fmt)
{
	char *json = rb_event_json(name, kind, st, id, fmt);

	assert_int_equal(fol_decoder_add_event(d, json, strlen(json)), 0);
	free(json);
}

struct rec {
	char b[512];
	size_t n;
};

static void put(struct rec *r, const void *p, size_t n)
{
	memcpy(r->b + r->n, p, n);
	r->n += n;
}

static void put64(struct rec *r, uint64_t v)
{
	put(r, &v, 8);
}

static void put32x2(struct rec *r, uint32_t a, uint32_t b)
{
	uint32_t v[2] = { a, b };

	put(r, v, 8);
}

static void finish(struct rec *r, uint32_t type)
{
	struct perf_event_header h = { .type = type, .size = (uint16_t)r->n };

	memcpy(r->b, &h, sizeof(h));
}

static void tp_sample(struct rec *r, uint64_t id, uint64_t time, const void *raw, uint32_t rawlen)
{
	r->n = sizeof(struct perf_event_header);
	put64(r, id);
	put32x2(r, 100, 101);
	put64(r, time);
	put32x2(r, 1, 0);
	put(r, &rawlen, 4);
	put(r, raw, rawlen);
	while (r->n % 8)
		r->b[r->n++] = 0;
	finish(r, PERF_RECORD_SAMPLE);
}

static void test_fault_by_name(void **state)
{
	struct fol_decoder *d = fol_decoder_new();
	struct fol_event ev;
	struct rec r;
	uint64_t t;
	char raw[36] = { 0 };
	uint64_t addr = 0x7f0000012345, ip = 0x401000, ec = 0x7;
	uint32_t ec32 = 6;
	char text[256];

	(void)state;
	add_event(d, "exceptions:page_fault_user", "tracepoint", ST_TP, 11, fmt_618);
	add_event(d, "exceptions:page_fault_user", "tracepoint", ST_TP, 22, fmt_moved);

	memcpy(raw + 8, &addr, 8);
	memcpy(raw + 16, &ip, 8);
	memcpy(raw + 24, &ec, 8);
	tp_sample(&r, 11, 5000, raw, 32);
	assert_int_equal(fol_decoder_time(d, r.b, r.n, &t), 0);
	assert_int_equal(t, 5000);
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), 1);
	assert_int_equal(ev.kind, FOL_EV_FAULT_USER);
	assert_int_equal(ev.pid, 100);
	assert_int_equal(ev.tid, 101);
	assert_int_equal(ev.cpu, 1);
	assert_int_equal(ev.fault.address, addr);
	assert_int_equal(ev.fault.ip, ip);
	assert_int_equal(ev.fault.error_code, 7);
	fol_decoder_format(d, &ev, text, sizeof(text));
	assert_non_null(strstr(text, "address=0x7f0000012345"));
	assert_non_null(strstr(text, "error_code=0x7"));

	memset(raw, 0, sizeof(raw));
	memcpy(raw + 8, &ec32, 4);
	memcpy(raw + 16, &ip, 8);
	memcpy(raw + 24, &addr, 8);
	tp_sample(&r, 22, 6000, raw, 32);
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), 1);
	assert_int_equal(ev.fault.address, addr);
	assert_int_equal(ev.fault.error_code, 6);
	assert_int_equal(fol_decoder_event(d, 1)->samples, 1);
	fol_decoder_free(d);
}

/* PERF_SAMPLE_CGROUP (record -a -G) comes after RAW, whose size includes its padding. */
static void test_cgroup_sample(void **state)
{
	struct fol_decoder *d = fol_decoder_new();
	struct fol_event ev;
	struct rec r;
	char raw[36] = { 0 };
	uint64_t addr = 0x7f0000001000, cg = 0xfedcba9876543210ull;
	uint32_t rawlen = 36;

	(void)state;
	add_event(d, "exceptions:page_fault_user", "tracepoint", ST_TP | PERF_SAMPLE_CGROUP, 33, fmt_618);
	memcpy(raw + 8, &addr, 8);
	r.n = sizeof(struct perf_event_header);
	put64(&r, 33);
	put32x2(&r, 100, 101);
	put64(&r, 7000);
	put32x2(&r, 0, 0);
	put(&r, &rawlen, 4);
	put(&r, raw, rawlen);
	put64(&r, cg);
	finish(&r, PERF_RECORD_SAMPLE);
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), 1);
	assert_int_equal(ev.fault.address, addr);
	assert_true(ev.cgroup == cg);
	/* Cut before the cgroup id: malformed, not read past the record. */
	r.n -= 8;
	finish(&r, PERF_RECORD_SAMPLE);
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), -EBADMSG);
	fol_decoder_free(d);
}

/* record -g: the fault entry's user chain, after the PERF_CONTEXT_USER marker. */
static void test_fault_chain(void **state)
{
	struct fol_decoder *d = fol_decoder_new();
	struct fol_event ev;
	struct rec r;
	char raw[36] = { 0 };
	uint32_t rawlen = 36;
	uint64_t got;

	(void)state;
	add_event(d, "exceptions:page_fault_user", "tracepoint", ST_TP | PERF_SAMPLE_CALLCHAIN, 44, fmt_618);
	r.n = sizeof(struct perf_event_header);
	put64(&r, 44);
	put32x2(&r, 100, 101);
	put64(&r, 8000);
	put32x2(&r, 0, 0);
	put64(&r, 3);
	put64(&r, (uint64_t)PERF_CONTEXT_USER);
	put64(&r, 0x401000);
	put64(&r, 0x402000);
	put(&r, &rawlen, 4);
	put(&r, raw, rawlen);
	finish(&r, PERF_RECORD_SAMPLE);
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), 1);
	assert_int_equal(ev.fault.nchain, 2);
	memcpy(&got, ev.fault.chain, 8);
	assert_int_equal(got, 0x401000);
	memcpy(&got, (const char *)ev.fault.chain + 8, 8);
	assert_int_equal(got, 0x402000);
	fol_decoder_free(d);
}

/* --call-graph dwarf: registers (ABI, then one u64 per bit of sample_regs_user) and the
 * stack copy (size, bytes, the size the kernel filled) after RAW; each bound checked. */
static void user_stack_sample(struct rec *r, uint64_t abi, uint64_t size, uint64_t dyn)
{
	char raw[36] = { 0 };
	uint32_t rawlen = 36;

	r->n = sizeof(struct perf_event_header);
	put64(r, 45);
	put32x2(r, 100, 101);
	put64(r, 8000);
	put32x2(r, 0, 0);
	put(r, &rawlen, 4);
	put(r, raw, rawlen);
	put64(r, abi);
	if (abi) {
		put64(r, 0x1111); /* AX */
		put64(r, 0x7ff0); /* SP */
	}
	put64(r, size);
	for (uint64_t i = 0; i < size; i += 8)
		put64(r, 0xab00 + i);
	if (size)
		put64(r, dyn);
	finish(r, PERF_RECORD_SAMPLE);
}

static void test_user_stack(void **state)
{
	struct fol_decoder *d = fol_decoder_new();
	char *base = rb_event_json("exceptions:page_fault_user", "tracepoint",
				   ST_TP | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER, 45, fmt_618);
	cJSON *j = cJSON_Parse(base);
	struct fol_event ev;
	struct rec r;
	uint64_t got;
	char *json;

	(void)state;
	cJSON_AddNumberToObject(cJSON_GetObjectItem(j, "attr"), "sample_regs_user", 0x81); /* AX, SP */
	json = cJSON_PrintUnformatted(j);
	assert_int_equal(fol_decoder_add_event(d, json, strlen(json)), 0);
	user_stack_sample(&r, PERF_SAMPLE_REGS_ABI_64, 32, 24);
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), 1);
	assert_int_equal(ev.regs_mask, 0x81);
	memcpy(&got, (const char *)ev.regs + 8, 8);
	assert_int_equal(got, 0x7ff0);
	assert_int_equal(ev.stack_size, 24);
	memcpy(&got, (const char *)ev.stack + 16, 8);
	assert_int_equal(got, 0xab10);
	/* A 32-bit task: its registers are stepped over, its stack still read. */
	user_stack_sample(&r, PERF_SAMPLE_REGS_ABI_32, 32, 24);
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), 1);
	assert_null(ev.regs);
	assert_int_equal(ev.stack_size, 24);
	/* A kernel thread has no user registers; an empty copy has no size after it. */
	user_stack_sample(&r, PERF_SAMPLE_REGS_ABI_NONE, 0, 0);
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), 1);
	assert_null(ev.regs);
	assert_null(ev.stack);
	/* Filled more than copied; a copy past the record's end; registers cut off. */
	user_stack_sample(&r, PERF_SAMPLE_REGS_ABI_64, 32, 40);
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), -EBADMSG);
	user_stack_sample(&r, PERF_SAMPLE_REGS_ABI_64, 32, 24);
	r.n -= 16;
	finish(&r, PERF_RECORD_SAMPLE);
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), -EBADMSG);
	user_stack_sample(&r, PERF_SAMPLE_REGS_ABI_64, 0, 0);
	r.n -= 16;
	finish(&r, PERF_RECORD_SAMPLE);
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), -EBADMSG);
	free(base);
	cJSON_free(json);
	cJSON_Delete(j);
	fol_decoder_free(d);
}

static void test_signed_field(void **state)
{
	struct fol_decoder *d = fol_decoder_new();
	struct fol_event ev;
	struct rec r;
	char raw[32] = { 0 };
	int32_t member = 1;
	int64_t size = -4096;

	(void)state;
	add_event(d, "kmem:rss_stat", "tracepoint", ST_TP, 5, fmt_rss);
	memcpy(raw + 16, &member, 4);
	memcpy(raw + 24, &size, 8);
	tp_sample(&r, 5, 1, raw, 32);
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), 1);
	assert_int_equal(ev.kind, FOL_EV_RSS_STAT);
	assert_int_equal(ev.rss.member, 1);
	assert_true(ev.rss.size == -4096);
	fol_decoder_free(d);
}

static void test_software_and_sideband(void **state)
{
	struct fol_decoder *d = fol_decoder_new();
	struct fol_event ev;
	struct rec r;
	uint64_t t;

	(void)state;
	add_event(d, "minor-faults", "software", ST_SW, 9, NULL);
	add_event(d, "tracking", "tracking", ST_TP & ~(uint64_t)PERF_SAMPLE_RAW, 3, NULL);

	r.n = sizeof(struct perf_event_header);
	put64(&r, 9);
	put64(&r, 0x401000);	/* ip */
	put32x2(&r, 7, 8);
	put64(&r, 777);
	put64(&r, 0x7f00dead000); /* addr */
	put32x2(&r, 0, 0);
	finish(&r, PERF_RECORD_SAMPLE);
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), 1);
	assert_int_equal(ev.kind, FOL_EV_FAULT_EXIT);
	assert_int_equal(ev.exit.addr, 0x7f00dead000);
	assert_int_equal(ev.time, 777);

	/* FORK: pid, ppid, tid, ptid, time; then the sample_id trailer. */
	r.n = sizeof(struct perf_event_header);
	put32x2(&r, 20, 10);
	put32x2(&r, 21, 10);
	put64(&r, 999);
	put32x2(&r, 20, 21); /* trailer: TID */
	put64(&r, 999);	     /* TIME */
	put32x2(&r, 1, 0);   /* CPU */
	put64(&r, 3);	     /* IDENTIFIER */
	finish(&r, PERF_RECORD_FORK);
	assert_int_equal(fol_decoder_time(d, r.b, r.n, &t), 0);
	assert_int_equal(t, 999);
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), 1);
	assert_int_equal(ev.kind, FOL_EV_FORK);
	assert_int_equal(ev.fork.pid, 20);
	assert_int_equal(ev.fork.ppid, 10);
	assert_int_equal(ev.fork.tid, 21);
	assert_int_equal(ev.cpu, 1);

	/* COMM whose string is not terminated inside the record: malformed. */
	r.n = sizeof(struct perf_event_header);
	put32x2(&r, 20, 20);
	put(&r, "abcdefgh", 8);
	put32x2(&r, 20, 20);
	put64(&r, 1000);
	put32x2(&r, 0, 0);
	put64(&r, 3);
	finish(&r, PERF_RECORD_COMM);
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), -EBADMSG);
	fol_decoder_free(d);
}

static void test_callchain(void **state)
{
	struct fol_decoder *d = fol_decoder_new();
	const uint64_t ranges[] = { 0xffffffff81000000ull, 0xffffffff81000100ull };
	struct fol_event ev;
	struct rec r;

	(void)state;
	add_event(d, "cpu-clock", "software",
		  PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			  PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN,
		  4, NULL);
	assert_int_equal(fol_decoder_set_fault_ranges(d, ranges, 1), 0);
	for (int inside = 0; inside < 2; inside++) {
		r.n = sizeof(struct perf_event_header);
		put64(&r, 4);
		put64(&r, 0xffffffff82000000ull); /* ip */
		put32x2(&r, 7, 7);
		put64(&r, 1234);
		put32x2(&r, 0, 0);
		put64(&r, 100000);		  /* period */
		put64(&r, 3);			  /* callchain: nr */
		put64(&r, (uint64_t)-128);	  /* PERF_CONTEXT_KERNEL */
		put64(&r, 0xffffffff82000000ull);
		put64(&r, inside ? 0xffffffff81000080ull : 0xffffffff81000100ull);
		finish(&r, PERF_RECORD_SAMPLE);
		assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), 1);
		assert_int_equal(ev.kind, FOL_EV_CLOCK);
		assert_int_equal(ev.clock.period, 100000);
		assert_int_equal(ev.clock.in_fault, inside);
	}
	/* A chain longer than the record: malformed. */
	memcpy(r.b + r.n - 32, &(uint64_t){ 1000 }, 8);
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), -EBADMSG);
	fol_decoder_free(d);
}

static void test_malformed(void **state)
{
	struct fol_decoder *d = fol_decoder_new();
	struct fol_event ev;
	struct rec r;
	uint64_t t;
	char raw[32] = { 0 };

	(void)state;
	add_event(d, "exceptions:page_fault_user", "tracepoint", ST_TP, 11, fmt_618);
	tp_sample(&r, 11, 1, raw, 32);
	/* Raw size claims more than the record holds. */
	memset(r.b + 8 + 8 + 8 + 8 + 8, 0xff, 4);
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), -EBADMSG);
	/* Header size disagrees with the buffer. */
	tp_sample(&r, 11, 1, raw, 32);
	assert_int_equal(fol_decoder_decode(d, r.b, r.n - 8, &ev), -EBADMSG);
	/* Short raw payload: fields past its end read as 0, never past the record. */
	tp_sample(&r, 11, 1, raw, 12);
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), 1);
	assert_int_equal(ev.fault.error_code, 0);
	/* Unknown id. */
	tp_sample(&r, 12345, 1, raw, 32);
	assert_int_equal(fol_decoder_time(d, r.b, r.n, &t), -ENOENT);
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), 0);
	/* Event descriptions that cannot be trusted are refused. */
	assert_int_equal(fol_decoder_add_event(d, "{", 1), -FOL_E_BAD_FORMAT);
	assert_int_equal(fol_decoder_add_event(d, "{\"name\":\"x\",\"kind\":\"software\","
						  "\"attr\":{\"sample_type\":1048576},\"ids\":[]}", 78),
			 -FOL_E_BAD_FORMAT);
	fol_decoder_free(d);
}

/* The names of a format's __print_symbolic list: what the kernel writes, and hostile text
 * that must stop the parse, never overrun. */
static void test_symbols(void **state)
{
	static const char kernel[] =
		"print fmt: \"mm=%p, status=%s\", REC->mm, __print_symbolic(REC->status, {0, \"failed\"}, "
		"{1, \"succeeded\"}, { 5 , \"exceed_none_pte\" }, {-2, \"neg\"})";
	struct fol_symbols sy;
	char big[8192];
	size_t n = 0;

	(void)state;
	assert_int_equal(fol_symbols_parse(kernel, "status", &sy), 4);
	assert_string_equal(fol_symbols_name(&sy, 5), "exceed_none_pte");
	assert_string_equal(fol_symbols_name(&sy, -2), "neg");
	assert_null(fol_symbols_name(&sy, 3));
	assert_int_equal(fol_symbols_parse(kernel, "other", &sy), 0);
	/* Stops at the first pair that is not one: a quote inside, a name too long, digits
	 * past 18, no closing brace. */
	assert_int_equal(fol_symbols_parse("__print_symbolic(REC->status, {0, \"a\"}, {1, \"b\\\"c\"})",
					   "status", &sy), 1);
	memset(big, 'x', 100);
	memcpy(big, "__print_symbolic(REC->status, {1, \"", 35);
	memcpy(big + 100, "\"})", 4);
	assert_int_equal(fol_symbols_parse(big, "status", &sy), 0);
	assert_int_equal(fol_symbols_parse("__print_symbolic(REC->status, {1234567890123456789, \"a\"})",
					   "status", &sy), 0);
	assert_int_equal(fol_symbols_parse("__print_symbolic(REC->status, {1, \"a\"", "status", &sy), 0);
	/* More pairs than kept: the first FOL_SYMBOLS_MAX. */
	n = (size_t)snprintf(big, sizeof(big), "__print_symbolic(REC->status, ");
	for (int i = 0; i < 100; i++)
		n += (size_t)snprintf(big + n, sizeof(big) - n, "{%d, \"s%d\"}, ", i, i);
	assert_int_equal(fol_symbols_parse(big, "status", &sy), FOL_SYMBOLS_MAX);
	assert_string_equal(fol_symbols_name(&sy, 63), "s63");
	assert_null(fol_symbols_name(&sy, 64));
}

/* The BPF path's record: both events of a fault, the entry's fields read by name from its
 * stored format; an exit alone; bounds. */
/* The events of the BPF fault path: the entry tracepoint, the exit's software event, and
 * the bpf-output event whose records stand for both. */
static void bpf_path_events(struct fol_decoder *d)
{
	add_event(d, "exceptions:page_fault_user", "tracepoint", ST_TP, 11, fmt_618);
	add_event(d, "minor-faults", "software", ST_SW, 22, NULL);
	add_event(d, "foliostat:faults", "bpf", ST_TP, 33, NULL);
}

static void paired(struct rec *r, const struct fol_bpf_rec *b, size_t size)
{
	tp_sample(r, 33, 9000, b, (uint32_t)size);
}

static void test_paired(void **state)
{
	struct fol_decoder *d = fol_decoder_new();
	struct fol_bpf_rec b;
	struct fol_event ev;
	struct rec r;
	uint64_t addr = 0x7f0000012345, ip = 0x401000, ec = 0x7;

	(void)state;
	bpf_path_events(d);
	memset(&b, 0, sizeof(b));
	b.what = FOL_BPF_FAULT;
	b.raw_size = 32;
	b.t0 = 8000;
	b.t1 = 8700;
	b.addr = addr;
	memcpy(b.raw + 8, &addr, 8);
	memcpy(b.raw + 16, &ip, 8);
	memcpy(b.raw + 24, &ec, 8);
	paired(&r, &b, sizeof(b));
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), 1);
	assert_int_equal(ev.kind, FOL_EV_FAULT_USER);
	assert_int_equal(ev.evidx, 0);
	assert_int_equal(ev.time, 8000);
	assert_int_equal(ev.tid, 101);
	assert_int_equal(ev.fault.address, addr);
	assert_int_equal(ev.fault.ip, ip);
	assert_int_equal(ev.fault.error_code, 7);
	assert_true(ev.paired);
	assert_int_equal(fol_decoder_more(d, &ev), 1);
	assert_int_equal(ev.kind, FOL_EV_FAULT_EXIT);
	assert_int_equal(ev.evidx, 1);
	assert_int_equal(ev.time, 8700);
	assert_int_equal(ev.exit.addr, addr);
	assert_int_equal(ev.tid, 101);
	assert_int_equal(ev.exit.file_read, 0);
	assert_int_equal(fol_decoder_more(d, &ev), 0);
	assert_int_equal(fol_decoder_event(d, 0)->samples, 1);
	assert_int_equal(fol_decoder_event(d, 1)->samples, 1);

	/* The page-cache folio the programs read inside the fault: its order + 1 (0 none). */
	b.file_folio = 1;
	paired(&r, &b, sizeof(b));
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), 1);
	assert_int_equal(fol_decoder_more(d, &ev), 1);
	assert_int_equal(ev.exit.file_read, 1);
	assert_int_equal(ev.exit.file_order, 0);
	b.file_folio = FOL_MAX_ORDER + 1;
	paired(&r, &b, sizeof(b));
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), 1);
	assert_int_equal(fol_decoder_more(d, &ev), 1);
	assert_int_equal(ev.exit.file_order, FOL_MAX_ORDER);
	b.file_folio = FOL_MAX_ORDER + 2;
	paired(&r, &b, sizeof(b));
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), -EBADMSG);
	b.what = FOL_BPF_ENTRY; /* an entry has no exit to carry it */
	b.file_folio = 1;
	paired(&r, &b, sizeof(b));
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), -EBADMSG);
	b.what = FOL_BPF_FAULT;
	b.file_folio = 0;

	/* An exit alone (its entry went out before): the record stops before raw. */
	b.what = FOL_BPF_EXIT;
	b.flags = FOL_BPF_MAJOR;
	paired(&r, &b, offsetof(struct fol_bpf_rec, raw));
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), -EBADMSG); /* no major-faults event */
	b.flags = 0;
	paired(&r, &b, offsetof(struct fol_bpf_rec, raw));
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), 1);
	assert_int_equal(ev.kind, FOL_EV_FAULT_EXIT);
	assert_int_equal(fol_decoder_more(d, &ev), 0);

	/* Damage: an entry cut short, an exit before its entry, unknown bits, raw past its
	 * array, a record shorter than its header. */
	b.what = FOL_BPF_FAULT;
	paired(&r, &b, offsetof(struct fol_bpf_rec, raw));
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), -EBADMSG);
	b.t1 = 7000;
	paired(&r, &b, sizeof(b));
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), -EBADMSG);
	b.t1 = 8700;
	b.flags = 0x80;
	paired(&r, &b, sizeof(b));
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), -EBADMSG);
	b.flags = 0;
	b.raw_size = FOL_BPF_RAW_MAX + 1;
	paired(&r, &b, sizeof(b));
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), -EBADMSG);
	b.raw_size = 32;
	b.what = 5;
	paired(&r, &b, sizeof(b));
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), -EBADMSG);
	b.what = FOL_BPF_FAULT;
	paired(&r, &b, 16);
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), -EBADMSG);
	assert_int_equal(fol_decoder_more(d, &ev), 0);
	/* The kernel's entry, but no such event in the file. */
	b.flags = FOL_BPF_KERNEL;
	paired(&r, &b, sizeof(b));
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), -EBADMSG);
	fol_decoder_free(d);
}

/* serve's kernel decisions: an exit with the summary of the allocations and RSS changes
 * inside its fault (not sampled), and an RSS record with the counter's value before. */
static void test_summed(void **state)
{
	struct fol_decoder *d = fol_decoder_new();
	struct fol_bpf_rec b;
	struct fol_event ev;
	struct rec r;
	uint32_t mm_id = 77, member = 2;
	int64_t size = 3 << 12;

	(void)state;
	bpf_path_events(d);
	add_event(d, "kmem:rss_stat", "tracepoint", ST_TP, 44, fmt_rss);
	memset(&b, 0, sizeof(b));
	b.what = FOL_BPF_EXIT;
	b.t1 = 8700;
	b.addr = 0x5000;
	b.sum = FOL_BPF_SUM | FOL_BPF_SUM_SWAP;
	b.alloc_order = 4;
	b.last_order = 0;
	paired(&r, &b, offsetof(struct fol_bpf_rec, raw));
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), 1);
	assert_int_equal(ev.kind, FOL_EV_FAULT_EXIT);
	assert_true(ev.exit.summed);
	assert_int_equal(ev.exit.alloc_order, 4);
	assert_int_equal(ev.exit.last_order, 0);
	assert_false(ev.exit.anon_rss);
	assert_true(ev.exit.swap_rss);
	/* No summary: nothing summed. Bits past the summary's, orders past the largest, a
	 * summary on an entry alone: damage. */
	b.sum = 0;
	paired(&r, &b, offsetof(struct fol_bpf_rec, raw));
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), 1);
	assert_false(ev.exit.summed);
	b.sum = FOL_BPF_SUM | 0x40;
	paired(&r, &b, offsetof(struct fol_bpf_rec, raw));
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), -EBADMSG);
	b.sum = FOL_BPF_SUM;
	b.alloc_order = 13;
	paired(&r, &b, offsetof(struct fol_bpf_rec, raw));
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), -EBADMSG);
	b.alloc_order = -2;
	paired(&r, &b, offsetof(struct fol_bpf_rec, raw));
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), -EBADMSG);
	b.alloc_order = 0;
	b.what = FOL_BPF_ENTRY;
	b.raw_size = 32;
	paired(&r, &b, sizeof(b));
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), -EBADMSG);

	/* An RSS record: the rss_stat record by its format, the value before from addr. */
	memset(&b, 0, sizeof(b));
	b.what = FOL_BPF_RSS;
	b.sum = FOL_BPF_SUM_PREV;
	b.t1 = 9100;
	b.addr = 5 << 12;
	b.raw_size = 32;
	memcpy(b.raw + 8, &mm_id, 4);
	memcpy(b.raw + 16, &member, 4);
	memcpy(b.raw + 24, &size, 8);
	paired(&r, &b, sizeof(b));
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), 1);
	assert_int_equal(ev.kind, FOL_EV_RSS_STAT);
	assert_int_equal(ev.evidx, 3);
	assert_int_equal(ev.time, 9100);
	assert_int_equal(ev.rss.member, 2);
	assert_int_equal(ev.rss.size, 3 << 12);
	assert_int_equal(ev.rss.mm_id, 77);
	assert_true(ev.rss.prev_known);
	assert_int_equal(ev.rss.prev, 5 << 12);
	assert_int_equal(fol_decoder_event(d, 3)->samples, 1);
	/* Without the value before; with other bits; flags; cut short. */
	b.sum = 0;
	paired(&r, &b, sizeof(b));
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), 1);
	assert_false(ev.rss.prev_known);
	b.sum = FOL_BPF_SUM;
	paired(&r, &b, sizeof(b));
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), -EBADMSG);
	b.sum = 0;
	b.flags = FOL_BPF_MAJOR;
	paired(&r, &b, sizeof(b));
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), -EBADMSG);
	b.flags = 0;
	paired(&r, &b, offsetof(struct fol_bpf_rec, raw));
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), -EBADMSG);
	fol_decoder_free(d);
}

/* serve --sample N: an exit not timed says so (FOL_BPF_UNTIMED); an entry alone cannot. */
static void test_untimed(void **state)
{
	struct fol_decoder *d = fol_decoder_new();
	struct fol_bpf_rec b;
	struct fol_event ev;
	struct rec r;

	(void)state;
	bpf_path_events(d);
	memset(&b, 0, sizeof(b));
	b.what = FOL_BPF_EXIT;
	b.flags = FOL_BPF_UNTIMED;
	b.t1 = 8700;
	b.addr = 0x5000;
	paired(&r, &b, offsetof(struct fol_bpf_rec, raw));
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), 1);
	assert_int_equal(ev.kind, FOL_EV_FAULT_EXIT);
	assert_int_equal(ev.time, 8700);
	assert_true(ev.exit.untimed);
	b.flags = 0;
	paired(&r, &b, offsetof(struct fol_bpf_rec, raw));
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), 1);
	assert_false(ev.exit.untimed);
	b.what = FOL_BPF_ENTRY;
	b.flags = FOL_BPF_UNTIMED;
	b.t0 = 8000;
	b.raw_size = 32;
	paired(&r, &b, sizeof(b));
	assert_int_equal(fol_decoder_decode(d, r.b, r.n, &ev), -EBADMSG);
	fol_decoder_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fault_by_name),
		cmocka_unit_test(test_cgroup_sample),
		cmocka_unit_test(test_fault_chain),
		cmocka_unit_test(test_user_stack),
		cmocka_unit_test(test_signed_field),
		cmocka_unit_test(test_software_and_sideband),
		cmocka_unit_test(test_callchain),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_symbols),
		cmocka_unit_test(test_paired),
		cmocka_unit_test(test_summed),
		cmocka_unit_test(test_untimed),
	};

	return cmocka_run_group_tests_name("decode", tests, NULL, NULL);
}
