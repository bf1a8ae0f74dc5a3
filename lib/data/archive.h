/* SPDX-License-Identifier: GPL-2.0-only */
/* foliostat archive: the code files a recording names (its END chunks' build_ids), packed
 * into one file that a report on another machine reads (perf archive's job). The archive
 * is a foliostat data file (file.h) of FOL_CHUNK_ARCHIVE chunks, each a deflated piece of
 * one file: checksummed, resynchronising, read by the same reader as a recording. It is
 * read back by extracting it under a directory as report --symfs lays files out
 * (DIR/usr/lib/..., and DIR/usr/lib/debug/.build-id/... for separate debug info), so that
 * the report's build-id checks decide, as for any file, whether a symbol can be trusted. */
#ifndef FOL_ARCHIVE_H
#define FOL_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

/* A piece's uncompressed bytes at most; a file past this is several pieces. */
#define FOL_ARCHIVE_PIECE (8u << 20)
/* Files larger are refused, packing and extracting (a hostile archive's sizes). */
#define FOL_ARCHIVE_FILE_MAX (4ull << 30)

struct fol_archive_stats {
	unsigned files;	  /* files packed or extracted */
	unsigned refused; /* pieces not extracted (a bad path or size) */
	uint64_t bytes;	  /* uncompressed bytes */
	uint64_t limit;	  /* extracting: the bound its bytes were held to */
};

/* By default an archive unpacks at most this many times its own size, and this much more
 * (ELF files deflate 3 to 10 times: a 514 KB archive of zeros unpacked 512 MiB). */
#define FOL_ARCHIVE_RATIO 64
#define FOL_ARCHIVE_SLACK (64ull << 20)

/* What to pack: every file recorded in the recording's build_ids (END chunks), each
 * looked for where a report looks: its path, perf's ~/.debug/.build-id cache; and its
 * separate debug info, /usr/lib/debug/.build-id/xx/rest.debug. Only a file of the
 * recorded build-id counts. 0, the recording's reader's error (file.h), -ENODATA when it
 * names no file (recorded before build-ids), -ENOMEM. */
struct fol_archive_plan;
int fol_archive_plan(const char *recording, struct fol_archive_plan **p);
size_t fol_archive_plan_count(const struct fol_archive_plan *p);
/* The build-ids passed over: not the hex digits the recorder writes. */
size_t fol_archive_plan_bad(const struct fol_archive_plan *p);
/* The i-th recorded file's path; its build-id (hex), where its bytes are here and where
 * its debug info is (NULL: not found). */
const char *fol_archive_plan_file(const struct fol_archive_plan *p, size_t i, const char **hex,
				  const char **file, const char **debug);
void fol_archive_plan_free(struct fol_archive_plan *p);

/* Write what p found into out (opened as fol_writer_open() opens a recording: on failure
 * out is as it was): 0, -ENODATA when nothing was found (out not written), the writer's
 * error, or a file's read error. */
int fol_archive_pack(const struct fol_archive_plan *p, const char *out, struct fol_archive_stats *st);

/* One piece of a file named name (size bytes in all) as an archive chunk of w: len bytes
 * at off. 0, -ENOMEM, or the writer's error. For fol_archive_pack() and the fuzzers' seeds. */
struct fol_writer;
int fol_archive_put(struct fol_writer *w, const char *name, uint64_t size, uint64_t off,
		    const void *data, uint32_t len);

/* Every piece of the archive under dir, at most max_bytes in all (0: the default, the
 * least of FOL_ARCHIVE_RATIO times the archive's size plus FOL_ARCHIVE_SLACK and nine
 * tenths of the free space under dir): 0, -EFBIG past the bound (nothing more written),
 * -ENOSPC, -EDQUOT or -EIO when a write fails, -FOL_E_NOT_ARCHIVE, -errno. A piece of a
 * bad name or size is counted in st->refused, not extracted. */
int fol_archive_extract(const char *archive, const char *dir, uint64_t max_bytes,
			struct fol_archive_stats *st);

/* Remove dir and everything under it (an extracted archive): 0 or -errno. */
int fol_archive_remove(const char *dir);

#endif
