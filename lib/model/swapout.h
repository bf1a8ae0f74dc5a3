/* SPDX-License-Identifier: GPL-2.0-only */
/* Folios written to swap, by the order they were allocated at: whole, or split first.
 * vmscan:mm_vmscan_write_folio names a page frame and nothing else (no order, no mm), so
 * the folio a write belongs to is looked up among the folios the recording saw
 * allocated, by page frame; and a folio's writes are judged once they are over (at the
 * end of the system call that made them, or of the recording): one write, at its first
 * page, with no page of it freed at a smaller order, is the folio written whole; any
 * other write is a piece of it after a split (a partly mapped folio's unmapped pages are
 * freed at its split, and only its mapped first page may be written). */
#ifndef FOL_SWAPOUT_H
#define FOL_SWAPOUT_H

#include <stdint.h>

#include "model/summary.h"

struct fol_swapout_map;

struct fol_swapout_map *fol_swapout_map_new(void);
void fol_swapout_map_free(struct fol_swapout_map *m);
/* A folio of 2^order pages at pfn was allocated (a fault's folio). -ENOMEM or 0. */
int fol_swapout_alloc(struct fol_swapout_map *m, uint64_t pfn, int order);
/* Pages freed at pfn: the folio there is gone when they were freed at its order. */
void fol_swapout_free(struct fol_swapout_map *m, uint64_t pfn, int order);
/* A write of the folio at pfn, by thread tid: 1 when it belongs to a known folio, 0 when
 * no folio the recording saw allocated holds pfn (the caller counts it unknown). */
int fol_swapout_write(struct fol_swapout_map *m, uint64_t pfn, int tid);
/* Judge the folios written by tid (-1: by anyone) and add them into into. */
void fol_swapout_settle(struct fol_swapout_map *m, int tid, struct fol_swapout *into);

#endif
