// SPDX-License-Identifier: GPL-2.0-only
/* Hostile recordings: each test writes a valid file (right CRCs) holding one of the values
 * an attacker or a damaged writer could put there, and checks that foliostat reads it
 * without crashing, with the bad value kept out of the figures and counted. Each failed
 * before its fix (a crash, a sanitizer report, a wrong count, or hours of work). */
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/errors.h"

#include "data/decode.h"
#include "util/escape.h"
#include "data/merge.h"
#include "data/recording.h"
#include "model/model.h"
#include "report/report.h"
#include "data/session.h"
#include "symbols/recorded.h"
#include "symbols/symbols.h"

#include "recbuild.h"

static struct fol_model_opts all = { .order = FOL_ANY, .cls = FOL_ANY };

/* The text and JSON reports of a file, as strings; the report stays in r. */
static void render(struct rb *b, struct fol_report *r, char **text, char **json)
{
	size_t n = 0;
	FILE *f;
	cJSON *j;

	assert_int_equal(fol_report_build(b->path, &all, r), 0);
	f = open_memstream(text, &n);
	fol_report_text(r, &(struct fol_report_view){ 0 }, f);
	fclose(f);
	j = fol_report_json(r, &(struct fol_report_view){ 0 });
	assert_non_null(j);
	*json = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
}

/* What a test that rendered a built recording leaves behind: freed, the file removed. */
static void release(struct rb *b, struct fol_report *r, struct rb_recs *recs, char *text,
		    char *json)
{
	free(text);
	free(json);
	free(recs->b);
	fol_report_free(r);
	unlink(b->path);
}

/* Metadata of the wrong type or range: an mTHP size whose stats are a list (a NULL name
 * reached strncmp), a PMD order that shifts past 64 bits, a page size that is a string,
 * a phase that ends before it starts. */
static void test_metadata_types(void **state)
{
	struct fol_report r;
	struct rb b;
	char *text, *json;

	(void)state;
	rb_open(&b);
	rb_json(&b, FOL_CHUNK_META, "{\"kernel\":7,\"command\":[1,\"x\"],\"pmd_order\":4294967296,"
				    "\"page_size\":\"big\",\"cpus\":1e300,\"started_ns\":1000,"
				    "\"latency_method\":\"exact\"}");
	rb_default_events(&b);
	rb_json(&b, FOL_CHUNK_COUNTERS, "{\"vmstat\":{\"pgfault\":1},\"mthp\":{\"64kB\":{\"stats\":[1,2]}}}");
	rb_json(&b, FOL_CHUNK_PMU, "[{\"event\":5,\"supported\":true,\"value\":-1},17]");
	rb_json(&b, FOL_CHUNK_COUNTERS, "{\"vmstat\":{\"pgfault\":\"x\"},\"mthp\":{\"64kB\":{\"stats\":"
					"{\"split\":[],\"nr_anon\":3}},\"2048kB\":[]}}");
	rb_json(&b, FOL_CHUNK_WORKLOAD, "{\"phase\":\"w\",\"start_ns\":9,\"end_ns\":1}\n"
					"{\"phase\":[],\"start_ns\":1e300}\n[]\n");
	rb_close(&b);
	render(&b, &r, &text, &json);
	/* kernel, command[0], pmd_order, page_size, cpus; stats list; event, value, 17;
	 * pgfault "x", split [], 2048kB []; phase [], start_ns 1e300, the line "[]". */
	assert_int_equal(r.st.bad_metadata, 15);
	assert_int_equal(r.pmd_order, -1);
	assert_int_equal(r.page_size, 4096);
	assert_non_null(strstr(text, "15 metadata values of the wrong type or range"));
	assert_non_null(strstr(text, "PMD unknown"));
	assert_non_null(strstr(json, "\"schema\""));
	free(text);
	free(json);
	fol_report_free(&r);
	unlink(b.path);
}

static char *nested_print_fmt(int depth)
{
	size_t len = strlen(rb_fmt_fault) + 2 * (size_t)depth + 64;
	char *s = malloc(len), *p;

	assert_non_null(s);
	p = s + sprintf(s, "%.*s", (int)(strstr(rb_fmt_fault, "print fmt:") - rb_fmt_fault),
			rb_fmt_fault);
	p += sprintf(p, "print fmt: \"%%lx\", ");
	memset(p, '(', (size_t)depth);
	p += depth;
	p += sprintf(p, "REC->address");
	memset(p, ')', (size_t)depth);
	p[depth] = '\0';
	return s;
}

/* A print format nested 200,000 deep overflowed the stack inside libtraceevent; foliostat
 * reads fields only, and its fields still decode. */
