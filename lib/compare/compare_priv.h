/* SPDX-License-Identifier: GPL-2.0-only */
/* What the compare module's renderers share (compare_out.c's): not part of the public API. */
#ifndef FOL_COMPARE_PRIV_H
#define FOL_COMPARE_PRIV_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "compare/compare.h"

/* s right-aligned in w terminal columns ("µ" is two bytes, one column). */
void fol_cmp_rcol(FILE *f, const char *s, int w);
/* A cell's change in 9 columns and its mark in 4 (" (I)"; spaces unless last). */
void fol_cmp_cell_change(const struct fol_cmp_cell *cell, const struct fol_cmp_cell *base, int last,
			 FILE *f);
/* The family cells[0..n) marked at head's rate (fol_cmp_mark), and what it counts in
 * head: the cells tested, those of state (=), the largest p kept. */
void fol_cmp_mark_family(struct fol_cmp *head, struct fol_cmp_cell *const *cells, int n);
/* The lowest level of any side's test against the base (fol_cmp's level). */
enum fol_cmp_level fol_cmp_sides_level(const struct fol_side *sides, int nsides);
/* The first and last start of a side's runs (ns since the epoch): 0, or -ENODATA when a
 * run has none (an old recording) or the side none. */
int fol_side_span(const struct fol_side *s, double *first, double *last);
/* When the sides' recordings were made, at level (fol_cmp's order). */
enum fol_cmp_order fol_cmp_sides_order(const struct fol_side *sides, int nsides, enum fol_cmp_level level);
/* A cell as JSON VALUE (man foliostat-compare); base: the base's, without a test. */
cJSON *fol_cmp_cell_json(const struct fol_cmp_cell *cell, int base);

#endif
