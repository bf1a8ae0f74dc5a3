// SPDX-License-Identifier: GPL-2.0-only
/* foliostat archive: a recorded file of the right build-id packs and comes back byte for
 * byte; one of another build-id is not packed; a hostile archive's names and sizes write
 * nothing outside the directory, and a recording is not an archive. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>
#include <libdeflate.h>

#include "data/archive.h"
#include "util/errors.h"
#include "data/file.h"
#include "symbols/symbols.h"

static char dir[] = "/tmp/foliostat-test-archive.XXXXXX";
static char rec[PATH_MAX], arc[PATH_MAX], out[PATH_MAX], self[PATH_MAX];

static int setup(void **state)
{
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	(void)state;
	if (!mkdtemp(dir) || n <= 0)
		return -1;
	self[n] = '\0';
	snprintf(rec, sizeof(rec), "%s/r.data", dir);
	snprintf(arc, sizeof(arc), "%s/r.archive", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return fol_archive_remove(dir);
}

/* A recording of one END chunk naming path with the build-id hex. */
static void recording(const char *path, const char *hex)
{
	struct fol_writer *w;
	cJSON *end = cJSON_CreateObject(), *b = cJSON_AddObjectToObject(end, "build_ids");

	cJSON_AddStringToObject(b, path, hex);
	unlink(rec);
	assert_int_equal(fol_writer_open(&w, rec), 0);
	assert_int_equal(fol_writer_chunk_json(w, FOL_CHUNK_END, end), 0);
	assert_int_equal(fol_writer_commit(w), 0);
	assert_int_equal(fol_writer_close(w), 0);
	cJSON_Delete(end);
}

