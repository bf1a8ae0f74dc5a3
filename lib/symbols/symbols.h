/* SPDX-License-Identifier: GPL-2.0-only */
/* Names for code addresses: a function (+ offset, + source line where debug info is) for
 * an offset in an ELF file, through elfutils' libdwfl (what perf uses: build-id lookup of
 * separate debug info in /usr/lib/debug, .gnu_debuglink); a kernel address through the
 * recording kernel's symbols (ksyms.h). Files are opened once. */
#ifndef FOL_SYMBOLS_H
#define FOL_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct fol_symbols_cache;
struct fol_ksyms;

/* ksyms: the recording kernel's symbols (a reference is taken), NULL when none are known:
 * kernel addresses are then left as they are. symfs: look for every file under this directory instead of / (as
 * perf report --symfs), NULL for /. recorded_at: when the recording began (seconds since
 * the epoch, 0 unknown): a file with no build-id in the recording is trusted only if it
 * has not changed since. */
struct fol_symbols_cache *fol_symbols_new(struct fol_ksyms *ksyms, const char *symfs,
					  int64_t recorded_at);
void fol_symbols_free(struct fol_symbols_cache *c);
/* The function at file offset off of the ELF file path ("[kernel]": a kernel address):
 * 0 and "name+0x1a" in sym (and "file.c:42" in src, "" without line info; src NULL: no
 * line looked up), or -ENOENT
 * (no such file, no symbol there: sym says "path+0xoff" then). With the build-id the
 * recording saw (bid, NULL when none), only a file of that build-id is used: path, or
 * /usr/lib/debug/.build-id/xx/rest.debug, or perf's cache ~/.debug/.build-id/xx/rest;
 * -ESTALE when none is found but path is there with another build-id, or (no build-id
 * recorded) path changed after the recording began. */
int fol_symbols_lookup(struct fol_symbols_cache *c, const char *path, const uint8_t *bid,
		       int bidlen, uint64_t off, char *sym, size_t symlen, char *src, size_t srclen);
/* The GNU build-id of the ELF file at path: its length (up to max bytes copied), or
 * -ENOENT (no such file, not ELF, no build-id note). */
int fol_symbols_file_build_id(const char *path, uint8_t *out, size_t max);

#endif
