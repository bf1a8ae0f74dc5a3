/* SPDX-License-Identifier: GPL-2.0-only */
/* Folio orders, as every stage counts them: a recording's events, a live process's page
 * tables, the model's figures and the report's columns. */
#ifndef FOL_ORDER_H
#define FOL_ORDER_H

/* Index 0 is order "unknown" (-1); index i is order i-1. */
#define FOL_MAX_ORDER 12
#define FOL_NR_ORDER_SLOTS (FOL_MAX_ORDER + 2)
#define FOL_ORDER_SLOT(o) ((o) < 0 || (o) > FOL_MAX_ORDER ? 0 : (o) + 1)
#define FOL_SLOT_ORDER(s) ((s)-1)

/* "4K", "64K", "2M"; "unknown" for -1. */
const char *fol_order_size(int order, unsigned page_size, char *buf, int len);

#endif
