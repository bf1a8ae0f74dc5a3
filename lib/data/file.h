/* SPDX-License-Identifier: GPL-2.0-only */
/* foliostat data file: a header, then checksummed chunks.
 *
 * A recording is written as it is read from the ring buffers, one chunk at a time, so a
 * file cut short (SIGKILL, disk full) is readable up to its last complete chunk. Each chunk
 * carries a CRC of its header and one of its payload: a damaged chunk is reported and
 * skipped, never trusted.
 */
#ifndef FOL_FILE_H
#define FOL_FILE_H

#include <stddef.h>
#include <stdint.h>

#define FOL_FILE_VERSION 1
/* Larger chunks are refused by the reader: no writer makes them, a hostile file might. */
#define FOL_CHUNK_MAX (64u << 20)

enum fol_chunk_type {
	FOL_CHUNK_META = 1,	/* JSON: command, kernel, page size, clock, CPUs, start */
	FOL_CHUNK_EVENT = 2,	/* JSON: one event's attr, sample ids, tracefs format text */
	FOL_CHUNK_RECORDS = 3,	/* perf records as read from one ring buffer */
	FOL_CHUNK_ROUND = 4,	/* every ring buffer was drained once: a merge flush point;
				 * live streams (top, serve): u64, when the drains began */
	FOL_CHUNK_COUNTERS = 5,	/* JSON: vmstat/mTHP snapshot */
	FOL_CHUNK_PMU = 6,	/* JSON: counted PMU events */
	FOL_CHUNK_WORKLOAD = 7, /* JSON: phases the workload measured itself */
	FOL_CHUNK_END = 8,	/* JSON: exit status, duration, lost counts; last chunk */
	FOL_CHUNK_SYNTH = 9,	/* JSON: an attached process's threads and mappings at start */
	FOL_CHUNK_MAPS = 10,	/* JSON foliostat/maps/v1: the page tables at the end */
	/* A recording of several runs (record -r, --sweep) is a sequence of runs, each
	 * opened by a RUN chunk and otherwise a complete single-run stream. */
	FOL_CHUNK_RUN = 11,	/* JSON: run index, runs, sweep key and value */
	FOL_CHUNK_BARE = 12,	/* JSON: an untraced run of the workload: its phases */
	FOL_CHUNK_KSYMS = 13,	/* the kernel's text symbols, compressed (ksyms.h), before
				 * END; in a recording of several runs, the first run's only */
	FOL_CHUNK_ARCHIVE = 14,	/* a piece of a recorded code file (archive.h); only in an
				 * archive, never in a recording */
	FOL_CHUNK_PAGECACHE = 15, /* JSON: the page-cache folios of the files mapped, at the
				   * end (pagecache.h); read ahead, before the records */
};

struct fol_msgs;
struct fol_writer;

/* Where a writer without a file hands each chunk (foliostat stat: straight to the model). */
typedef int (*fol_chunk_sink)(void *ctx, uint32_t type, const void *buf, size_t len);

/* Start a recording for path. A root tool must not damage what it did not create, so:
 * - nothing at path: the file is created (0600: it holds kernel addresses and PFNs);
 * - a foliostat recording (or an empty file) at path: it is kept as path.old, but only
 *   on fol_writer_commit(), once the new file's header is on disk;
 * - a character device or FIFO (or a link to one, like /dev/stdout): written as it is,
 *   no rename, no .old;
 * - anything else is refused and left alone: -ENOTEMPTY for a regular file that is not a
 *   recording, -EEXIST when path.old is there and is not one, -ELOOP for a symbolic link to a file or a
 *   dangling one, -EISDIR, -ENOTBLK (block device), -ENOTSOCK (socket), -ENOTTY (a
 *   terminal), -EPIPE (a FIFO nobody reads).
 * Until commit the data goes to a hidden temporary beside path; closing an uncommitted
 * writer removes it, and path is as it was. */
int fol_writer_open(struct fol_writer **w, const char *path);
/* The new file takes its name (see fol_writer_open); a no-op for devices, sinks and
 * after the first call. */
int fol_writer_commit(struct fol_writer *w);
/* What a fol_writer_open() error err means for path, and what to do, as one sentence
 * added to why; returns err. */
int fol_writer_why(int err, const char *path, struct fol_msgs *why);
/* No file: every chunk goes to sink, as it is written. */
int fol_writer_open_sink(struct fol_writer **w, fol_chunk_sink sink, void *ctx);
int fol_writer_chunk_buf(struct fol_writer *w, uint32_t type, const void *buf, size_t len);
/* A metadata chunk: j printed unformatted. */
struct cJSON;
int fol_writer_chunk_json(struct fol_writer *w, uint32_t type, const struct cJSON *j);
/* Flush buffered chunks to the kernel; they survive a SIGKILL of this process after this. */
int fol_writer_flush(struct fol_writer *w);
uint64_t fol_writer_bytes(const struct fol_writer *w);
int fol_writer_close(struct fol_writer *w);

struct fol_reader;

struct fol_reader_status {
	uint64_t chunks;		/* good chunks returned */
	uint64_t corrupt_chunks;	/* damaged regions skipped */
	uint64_t corrupt_bytes;
	int truncated;			/* the file ends inside a chunk */
	int complete;			/* an END chunk was seen */
};

/* -ENOENT/-EACCES from open, -FOL_E_NOT_RECORDING when it is not a foliostat file,
 * -FOL_E_DAMAGED_HEADER for a damaged file header, -FOL_E_NEWER_FORMAT for a newer
 * version than this reader knows (errors.h), -ESPIPE for a FIFO,
 * device or socket (recordings are read from regular files), -EISDIR. */
int fol_reader_open(struct fol_reader **r, const char *path);
/* Next good chunk: 1 and its type/payload (valid until the next call), 0 at the end,
 * negative on I/O error. Damaged chunks are skipped and counted in the status. */
int fol_reader_next(struct fol_reader *r, uint32_t *type, const void **buf, size_t *len);
/* Ahead of the chunks not read yet, without reading them: the first chunk of type before
 * one whose type is in stop (a mask of 1 << type), its payload copied into *buf (the caller frees it). 1 found, 0 not
 * (or a damaged header on the way: the look stops there), negative on I/O error. Only
 * chunk headers are read on the way. */
int fol_reader_find_ahead(struct fol_reader *r, uint32_t type, uint64_t stop, void **buf,
			  size_t *len);
const struct fol_reader_status *fol_reader_status(const struct fol_reader *r);
void fol_reader_close(struct fol_reader *r);

#endif