static void test_nested_print_format(void **state)
{
	struct rb_recs recs = { 0 };
	struct fol_event ev;
	char *fmt = nested_print_fmt(200000);

	(void)state;
	{
		struct rb b;
		struct fol_session *s;

		rb_open(&b);
		rb_meta(&b, NULL);
		rb_event(&b, "exceptions:page_fault_user", "tracepoint", RB_ST_TP, RB_ID_FAULT, fmt);
		rb_fault(&recs, 100, 100, 2000, 0x7f0000001000, 6);
		rb_records(&b, &recs);
		rb_close(&b);
		assert_int_equal(fol_session_open(&s, b.path), 0);
		assert_int_equal(fol_session_next(s, &ev), 1);
		assert_int_equal(ev.kind, FOL_EV_FAULT_USER);
		assert_int_equal(ev.fault.address, 0x7f0000001000);
		fol_session_close(s);
		unlink(b.path);
	}
	free(recs.b);
	free(fmt);
}

/* Another sampler's exits carry its clock, 574 us ahead of this recording's; the last one
 * of a chunk is judged by the buffer's next chunk: every exit comes right after its own
 * entry, flagged as retimed, and no entry is moved. */
static void test_retimed_across_chunks(void **state)
{
	static const uint64_t ahead = 574000;
	struct rb_recs recs = { 0 };
	struct fol_session *s;
	struct fol_event ev;
	struct rb b;
	uint64_t want[8] = { 0x1000, 0x1000, 0x2000, 0x2000, 0x3000, 0x3000, 0x4000, 0x4000 };
	int retimed = 0;

	(void)state;
	rb_start(&b);
	rb_fault(&recs, 100, 100, 1000, 0x1000, 6);
	rb_exit(&recs, 100, 100, 1010 + ahead, 0x1000);
	rb_fault(&recs, 100, 100, 1020, 0x2000, 6);
	rb_exit(&recs, 100, 100, 1030 + ahead, 0x2000); /* last of its chunk */
	rb_records(&b, &recs);
	rb_fault(&recs, 100, 100, 1040, 0x3000, 6);
	rb_exit(&recs, 100, 100, 1050 + ahead, 0x3000);
	rb_fault(&recs, 100, 100, 1060, 0x4000, 6);
	rb_exit(&recs, 100, 100, 1070, 0x4000); /* this recording's own */
	rb_records(&b, &recs);
	rb_close(&b);
	assert_int_equal(fol_session_open(&s, b.path), 0);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(fol_session_next(s, &ev), 1);
		assert_int_equal(ev.kind, i % 2 ? FOL_EV_FAULT_EXIT : FOL_EV_FAULT_USER);
		assert_int_equal(i % 2 ? ev.exit.addr : ev.fault.address, want[i]);
		assert_true(ev.time < 2000);
		retimed += ev.retimed;
	}
	assert_int_equal(fol_session_next(s, &ev), 0);
	assert_int_equal(retimed, 3);
	assert_int_equal(fol_session_stats(s).retimed, 3);
	assert_int_equal(fol_session_stats(s).records, 8); /* the held ones once */
	fol_session_close(s);
	unlink(b.path);
	free(recs.b);
}

/* A chunk that ends in a record cut short (its size past the chunk): the records held back
 * from it for the next chunk leave the damaged bytes behind, so the next chunk is read
 * whole, and the damage is counted once. */
static void test_held_before_damage(void **state)
{
	struct rb_recs recs = { 0 };
	struct perf_event_header cut = { .type = PERF_RECORD_SAMPLE, .size = 64 };
	struct fol_session *s;
	struct fol_event ev;
	struct rb b;
	int n = 0;

	(void)state;
	rb_start(&b);
	rb_fault(&recs, 100, 100, 1000, 0x1000, 6);
	rb_exit(&recs, 100, 100, 1010, 0x1000);
	rb_put(&recs, &cut, sizeof(cut));
	rb_records(&b, &recs);
	rb_fault(&recs, 100, 100, 1020, 0x2000, 6);
	rb_exit(&recs, 100, 100, 1030, 0x2000);
	rb_records(&b, &recs);
	rb_close(&b);
	assert_int_equal(fol_session_open(&s, b.path), 0);
	while (fol_session_next(s, &ev) == 1)
		n++;
	assert_int_equal(n, 4);
	assert_int_equal(fol_session_stats(s).bad_records, 1);
	fol_session_close(s);
	unlink(b.path);
	free(recs.b);
}

