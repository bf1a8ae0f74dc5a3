/* SPDX-License-Identifier: GPL-2.0-only */
/* How figures are written for people: durations in human units, command lines, what went
 * to swap. One place for the text report, compare and the TUI alike. */
#ifndef FOL_FORMAT_H
#define FOL_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "model/summary.h"

/* Write "us" instead of "µs" from now on: for terminals and files that are not UTF-8. */
void fol_fmt_set_ascii(int ascii);
/* Human units: "12.3 µs". */
const char *fol_fmt_ns(uint64_t ns, char *buf, int len);
/* The same right-aligned to w columns of the terminal ("µ" is two bytes, one column);
 * "-" when !have. */
const char *fol_fmt_ns_col(uint64_t ns, int have, int w, char *buf, int len);

/* A recorded command line as text, escaped (escape.h); a built-in workload's program
 * as "foliostat", not where it was installed. */
const char *fol_command_text(char *const *argv, int argc, char *buf, size_t len);

/* What went to swap: "64K 256 whole, 64K 12 split first (192 pieces)"; brief (the TUI)
 * leaves the pieces out. "" when nothing. */
const char *fol_swapout_text(const struct fol_swapout *sw, unsigned page_size, int brief,
			     char *buf, size_t len);

#endif
