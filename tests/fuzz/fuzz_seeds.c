/* Writes the seed corpora of the fuzz targets from a recording: fuzz_seeds RECORDING DIR
 * makes DIR/events/N (selector byte + an EVENT chunk's JSON) and DIR/records/N (the
 * records of the whole recording, a marker between chunks, and each chunk alone). */
#include <errno.h>
#include <sys/stat.h>

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
	free(all);
	free(seed);
	return 0;
}
