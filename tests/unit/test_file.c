// SPDX-License-Identifier: GPL-2.0-only
/* File writer/reader: round trip, truncation anywhere, damaged bytes, foreign files. */
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
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/errors.h"

#include "data/file.h"

#define NCHUNKS 6

static char path[] = "/tmp/foliostat-test-file.XXXXXX";

static size_t payload_len(int i)
{
	return i == 3 ? 0 : (size_t)(i * 1000 + 17);
}

static void fill_payload(int i, char *buf)
{
	for (size_t k = 0; k < payload_len(i); k++)
		buf[k] = (char)(k * 31 + (size_t)i);
}

/* Writes NCHUNKS chunks, returns the file bytes and the end offset of each chunk. */
static char *write_sample(size_t *size, size_t ends[NCHUNKS])
{
	struct fol_writer *w;
	char buf[8192];
	char *data;
	FILE *f;

	assert_int_equal(fol_writer_open(&w, path), 0);
	assert_int_equal(fol_writer_commit(w), 0);
	for (int i = 0; i < NCHUNKS; i++) {
		fill_payload(i, buf);
		assert_int_equal(fol_writer_chunk_buf(w, (uint32_t)(i == NCHUNKS - 1 ? FOL_CHUNK_END
										       : FOL_CHUNK_RECORDS),
						       buf, payload_len(i)),
				 0);
		ends[i] = (size_t)fol_writer_bytes(w);
	}
	assert_int_equal(fol_writer_close(w), 0);
	f = fopen(path, "rb");
	assert_non_null(f);
	data = malloc(1 << 16);
	*size = fread(data, 1, 1 << 16, f);
	fclose(f);
	assert_int_equal(*size, ends[NCHUNKS - 1]);
	return data;
}

static void put_file(const char *data, size_t size)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, size, f), size);
	fclose(f);
}

/* Reads all chunks, checking each payload is one of the written ones, in order. */
static int read_all(int *first_index_seen, struct fol_reader_status *st)
{
	struct fol_reader *r;
	const void *p;
	size_t len;
	uint32_t type;
	int n = 0, ret, next = 0;
	char want[8192];

	ret = fol_reader_open(&r, path);
	if (ret)
		return ret;
	while ((ret = fol_reader_next(r, &type, &p, &len)) == 1) {
		int i = next;

		/* Skipped (damaged) chunks are fine; what comes back must be intact. */
		while (i < NCHUNKS && payload_len(i) != len)
			i++;
		assert_true(i < NCHUNKS);
		fill_payload(i, want);
		assert_memory_equal(p, want, len);
		if (n == 0 && first_index_seen)
			*first_index_seen = i;
		next = i + 1;
		n++;
	}
	assert_int_equal(ret, 0);
	*st = *fol_reader_status(r);
	fol_reader_close(r);
	return n;
}

static void test_round_trip(void **state)
{
	size_t size, ends[NCHUNKS];
	struct fol_reader_status st;
	char *data = write_sample(&size, ends);

	(void)state;
	assert_int_equal(read_all(NULL, &st), NCHUNKS);
	assert_int_equal(st.truncated, 0);
	assert_int_equal(st.complete, 1);
	assert_int_equal(st.corrupt_chunks, 0);
	free(data);
}

static void test_truncated_everywhere(void **state)
{
	size_t size, ends[NCHUNKS];
	char *data = write_sample(&size, ends);

	(void)state;
	for (size_t cut = 0; cut < size; cut++) {
		struct fol_reader_status st;
		int whole = 0, n;

		put_file(data, cut);
		n = read_all(NULL, &st);
		if (cut < 16) {
			assert_int_equal(n, -FOL_E_NOT_RECORDING);
			continue;
		}
		for (int i = 0; i < NCHUNKS; i++)
			whole += ends[i] <= cut;
		assert_int_equal(n, whole);
		assert_int_equal(st.corrupt_chunks, 0);
		assert_int_equal(st.complete, 0);
		/* Cut at a chunk boundary is not "inside a chunk". */
		assert_int_equal(st.truncated, cut != 16 && (whole == 0 || ends[whole - 1] != cut));
	}
	free(data);
}

