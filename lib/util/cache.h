/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef FOL_CACHE_H
#define FOL_CACHE_H

#include <stdint.h>

#include <stddef.h>

/*
 * The user's cache of what a report works out and the next one can read as it is: debug
 * files inflated (debugfile.h), kernel symbol tables parsed (ksyms.h). As perf keeps
 * ~/.debug and debuginfod its client cache; deleting it costs only time.
 */

/* Where name of kind is kept: $XDG_CACHE_HOME (or ~/.cache)/foliostat/KIND/NAME. 0, or -1
 * when there is no cache (no home, or FOLIOSTAT_NO_CACHE set). */
int fol_cache_path(const char *kind, const char *name, char *out, size_t len);

/* A new file for path, made beside it under a temporary name (tmp, tmplen bytes), its
 * directories made: a descriptor, or -errno. */
int fol_cache_begin(const char *path, char *tmp, size_t tmplen);

/* The file written (ret 0): closed and renamed into place; else closed and removed. ret,
 * or the -errno of the close or rename. */
int fol_cache_end(int fd, const char *tmp, const char *path, int ret);

/* The kept file at path was used: it is the newest of its kind (fol_cache_prune). */
void fol_cache_used(const char *path);

/* Only the keep newest files of a kind are kept, and of those the newest that fit in
 * max_bytes together; the others are removed (a kind whose files are made per recording
 * would grow by each: four recordings of a forged symbol chunk left 586 MB). */
void fol_cache_prune(const char *kind, int keep, uint64_t max_bytes);

#endif