/* minor-faults samples of pid on cpu at each time of times (n of them). */
static void exits_on(struct rb_recs *r, uint32_t cpu, uint32_t pid, const uint64_t *times, int n)
{
	for (int i = 0; i < n; i++) {
		size_t start = r->n;

		rb_exit(r, pid, pid, times[i], 0x1000);
		memcpy(r->b + start + 48, &cpu, sizeof(cpu)); /* after the address: cpu, res */
	}
}

/* A quiet ring buffer: its last records, held back for its next chunk to judge their
 * times, go in at that chunk however short it is. Held again with it, they stayed out
 * round after round while the merge let the other buffer's later records past them (serve
 * saw a child's faults before its fork, its parent's own faults all decided in the
 * kernel). */
static void test_quiet_ring(void **state)
{
	uint64_t busy[12], other[12], t[1];
	struct rb_recs recs = { 0 };
	struct fol_session *s;
	struct fol_event ev;
	uint64_t last = 0;
	struct rb b;
	int n = 0;

	(void)state;
	for (int i = 0; i < 12; i++) {
		busy[i] = 1000 + 10 * (uint64_t)i;
		other[i] = 1500 + 10 * (uint64_t)i;
	}
	rb_start(&b);
	exits_on(&recs, 1, 100, busy, 12);
	rb_records(&b, &recs);
	/* Then a record a round on cpu 1; in the first of those rounds, twelve later ones of
	 * cpu 0, a chunk of their own. */
	for (int round = 2; round <= 9; round++) {
		t[0] = 1000 * (uint64_t)round;
		exits_on(&recs, 1, 100, t, 1);
		rb_chunk(&b, FOL_CHUNK_RECORDS, recs.b, recs.n);
		recs.n = 0;
		if (round == 2) {
			exits_on(&recs, 0, 200, other, 12);
			rb_chunk(&b, FOL_CHUNK_RECORDS, recs.b, recs.n);
			recs.n = 0;
		}
		rb_chunk(&b, FOL_CHUNK_ROUND, NULL, 0);
	}
	rb_close(&b);
	assert_int_equal(fol_session_open(&s, b.path), 0);
	while (fol_session_next(s, &ev) == 1) {
		assert_true(ev.time >= last);
		last = ev.time;
		n++;
	}
	assert_int_equal(n, 32);
	fol_session_close(s);
	unlink(b.path);
	free(recs.b);
}

/* A type of 50,000 tokens made parsing take seconds (200,000: over a minute): refused
 * by the bounds on a field declaration, at once. */
static void test_long_type(void **state)
{
	size_t n = 50000, len = strlen(rb_fmt_fault) + 10 * n;
	char *fmt = malloc(len), *out = malloc(FOL_FORMAT_MAX), *p;

	(void)state;
	assert_non_null(fmt);
	p = fmt + sprintf(fmt, "name: page_fault_user\nID: 190\nformat:\n\tfield:");
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "unsigned ");
	sprintf(p, "long address;\toffset:8;\tsize:8;\tsigned:0;\n\nprint fmt: \"\"\n");
	assert_int_equal(fol_decoder_clean_format(fmt, out, FOL_FORMAT_MAX), -FOL_E_BAD_FORMAT);
	/* A declaration without a type made libtraceevent leak (found by fuzz_chunks). */
	assert_int_equal(fol_decoder_clean_format("name: x\nID: 1\nformat:\n"
						  "\tfield:orphan;\toffset:4;\tsize:4;\tsigned:1;\n",
						  out, FOL_FORMAT_MAX), -FOL_E_BAD_FORMAT);
	assert_int_equal(fol_decoder_clean_format("name: x\nID: 1\nformat:\n"
						  "\tfield:u[signed long pfn;\toffset:8;\tsize:8;\tsigned:0;\n",
						  out, FOL_FORMAT_MAX), -FOL_E_BAD_FORMAT);
	/* The kernel's own formats pass, fields intact. */
	assert_true(fol_decoder_clean_format(rb_fmt_alloc, out, FOL_FORMAT_MAX) > 0);
	assert_non_null(strstr(out, "\tfield:unsigned long order;\toffset:16;\tsize:8;\tsigned:0;\n"));
	assert_non_null(strstr(out, "print fmt: \"\""));
	free(fmt);
	free(out);
}

/* Folio orders of 13 and more (a shift past the width of the page size) make the record
 * malformed: skipped and counted, never a folio. */
