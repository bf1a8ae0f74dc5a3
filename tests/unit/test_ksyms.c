// SPDX-License-Identifier: GPL-2.0-only
/* The kernel symbols a recording carries: packed from a kallsyms file, looked up after a
 * round trip; the table kept in the user's cache and read back from there, unless it is
 * damaged; damaged chunks and files name nothing; the build-id note is found among
 * others. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "symbols/ksyms.h"

static char path[] = "/tmp/foliostat-test-ksyms.XXXXXX";
static char cache[] = "/tmp/foliostat-test-cache.XXXXXX";

static void put(const void *buf, size_t len)
{
	FILE *f = fopen(path, "we");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
}

/* Unsorted, as kallsyms is; data and zeroed (kptr_restrict) lines are not text symbols;
 * a module's symbol keeps its name without the module. */
static const char kallsyms[] =
	"ffffffff81002000 T second\n"
	"ffffffff81000000 t first\n"
	"ffffffff81001000 D not_text\n"
	"0000000000000000 T zeroed\n"
	"ffffffffc0001000 t in_module\t[mod]\n"
	"garbage line\n"
	"ffffffff81003000 T last";

static void lookups(struct fol_ksyms *k)
{
	char sym[64];

	assert_int_equal(fol_ksyms_count(k), 4);
	assert_int_equal(fol_ksyms_lookup(k, 0xffffffff81000010ull, sym, sizeof(sym)), 0);
	assert_string_equal(sym, "first+0x10");
	/* The data symbol between them is not a function boundary. */
	assert_int_equal(fol_ksyms_lookup(k, 0xffffffff81001800ull, sym, sizeof(sym)), 0);
	assert_string_equal(sym, "first+0x1800");
	assert_int_equal(fol_ksyms_lookup(k, 0xffffffff81002000ull, sym, sizeof(sym)), 0);
	assert_string_equal(sym, "second+0x0");
	assert_int_equal(fol_ksyms_lookup(k, 0xffffffff81003004ull, sym, sizeof(sym)), 0);
	assert_string_equal(sym, "last+0x4");
	assert_int_equal(fol_ksyms_lookup(k, 0xffffffffc0001001ull, sym, sizeof(sym)), 0);
	assert_string_equal(sym, "in_module+0x1");
	assert_int_equal(fol_ksyms_lookup(k, 0xffffffff80000000ull, sym, sizeof(sym)), -ENOENT);
}

static void test_round_trip(void **state)
{
	struct fol_ksyms *k, *f;
	void *buf;
	size_t len;

	(void)state;
	put(kallsyms, strlen(kallsyms));
	assert_int_equal(fol_ksyms_pack(path, &buf, &len), 0);
	k = fol_ksyms_from_chunk(buf, len);
	free(buf);
	lookups(k);
	/* Shared: the table stays while a reference does. */
	assert_ptr_equal(fol_ksyms_get(k), k);
	fol_ksyms_put(k);
	lookups(k);
	fol_ksyms_put(k);
	f = fol_ksyms_from_file(path);
	lookups(f);
	fol_ksyms_put(f);
}

static void test_damaged(void **state)
{
	unsigned char *buf;
	size_t len;
	struct fol_ksyms *k;
	char sym[64];
	uint64_t big = (uint64_t)FOL_KSYMS_TEXT_MAX + 1;

	(void)state;
	put(kallsyms, strlen(kallsyms));
	assert_int_equal(fol_ksyms_pack(path, (void **)&buf, &len), 0);
	for (int c = 0; c < 5; c++) {
		unsigned char *copy = malloc(len);
		size_t n = len;

		memcpy(copy, buf, len);
		if (c == 0)
			copy[0] ^= 1; /* magic */
		else if (c == 1)
			memcpy(copy + 8, &big, 8); /* text length past the bound */
		else if (c == 2)
			copy[8]++; /* inflates to another length */
		else if (c == 3)
			n = len - 3; /* cut */
		else
			n = 10; /* shorter than its header */
		k = fol_ksyms_from_chunk(copy, n);
		free(copy);
		assert_int_equal(fol_ksyms_lookup(k, 0xffffffff81000010ull, sym, sizeof(sym)), -ENOENT);
		fol_ksyms_put(k);
	}
	free(buf);
	k = fol_ksyms_from_file("/nonexistent/kallsyms");
	assert_int_equal(fol_ksyms_count(k), 0);
	fol_ksyms_put(k);
	/* A FIFO in its place: refused where it is opened, not read (which would wait for a
	 * writer for good). */
	{
		char fifo[64];

		snprintf(fifo, sizeof(fifo), "%s.fifo", path);
		unlink(fifo);
		assert_int_equal(mkfifo(fifo, 0600), 0);
		k = fol_ksyms_from_file(fifo);
		assert_int_equal(fol_ksyms_count(k), 0);
		fol_ksyms_put(k);
		unlink(fifo);
	}
	/* Nothing to pack: no text symbol (all zeroed, as kptr_restrict shows them). */
	put("0000000000000000 T zeroed\n", 26);
	assert_int_equal(fol_ksyms_pack(path, (void **)&buf, &len), -ENOENT);
	assert_int_equal(fol_ksyms_lookup(NULL, 1, sym, sizeof(sym)), -ENOENT);
}

