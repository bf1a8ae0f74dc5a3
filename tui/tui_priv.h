/* SPDX-License-Identifier: GPL-2.0-only */
/* The TUI's insides, shared by tui.c (terminal, keys, the loop), tui_views.c (the
 * report's views), tui_sites.c (sites, stacks, maps, kernel) and tui_compare.c.
 * Not an API. */
#ifndef FOL_TUI_PRIV_H
#define FOL_TUI_PRIV_H

#include <signal.h>

#include "compare/compare.h"
#include "report/format.h"
#include "report/report_sites.h"

enum view { V_OVERVIEW, V_REUSE, V_LATENCY, V_TIMELINE, V_SITES, V_MAPS, V_KERNEL, V_NR };

/* C_SIDE .. C_SIDE + TUI_SIDE_COLOURS - 1: compare's sides, in colours of their own (not
 * the green and red of (I) and (R)). */
enum { C_TITLE = 1, C_SEL, C_BAR, C_DIM, C_WARN, C_MARK, C_WORSE, C_SIDE };
#define TUI_SIDE_COLOURS 4

/* One row of the order x class table: indexes into the summary, nothing computed. */
/* The latency table's sort keys (s cycles through them), by name. */
#define TUI_NR_SORTS 6
extern const char *const tui_sort_names[TUI_NR_SORTS];

struct row {
	int slot, cls;
};

struct ui {
	const struct fol_report *r;
	const char *path;
	enum view view;
	struct row rows[FOL_NR_ORDER_SLOTS * FOL_NR_CLASSES];
	int nrows, sel, top;
	int sort;		/* 0 order, 1 faults, 2 total, 3 mean, 4 p99, 5 max */
	char filter[32];
	int reuse_sel, reuse_hist; /* reuse view: selected order, histogram shown */
	int gap;		/* latency view: gap instead of handler latency */
	int help;
	int colour, utf8;
	/* Sites and Mappings views: grouped once (symbols are looked up in files), on their
	 * first drawing. Enter on a site: the call stacks of its faults (record -g). */
	struct fol_grouping sites, maps, map_cells;
	int grouped;
	int site_sel, site_top, map_sel, map_top;
	struct fol_folded_set stacks;
	int stacks_shown, stacks_top, stacks_err;
};

const struct fol_cell *tui_cell(const struct ui *u, const struct row *rw);

void tui_style_on(const struct ui *u, int pair, int extra);

void tui_style_off(const struct ui *u, int pair, int extra);

void tui_title(const struct ui *u, int cols);

void tui_status(const struct ui *u, int lines, int cols, const char *keys);

void tui_header(const struct ui *u, int *y, int cols);

void tui_draw_overview(struct ui *u, int lines, int cols);

int tui_reuse_orders(const struct ui *u, int *slots);

void tui_draw_reuse(struct ui *u, int lines, int cols);

/* Quarter-octave row of a value, and the value where a row starts. */
int tui_quarter(uint64_t v);

uint64_t tui_quarter_start(int q);

void tui_draw_latency(struct ui *u, int lines, int cols);

void tui_draw_timeline(struct ui *u, int lines, int cols);

/* Enter on a site: its faults' call stacks, most fault time first. */
void tui_open_stacks(struct ui *u);

/* Where the faults come from: the functions and the mappings they touched. */
void tui_draw_sites(struct ui *u, int lines, int cols);

/* The mappings touched: each with its faults, then by order and class. */
void tui_draw_maps(struct ui *u, int lines, int cols);

/* The kernel's work for the workload: bulk system calls, THP collapse, swap-out, reclaim. */
void tui_draw_kernel(struct ui *u, int lines, int cols);

void tui_draw_help(const struct ui *u, int lines, int cols);

/* The terminal set up for drawing, the signals that must put it back handled. */
int tui_term_open(int *colour, int *utf8, struct sigaction *old, char *err, size_t errlen);

void tui_term_close(const struct sigaction *old);
/* The colour pairs (C_*), where the terminal has colours and NO_COLOR is not set: 1. */
int tui_colours(void);
/* 0 when the terminal of fd (TERM) can be drawn on: known, and able to move its cursor;
 * else -ENOTTY and why in err. ncurses draws on TERM=dumb line after line of blanks
 * (top printed 5 s of them). */
int tui_term_usable(int fd, const char *what, char *err, size_t errlen);

#endif
