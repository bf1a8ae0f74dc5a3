/* SPDX-License-Identifier: GPL-2.0-only */
/* The order of page-cache folios the recorded processes mapped. A file fault on a page
 * already in the page cache allocates nothing, so its events do not say its folio's
 * order: a C build takes a sixth of its faults so, on its compiler and libraries. Two
 * sources say it instead:
 *  - the folios added to the page cache during the recording
 *    (filemap:mm_filemap_add_to_page_cache: file, index, order), for files the recorded
 *    processes have mapped;
 *  - the page cache at the end of the recording: the recorder maps each file the
 *    processes mapped, over the ranges they mapped, and reads the order of every
 *    resident folio as the kernel's tools/mm/thpmaps does (its own pagemap for the page
 *    frames, /proc/kpageflags for head and tail pages). Written as a PAGECACHE chunk.
 * The second is the folio at the end, not at the fault: a folio evicted and read again
 * in between by a process not recorded may differ. */
#ifndef FOL_PAGECACHE_H
#define FOL_PAGECACHE_H

#include <cjson/cJSON.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>

/* A file as an MMAP2 record names it: its device and inode. */
struct fol_file_id {
	uint32_t maj, min;
	uint64_t ino;
};

/* Recording: the files mapped, and their page-cache folios at the end. */
struct fol_pc_files;

struct fol_pc_files *fol_pc_files_new(void);
void fol_pc_files_free(struct fol_pc_files *f);
/* A mapping of pages [pgoff, pgoff + pages) of the file at path. -ENOMEM or 0. */
int fol_pc_files_note(struct fol_pc_files *f, const struct fol_file_id *id, const char *path,
		      uint64_t pgoff, uint64_t pages);
/* The PAGECACHE chunk: each file noted that is still the same file at its path (device
 * and inode; on an overlayfs, unchanged since the time since), with runs of resident
 * folios by file index and order. root: "" or a test's tree for /proc/kpageflags. A
 * change of *signals stops it (what was read so far is kept). NULL on ENOMEM. */
cJSON *fol_pc_snapshot(struct fol_pc_files *f, const char *root, time_t since,
		       const volatile sig_atomic_t *signals);

/* Report: the orders, from both sources. */
struct fol_pagecache;

/* Where an order came from, or why there is none. */
enum fol_pc_source {
	FOL_PC_ADDED,	   /* added to the page cache during the recording, before the fault */
	FOL_PC_AT_END,	   /* the page cache at the end of the recording */
	FOL_PC_AT_FAULT,   /* the page cache inside the fault, as the BPF programs read it */
	FOL_PC_EVICTED,	   /* none: not in the page cache at the end */
	FOL_PC_UNREAD,	   /* none: the file could not be read at the end (gone, replaced) */
	FOL_PC_NO_SNAPSHOT, /* none: the recording has no page cache snapshot */
	FOL_PC_NR_SOURCES
};

/* snapshot: a PAGECACHE chunk, or NULL. Its runs are bounded by the chunk's size; files
 * or runs that do not make sense are left out. NULL on ENOMEM. */
struct fol_pagecache *fol_pagecache_new(const cJSON *snapshot);
void fol_pagecache_free(struct fol_pagecache *pc);
/* A recorded process mapped the file: its additions are kept from now on. */
int fol_pagecache_mapped(struct fol_pagecache *pc, const struct fol_file_id *id);
/* Live (top, serve): the files no mapping holds any more are forgotten with what was
 * added of them; mapped(id, ctx) is 1 for those some mapping holds. Over days the files a
 * machine maps are without number. 0, or -ENOMEM with every file kept. */
int fol_pagecache_sweep(struct fol_pagecache *pc, int (*mapped)(const struct fol_file_id *id, void *ctx),
			void *ctx);
/* A folio of 2^order pages added at index. */
int fol_pagecache_add(struct fol_pagecache *pc, const struct fol_file_id *id, uint64_t index,
		      int order);
/* The order of the folio at index of the file (-1 when not known), and its source. */
int fol_pagecache_order(const struct fol_pagecache *pc, const struct fol_file_id *id,
			uint64_t index, enum fol_pc_source *src);

#endif