static void self_hex(char *hex)
{
	uint8_t id[64];
	int n = fol_symbols_file_build_id(self, id, sizeof(id));

	assert_true(n > 0);
	for (int i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
}

static int same_bytes(const char *a, const char *b)
{
	FILE *f = fopen(a, "re"), *g = fopen(b, "re");
	int x, y, same = f && g;

	while (same && ((x = getc(f)) != EOF) | ((y = getc(g)) != EOF))
		same = x == y;
	if (f)
		fclose(f);
	if (g)
		fclose(g);
	return same;
}

static void test_round_trip(void **state)
{
	struct fol_archive_stats st;
	struct fol_archive_plan *p;
	const char *hex, *file, *debug;
	char h[129], back[PATH_MAX * 2];

	(void)state;
	self_hex(h);
	recording(self, h);
	assert_int_equal(fol_archive_plan(rec, &p), 0);
	assert_int_equal(fol_archive_plan_count(p), 1);
	assert_string_equal(fol_archive_plan_file(p, 0, &hex, &file, &debug), self);
	assert_string_equal(hex, h);
	assert_string_equal(file, self);
	assert_int_equal(fol_archive_pack(p, arc, &st), 0);
	fol_archive_plan_free(p);
	assert_true(st.files >= 1);
	mkdir(out, 0700);
	assert_int_equal(fol_archive_extract(arc, out, 0, &st), 0);
	assert_int_equal(st.refused, 0);
	snprintf(back, sizeof(back), "%s%s", out, self);
	assert_true(same_bytes(self, back));
	assert_int_equal(fol_archive_remove(out), 0);
	assert_int_equal(access(out, F_OK), -1);
}

static void test_other_build_id(void **state)
{
	struct fol_archive_stats st;
	struct fol_archive_plan *p;
	const char *hex, *file, *debug;

	(void)state;
	recording(self, "00112233445566778899aabbccddeeff00112233");
	assert_int_equal(fol_archive_plan(rec, &p), 0);
	fol_archive_plan_file(p, 0, &hex, &file, &debug);
	assert_null(file);
	assert_null(debug);
	unlink(arc);
	assert_int_equal(fol_archive_pack(p, arc, &st), -ENODATA);
	assert_int_equal(access(arc, F_OK), -1);
	fol_archive_plan_free(p);
	recording("relative/path", "0011");
	assert_int_equal(fol_archive_plan(rec, &p), -ENODATA);
}

/* Build-ids that are not the recorder's hex are passed over (one formatted into a lookup
 * path led out of /usr/lib/debug); a (path, build-id) named in every run's END chunk is
 * planned once. */
static void test_plan_hostile(void **state)
{
	struct fol_archive_plan *p;
	struct fol_writer *w;
	const char *hex, *file, *debug;
	char good[129];

	(void)state;
	self_hex(good);
	unlink(rec);
	assert_int_equal(fol_writer_open(&w, rec), 0);
	for (int run = 0; run < 3; run++) {
		cJSON *end = cJSON_CreateObject(), *b = cJSON_AddObjectToObject(end, "build_ids");

		cJSON_AddStringToObject(b, self, good);
		cJSON_AddStringToObject(b, "/bin/a", "../../../../../etc/shadow");
		cJSON_AddStringToObject(b, "/bin/b", "ABCD");
		cJSON_AddStringToObject(b, "/bin/c", "abc");
		assert_int_equal(fol_writer_chunk_json(w, FOL_CHUNK_END, end), 0);
		cJSON_Delete(end);
	}
	assert_int_equal(fol_writer_commit(w), 0);
	assert_int_equal(fol_writer_close(w), 0);
	assert_int_equal(fol_archive_plan(rec, &p), 0);
	assert_int_equal(fol_archive_plan_count(p), 1);
	assert_int_equal(fol_archive_plan_bad(p), 9);
	assert_string_equal(fol_archive_plan_file(p, 0, &hex, &file, &debug), self);
	assert_string_equal(hex, good);
	fol_archive_plan_free(p);
}

/* A piece as the writer lays it out, with any name and sizes: data deflated, len the
 * length it claims. */
static void piece(struct fol_writer *w, const char *name, uint64_t size, uint64_t off,
		  const char *data, uint32_t len, int bad_zlen)
{
	size_t dlen = strlen(data);

	struct {
		char magic[4];
		uint32_t name_len;
		uint64_t size, offset;
		uint32_t len, zlen;
	} h = { "FAR1", (uint32_t)strlen(name), size, off, len, 0 };
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(6);
	char buf[8192];
	size_t z;

	memcpy(buf + sizeof(h), name, h.name_len);
	z = libdeflate_deflate_compress(c, data, dlen, buf + sizeof(h) + h.name_len,
					sizeof(buf) - sizeof(h) - h.name_len);
	h.zlen = (uint32_t)z + (uint32_t)bad_zlen;
	memcpy(buf, &h, sizeof(h));
	assert_int_equal(fol_writer_chunk_buf(w, FOL_CHUNK_ARCHIVE, buf, sizeof(h) + h.name_len + z), 0);
	libdeflate_free_compressor(c);
}

static void test_hostile(void **state)
{
	static const char *const names[] = { "../escape", "/a/../../escape", "relative", "/a//b",
					     "/./b", "/a/", "/", "/a/.." };
	struct fol_archive_stats st;
	struct fol_writer *w;
	char link[PATH_MAX + 8], esc[PATH_MAX + 16];

	(void)state;
	unlink(arc);
	assert_int_equal(fol_writer_open(&w, arc), 0);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		piece(w, names[i], 4, 0, "evil", 4, 0);
	piece(w, "/big", FOL_ARCHIVE_FILE_MAX + 1, 0, "evil", 4, 0);
	piece(w, "/past", 4, 2, "evil", 4, 0);
	piece(w, "/short", 8, 0, "evil", 8, 0);		/* says 8 bytes, inflates to 4 */
	piece(w, "/lied", 4, 0, "evil", 4, 1);		/* its zlen is not its length */
	piece(w, "/l/through", 4, 0, "evil", 4, 0);	/* l is a link made below */
	piece(w, "/ok/file", 4, 0, "good", 4, 0);
	{
		/* A deep name: 2,046 directories "a", past PATH_MAX under the directory. */
		char deep[4094];

		for (size_t i = 0; i + 2 < sizeof(deep); i += 2)
			memcpy(deep + i, "/a", 2);
		deep[sizeof(deep) - 2] = 'z';
		deep[sizeof(deep) - 1] = 0;
		piece(w, deep, 4, 0, "deep", 4, 0);
		/* 65 levels, 130 characters: too deep, however short. */
		for (size_t i = 0; i < 65; i++)
			memcpy(deep + 2 * i, "/b", 2);
		deep[130] = 0;
		piece(w, deep, 4, 0, "deep", 4, 0);
	}
	assert_int_equal(fol_writer_commit(w), 0);
	assert_int_equal(fol_writer_close(w), 0);
	mkdir(out, 0700);
	snprintf(link, sizeof(link), "%s/l", out);
	assert_int_equal(symlink(dir, link), 0);
	assert_int_equal(fol_archive_extract(arc, out, 0, &st), 0);
	assert_int_equal(st.files, 1);
	assert_int_equal(st.refused, 15);
	snprintf(esc, sizeof(esc), "%s/a", out);
	assert_int_equal(access(esc, F_OK), -1); /* no directory of the deep names made */
	snprintf(esc, sizeof(esc), "%s/b", out);
	assert_int_equal(access(esc, F_OK), -1);
	snprintf(esc, sizeof(esc), "%s/escape", dir);
	assert_int_equal(access(esc, F_OK), -1);
	snprintf(esc, sizeof(esc), "%s/through", dir);
	assert_int_equal(access(esc, F_OK), -1);
	snprintf(esc, sizeof(esc), "%s/ok/file", out);
	assert_int_equal(access(esc, F_OK), 0);
	assert_int_equal(fol_archive_remove(out), 0);
	/* The link itself went, not what it pointed at. */
	assert_int_equal(access(dir, F_OK), 0);
}

/* A bomb: 3 MiB of zeros deflates to a few KB. Bounded at 1 MiB, nothing past the bound
 * is written and the caller is told (-EFBIG); its own 3 MiB bound takes it whole. */
static void test_bomb(void **state)
{
	static char zeros[1 << 20];
	struct fol_archive_stats st;
	struct fol_writer *w;

	(void)state;
	unlink(arc);
	assert_int_equal(fol_writer_open(&w, arc), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(fol_archive_put(w, "/zeros", 3 << 20, (uint64_t)i << 20, zeros, sizeof(zeros)), 0);
	assert_int_equal(fol_writer_commit(w), 0);
	assert_int_equal(fol_writer_close(w), 0);
	mkdir(out, 0700);
	assert_int_equal(fol_archive_extract(arc, out, 1 << 20, &st), -EFBIG);
	assert_true(st.bytes <= 1 << 20);
	assert_true(st.limit == 1 << 20);
	assert_int_equal(fol_archive_remove(out), 0);
	mkdir(out, 0700);
	assert_int_equal(fol_archive_extract(arc, out, 3 << 20, &st), 0);
	assert_true(st.bytes == 3 << 20);
	assert_int_equal(fol_archive_remove(out), 0);
	/* The default: 64 times the archive's size and 64 MiB, within the free space. */
	mkdir(out, 0700);
	assert_int_equal(fol_archive_extract(arc, out, 0, &st), 0);
	assert_true(st.limit >= 3 << 20 && st.limit <= 64 * 1024 * 1024 + 64ull * (1 << 20));
	assert_int_equal(fol_archive_remove(out), 0);
}

static void test_not_archive(void **state)
{
	struct fol_archive_stats st;

	(void)state;
	recording(self, "00");
	mkdir(out, 0700);
	assert_int_equal(fol_archive_extract(rec, out, 0, &st), -FOL_E_NOT_ARCHIVE);
	assert_int_equal(fol_archive_extract("/nonexistent/archive", out, 0, &st), -ENOENT);
	fol_archive_remove(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_other_build_id),
		cmocka_unit_test(test_plan_hostile),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_bomb),
		cmocka_unit_test(test_not_archive),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
