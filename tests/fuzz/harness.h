/* SPDX-License-Identifier: GPL-2.0-only */
/* What the fuzz targets share: a recording's chunks parsed without their CRCs (the fuzzer
 * mutates lengths and payloads; the CRCs would reject every mutation), and a recording
 * written back through the real writer, so that the CRCs are right and every mutation
 * reaches the decoder, the merge, the model and the renderers. */
#ifndef FOL_FUZZ_HARNESS_H
#define FOL_FUZZ_HARNESS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/file.h"
#include "fuzz_one.h"

#define FUZZ_FILE_HEADER 16
#define FUZZ_CHUNK_HEADER 24

struct fuzz_chunk {
	uint32_t type;
	const unsigned char *p;
	size_t len;
};

/* The chunks of a file image, their lengths cut to what is there; returns how many. */
static inline int fuzz_chunks(const unsigned char *data, size_t size, struct fuzz_chunk *out,
			      int max)
{
	size_t off = FUZZ_FILE_HEADER;
	int n = 0;

	while (off + FUZZ_CHUNK_HEADER <= size && n < max) {
		uint64_t len;

		memcpy(&out[n].type, data + off + 4, 4);
		memcpy(&len, data + off + 8, 8);
		off += FUZZ_CHUNK_HEADER;
		if (len > size - off)
			len = size - off;
		out[n].p = data + off;
		out[n].len = (size_t)len;
		off += (size_t)len;
		n++;
	}
	return n;
}

struct fuzz_out {
	struct fol_writer *w;
	char path[64];
};

static inline int fuzz_begin(struct fuzz_out *o)
{
	snprintf(o->path, sizeof(o->path), "/tmp/foliostat-fuzz-in.%d", getpid());
	unlink(o->path);
	if (fol_writer_open(&o->w, o->path))
		return -1;
	return fol_writer_commit(o->w);
}

static inline void fuzz_put(struct fuzz_out *o, uint32_t type, const void *p, size_t len)
{
	if (len <= FOL_CHUNK_MAX)
		fol_writer_chunk_buf(o->w, type, p, len);
}

/* Close the file, read it through everything, remove it. */
static inline void fuzz_end(struct fuzz_out *o)
{
	fol_writer_close(o->w);
	fuzz_one_file(o->path);
	unlink(o->path);
}

/* The seed recording, read once: the header and records the targets build around. */
static inline unsigned char *fuzz_seed(size_t *size)
{
	const char *path = getenv("FOLIOSTAT_FUZZ_SEED");
	unsigned char *buf = malloc(8 << 20);
	FILE *f = fopen(path ? path : "tests/golden/small.data", "rb");

	*size = 0;
	if (!f || !buf) {
		fprintf(stderr, "fuzz: cannot read the seed recording (FOLIOSTAT_FUZZ_SEED)\n");
		exit(1);
	}
	*size = fread(buf, 1, 8 << 20, f);
	fclose(f);
	return buf;
}

#endif
