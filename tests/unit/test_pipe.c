// SPDX-License-Identifier: GPL-2.0-only
/* pipe.c reads a session in a thread of its own and hands its events over in batches,
 * with copies of what they point to: the report made that way is the report made by
 * reading the session in turn, for every golden recording (file names, call chains and
 * stacks, runs, the BPF path's paired records) and for batches of 1, 7 and 4096 events
 * (an event alone, batches ending anywhere, the default); a consumer that fails stops
 * it at once; a recording cut short ends the same both ways. And a session fed chunk
 * by chunk as stat, top and serve feed it (begun at the first chunk past the header,
 * drained at each round) makes the same report. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "data/file.h"
#include "data/pipe.h"
#include "report/report.h"
#include "data/session.h"

/* r as JSON text (NULL: no memory); r is freed. */
static char *json_text(struct fol_report *r)
{
	cJSON *j = fol_report_json(r, &(struct fol_report_view){ 0 });
	char *s = j ? cJSON_PrintUnformatted(j) : NULL;

	cJSON_Delete(j);
	fol_report_free(r);
	return s;
}

/* The JSON report of the file's first run: read in turn (serial), or through the pipe
 * with batches of batch events. NULL when the report cannot be made. */
static char *report_json(const char *path, int serial, size_t batch)
{
	struct fol_model_opts o = { .order = FOL_ANY, .cls = FOL_ANY };
	struct fol_session *sess;
	struct fol_report r;
	int ret;

	fol_pipe_set_batch(batch);
	if (fol_session_open(&sess, path))
		return NULL;
	ret = fol_report_begin(&r, sess, &o);
	if (!ret && serial)
		ret = fol_report_drain(&r, sess);
	if (!ret)
		ret = fol_report_end(&r, sess);
	fol_session_close(sess);
	fol_pipe_set_batch(4096);
	return ret ? NULL : json_text(&r);
}

static void same_both_ways(const char *path)
{
	const size_t batches[] = { 1, 7, 4096 };
	char *want = report_json(path, 1, 4096);

	assert_non_null(want);
	for (size_t i = 0; i < sizeof(batches) / sizeof(batches[0]); i++) {
		char *got = report_json(path, 0, batches[i]);

		assert_non_null(got);
		if (strcmp(got, want))
			fail_msg("%s: the report through the pipe, %zu events a batch, differs", path,
				 batches[i]);
		free(got);
	}
	free(want);
}

/* The report of a live session fed the file's chunks one by one (fol_report_begin_at,
 * drained at each round), but those of type leave out; *begun_at: the chunk it began
 * at, counted from 1. NULL when it never began. */
static char *fed_json(const char *path, uint32_t leave_out, int *begun_at)
{
	struct fol_model_opts o = { .order = FOL_ANY, .cls = FOL_ANY };
	struct fol_session *sess;
	struct fol_reader *rd;
	struct fol_report r;
	const void *buf;
	uint32_t type;
	size_t len;
	int begun = 0, n = 0, ret = 0;

	if (fol_reader_open(&rd, path))
		return NULL;
	if (fol_session_open_live(&sess)) {
		fol_reader_close(rd);
		return NULL;
	}
	*begun_at = 0;
	while (!ret && fol_reader_next(rd, &type, &buf, &len) > 0) {
		n++;
		if (type == leave_out)
			continue;
		ret = fol_session_feed(sess, type, buf, len);
		if (!ret)
			ret = fol_report_begin_at(&r, &begun, sess, &o, type);
		if (!ret && begun && !*begun_at)
			*begun_at = n;
		if (!ret && begun && type == FOL_CHUNK_ROUND)
			ret = fol_report_drain(&r, sess);
	}
	fol_session_feed_end(sess);
	if (!ret && begun)
		ret = fol_report_end(&r, sess);
	fol_session_close(sess);
	fol_reader_close(rd);
	if (ret && begun)
		fol_report_free(&r);
	return ret || !begun ? NULL : json_text(&r);
}

static void test_fed(void **state)
{
	const char *files[] = { "tests/golden/small.data", "tests/golden/stacks.data",
				"tests/golden/bpf.data", "tests/golden/kernel.data",
				"tests/golden/ksyms.data" };

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *want = report_json(files[i], 1, 4096);
		int at;
		char *got = fed_json(files[i], 0, &at);

		assert_non_null(want);
		if (!got)
			fail_msg("%s: fed chunk by chunk, no report", files[i]);
		/* Past the metadata and an event's format at least: never before chunk 3. */
		assert_true(at > 2);
		if (strcmp(got, want))
			fail_msg("%s: fed chunk by chunk (begun at chunk %d), the report differs", files[i], at);
		free(got);
		free(want);
		/* Without its metadata a session is never ready: no report, whatever follows. */
		got = fed_json(files[i], FOL_CHUNK_META, &at);
		if (got)
			fail_msg("%s: fed without its metadata, a report begun at chunk %d", files[i], at);
	}
}

static void test_golden(void **state)
{
	const char *files[] = { "tests/golden/small.data", "tests/golden/stacks.data",
				"tests/golden/sweep.data", "tests/golden/bpf.data",
				"tests/golden/kernel.data", "tests/golden/ksyms.data" };

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		same_both_ways(files[i]);
}

/* A recording cut in the middle of its records. */
static void test_cut(void **state)
{
	char path[] = "/tmp/foliostat-pipe.XXXXXX";
	FILE *in = fopen("tests/golden/small.data", "rb");
	int fd = mkstemp(path);
	char buf[1 << 16];
	size_t n, total = 0;
	long size;

	(void)state;
	assert_non_null(in);
	assert_true(fd >= 0);
	fseek(in, 0, SEEK_END);
	size = ftell(in);
	rewind(in);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0 && total < (size_t)size / 2) {
		if (total + n > (size_t)size / 2)
			n = (size_t)size / 2 - total;
		assert_int_equal(write(fd, buf, n), (ssize_t)n);
		total += n;
	}
	fclose(in);
	close(fd);
	same_both_ways(path);
	unlink(path);
}

struct counter {
	int seen, fail_at;
};

static int count(void *arg, const struct fol_event *ev)
{
	struct counter *c = arg;

	(void)ev;
	return ++c->seen == c->fail_at ? -EIO : 0;
}

/* The consumer's error comes back at once: no event after it, and no thread left waiting
 * (the test would hang). */
static void test_consumer_fails(void **state)
{
	struct counter c = { 0, 10 };
	struct fol_session *sess;

	(void)state;
	fol_pipe_set_batch(3);
	assert_int_equal(fol_session_open(&sess, "tests/golden/small.data"), 0);
	assert_int_equal(fol_pipe_drain(sess, count, &c), -EIO);
	assert_int_equal(c.seen, 10);
	fol_session_close(sess);
	c = (struct counter){ 0, -1 };
	assert_int_equal(fol_session_open(&sess, "tests/golden/small.data"), 0);
	assert_int_equal(fol_pipe_drain(sess, count, &c), 0);
	assert_true(c.seen > 1000);
	fol_session_close(sess);
	fol_pipe_set_batch(4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_fed),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_consumer_fails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
