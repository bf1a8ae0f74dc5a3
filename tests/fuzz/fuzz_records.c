// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: record streams. The seed recording's header (metadata and event
 * descriptions) with the input as its perf records, cut into RECORDS chunks at the
 * input's own 0xff 0xfe 0xfd 0xfc markers, each followed by a ROUND, as the recorder
 * writes one ring buffer's drain after another. Seeds: the seed recording's own records
 * (fuzz_seeds writes them). */
#include "harness.h"

#define MAX_CHUNKS 4096

static const unsigned char marker[4] = { 0xff, 0xfe, 0xfd, 0xfc };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_chunk c[MAX_CHUNKS];
	static unsigned char *seed;
	static size_t seed_len;
	static int n;
	const uint8_t *p = data, *end = data + size;
	struct fuzz_out o;

	if (!seed) {
		seed = fuzz_seed(&seed_len);
		n = fuzz_chunks(seed, seed_len, c, MAX_CHUNKS);
	}
	if (fuzz_begin(&o))
		return 0;
	for (int i = 0; i < n && (c[i].type == FOL_CHUNK_META || c[i].type == FOL_CHUNK_EVENT ||
				  c[i].type == FOL_CHUNK_COUNTERS); i++)
		fuzz_put(&o, c[i].type, c[i].p, c[i].len);
	while (p < end) {
		const uint8_t *m = memmem(p, (size_t)(end - p), marker, sizeof(marker));
		const uint8_t *stop = m ? m : end;

		fuzz_put(&o, FOL_CHUNK_RECORDS, p, (size_t)(stop - p));
		fuzz_put(&o, FOL_CHUNK_ROUND, NULL, 0);
		p = m ? m + sizeof(marker) : end;
	}
	fuzz_put(&o, FOL_CHUNK_END, "{}", 2);
	fuzz_end(&o);
	return 0;
}