static void test_order_range(void **state)
{
	struct rb_recs recs = { 0 };
	struct fol_report r;
	struct rb b;
	char *text, *json;
	uint64_t t = 2000, allocated = 0;

	(void)state;
	rb_start(&b);
	for (int i = 0; i < 3; i++) {
		uint64_t order = i == 0 ? 4 : i == 1 ? 13 : 1ull << 32;

		rb_fault(&recs, 100, 100, t++, 0x7f0000000000 + (uint64_t)i * 0x10000, 6);
		rb_alloc(&recs, 100, 100, t++, order);
		rb_exit(&recs, 100, 100, t++, 0x7f0000000000 + (uint64_t)i * 0x10000);
	}
	rb_records(&b, &recs);
	rb_close(&b);
	render(&b, &r, &text, &json);
	assert_int_equal(r.st.bad_records, 2);
	for (int slot = 0; slot < FOL_NR_ORDER_SLOTS; slot++)
		allocated += r.s.order[slot].folios_allocated;
	assert_int_equal(allocated, 1);
	assert_int_equal(r.s.order[FOL_ORDER_SLOT(4)].folios_allocated, 1);
	assert_non_null(strstr(text, "2 malformed records"));
	release(&b, &r, &recs, text, json);
}

/* A key named twice: the schema checked the first copy and removed it, a later lookup
 * found the second, unchecked: a seeded folio of order 1000000 (a segfault in the
 * model), a PMD order past the table, an event renamed behind the check. Each such
 * chunk is dropped and counted now. */
static void test_duplicate_keys(void **state)
{
	struct rb_recs recs = { 0 };
	struct fol_report r;
	struct rb b;
	char *text, *json, *ev, *dup;

	(void)state;
	rb_start(&b);
	ev = rb_event_json("minor-faults", "software", 0, 99, NULL);
	ev[strlen(ev) - 1] = '\0';
	if (asprintf(&dup, "%s,\"name\":\"exceptions:page_fault_user\"}", ev) < 0)
		abort();
	rb_json(&b, FOL_CHUNK_EVENT, dup);
	free(dup);
	free(ev);
	rb_json(&b, FOL_CHUNK_SYNTH, "{\"pid\":100,\"time_ns\":1000,\"folios\":[{\"start\":"
				     "\"0x7f0000000000\",\"order\":\"x\",\"order\":1000000,\"n\":1}]}");
	rb_fault(&recs, 100, 100, 2000, 0x7f0000000000, 7);
	rb_exit(&recs, 100, 100, 2001, 0x7f0000000000);
	rb_records(&b, &recs);
	rb_close(&b);
	render(&b, &r, &text, &json);
	assert_int_equal(r.st.bad_metadata, 1);
	assert_int_equal(r.pmd_order, 9);
	assert_int_equal(r.s.seed_dropped, 0);
	for (int slot = 0; slot < FOL_NR_ORDER_SLOTS; slot++)
		assert_true(slot == FOL_ORDER_SLOT(-1) || r.s.order[slot].folios_allocated == 0);
	release(&b, &r, &recs, text, json);
	/* Any chunk, at any depth: META's PMD order, a page-table summary's order. */
	{
		cJSON *m = cJSON_Parse("{\"pmd_order\":\"x\",\"pmd_order\":1000}");
		cJSON *d = cJSON_Parse("{\"vmas\":[{\"orders\":[{\"order\":4,\"folios\":1,"
				       "\"order\":30}]}]}");

		assert_int_equal(fol_recording_check(FOL_CHUNK_META, m), -FOL_E_BAD_METADATA);
		assert_int_equal(fol_json_repeats_keys(d), 1);
		cJSON_Delete(m);
		cJSON_Delete(d);
	}
}

/* What a recording names, the report opens only if it is a regular file under the symfs:
 * a FIFO blocked it in open(), /dev/ptmx allocated a pty, /proc/self/mem and /dev/zero
 * were read, a path with ".." (or a link) left --symfs. */
