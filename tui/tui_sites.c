// SPDX-License-Identifier: GPL-2.0-only
/* The views of where faults come from: sites by the report's sort keys, their stacks, the
 * page tables at the end (maps) and the kernel's own work (system calls, collapse). */
#include "tui_priv.h"

#include <curses.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model/sites.h"
#include "util/escape.h"

/* One grouping of the sites as rows: share of fault time, faults, total, then the keys;
 * the selected row (sel, -1: none) kept in sight by scrolling *top. */
static int draw_groups(const struct ui *u, int y, int last, int cols, const struct fol_grouping *g,
		       const char *title_text, int sel, int *top)
{
	char t[48], line[640], esc[512];
	int vis;

	attron(A_BOLD);
	mvprintw(y++, 1, "%.*s (%zu)", cols - 10, title_text, g->n);
	attroff(A_BOLD);
	vis = last - y > 1 ? last - y : 1;
	if (sel >= 0 && sel < *top)
		*top = sel;
	if (sel >= *top + vis)
		*top = sel - vis + 1;
	for (size_t i = (size_t)*top; i < g->n && y < last; i++) {
		size_t used = (size_t)snprintf(line, sizeof(line), "%5.1f%% %8" PRIu64 " %s ",
					       g->time_ns ? 100.0 * (double)g->v[i].time_ns / (double)g->time_ns : 0.0,
					       g->v[i].faults, fol_fmt_ns_col(g->v[i].time_ns, 1, 10, t, sizeof(t)));

		for (int k = 0; k < g->nkeys && used < sizeof(line); k++)
			used += (size_t)snprintf(line + used, sizeof(line) - used, " %s",
						 fol_escape(g->v[i].part[g->keys[k]], esc, sizeof(esc)));
		if ((int)i == sel)
			tui_style_on(u, C_SEL, A_REVERSE);
		mvhline(y, 0, ' ', cols);
		mvprintw(y++, 1, "%.*s", cols - 2, line);
		if ((int)i == sel)
			tui_style_off(u, C_SEL, A_REVERSE);
	}
	if (!g->n && y < last)
		mvprintw(y++, 1, "no sites");
	return y;
}

static void group_sites(struct ui *u)
{
	static const int by_sym[] = { FOL_SORT_ORDER, FOL_SORT_CLASS, FOL_SORT_SYM, FOL_SORT_MAP };
	static const int by_map[] = { FOL_SORT_MAP };
	static const int by_map_cell[] = { FOL_SORT_ORDER, FOL_SORT_CLASS, FOL_SORT_MAP };

	if (u->grouped)
		return;
	u->grouped = 1;
	if (fol_report_group(u->r, by_sym, 4, &u->sites))
		memset(&u->sites, 0, sizeof(u->sites));
	if (fol_report_group(u->r, by_map, 1, &u->maps))
		memset(&u->maps, 0, sizeof(u->maps));
	if (fol_report_group(u->r, by_map_cell, 3, &u->map_cells))
		memset(&u->map_cells, 0, sizeof(u->map_cells));
}

static int stacks_by_time(const void *a, const void *b)
{
	const struct fol_folded *x = a, *y = b;

	return x->time_ns < y->time_ns ? 1 : x->time_ns > y->time_ns ? -1 : strcmp(x->line, y->line);
}

void tui_open_stacks(struct ui *u)
{
	fol_folded_free(&u->stacks);
	u->stacks_top = 0;
	u->stacks_shown = 1;
	u->stacks_err = u->sites.n ? fol_report_stacks(u->r, &u->sites, (size_t)u->site_sel, &u->stacks)
				   : -ENOENT;
	if (!u->stacks_err && u->stacks.n)
		qsort(u->stacks.v, u->stacks.n, sizeof(*u->stacks.v), stacks_by_time);
}

/* One stack: its share, faults and time with the thread's name, then its frames from the
 * faulting function outwards, as perf report shows a callee's chains. */
