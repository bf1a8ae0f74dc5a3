// SPDX-License-Identifier: GPL-2.0-only
/* The page cache at the end of a recording: a file's resident folios read by mapping it
 * (needs root for page frames: skipped without), a replaced file left unread; and the
 * report's table over hostile snapshots. */
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
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "sys/pagecache.h"

static void id_of(const char *path, struct fol_file_id *id)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	*id = (struct fol_file_id){ major(st.st_dev), minor(st.st_dev), st.st_ino };
}

/* A file of 64K written and so cached, mapped over its first 32K and its last page (two
 * ranges): its runs cover those pages, each as the folio it is in; a file replaced at its
 * path since (another inode) is counted unreadable, not read. */
static void test_snapshot(void **state)
{
	char path[] = "/var/tmp/foliostat-test-pc.XXXXXX", other[64];
	struct fol_pc_files *f = fol_pc_files_new();
	struct fol_file_id id, gone;
	char buf[65536];
	const cJSON *file, *run, *err;
	cJSON *j;
	uint64_t pages = 0;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	memset(buf, 7, sizeof(buf));
	assert_int_equal(write(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	close(fd);
	id_of(path, &id);
	snprintf(other, sizeof(other), "%s.b", path);
	fd = open(other, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	id_of(other, &gone);
	gone.ino++; /* not the file there now */
	assert_int_equal(fol_pc_files_note(f, &id, path, 0, 8), 0);
	assert_int_equal(fol_pc_files_note(f, &id, path, 15, 1), 0);
	assert_int_equal(fol_pc_files_note(f, &gone, other, 0, 1), 0);
	j = fol_pc_snapshot(f, "", time(NULL), NULL);
	assert_non_null(j);
	err = cJSON_GetObjectItemCaseSensitive(j, "error");
	if (cJSON_IsString(err)) {
		cJSON_Delete(j);
		fol_pc_files_free(f);
		unlink(path);
		unlink(other);
		skip(); /* not root: no page frames */
	}
	assert_int_equal(cJSON_GetObjectItemCaseSensitive(j, "unreadable_files")->valuedouble, 1);
	file = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "files"), 0);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(file, "path")->valuestring, path);
	cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(file, "runs"))
	{
		int order = cJSON_GetObjectItemCaseSensitive(run, "order")->valueint;
		uint64_t index = (uint64_t)cJSON_GetObjectItemCaseSensitive(run, "index")->valuedouble;

		assert_int_equal(index % (1u << order), 0);
		pages += (uint64_t)cJSON_GetObjectItemCaseSensitive(run, "n")->valuedouble << order;
	}
	/* Pages 0-7 and 15, in whole folios: 9 pages at least, the file's 16 at most. */
	assert_true(pages >= 9 && pages <= 16);
	cJSON_Delete(j);
	fol_pc_files_free(f);
	unlink(path);
	unlink(other);
}

/* The report's side: runs that overlap, are not aligned to their order, or reach past
 * 2^53 pages are left out; the first naming of a file stands. */
static void test_table(void **state)
{
	cJSON *j = cJSON_Parse(
		"{\"files\":[{\"maj\":1,\"min\":2,\"ino\":3,\"runs\":["
		"{\"index\":0,\"order\":4,\"n\":2},{\"index\":8,\"order\":0,\"n\":1},"
		"{\"index\":33,\"order\":1,\"n\":1},{\"index\":64,\"order\":12,\"n\":4.5e15},"
		"{\"index\":40,\"order\":3,\"n\":1}]},"
		"{\"maj\":1,\"min\":2,\"ino\":3,\"runs\":[{\"index\":100,\"order\":0,\"n\":1}]}]}");
	struct fol_pagecache *pc = fol_pagecache_new(j);
	struct fol_file_id id = { 1, 2, 3 }, other = { 1, 2, 4 };
	enum fol_pc_source src;

	(void)state;
	assert_non_null(pc);
	cJSON_Delete(j);
	assert_int_equal(fol_pagecache_order(pc, &id, 31, &src), 4);
	assert_int_equal(src, FOL_PC_AT_END);
	assert_int_equal(fol_pagecache_order(pc, &id, 8, &src), 4); /* the overlapping run: out */
	assert_int_equal(fol_pagecache_order(pc, &id, 33, &src), -1); /* misaligned: out */
	assert_int_equal(src, FOL_PC_EVICTED);
	assert_int_equal(fol_pagecache_order(pc, &id, 64, &src), -1); /* past 2^53: out */
	assert_int_equal(fol_pagecache_order(pc, &id, 47, &src), 3);
	assert_int_equal(fol_pagecache_order(pc, &id, 100, &src), -1); /* the second naming */
	assert_int_equal(fol_pagecache_order(pc, &other, 0, &src), -1);
	assert_int_equal(src, FOL_PC_UNREAD);
	/* Added while mapped: ahead of the end's. */
	assert_int_equal(fol_pagecache_mapped(pc, &id), 0);
	assert_int_equal(fol_pagecache_add(pc, &id, 33, 1), 0);
	assert_int_equal(fol_pagecache_order(pc, &id, 33, &src), 1);
	assert_int_equal(src, FOL_PC_ADDED);
	fol_pagecache_free(pc);
	pc = fol_pagecache_new(NULL);
	assert_int_equal(fol_pagecache_order(pc, &id, 0, &src), -1);
	assert_int_equal(src, FOL_PC_NO_SNAPSHOT);
	fol_pagecache_free(pc);
}

static int odd_mapped(const struct fol_file_id *id, void *ctx)
{
	(*(int *)ctx)++;
	return (int)(id->ino & 1);
}

/* Live: the files no mapping holds go with what was added of them; the others keep
 * theirs, found by id as before (the index rebuilt); a file gone is followed again
 * only once mapped again. */
static void test_sweep(void **state)
{
	struct fol_pagecache *pc = fol_pagecache_new(NULL);
	enum fol_pc_source src;
	int asked = 0;

	(void)state;
	for (uint64_t ino = 1; ino <= 100; ino++) {
		struct fol_file_id id = { 8, 1, ino };

		assert_int_equal(fol_pagecache_mapped(pc, &id), 0);
		assert_int_equal(fol_pagecache_add(pc, &id, 16, 4), 0);
	}
	assert_int_equal(fol_pagecache_sweep(pc, odd_mapped, &asked), 0);
	assert_int_equal(asked, 100);
	for (uint64_t ino = 1; ino <= 100; ino++) {
		struct fol_file_id id = { 8, 1, ino };

		assert_int_equal(fol_pagecache_order(pc, &id, 20, &src), ino & 1 ? 4 : -1);
		assert_int_equal(fol_pagecache_add(pc, &id, 32, 2), 0);
		assert_int_equal(fol_pagecache_order(pc, &id, 33, &src), ino & 1 ? 2 : -1);
	}
	asked = 0;
	assert_int_equal(fol_pagecache_sweep(pc, odd_mapped, &asked), 0);
	assert_int_equal(asked, 50);
	assert_int_equal(fol_pagecache_mapped(pc, &(struct fol_file_id){ 8, 1, 2 }), 0);
	assert_int_equal(fol_pagecache_add(pc, &(struct fol_file_id){ 8, 1, 2 }, 0, 3), 0);
	assert_int_equal(fol_pagecache_order(pc, &(struct fol_file_id){ 8, 1, 2 }, 7, &src), 3);
	fol_pagecache_free(pc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snapshot),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_sweep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
