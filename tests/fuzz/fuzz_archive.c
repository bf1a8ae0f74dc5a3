// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: an archive (foliostat archive) whose chunks are written back with the right
 * CRCs, then extracted under a fresh directory and removed: the pieces' names, sizes and
 * deflated bytes reach the extractor past the checksums. Seed: fuzz_seeds' archive/. */
#include <sys/stat.h>

#include "data/archive.h"
#include "harness.h"

#define MAX_CHUNKS 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_chunk c[MAX_CHUNKS];
	struct fol_archive_stats st;
	struct fuzz_out o;
	char dir[64];
	int n = fuzz_chunks(data, size, c, MAX_CHUNKS);

	if (fuzz_begin(&o))
		return 0;
	for (int i = 0; i < n; i++)
		fuzz_put(&o, c[i].type, c[i].p, c[i].len);
	fol_writer_close(o.w);
	snprintf(dir, sizeof(dir), "/tmp/foliostat-fuzz-x.%d", getpid());
	if (!mkdir(dir, 0700)) {
		fol_archive_extract(o.path, dir, 0, &st);
		fol_archive_remove(dir);
	}
	unlink(o.path);
	return 0;
}
