// SPDX-License-Identifier: GPL-2.0-only
/* Mutation fuzzing of the reader in make check: damaged, truncated and - what a CRC
 * cannot catch - checksummed hostile chunks, built from the golden recording. Run under
 * SANITIZE=address,undefined to catch what does not crash outright. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libdeflate.h>

#include <cmocka.h>

#include "../fuzz/fuzz_one.h"

#define SEED_FILE "tests/golden/small.data"

static unsigned char *seed;
static size_t seed_len;
static char path[] = "/tmp/foliostat-fuzz.XXXXXX";

static uint32_t rnd(void)
{
	static uint64_t x = 88172645463325252ull;

	x ^= x << 13, x ^= x >> 7, x ^= x << 17;
	return (uint32_t)x;
}

static void run(const unsigned char *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
	fuzz_one_file(path);
}

/* Offsets of the chunk headers of the seed (16-byte file header, 24-byte chunk headers). */
static size_t chunks[4096];
static int nchunks;

static int setup(void **state)
{
	FILE *f = fopen(SEED_FILE, "rb");
	size_t off = 16;
	int fd = mkstemp(path);

	(void)state;
	if (!f || fd < 0)
		return -1;
	close(fd);
	seed = malloc(8 << 20);
	seed_len = fread(seed, 1, 8 << 20, f);
	fclose(f);
	while (off + 24 <= seed_len && nchunks < 4096) {
		uint64_t len;

		memcpy(&len, seed + off + 8, 8);
		chunks[nchunks++] = off;
		off += 24 + len;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(seed);
	unlink(path);
	return 0;
}

static void test_flips(void **state)
{
	unsigned char *buf = malloc(seed_len);

	(void)state;
	for (int i = 0; i < 150; i++) {
		memcpy(buf, seed, seed_len);
		for (int k = 0, n = 1 + (int)(rnd() % 16); k < n; k++)
			buf[rnd() % seed_len] ^= (unsigned char)(1u << (rnd() % 8));
		run(buf, seed_len);
	}
	free(buf);
}

static void test_truncations(void **state)
{
	(void)state;
	for (int i = 0; i < 100; i++)
		run(seed, rnd() % seed_len);
}

/* Damage inside a chunk, then make its CRC right again: the decoder and model must cope
 * with whatever a writer could have put there. */
static void test_checksummed_garbage(void **state)
{
	unsigned char *buf = malloc(seed_len);

	(void)state;
	assert_true(nchunks > 10);
	for (int i = 0; i < 300; i++) {
		size_t off = chunks[rnd() % (uint32_t)nchunks];
		uint64_t len;
		uint32_t crc;

		memcpy(buf, seed, seed_len);
		memcpy(&len, buf + off + 8, 8);
		if (!len)
			continue;
		for (int k = 0, n = 1 + (int)(rnd() % 8); k < n; k++) {
			size_t at = off + 24 + rnd() % len;

			switch (rnd() % 3) {
			case 0:
				buf[at] ^= (unsigned char)(1u << (rnd() % 8));
				break;
			case 1:
				buf[at] = 0xff;
				break;
			default:
				buf[at] = 0;
			}
		}
		crc = libdeflate_crc32(0, buf + off + 24, (size_t)len);
		memcpy(buf + off + 16, &crc, 4);
		run(buf, seed_len);
	}
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flips),
		cmocka_unit_test(test_truncations),
		cmocka_unit_test(test_checksummed_garbage),
	};

	return cmocka_run_group_tests_name("fuzz", tests, setup, teardown);
}
