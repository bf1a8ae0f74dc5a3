// SPDX-License-Identifier: GPL-2.0-only
/* The user's cache: where it is (XDG_CACHE_HOME, else ~/.cache; none with
 * FOLIOSTAT_NO_CACHE or without a home), files made whole or not at all, and only the
 * newest of a kind kept, a file used counting as new. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/cache.h"

static char dir[] = "/tmp/foliostat-test-cache.XXXXXX";

static void test_path(void **state)
{
	char out[512], want[512];

	(void)state;
	setenv("XDG_CACHE_HOME", dir, 1);
	assert_int_equal(fol_cache_path("ksyms", "x", out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "%s/foliostat/ksyms/x", dir);
	assert_string_equal(out, want);
	setenv("XDG_CACHE_HOME", "relative", 1); /* not absolute: the spec says ignore it */
	setenv("HOME", "/home/someone", 1);
	assert_int_equal(fol_cache_path("debug", "y", out, sizeof(out)), 0);
	assert_string_equal(out, "/home/someone/.cache/foliostat/debug/y");
	unsetenv("HOME");
	assert_int_equal(fol_cache_path("debug", "y", out, sizeof(out)), -1);
	setenv("XDG_CACHE_HOME", dir, 1);
	setenv("FOLIOSTAT_NO_CACHE", "1", 1);
	assert_int_equal(fol_cache_path("debug", "y", out, sizeof(out)), -1);
	unsetenv("FOLIOSTAT_NO_CACHE");
	assert_int_equal(fol_cache_path("debug", "y", out, 8), -1); /* would not fit */
}

static int exists(const char *name)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/foliostat/t/%s", dir, name);
	return access(p, F_OK) == 0;
}

/* Six files of one kind, aged a second apart, one of them used again, and a file another
 * report is writing: the four newest stay, the one used among them, the other's too. */
static void test_prune(void **state)
{
	char path[512], tmp[600];
	const char *names[] = { "a", "b", "c", "d", "e", "f" };

	(void)state;
	setenv("XDG_CACHE_HOME", dir, 1);
	for (int i = 0; i < 6; i++) {
		struct timespec t[2] = { { 1000000 + i, 0 }, { 1000000 + i, 0 } };
		int fd;

		assert_int_equal(fol_cache_path("t", names[i], path, sizeof(path)), 0);
		fd = fol_cache_begin(path, tmp, sizeof(tmp));
		assert_true(fd >= 0);
		assert_int_equal(write(fd, "x", 1), 1);
		assert_int_equal(fol_cache_end(fd, tmp, path, 0), 0);
		assert_int_equal(utimensat(AT_FDCWD, path, t, 0), 0);
	}
	fol_cache_path("t", "a", path, sizeof(path));
	fol_cache_used(path);
	snprintf(tmp, sizeof(tmp), "%s/foliostat/t/z.123.tmp", dir);
	close(open(tmp, O_WRONLY | O_CREAT, 0644));
	fol_cache_prune("t", 4, UINT64_MAX);
	assert_true(exists("a"));
	assert_false(exists("b"));
	assert_false(exists("c"));
	assert_true(exists("d") && exists("e") && exists("f"));
	assert_true(exists("z.123.tmp"));
	/* And the newest that fit in a total: a, f, e of one byte each in 3 bytes. */
	fol_cache_prune("t", 4, 3);
	assert_true(exists("a") && exists("f") && exists("e"));
	assert_false(exists("d"));
}

/* A file whose writing failed is not left behind, nor put in place. */
static void test_failed(void **state)
{
	char path[512], tmp[600];
	int fd;

	(void)state;
	setenv("XDG_CACHE_HOME", dir, 1);
	fol_cache_path("t", "broken", path, sizeof(path));
	fd = fol_cache_begin(path, tmp, sizeof(tmp));
	assert_true(fd >= 0);
	assert_int_equal(fol_cache_end(fd, tmp, path, -EIO), -EIO);
	assert_false(exists("broken"));
	assert_int_equal(access(tmp, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_prune),
		cmocka_unit_test(test_failed),
	};
	char cmd[128];
	int ret;

	if (!mkdtemp(dir))
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? 1 : ret;
}