static void test_flipped_bytes(void **state)
{
	size_t size, ends[NCHUNKS];
	char *data = write_sample(&size, ends);

	(void)state;
	for (size_t pos = 16; pos < size; pos += 7) {
		struct fol_reader_status st;
		int n;

		data[pos] ^= 0x5a;
		put_file(data, size);
		n = read_all(NULL, &st);
		data[pos] ^= 0x5a;
		/* Exactly the damaged chunk is lost (an empty chunk has no payload byte to hit). */
		assert_int_equal(n, NCHUNKS - 1);
		assert_int_equal(st.corrupt_chunks, 1);
		assert_true(st.corrupt_bytes > 0);
	}
	free(data);
}

static void test_foreign_files(void **state)
{
	struct fol_reader *r;
	char buf[64] = "PERFILE2 this is not ours";

	(void)state;
	put_file(buf, sizeof(buf));
	assert_int_equal(fol_reader_open(&r, path), -FOL_E_NOT_RECORDING);
	put_file(buf, 0);
	assert_int_equal(fol_reader_open(&r, path), -FOL_E_NOT_RECORDING);
	memcpy(buf, "FOLIOSTA\x09\0\0\0\0\0\0\0", 16);
	put_file(buf, 16);
	assert_int_equal(fol_reader_open(&r, path), -FOL_E_NEWER_FORMAT);
	assert_int_equal(fol_reader_open(&r, "/nonexistent/foliostat.data"), -ENOENT);
}

static int count_temps(const char *dir)
{
	char cmd[256];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A %s | grep -c '^\\.foliostat-[0-9]*\\.'", dir);
	p = popen(cmd, "r");
	if (p && fscanf(p, "%d", &n) != 1)
		n = -1;
	if (p)
		pclose(p);
	return n;
}

/* /dev/tty is no FIFO: without a controlling terminal its open fails with ENXIO as a FIFO
 * nobody reads does, and was named one; with a terminal it is refused as one. */
static void test_tty(void **state)
{
	struct fol_writer *w = NULL;
	int ret = fol_writer_open(&w, "/dev/tty");

	(void)state;
	if (!ret)
		fol_writer_close(w);
	assert_true(ret == -ENXIO || ret == -ENOTTY || ret == -ENOENT);
}

/* A writer killed before its commit leaves .foliostat-PID.XXXXXX: the next writer in that
 * directory removes it once PID is gone (a live PID's, or a file that is not a recording,
 * stays); and the temporary's name does not grow with the output's (250 bytes, legal, was
 * refused: ".NAME.XXXXXX" passed NAME_MAX). */
static void test_stale_temps(void **state)
{
	char dir[] = "/tmp/foliostat-stale.XXXXXX", dead[128], live[128], foreign[128], out[400];
	struct fol_writer *w;
	pid_t child = fork();
	FILE *f;

	(void)state;
	if (!child)
		_exit(0);
	waitpid(child, NULL, 0);
	assert_non_null(mkdtemp(dir));
	snprintf(dead, sizeof(dead), "%s/.foliostat-%d.AbCdEf", dir, (int)child);
	snprintf(live, sizeof(live), "%s/.foliostat-%d.AbCdEf", dir, (int)getppid());
	snprintf(foreign, sizeof(foreign), "%s/.foliostat-%d.XyZxYz", dir, (int)child);
	fclose(fopen(dead, "w"));
	fclose(fopen(live, "w"));
	f = fopen(foreign, "w");
	fputs("someone's notes", f);
	fclose(f);
	snprintf(out, sizeof(out), "%s/%0250d", dir, 7);
	assert_int_equal(fol_writer_open(&w, out), 0);
	assert_int_equal(fol_writer_commit(w), 0);
	assert_int_equal(fol_writer_close(w), 0);
	assert_int_equal(access(out, F_OK), 0);
	assert_int_equal(access(dead, F_OK), -1);
	assert_int_equal(access(live, F_OK), 0);
	assert_int_equal(access(foreign, F_OK), 0);
	unlink(out);
	unlink(live);
	unlink(foreign);
	rmdir(dir);
}