/* A chunk that inflates past FOL_KSYMS_RATIO times its size is refused: 200,000 lines of
 * one symbol deflate ~400 times (580 KB of one cost 356 MB and a 154 MB kept table). */
static void test_bomb(void **state)
{
	static const char line[] = "ffffffff81000000 t a\n";
	size_t n = 200000, len;
	char *text = malloc(n * (sizeof(line) - 1));
	struct fol_ksyms *k;
	void *buf;

	(void)state;
	assert_non_null(text);
	for (size_t i = 0; i < n; i++)
		memcpy(text + i * (sizeof(line) - 1), line, sizeof(line) - 1);
	put(text, n * (sizeof(line) - 1));
	free(text);
	assert_int_equal(fol_ksyms_pack(path, &buf, &len), 0);
	assert_true(len * FOL_KSYMS_RATIO < n * (sizeof(line) - 1));
	k = fol_ksyms_from_chunk(buf, len);
	free(buf);
	assert_int_equal(fol_ksyms_count(k), 0);
	fol_ksyms_put(k);
}

static void note(unsigned char *p, size_t *off, uint32_t type, const char *name, const void *desc,
		 uint32_t dsz)
{
	uint32_t nsz = (uint32_t)strlen(name) + 1;

	memcpy(p + *off, &nsz, 4);
	memcpy(p + *off + 4, &dsz, 4);
	memcpy(p + *off + 8, &type, 4);
	*off += 12;
	memcpy(p + *off, name, nsz);
	*off += (nsz + 3) & ~3u;
	memcpy(p + *off, desc, dsz);
	*off += (dsz + 3) & ~3u;
}

static void test_build_id(void **state)
{
	unsigned char notes[256] = { 0 }, id[20];
	char hex[41], small[8];
	size_t off = 0;

	(void)state;
	for (int i = 0; i < 20; i++)
		id[i] = (unsigned char)(0xa0 + i);
	note(notes, &off, 1, "Linux", "6.18", 5); /* another note first */
	note(notes, &off, 3, "GNU", id, sizeof(id));
	put(notes, off);
	assert_int_equal(fol_kernel_build_id(path, hex, sizeof(hex)), 20);
	assert_string_equal(hex, "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3");
	assert_int_equal(fol_kernel_build_id(path, small, sizeof(small)), -ENOENT);
	/* A note whose length runs past the end. */
	put(notes, off - 4);
	assert_int_equal(fol_kernel_build_id(path, hex, sizeof(hex)), -ENOENT);
	assert_int_equal(fol_kernel_build_id("/nonexistent/notes", hex, sizeof(hex)), -ENOENT);
}

/* The one table kept in this test's cache: its path. */
static void kept_file(char *out, size_t len)
{
	char cmd[512];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls %s/foliostat/ksyms/*", cache);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(out, (int)len, p));
	out[strcspn(out, "\n")] = '\0';
	pclose(p);
}

/* The second report of a chunk reads the table kept by the first: a name changed in the
 * kept file is the name looked up. A kept file cut short is not read: the chunk is parsed
 * again, and the file made whole. */
static void test_kept(void **state)
{
	struct fol_ksyms *k;
	char kept[512], sym[64], buf[1 << 16];
	void *chunk;
	size_t len, n;
	long whole;
	FILE *f;
	char *at;

	(void)state;
	put(kallsyms, strlen(kallsyms));
	assert_int_equal(fol_ksyms_pack(path, &chunk, &len), 0);
	k = fol_ksyms_from_chunk(chunk, len);
	lookups(k);
	fol_ksyms_put(k);
	kept_file(kept, sizeof(kept));
	f = fopen(kept, "r+b");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf), f);
	whole = (long)n;
	at = memmem(buf, n, "second", 7);
	assert_non_null(at);
	memcpy(at, "SECOND", 6);
	rewind(f);
	assert_int_equal(fwrite(buf, 1, n, f), n);
	fclose(f);
	k = fol_ksyms_from_chunk(chunk, len);
	assert_int_equal(fol_ksyms_lookup(k, 0xffffffff81002000ull, sym, sizeof(sym)), 0);
	assert_string_equal(sym, "SECOND+0x0");
	fol_ksyms_put(k);
	assert_int_equal(truncate(kept, whole - 1), 0);
	k = fol_ksyms_from_chunk(chunk, len);
	lookups(k);
	fol_ksyms_put(k);
	f = fopen(kept, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	assert_int_equal(ftell(f), whole);
	fclose(f);
	free(chunk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_kept),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_bomb),
		cmocka_unit_test(test_build_id),
	};
	int fd = mkstemp(path), ret;
	char cmd[128];

	if (fd < 0 || !mkdtemp(cache))
		return 1;
	close(fd);
	setenv("XDG_CACHE_HOME", cache, 1);
	ret = cmocka_run_group_tests_name("ksyms", tests, NULL, NULL);
	unlink(path);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", cache);
	return system(cmd) ? 1 : ret;
}
