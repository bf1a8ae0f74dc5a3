// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: event descriptions. The input's first byte picks one EVENT chunk of the
 * seed recording, the rest replaces its JSON (name, attr, sample_type, ids, format text);
 * the seed's own records follow, so they are decoded by whatever the description says.
 * Seeds: the seed recording's own descriptions (fuzz_seeds writes them). */
#include "harness.h"

#define MAX_CHUNKS 4096

static struct fuzz_chunk c[MAX_CHUNKS];
static int n;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char *seed;
	static size_t seed_len;
	struct fuzz_out o;
	int events = 0, pick;

	if (!seed) {
		seed = fuzz_seed(&seed_len);
		n = fuzz_chunks(seed, seed_len, c, MAX_CHUNKS);
	}
	if (size < 1)
		return 0;
	for (int i = 0; i < n; i++)
		events += c[i].type == FOL_CHUNK_EVENT;
	pick = events ? data[0] % events : 0;
	if (fuzz_begin(&o))
		return 0;
	for (int i = 0, e = 0; i < n; i++) {
		if (c[i].type == FOL_CHUNK_EVENT && e++ == pick)
			fuzz_put(&o, FOL_CHUNK_EVENT, data + 1, size - 1);
		else
			fuzz_put(&o, c[i].type, c[i].p, c[i].len);
	}
	fuzz_end(&o);
	return 0;
}