static int draw_stack(int y, int last, int cols, const struct fol_folded *st, uint64_t all_ns)
{
	char t[48], esc[512], line[FOL_STACK_MAX * 160 + 64];
	char *frames[FOL_STACK_MAX + 1], *p;
	int n = 0;

	snprintf(line, sizeof(line), "%s", st->line);
	for (p = strtok(line, ";"); p && n < FOL_STACK_MAX + 1; p = strtok(NULL, ";"))
		frames[n++] = p;
	attron(A_BOLD);
	mvprintw(y++, 1, "%5.1f%% %8" PRIu64 " faults %s  %.*s", all_ns ? 100.0 * (double)st->time_ns / (double)all_ns : 0.0,
		 st->faults, fol_fmt_ns_col(st->time_ns, 1, 10, t, sizeof(t)), cols - 40,
		 n ? fol_escape(frames[0], esc, sizeof(esc)) : "");
	attroff(A_BOLD);
	for (int k = n - 1; k >= 1 && y < last; k--)
		mvprintw(y++, 4, "%s %.*s", k == n - 1 ? "" : "<-", cols - 8, fol_escape(frames[k], esc, sizeof(esc)));
	return y + 1;
}

static void draw_stacks(struct ui *u, int lines, int cols)
{
	const struct fol_group *g = &u->sites.v[u->site_sel];
	char esc[512];
	int y = 1;

	tui_header(u, &y, cols);
	attron(A_BOLD);
	mvprintw(++y, 1, "call stacks of %s %s faults in %.*s", g->part[FOL_SORT_ORDER], g->part[FOL_SORT_CLASS],
		 cols - 40, fol_escape(g->part[FOL_SORT_SYM], esc, sizeof(esc)));
	attroff(A_BOLD);
	mvprintw(++y, 1, "on %.*s (%zu stack%s)", cols - 20, fol_escape(g->part[FOL_SORT_MAP], esc, sizeof(esc)),
		 u->stacks.n, u->stacks.n == 1 ? "" : "s");
	y += 2;
	if (u->stacks_err == -ENOENT)
		mvprintw(y, 1, "no call stacks: record with -g (frame pointers) to have them");
	else if (u->stacks_err)
		mvprintw(y, 1, "the call stacks could not be read: %s", strerror(-u->stacks_err));
	for (size_t i = (size_t)u->stacks_top; i < u->stacks.n && y < lines - 2; i++)
		y = draw_stack(y, lines - 2, cols, &u->stacks.v[i], g->time_ns);
	tui_status(u, lines, cols, "Up/Down scroll  Esc back  ? help  q quit   (report --folded for all)");
}

void tui_draw_sites(struct ui *u, int lines, int cols)
{
	int y = 1;

	group_sites(u);
	if (u->stacks_shown && u->site_sel < (int)u->sites.n) {
		draw_stacks(u, lines, cols);
		return;
	}
	tui_header(u, &y, cols);
	y++;
	draw_groups(u, y, lines - 2, cols, &u->sites, "time%   faults      total  order class function mapping",
		    u->site_sel, &u->site_top);
	tui_status(u, lines, cols, "Tab view  Up/Down select  Enter call stacks  ? help  q quit");
}

void tui_draw_maps(struct ui *u, int lines, int cols)
{
	int y = 1, mid, none = 0;

	group_sites(u);
	tui_header(u, &y, cols);
	y++;
	mid = y + (lines - 2 - y) / 2;
	y = draw_groups(u, y, mid, cols, &u->maps, "time%   faults      total  mapping", u->map_sel, &u->map_top);
	draw_groups(u, y + 1, lines - 2, cols, &u->map_cells, "time%   faults      total  order class mapping",
		    -1, &none);
	tui_status(u, lines, cols, "Tab view  Up/Down select  ? help  q quit   (report --sort map,... for any keys)");
}

