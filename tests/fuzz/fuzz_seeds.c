// SPDX-License-Identifier: GPL-2.0-only
/* Writes the seed corpora of the fuzz targets from a recording: fuzz_seeds RECORDING DIR
 * makes DIR/events/N (selector byte + an EVENT chunk's JSON), DIR/records/N (the
 * records of the whole recording, a marker between chunks, and each chunk alone), and
 * DIR/chunks/: the recording, and a recording of three runs made of it (RUN and BARE
 * chunks, each run a few of its records chunks), so that the runs are fuzzed too; and
 * DIR/archive/: a small archive (foliostat archive). */
#include <errno.h>
#include <sys/stat.h>

#include "data/archive.h"
#include "harness.h"

static void put(const char *dir, const char *sub, int i, const void *a, size_t an,
		const void *b, size_t bn)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/seed-%d", dir, sub, i);
	f = fopen(path, "wb");
	if (!f) {
		perror(path);
		exit(1);
	}
	fwrite(a, 1, an, f);
	if (bn)
		fwrite(b, 1, bn, f);
	fclose(f);
}

/* A chunk as the chunks target parses it: no CRCs needed. */
static size_t put_chunk(unsigned char *out, uint32_t type, const void *p, size_t len)
{
	uint32_t magic;
	uint64_t l = len;

	memcpy(&magic, "FCHK", 4);
	memset(out, 0, 24);
	memcpy(out, &magic, 4);
	memcpy(out + 4, &type, 4);
	memcpy(out + 8, &l, 8);
	memcpy(out + 24, p, len);
	return 24 + len;
}

static void put_runs(const char *dir, const unsigned char *seed, const struct fuzz_chunk *c, int n)
{
	unsigned char *img = malloc(4 << 20);
	char j[256];
	size_t used = 16;

	if (!img)
		exit(1);
	memcpy(img, seed, 16);
	for (int run = 0; run < 3; run++) {
		int recs = 0;

		snprintf(j, sizeof(j), "{\"run\":%d,\"runs\":3,\"sweep\":\"mthp\",\"config\":\"%s\"}", run,
			 run == 1 ? "64K" : "4K");
		used += put_chunk(img + used, FOL_CHUNK_RUN, j, strlen(j));
		snprintf(j, sizeof(j), "{\"run\":%d,\"duration_ns\":1000,\"exit_code\":0,\"phases\":"
			 "[{\"phase\":\"reuse\",\"start_ns\":1,\"end_ns\":900}]}", run);
		used += put_chunk(img + used, FOL_CHUNK_BARE, j, strlen(j));
		for (int i = 0; i < n && used + c[i].len + 24 < (4 << 20); i++) {
			size_t len = c[i].len;

			/* A slice of the first records chunk, whole perf records of it, so that
			 * three runs stay under the fuzzers' -max_len. */
			if (c[i].type == FOL_CHUNK_RECORDS) {
				size_t off = 0;

				if (recs++)
					continue;
				while (off + 8 <= c[i].len && off < 12000) {
					uint16_t sz;

					memcpy(&sz, c[i].p + off + 6, 2);
					if (sz < 8 || off + sz > c[i].len)
						break;
					off += sz;
				}
				len = off;
			}
			used += put_chunk(img + used, c[i].type, c[i].p, len);
		}
	}
	put(dir, "chunks", 1, img, used, NULL, 0);
	free(img);
}

/* DIR/archive/seed-0: an archive of two small files, the second in two pieces. */
static void put_archive(const char *dir)
{
	static const char text[] = "\177ELF not really, but bytes to deflate and bring back";
	char path[512];
	struct fol_writer *w;
	unsigned char *img = malloc(1 << 16);
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/tmp/foliostat-seed-archive.%d", getpid());
	unlink(path);
	if (!img || fol_writer_open(&w, path) || fol_writer_commit(w) ||
	    fol_archive_put(w, "/usr/lib/libone.so", sizeof(text), 0, text, sizeof(text)) ||
	    fol_archive_put(w, "/opt/app/bin", 2 * sizeof(text), 0, text, sizeof(text)) ||
	    fol_archive_put(w, "/opt/app/bin", 2 * sizeof(text), sizeof(text), text, sizeof(text)) ||
	    fol_writer_close(w) || !(f = fopen(path, "rb"))) {
		fprintf(stderr, "fuzz_seeds: cannot write the archive seed\n");
		exit(1);
	}
	n = fread(img, 1, 1 << 16, f);
	fclose(f);
	unlink(path);
	put(dir, "archive", 0, img, n, NULL, 0);
	free(img);
}

int main(int argc, char **argv)
{
	static struct fuzz_chunk c[4096];
	static const unsigned char marker[4] = { 0xff, 0xfe, 0xfd, 0xfc };
	unsigned char *seed, *all;
	size_t size, used = 0;
	int n, e = 0, r = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: fuzz_seeds RECORDING DIR\n");
		return 2;
	}
	setenv("FOLIOSTAT_FUZZ_SEED", argv[1], 1);
	seed = fuzz_seed(&size);
	all = malloc(size * 2);
	n = fuzz_chunks(seed, size, c, 4096);
	for (int i = 0; i < n; i++) {
		if (c[i].type == FOL_CHUNK_EVENT) {
			unsigned char sel = (unsigned char)e;

			put(argv[2], "events", e++, &sel, 1, c[i].p, c[i].len);
		} else if (c[i].type == FOL_CHUNK_RECORDS) {
			put(argv[2], "records", r++, c[i].p, c[i].len, NULL, 0);
			if (used)
				memcpy(all + used, marker, 4), used += 4;
			memcpy(all + used, c[i].p, c[i].len);
			used += c[i].len;
		}
	}
	put(argv[2], "records", r, all, used, NULL, 0);
	put(argv[2], "chunks", 0, seed, size, NULL, 0);
	put_runs(argv[2], seed, c, n);
	put_archive(argv[2]);
	free(all);
	free(seed);
	return 0;
}
