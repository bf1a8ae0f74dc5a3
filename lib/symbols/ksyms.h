/* SPDX-License-Identifier: GPL-2.0-only */
/* The kernel's text symbols, carried by a recording so that kernel addresses are named on
 * any machine (perf keeps them in its build-id cache and `perf archive` packs them): packed
 * from /proc/kallsyms when recording, one FOL_CHUNK_KSYMS chunk, and read back as a sorted
 * table, parsed once however many symbol caches share it. */
#ifndef FOL_KSYMS_H
#define FOL_KSYMS_H

#include <stddef.h>
#include <stdint.h>

/* Uncompressed text past this is refused (a hostile chunk): /proc/kallsyms of a
 * distribution kernel is ~5 MB of text symbols. */
#define FOL_KSYMS_TEXT_MAX (64u << 20)
/* A recorded chunk inflates at most this many times its size. */
#define FOL_KSYMS_RATIO 20
/* Text symbols taken at most: a kernel with its modules has some 150,000 to 300,000. */
#define FOL_KSYMS_MAX 2000000

/* The running kernel's GNU build-id (the note in /sys/kernel/notes, or the file notes) as
 * lowercase hex in hex (at least 41 bytes): its length in bytes, or -ENOENT. */
int fol_kernel_build_id(const char *notes, char *hex, size_t len);

/* The text symbols of a kallsyms file, compressed as a chunk's payload: 0 and *out
 * (malloc'ed) and *len, -ENOENT when it has none readable (kptr_restrict shows zeros). */
int fol_ksyms_pack(const char *kallsyms, void **out, size_t *len);

struct fol_ksyms;

/* From a chunk's payload (copied; checked when first looked up), or from a kallsyms file
 * read at the first lookup (--kallsyms FILE, or /proc/kallsyms of the same kernel). NULL
 * when out of memory. Reference counted: get another reference, put each one. */
struct fol_ksyms *fol_ksyms_from_chunk(const void *buf, size_t len);
struct fol_ksyms *fol_ksyms_from_file(const char *path);
struct fol_ksyms *fol_ksyms_get(struct fol_ksyms *k);
void fol_ksyms_put(struct fol_ksyms *k);

/* "name+0x1f" for addr (the last symbol at or below it): 0, or -ENOENT (no table, the
 * chunk is damaged, the file unreadable, or addr below every symbol). */
int fol_ksyms_lookup(struct fol_ksyms *k, uint64_t addr, char *sym, size_t len);
/* How many symbols the table holds once read (it is read now if it was not). */
size_t fol_ksyms_count(struct fol_ksyms *k);

#endif