static int kernel_calls(const struct ui *u, int y, int last, int cols)
{
	const struct fol_summary *s = &u->r->s;
	char t[2][48], sw[160];

	for (int c = 0; c < FOL_NR_CALLS && y < last; c++) {
		const struct fol_call_stats *cs = &s->calls[c];

		if (!cs->calls)
			continue;
		fol_swapout_text(&cs->swapped, u->r->page_size, 1, sw, sizeof(sw));
		mvprintw(y++, 1, "%-17s %6" PRIu64 " %8.1f %s %s  %.*s", fol_call_name((enum fol_call)c),
			 cs->calls, (double)cs->bytes / (1 << 20),
			 fol_fmt_ns_col(cs->time.sum, cs->time.count, 10, t[0], sizeof(t[0])),
			 fol_fmt_ns_col(fol_hist_quantile(&cs->time, 0.99), cs->time.count, 9, t[1], sizeof(t[1])),
			 cols > 60 ? cols - 60 : 0, sw);
	}
	return y;
}

static int kernel_collapse(const struct ui *u, int y, int last)
{
	const struct fol_collapse *c = &u->r->s.collapse;
	char name[32];

	for (int st = 0; st < FOL_SCAN_RESULTS && y < last; st++)
		if (c->scans[st] || c->collapses[st])
			mvprintw(y++, 1, "%-28s %8" PRIu64 " %9" PRIu64 " %11" PRIu64 " %9" PRIu64,
				 fol_scan_result(u->r, st, name, sizeof(name)), c->scans[st],
				 c->collapses[st], c->khugepaged_scans[st], c->khugepaged_collapses[st]);
	if (y < last && (c->other_scans || c->unattributed_scans || c->other_collapses ||
			 c->unattributed_collapses))
		mvprintw(y++, 1, "khugepaged elsewhere: %" PRIu64 "/%" PRIu64 " scans/collapses of other "
			 "processes, %" PRIu64 "/%" PRIu64 " not attributable", c->other_scans,
			 c->other_collapses, c->unattributed_scans, c->unattributed_collapses);
	return y;
}

void tui_draw_kernel(struct ui *u, int lines, int cols)
{
	const struct fol_summary *s = &u->r->s;
	const struct fol_reclaim *rc = &s->reclaim;
	int y = 1, last = lines - 2, y0;
	char buf[160], t[2][48];

	tui_header(u, &y, cols);
	y++;
	attron(A_BOLD);
	snprintf(buf, sizeof(buf), "%-17s %6s %8s %10s %9s  %s", "system call", "calls", "MiB",
		 "total", "p99", "written to swap");
	mvprintw(y++, 1, "%.*s", cols - 2, buf);
	attroff(A_BOLD);
	y0 = y;
	y = kernel_calls(u, y, last, cols);
	if (y == y0 && y < last)
		mvprintw(y++, 1, "no munmap, mremap, mprotect or madvise recorded");
	if (++y < last) {
		attron(A_BOLD);
		mvprintw(y++, 1, "%-28s %8s %9s %21s", "THP collapse, by result", "scans", "collapses",
			 "of which khugepaged's");
		attroff(A_BOLD);
	}
	y0 = y;
	y = kernel_collapse(u, y, last);
	if (y == y0 && y < last)
		mvprintw(y++, 1, "no collapse of the recorded processes' memory");
	fol_swapout_text(&s->swapout, u->r->page_size, 1, buf, sizeof(buf));
	if (++y < last)
		mvprintw(y++, 1, "swap-out, by order allocated at: %.*s", cols - 36, buf[0] ? buf : "none");
	if (y < last)
		mvprintw(y++, 1, "direct reclaim: %" PRIu64 " times, %s;  kswapd awake %s (%" PRIu64 " wakes)",
			 rc->direct, fol_fmt_ns(rc->direct_time.sum, t[0], sizeof(t[0])),
			 fol_fmt_ns(rc->kswapd_ns, t[1], sizeof(t[1])), rc->kswapd_wakes);
	tui_status(u, lines, cols, "Tab view  ? help  q quit");
}