static void test_named_files(void **state)
{
	char dir[] = "/tmp/foliostat-test-named.XXXXXX", p[PATH_MAX];
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/fifo", dir);
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(fol_open_recorded(NULL, p), -EPERM);
	assert_int_equal(fol_open_recorded(dir, "/fifo"), -EPERM);
	assert_int_equal(fol_open_recorded(NULL, "/dev/zero"), -EPERM);
	assert_int_equal(fol_open_recorded(NULL, "/dev/ptmx"), -EPERM);
	assert_int_equal(fol_open_recorded(NULL, "/proc/self/mem"), -EPERM);
	assert_int_equal(fol_open_recorded(NULL, "/proc/self/maps"), -EPERM);
	/* Under a symfs, nothing outside it: not by "..", nor by a link. */
	snprintf(p, sizeof(p), "%s/file", dir);
	fclose(fopen(p, "w"));
	fd = fol_open_recorded(dir, "/file");
	assert_true(fd >= 0);
	close(fd);
	assert_true(fol_open_recorded(dir, "/../../../../etc/hostname") < 0);
	snprintf(p, sizeof(p), "%s/link", dir);
	assert_int_equal(symlink("/etc/hostname", p), 0);
	assert_true(fol_open_recorded(dir, "/link") < 0);
	fd = fol_open_recorded(NULL, "/etc/hostname");
	assert_true(fd >= 0);
	close(fd);
	unlink(p);
	snprintf(p, sizeof(p), "%s/file", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/fifo", dir);
	unlink(p);
	rmdir(dir);
}

/* Faults of 2^62 ns and more: four of them wrapped the fault time to a small number. A
 * latency past FOL_LATENCY_MAX is no fault's: such faults are counted untimed. */
static void test_huge_latency(void **state)
{
	struct rb_recs recs = { 0 };
	struct fol_report r;
	struct rb b;
	char *text, *json;
	uint64_t t = 2000;

	(void)state;
	rb_start(&b);
	for (int i = 0; i < 2; i++) {
		rb_fault(&recs, 100, 100, t, 0x7f0000000000 + (uint64_t)i * 4096, 6);
		t += 1ull << 62;
		rb_exit(&recs, 100, 100, t, 0x7f0000000000 + (uint64_t)i * 4096);
	}
	rb_fault(&recs, 100, 100, t + 10, 0x7f0000100000, 6);
	rb_exit(&recs, 100, 100, t + 1010, 0x7f0000100000);
	rb_records(&b, &recs);
	rb_close(&b);
	render(&b, &r, &text, &json);
	assert_int_equal(r.s.untimed, 2);
	assert_int_equal(r.s.all_lat.count, 1);
	assert_int_equal(r.s.all_lat.sum, 1000);
	release(&b, &r, &recs, text, json);
}

/* pid and tid 0 were the hash maps' empty key: every event made a new process. */
static void test_pid_zero(void **state)
{
	struct rb_recs recs = { 0 };
	struct fol_report r;
	struct rb b;
	char *text, *json;
	uint64_t t = 2000;

	(void)state;
	rb_start(&b);
	for (int i = 0; i < 4; i++) {
		rb_fault(&recs, 0, 0, t++, (uint64_t)i << 12, 6);
		rb_alloc(&recs, 0, 0, t++, 0);
		rb_exit(&recs, 0, 0, t++, (uint64_t)i << 12);
	}
	rb_fault(&recs, 0, 0, t++, 0, 7); /* address 0, order 0: folio key 0 as well */
	rb_exit(&recs, 0, 0, t++, 0);
	rb_records(&b, &recs);
	rb_close(&b);
	render(&b, &r, &text, &json);
	assert_int_equal(r.s.processes, 1);
	assert_int_equal(r.s.threads, 1);
	assert_int_equal(r.s.faults, 5);
	assert_int_equal(r.s.order[FOL_ORDER_SLOT(0)].cell[FOL_C_WP_REUSE].faults, 1);
	release(&b, &r, &recs, text, json);
}

/* Bytes allocated: large blocks are mmap'ed apart from the heap (hblkhd). */
static size_t allocated(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

/* One chunk in reverse time order: the merge opened a run (KBs) per record, and an 8 MB
 * file took 627 MB. Now it is one run, sorted. */
static void test_reverse_chunk(void **state)
{
	struct fol_merge *m = fol_merge_new();
	const int n = 20000;
	uint64_t rec[4] = { 0 }, t, prev = 0;
	const void *p;
	size_t size, before, held;
	int popped = 0;

	(void)state;
	before = allocated();
	for (int i = 0; i < n; i++)
		assert_int_equal(fol_merge_push(m, (uint64_t)(n - i), rec, sizeof(rec)), 0);
	assert_int_equal(fol_merge_end_run(m), 0);
	held = allocated() - before;
	/* 20,000 records of 32 bytes: a few MB at most (0 under ASan, which keeps its own
	 * books). */
	assert_true(held < (8u << 20));
	fol_merge_flush_all(m);
	while (fol_merge_pop(m, &t, &p, &size)) {
		assert_true(t >= prev);
		prev = t;
		popped++;
	}
	assert_int_equal(popped, n);
	fol_merge_free(m);
}

static void watchdog(int sig)
{
	(void)sig;
	fprintf(stderr, "hang: the model did not finish (quadratic again?)\n");
	_exit(1);
}

/* An munmap of 128 TiB over 50,000 folios: the map was walked again after every delete
 * (minutes); one walk now. A range at the top of the address space must not wrap. The
 * alarm is a hang guard a thousand times the normal run time, not a timing budget. */
static void test_huge_munmap(void **state)
{
	struct fol_model *m = fol_model_new(&all);
	struct fol_summary s;
	const int n = 50000;
	uint64_t t = 1;

	(void)state;
	signal(SIGALRM, watchdog);
	alarm(120);
	for (int i = 0; i < n; i++) {
		uint64_t a = 0x7f0000000000ull + ((uint64_t)i << 12);
		struct fol_event e = { .time = t++, .pid = 1, .tid = 1, .evidx = 0 };

		e.kind = FOL_EV_FAULT_USER;
		e.fault.address = a;
		e.fault.error_code = 6;
		assert_int_equal(fol_model_event(m, &e), 0);
		e = (struct fol_event){ .time = t++, .pid = 1, .tid = 1, .evidx = 0,
					.kind = FOL_EV_PAGE_ALLOC,
					.page = { .pfn = 1, .order = 0, .gfp = FOL_GFP_MOVABLE } };
		assert_int_equal(fol_model_event(m, &e), 0);
		e = (struct fol_event){ .time = t++, .pid = 1, .tid = 1, .evidx = 0,
					.kind = FOL_EV_FAULT_EXIT, .exit = { .addr = a } };
		assert_int_equal(fol_model_event(m, &e), 0);
	}
	{
		struct fol_event e = { .time = t++, .pid = 1, .tid = 1, .evidx = 0,
				       .kind = FOL_EV_MUNMAP, .vm = { .start = 0xfffffffffffff000ull,
								      .len = 0xfff } };

		assert_int_equal(fol_model_event(m, &e), 0);
		e.vm.start = 0;
		e.vm.len = 1ull << 47;
		assert_int_equal(fol_model_event(m, &e), 0);
		/* Every folio is gone: a write there finds no folio (order unknown). */
		e = (struct fol_event){ .time = t++, .pid = 1, .tid = 1, .evidx = 0,
					.kind = FOL_EV_FAULT_USER,
					.fault = { .address = 0x7f0000000000ull, .error_code = 7 } };
		assert_int_equal(fol_model_event(m, &e), 0);
		e = (struct fol_event){ .time = t++, .pid = 1, .tid = 1, .evidx = 0,
					.kind = FOL_EV_FAULT_EXIT, .exit = { .addr = 0x7f0000000000ull } };
		assert_int_equal(fol_model_event(m, &e), 0);
	}
	alarm(0);
	assert_int_equal(fol_model_finish(m, &s), 0);
	assert_int_equal(s.order[FOL_ORDER_SLOT(0)].cell[FOL_C_ANON_ALLOC].faults, n);
	assert_int_equal(s.order[0].cell[FOL_C_WP_REUSE].faults, 1);
	fol_summary_free(&s);
	fol_model_free(m);
}

/* A __data_loc string whose offset and length point past the record: script printed
 * whatever memory followed (libtraceevent does not check). Now "?". */
static void test_dynamic_field_bounds(void **state)
{
	static const char fmt[] = "name: str\nID: 500\nformat:\n" RB_COMMON
				  "\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;\n\n"
				  "print fmt: \"%s\", __get_str(name)\n";
	struct rb_recs recs = { 0 };
	struct fol_session *s;
	struct fol_event ev;
	struct rb b;
	char text[256];
	uint32_t raw[6] = { 0, 0, 12u | (4u << 16), 0x00636261 /* "abc" */, 0, 0 };

	(void)state;
	rb_open(&b);
	rb_meta(&b, NULL);
	rb_event(&b, "test:str", "tracepoint", RB_ST_TP, 21, fmt);
	rb_tp(&recs, 21, 100, 100, 1000, raw, 16);
	raw[2] = 12u | (0x4000u << 16); /* 16 KB from a 16-byte payload */
	rb_tp(&recs, 21, 100, 100, 1001, raw, 16);
	rb_records(&b, &recs);
	rb_close(&b);
	assert_int_equal(fol_session_open(&s, b.path), 0);
	assert_int_equal(fol_session_next(s, &ev), 1);
	fol_decoder_format(fol_session_decoder(s), &ev, text, sizeof(text));
	assert_string_equal(text, " name=abc");
	assert_int_equal(fol_session_next(s, &ev), 1);
	fol_decoder_format(fol_session_decoder(s), &ev, text, sizeof(text));
	assert_string_equal(text, " name=?");
	fol_session_close(s);
	free(recs.b);
	unlink(b.path);
}

/* A string field with no NUL before the record's end (char[N] full, or a __data_loc
 * string cut there): libtraceevent reads to a NUL, and read past the record (ASan: a
 * heap-buffer-overflow in tep_print_field_content). Printed from a copy that ends in one,
 * the string stops at the record's end. */
static void test_string_without_nul(void **state)
{
	static const char fmt[] = "name: arr\nID: 501\nformat:\n" RB_COMMON
				  "\tfield:char comm[12];\toffset:8;\tsize:12;\tsigned:0;\n\n"
				  "print fmt: \"%s\", REC->comm\n";
	struct rb_recs recs = { 0 };
	struct fol_session *s;
	struct fol_event ev;
	struct rb b;
	char text[256];
	cJSON *o;
	/* 20 bytes: with its size word, the record ends its chunk with no padding. */
	uint32_t raw[5] = { 0, 0, 0x64636261 /* "abcd" */, 0x68676665, 0x6c6b6a69 /* "ijkl" */ };

	(void)state;
	rb_open(&b);
	rb_meta(&b, NULL);
	rb_event(&b, "test:arr", "tracepoint", RB_ST_TP, 22, fmt);
	rb_tp(&recs, 22, 100, 100, 1000, raw, 20);
	rb_records(&b, &recs);
	rb_close(&b);
	assert_int_equal(fol_session_open(&s, b.path), 0);
	assert_int_equal(fol_session_next(s, &ev), 1);
	fol_decoder_format(fol_session_decoder(s), &ev, text, sizeof(text));
	assert_string_equal(text, " comm=abcdefghijkl");
	o = cJSON_CreateObject();
	fol_decoder_fields_json(fol_session_decoder(s), &ev, o);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o, "comm")), "abcdefghijkl");
	cJSON_Delete(o);
	fol_session_close(s);
	free(recs.b);
	unlink(b.path);
}

