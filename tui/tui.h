/* SPDX-License-Identifier: GPL-2.0-only */
/* The interactive report: draws a fol_report that lib/ computed; computes nothing. */
#ifndef FOL_TUI_H
#define FOL_TUI_H

#include <stddef.h>

#include "report/report.h"

/* Runs until the user quits: 0; -ENOTTY when stdin/stdout is not a terminal; other
 * negative codes when the terminal cannot be set up (err says what). The terminal is
 * always restored before returning, also when a signal ends the program. */
int fol_tui_run(const struct fol_report *r, const char *path, char *err, size_t errlen);

/* The comparison of recordings (compare.h), scrollable; the same terminal rules. */
struct fol_cmp;
int fol_tui_compare(const struct fol_cmp *c, char *err, size_t errlen);

#endif