static void slurp(const char *file, char *buf, size_t len)
{
	FILE *f = fopen(file, "rb");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* The output path: only a recording (or an empty file) is ever renamed or replaced, and
 * only once the new file's header is written; devices and FIFOs are written in place;
 * links to files, directories, block devices and foreign files are refused untouched. */
static void test_output_path(void **state)
{
	char dir[] = "/tmp/foliostat-out.XXXXXX", out[128], old[140], other[140], buf[64];
	struct fol_writer *w;
	struct fol_reader *r;
	struct stat st;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/out.data", dir);
	snprintf(old, sizeof(old), "%s.old", out);
	snprintf(other, sizeof(other), "%s/target", dir);

	/* New file: 0600, and nothing at the path until commit. */
	assert_int_equal(fol_writer_open(&w, out), 0);
	assert_int_equal(access(out, F_OK), -1);
	assert_int_equal(count_temps(dir), 1);
	assert_int_equal(fol_writer_commit(w), 0);
	assert_int_equal(fol_writer_close(w), 0);
	assert_int_equal(stat(out, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(count_temps(dir), 0);

	/* A second recording: the first becomes .old on commit, not before. */
	assert_int_equal(fol_writer_open(&w, out), 0);
	assert_int_equal(access(old, F_OK), -1);
	assert_int_equal(fol_writer_commit(w), 0);
	assert_int_equal(fol_writer_close(w), 0);
	assert_int_equal(access(old, F_OK), 0);
	assert_int_equal(fol_reader_open(&r, out), 0);
	fol_reader_close(r);

	/* Never committed (the workload could not start): everything as it was, no temp. */
	assert_int_equal(rename(old, other), 0);
	assert_int_equal(fol_writer_open(&w, out), 0);
	assert_int_equal(fol_writer_close(w), 0);
	assert_int_equal(access(old, F_OK), -1);
	assert_int_equal(access(out, F_OK), 0);
	assert_int_equal(count_temps(dir), 0);
	unlink(other);

	/* A file that is not a recording, at the path or at .old: refused, untouched. */
	fd = open(old, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0 && write(fd, "keep me", 7) == 7);
	close(fd);
	assert_int_equal(fol_writer_open(&w, out), -EEXIST);
	assert_int_equal(rename(old, out), 0);
	assert_int_equal(fol_writer_open(&w, out), -ENOTEMPTY);
	slurp(out, buf, sizeof(buf));
	assert_string_equal(buf, "keep me");
	unlink(out);

	/* A dangling link is not followed: its target is not created. A link to a file is
	 * refused too. */
	assert_int_equal(symlink(other, out), 0);
	assert_int_equal(fol_writer_open(&w, out), -ELOOP);
	assert_int_equal(access(other, F_OK), -1);
	fd = open(other, O_WRONLY | O_CREAT, 0644);
	close(fd);
	assert_int_equal(fol_writer_open(&w, out), -ELOOP);
	unlink(out);
	unlink(other);

	/* A directory is refused, not renamed. */
	assert_int_equal(mkdir(out, 0755), 0);
	assert_int_equal(fol_writer_open(&w, out), -EISDIR);
	assert_int_equal(stat(out, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	rmdir(out);

	/* A FIFO: refused while nobody reads it (instead of blocking), written in place
	 * when somebody does; never renamed. */
	assert_int_equal(mkfifo(out, 0600), 0);
	assert_int_equal(fol_writer_open(&w, out), -EPIPE);
	fd = open(out, O_RDONLY | O_NONBLOCK);
	assert_true(fd >= 0);
	assert_int_equal(fol_writer_open(&w, out), 0);
	assert_int_equal(fol_writer_commit(w), 0);
	assert_int_equal(fol_writer_close(w), 0);
	assert_int_equal(read(fd, buf, 16), 16);
	assert_memory_equal(buf, "FOLIOSTA", 8);
	close(fd);
	assert_int_equal(lstat(out, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(access(old, F_OK), -1);
	unlink(out);

	/* A character device (the null device, made here when root can): written, kept. */
	if (mknod(out, S_IFCHR | 0666, makedev(1, 3)) == 0) {
		assert_int_equal(fol_writer_open(&w, out), 0);
		assert_int_equal(fol_writer_commit(w), 0);
		assert_int_equal(fol_writer_close(w), 0);
		assert_int_equal(lstat(out, &st), 0);
		assert_true(S_ISCHR(st.st_mode));
		assert_int_equal(access(old, F_OK), -1);
		unlink(out);
	}
	assert_int_equal(rmdir(dir), 0);
}

static void test_reader_refuses(void **state)
{
	char dir[] = "/tmp/foliostat-in.XXXXXX", fifo[64];
	char zero[16] = "FOLIOSTA";
	struct fol_reader *r;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	/* Would block forever in open() without a writer. */
	assert_int_equal(fol_reader_open(&r, fifo), -ESPIPE);
	assert_int_equal(fol_reader_open(&r, dir), -EISDIR);
	unlink(fifo);
	rmdir(dir);
	/* Version 0 was never written: damage, not "a newer foliostat". */
	put_file(zero, 16);
	assert_int_equal(fol_reader_open(&r, path), -FOL_E_DAMAGED_HEADER);
}

static void test_hostile_length(void **state)
{
	/* A header whose CRC matches but claims a huge payload must be refused, not
	 * allocated. */
	size_t size, ends[NCHUNKS];
	struct fol_reader_status st;
	char *data = write_sample(&size, ends);
	uint64_t huge = (uint64_t)FOL_CHUNK_MAX + 1;

	(void)state;
	memcpy(data + 16 + 8, &huge, 8);
	put_file(data, size);
	assert_int_equal(read_all(NULL, &st), NCHUNKS - 1);
	assert_int_equal(st.corrupt_chunks, 1);
	free(data);
}

/* A chunk wanted before the records that precede it (the page cache at a run's end): found
 * ahead without moving the reader; not past the run's END or a damaged header. */
static void test_find_ahead(void **state)
{
	static const uint32_t types[] = { FOL_CHUNK_META, FOL_CHUNK_RECORDS, FOL_CHUNK_RECORDS,
					   FOL_CHUNK_PAGECACHE, FOL_CHUNK_END, FOL_CHUNK_PAGECACHE };
	static const char *const text[] = { "m", "r1", "r2", "pc", "e", "next" };
	struct fol_writer *w;
	struct fol_reader *r;
	const void *buf;
	void *got;
	size_t len;
	uint32_t type;
	FILE *f;

	(void)state;
	assert_int_equal(fol_writer_open(&w, path), 0);
	assert_int_equal(fol_writer_commit(w), 0);
	for (int i = 0; i < 6; i++)
		assert_int_equal(fol_writer_chunk_buf(w, types[i], text[i], strlen(text[i])), 0);
	assert_int_equal(fol_writer_close(w), 0);
	assert_int_equal(fol_reader_open(&r, path), 0);
	assert_int_equal(fol_reader_next(r, &type, &buf, &len), 1);
	assert_int_equal(fol_reader_find_ahead(r, FOL_CHUNK_PAGECACHE, 1ull << FOL_CHUNK_END, &got, &len), 1);
	assert_int_equal(len, 2);
	assert_memory_equal(got, "pc", 2);
	free(got);
	/* The reader is where it was. */
	assert_int_equal(fol_reader_next(r, &type, &buf, &len), 1);
	assert_int_equal(type, FOL_CHUNK_RECORDS);
	assert_memory_equal(buf, "r1", 2);
	/* A type absent before the stop: not found, the one after END left alone. */
	assert_int_equal(fol_reader_find_ahead(r, FOL_CHUNK_MAPS, 1ull << FOL_CHUNK_END, &got, &len), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(fol_reader_next(r, &type, &buf, &len), 1);
	assert_int_equal(type, FOL_CHUNK_END);
	assert_int_equal(fol_reader_find_ahead(r, FOL_CHUNK_PAGECACHE, 1ull << FOL_CHUNK_END, &got, &len), 1);
	assert_memory_equal(got, "next", 4);
	free(got);
	fol_reader_close(r);
	/* A damaged header on the way: the look stops there. */
	f = fopen(path, "r+b");
	assert_non_null(f);
	fseek(f, 16 + 24 + 1 + 24 + 2 + 4, SEEK_SET); /* into the second RECORDS header */
	fputc('X', f);
	fclose(f);
	assert_int_equal(fol_reader_open(&r, path), 0);
	assert_int_equal(fol_reader_next(r, &type, &buf, &len), 1);
	assert_int_equal(fol_reader_find_ahead(r, FOL_CHUNK_PAGECACHE, 1ull << FOL_CHUNK_END, &got, &len), 0);
	fol_reader_close(r);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_truncated_everywhere),
		cmocka_unit_test(test_flipped_bytes),
		cmocka_unit_test(test_foreign_files),
		cmocka_unit_test(test_output_path),
		cmocka_unit_test(test_stale_temps),
		cmocka_unit_test(test_tty),
		cmocka_unit_test(test_reader_refuses),
		cmocka_unit_test(test_hostile_length),
		cmocka_unit_test(test_find_ahead),
	};
	int fd = mkstemp(path), ret;
	char old[sizeof(path) + 4];

	if (fd < 0)
		return 1;
	close(fd);
	ret = cmocka_run_group_tests_name("file", tests, NULL, NULL);
	unlink(path);
	/* The tests write recordings over path: the writer kept the one before as .old. */
	snprintf(old, sizeof(old), "%s.old", path);
	unlink(old);
	return ret;
}