/* Escape sequences from the traced process (command line, thread names) reach the text
 * report as visible text, never as bytes a terminal obeys. */
static void test_escapes(void **state)
{
	struct rb_recs recs = { 0 };
	struct fol_report r;
	struct rb b;
	char *text, *json, buf[64];

	(void)state;
	assert_string_equal(fol_escape("plain µs", buf, sizeof(buf)), "plain µs");
	assert_string_equal(fol_escape("a\x1b[2Jb", buf, sizeof(buf)), "a\\x1b[2Jb");
	assert_string_equal(fol_escape("\xc2\x9b" "1m", buf, sizeof(buf)), "\\xc2\\x9b1m");
	assert_string_equal(fol_escape("bad\xff", buf, sizeof(buf)), "bad\\xff");
	assert_string_equal(fol_escape("\\x1b", buf, sizeof(buf)), "\\\\x1b");
	assert_string_equal(fol_escape("\x1b\x1b\x1b", buf, 6), "\\x1b");
	rb_open(&b);
	rb_meta(&b, "\"kernel\":\"6.18\\u001b]0;owned\\u0007\",\"warnings\":[\"w\\u001b[31m\"],"
		    "\"command\":[\"c1\\u009b2J\",\"del\\u007f\"]");
	rb_default_events(&b);
	rb_comm(&recs, 100, 100, 1500, "x\x1b[2J");
	rb_fault(&recs, 100, 100, 2000, 0x7f0000000000, 6);
	rb_exit(&recs, 100, 100, 2001, 0x7f0000000000);
	rb_records(&b, &recs);
	rb_json(&b, FOL_CHUNK_WORKLOAD, "{\"phase\":\"p\\u001b[1m\",\"start_ns\":1,\"end_ns\":2}\n");
	rb_close(&b);
	render(&b, &r, &text, &json);
	assert_null(strchr(text, '\x1b'));
	assert_null(strchr(text, '\x07'));
	assert_non_null(strstr(text, "6.18\\x1b]0;owned\\x07"));
	assert_non_null(strstr(text, "w\\x1b[31m"));
	assert_non_null(strstr(text, "p\\x1b[1m"));
	assert_null(strchr(json, '\x1b'));
	/* JSON too: cJSON lets DEL and C1 controls through as they are. */
	assert_null(strstr(json, "\xc2\x9b"));
	assert_null(strchr(json, '\x7f'));
	assert_non_null(strstr(json, "c1\\\\xc2\\\\x9b2J"));
	assert_null(strstr(text, "\xc2\x9b"));
	free(text);
	free(json);
	/* CSV of the sites (the thread name) and the metrics' labels: escaped as the text is,
	 * each in its one place. */
	{
		static const char *const tables[] = { "sites", "faults" };
		size_t n = 0;
		char *out;
		FILE *f = open_memstream(&out, &n);

		for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
			fol_report_csv(&r, &(struct fol_report_view){ .table = tables[i] }, f);
		fol_report_metrics(&r, FOL_METRICS_OPENMETRICS, f);
		fol_report_metrics(&r, FOL_METRICS_PROMETHEUS, f);
		fclose(f);
		assert_null(strchr(out, '\x1b'));
		assert_null(strchr(out, '\x07'));
		assert_null(strstr(out, "\xc2\x9b"));
		free(out);
	}
	/* A label value's backslash escaped once, by the exposition's own rule: a cgroup
	 * "/fs\bs" read back as "/fs\\bs" when fol_escape had doubled it first. Where the
	 * value needs fol_escape (a control byte), its escapes stay visible text. */
	{
		static const char *const raw[] = { "/fs\\bs", "q\"uote", "a\x1b\\b" };
		static const char *const want[] = { "/fs\\\\bs", "q\\\"uote", "a\\\\x1b\\\\\\\\b" };

		for (size_t i = 0; i < sizeof(raw) / sizeof(raw[0]); i++) {
			size_t n = 0;
			char *out;
			FILE *f = open_memstream(&out, &n);

			fol_metrics_label(f, raw[i]);
			fclose(f);
			assert_string_equal(out, want[i]);
			free(out);
		}
	}
	free(recs.b);
	fol_report_free(&r);
	unlink(b.path);
}

