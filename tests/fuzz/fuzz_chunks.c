// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: a whole recording whose chunks are written back with the right CRCs, so
 * that mutations of chunk types, lengths and payloads (JSON metadata, event descriptions,
 * perf records) reach everything behind the file reader; the JSON chunks get keys twice,
 * long strings and edge numbers from json_mutator.h. Seed: any recording. */
#include "harness.h"
#include "json_mutator.h"

#define MAX_CHUNKS 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_chunk c[MAX_CHUNKS];
	struct fuzz_out o;
	int n = fuzz_chunks(data, size, c, MAX_CHUNKS);

	if (fuzz_begin(&o))
		return 0;
	for (int i = 0; i < n; i++)
		fuzz_put(&o, c[i].type, c[i].p, c[i].len);
	fuzz_end(&o);
	return 0;
}