/* A kernel-symbol chunk that reads no symbol: the header said "the recording's own" with
 * raw addresses below it. Now it says the chunk is damaged, and the JSON too. */
static void test_damaged_ksyms(void **state)
{
	static const unsigned char junk[64] = { 0x78, 0x9c, 0xde, 0xad, 0xbe, 0xef };
	struct rb_recs recs = { 0 };
	struct fol_report r;
	struct rb b;
	char *text, *json;

	(void)state;
	rb_open(&b);
	rb_meta(&b, NULL);
	rb_default_events(&b);
	rb_chunk(&b, FOL_CHUNK_KSYMS, junk, sizeof(junk));
	rb_fault(&recs, 100, 100, 2000, 0x7f0000000000, 6);
	rb_exit(&recs, 100, 100, 2001, 0x7f0000000000);
	rb_records(&b, &recs);
	rb_close(&b);
	render(&b, &r, &text, &json);
	assert_null(strstr(text, "the recording's own"));
	assert_non_null(strstr(text, "kernel symbols are damaged"));
	assert_non_null(strstr(json, "\"kernel_symbols_damaged\":true"));
	assert_int_equal(r.ksyms_damaged, 1);
	release(&b, &r, &recs, text, json);
}

/* A calibration made while the machine was busy: traced faster than untraced. "The fault
 * events add -544 ns" was printed as a cost; now it is said to be unmeasured, and the
 * JSON's added_ns is null. */
static void test_unmeasured_probe(void **state)
{
	struct rb_recs recs = { 0 };
	struct fol_report r;
	struct rb b;
	char *text, *json;

	(void)state;
	rb_open(&b);
	rb_meta(&b, "\"probe_calibration\":{\"faults\":4096,\"passes\":5,\"untraced_ns\":1300,"
		    "\"traced_ns\":756,\"samples\":8192,\"exits\":4096}");
	rb_default_events(&b);
	rb_close(&b);
	render(&b, &r, &text, &json);
	assert_null(strstr(text, "-544"));
	assert_non_null(strstr(text, "the fault events' cost could not be measured here"));
	assert_non_null(strstr(json, "\"added_ns\":null"));
	release(&b, &r, &recs, text, json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metadata_types),
		cmocka_unit_test(test_nested_print_format),
		cmocka_unit_test(test_retimed_across_chunks),
		cmocka_unit_test(test_held_before_damage),
		cmocka_unit_test(test_quiet_ring),
		cmocka_unit_test(test_long_type),
		cmocka_unit_test(test_order_range),
		cmocka_unit_test(test_duplicate_keys),
		cmocka_unit_test(test_named_files),
		cmocka_unit_test(test_huge_latency),
		cmocka_unit_test(test_pid_zero),
		cmocka_unit_test(test_reverse_chunk),
		cmocka_unit_test(test_huge_munmap),
		cmocka_unit_test(test_dynamic_field_bounds),
		cmocka_unit_test(test_string_without_nul),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_unmeasured_probe),
		cmocka_unit_test(test_damaged_ksyms),
	};

	return cmocka_run_group_tests_name("hostile", tests, NULL, NULL);
}
