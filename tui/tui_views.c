// SPDX-License-Identifier: GPL-2.0-only
/* The report's views: the overview, reuse batching, latency and timeline, and help; the
 * title, status line and bars they share. */
#include "tui_priv.h"

#include <curses.h>
#include <inttypes.h>
#include <string.h>

#include "util/escape.h"

static const char *const view_names[V_NR] = { "Overview", "Reuse", "Latency", "Timeline",
					      "Sites", "Mappings", "Kernel" };

const char *const tui_sort_names[TUI_NR_SORTS] = { "order", "faults", "total", "mean", "p99", "max" };

/* The cell a row shows: the views', and the screen's sort key. */
const struct fol_cell *tui_cell(const struct ui *u, const struct row *rw)
{
	return &u->r->s.order[rw->slot].cell[rw->cls];
}

void tui_style_on(const struct ui *u, int pair, int extra)
{
	attron((u->colour ? COLOR_PAIR(pair) : 0) | extra);
}

void tui_style_off(const struct ui *u, int pair, int extra)
{
	attroff((u->colour ? COLOR_PAIR(pair) : 0) | extra);
}

/* A bar of frac (0..1) of width w: eighth-blocks where the terminal has them. */
static void bar(const struct ui *u, int y, int x, int w, double frac)
{
	static const char *const eighths[] = { "", "▏", "▎", "▍", "▌", "▋", "▊", "▉" };
	int full, part;

	if (w <= 0)
		return;
	if (frac < 0)
		frac = 0;
	if (frac > 1)
		frac = 1;
	full = (int)(frac * w);
	part = (int)((frac * w - full) * 8);
	tui_style_on(u, C_BAR, 0);
	for (int i = 0; i < full; i++)
		mvaddstr(y, x + i, u->utf8 ? "█" : "#");
	if (full < w && part && u->utf8)
		mvaddstr(y, x + full, eighths[part]);
	tui_style_off(u, C_BAR, 0);
}

void tui_title(const struct ui *u, int cols)
{
	int x = 0;

	tui_style_on(u, C_TITLE, A_BOLD);
	mvhline(0, 0, ' ', cols);
	mvprintw(0, 0, " foliostat ");
	x = 11;
	for (int v = 0; v < V_NR && x + (int)strlen(view_names[v]) + 2 < cols; v++) {
		if (v == (int)u->view)
			attron(A_REVERSE);
		mvprintw(0, x, " %s ", view_names[v]);
		if (v == (int)u->view)
			attroff(A_REVERSE);
		x += (int)strlen(view_names[v]) + 3;
	}
	tui_style_off(u, C_TITLE, A_BOLD);
}

void tui_status(const struct ui *u, int lines, int cols, const char *keys)
{
	tui_style_on(u, C_DIM, A_REVERSE);
	mvhline(lines - 1, 0, ' ', cols);
	mvprintw(lines - 1, 0, " %.*s", cols - 2, keys);
	tui_style_off(u, C_DIM, A_REVERSE);
}

void tui_header(const struct ui *u, int *y, int cols)
{
	const struct fol_report *r = u->r;
	char d[24];
	uint64_t total = 0;
	char line[512], esc[256];

	fol_command_text(r->rec.command.v, r->rec.command.n, line, sizeof(line));
	for (int i = 0; i < r->nevents; i++)
		total += r->events[i].count;
	mvprintw((*y)++, 1, "%.*s", cols - 2, line[0] ? line : "(attached)");
	{
		mvprintw((*y)++, 1, "%.*s", cols - 2, "");
		mvprintw(*y - 1, 1, "kernel %s  %s  %" PRIu64 " samples  %" PRIu64 " lost  method %s",
			 fol_escape(r->rec.kernel ?: "?", esc, sizeof(esc)),
			 fol_fmt_ns(r->s.last_ns - r->s.first_ns, d, sizeof(d)), total,
			 r->st.lost ? r->st.lost : r->s.lost, r->method);
	}
	if (r->warnings.n) {
		tui_style_on(u, C_WARN, 0);
		mvprintw((*y)++, 1, "%d warning%s: %.*s", r->warnings.n, r->warnings.n > 1 ? "s" : "",
			 cols - 16, r->warnings.v[0]);
		tui_style_off(u, C_WARN, 0);
	} else if (r->notes.n) {
		tui_style_on(u, C_DIM, 0);
		mvprintw((*y)++, 1, "note: %.*s", cols - 8, r->notes.v[0]);
		tui_style_off(u, C_DIM, 0);
	}
}

/* The headline: reuse batching per large order, beside its fault time. */
static void headline(const struct ui *u, int *y, int cols)
{
	char line[512], sz[16], t[48];
	size_t used = 0;

	for (int slot = 0; slot < FOL_NR_ORDER_SLOTS && used < sizeof(line); slot++) {
		const struct fol_reuse *ru = &u->r->s.order[slot].reuse;
		int order = FOL_SLOT_ORDER(slot);

		if (order < 1 || !ru->episodes)
			continue;
		used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%s %.2f faults/episode, %.1f%%, %s",
					 used ? "   " : "reuse after fork: ",
					 fol_order_size(order, u->r->page_size, sz, sizeof(sz)),
					 (double)ru->faults / (double)ru->episodes,
					 100.0 * (double)ru->episodes / (double)ru->faults,
					 fol_fmt_ns(ru->time_ns, t, sizeof(t)));
	}
	if (!used)
		return;
	tui_style_on(u, C_TITLE, A_BOLD);
	mvprintw((*y)++, 1, "%.*s", cols - 2, line);
	tui_style_off(u, C_TITLE, A_BOLD);
}

void tui_draw_overview(struct ui *u, int lines, int cols)
{
	const struct fol_summary *s = &u->r->s;
	char sz[16], t1[48], t2[48], t3[48], t4[48];
	int y = 1, vis;

	tui_header(u, &y, cols);
	headline(u, &y, cols);
	y++;
	attron(A_BOLD);
	mvprintw(y++, 1, "%7s %-10s %9s %10s %9s %9s %9s", "order", "class", "faults", "total", "mean",
		 "p99", "max");
	attroff(A_BOLD);
	vis = lines - y - 4;
	if (vis < 1)
		vis = 1;
	if (u->sel < u->top)
		u->top = u->sel;
	if (u->sel >= u->top + vis)
		u->top = u->sel - vis + 1;
	for (int i = u->top; i < u->nrows && i < u->top + vis; i++) {
		const struct fol_cell *c = tui_cell(u, &u->rows[i]);
		const struct fol_hist *h = &c->lat;

		if (i == u->sel)
			tui_style_on(u, C_SEL, A_REVERSE);
		mvhline(y, 0, ' ', cols);
		mvprintw(y, 1, "%7s %-10s %9" PRIu64 " %s %s %s %s",
			 fol_order_size(FOL_SLOT_ORDER(u->rows[i].slot), u->r->page_size, sz, sizeof(sz)),
			 fol_class_name((enum fol_class)u->rows[i].cls), c->faults,
			 fol_fmt_ns_col(fol_cell_time(s, c), h->count > 0 || s->sampled, 10, t1, sizeof(t1)),
			 fol_fmt_ns_col(fol_hist_mean(h), h->count > 0, 9, t2, sizeof(t2)),
			 fol_fmt_ns_col(fol_hist_quantile(h, 0.99), h->count > 0, 9, t3, sizeof(t3)),
			 fol_fmt_ns_col(h->max, h->count > 0, 9, t4, sizeof(t4)));
		if (i == u->sel)
			tui_style_off(u, C_SEL, A_REVERSE);
		y++;
	}
	if (!u->nrows)
		mvprintw(y++, 1, "no faults%s", u->filter[0] ? " match the filter" : "");
	if (u->nrows) {
		const struct fol_cell *c = tui_cell(u, &u->rows[u->sel]);
		uint64_t all = fol_total_time(s);
		double share = all ? (double)fol_cell_time(s, c) / (double)all : 0;

		y = lines - 3;
		mvprintw(y, 1, "share of fault time %5.1f%% ", 100 * share);
		bar(u, y, 29, cols - 31, share);
	}
	mvprintw(lines - 2, 1, "sort: %s%s%s", tui_sort_names[u->sort], u->filter[0] ? "  filter: " : "",
		 u->filter);
	tui_status(u, lines, cols, "Tab view  Up/Down select  Enter latency  s sort  / filter  ? help  q quit");
}

int tui_reuse_orders(const struct ui *u, int *slots)
{
	int n = 0;

	for (int slot = FOL_ORDER_SLOT(1); slot < FOL_NR_ORDER_SLOTS; slot++)
		if (u->r->s.order[slot].reuse.folios)
			slots[n++] = slot;
	return n;
}

void tui_draw_reuse(struct ui *u, int lines, int cols)
{
	int slots[FOL_NR_ORDER_SLOTS], n = tui_reuse_orders(u, slots), y = 1;
	char sz[16], t[48];

	tui_header(u, &y, cols);
	y++;
	if (!n) {
		mvprintw(y, 1, "No write-protect reuse faults on large folios in this recording.");
		tui_status(u, lines, cols, "Tab view  ? help  q quit");
		return;
	}
	if (u->reuse_sel >= n)
		u->reuse_sel = n - 1;
	attron(A_BOLD);
	mvprintw(y++, 1, "%6s %8s %8s %14s %11s %10s  effectiveness", "order", "folios", "faults",
		 "faults/episode", "pages/fault", "surplus");
	attroff(A_BOLD);
	for (int i = 0; i < n && y < lines - 3; i++) {
		const struct fol_reuse *ru = &u->r->s.order[slots[i]].reuse;
		int order = FOL_SLOT_ORDER(slots[i]);
		double eff = (double)ru->episodes / (double)ru->faults;

		if (i == u->reuse_sel)
			tui_style_on(u, C_SEL, A_REVERSE);
		mvhline(y, 0, ' ', cols);
		mvprintw(y, 1, "%6s %8" PRIu64 " %8" PRIu64 " %14.2f %11.2f %s %5.1f%% ",
			 fol_order_size(order, u->r->page_size, sz, sizeof(sz)), ru->folios, ru->faults,
			 (double)ru->faults / (double)ru->episodes,
			 (double)(ru->episodes << order) / (double)ru->faults,
			 fol_fmt_ns_col(ru->surplus_ns, 1, 10, t, sizeof(t)), 100 * eff);
		if (i == u->reuse_sel)
			tui_style_off(u, C_SEL, A_REVERSE);
		bar(u, y, 71, cols - 72, eff);
		y++;
	}
	if (u->reuse_hist) {
		const struct fol_reuse *ru = &u->r->s.order[slots[u->reuse_sel]].reuse;
		uint64_t most = 1;

		y++;
		attron(A_BOLD);
		mvprintw(y++, 1, "episodes by faults, %s folios (1 fault is ideal)",
			 fol_order_size(FOL_SLOT_ORDER(slots[u->reuse_sel]), u->r->page_size, sz, sizeof(sz)));
		attroff(A_BOLD);
		for (int b = 0; b < FOL_REUSE_BUCKETS; b++)
			if (ru->hist[b] > most)
				most = ru->hist[b];
		for (int b = 0; b < FOL_REUSE_BUCKETS && y < lines - 2; b++, y++) {
			mvprintw(y, 1, "%8s %8" PRIu64 " ", fol_reuse_bucket_label(b), ru->hist[b]);
			bar(u, y, 19, cols - 21, (double)ru->hist[b] / (double)most);
		}
	} else {
		mvprintw(y + 1, 1, "Enter: the faults-per-episode histogram of the selected order");
	}
	tui_status(u, lines, cols, "Tab view  Up/Down select  Enter histogram  Esc back  ? help  q quit");
}

int tui_quarter(uint64_t v)
{
	int p;

	if (v < 4)
		return (int)v;
	p = 63 - __builtin_clzll(v);
	return p * 4 + (int)((v >> (p - 2)) & 3);
}

uint64_t tui_quarter_start(int q)
{
	if (q < 4)
		return (uint64_t)q;
	return (1ull << (q / 4)) + ((uint64_t)(q % 4) << (q / 4 - 2));
}

void tui_draw_latency(struct ui *u, int lines, int cols)
{
	const struct fol_hist *h;
	uint64_t counts[256] = { 0 }, most = 1, p50, p90, p99;
	int y = 1, lo = 256, hi = -1;
	char sz[16], a[48], b[48], c2[48], d[48];

	tui_header(u, &y, cols);
	y++;
	if (!u->nrows) {
		mvprintw(y, 1, "no faults");
		tui_status(u, lines, cols, "Tab view  q quit");
		return;
	}
	h = u->gap ? &tui_cell(u, &u->rows[u->sel])->gap : &tui_cell(u, &u->rows[u->sel])->lat;
	attron(A_BOLD);
	mvprintw(y++, 1, "%s %s %s faults: %" PRIu64, u->gap ? "gap before" : "handler latency of",
		 fol_order_size(FOL_SLOT_ORDER(u->rows[u->sel].slot), u->r->page_size, sz, sizeof(sz)),
		 fol_class_name((enum fol_class)u->rows[u->sel].cls), h->count);
	attroff(A_BOLD);
	if (!h->count) {
		mvprintw(y, 1, "no %s measured for these faults", u->gap ? "gaps" : "latency");
		tui_status(u, lines, cols, "Tab view  g gap/latency  Up/Down row  q quit");
		return;
	}
	p50 = fol_hist_quantile(h, 0.5);
	p90 = fol_hist_quantile(h, 0.9);
	p99 = fol_hist_quantile(h, 0.99);
	mvprintw(y++, 1, "p50 %s  p90 %s  p99 %s  max %s", fol_fmt_ns(p50, a, sizeof(a)),
		 fol_fmt_ns(p90, b, sizeof(b)), fol_fmt_ns(p99, c2, sizeof(c2)),
		 fol_fmt_ns(h->max, d, sizeof(d)));
	/* Rows of a quarter octave each, from the histogram's log-linear buckets (16 per
	 * octave): fine enough to see a distribution's shape, few enough for 24 lines. */
	for (int i = 0; h->b && i < FOL_HIST_BUCKETS; i++) {
		uint64_t blo, bhi;
		int p;

		if (!h->b[i])
			continue;
		fol_hist_bucket_range(i, &blo, &bhi);
		p = tui_quarter(blo);
		counts[p] += h->b[i];
		if (p < lo)
			lo = p;
		if (p > hi)
			hi = p;
	}
	for (int p = lo; p <= hi; p++)
		if (counts[p] > most)
			most = counts[p];
	if (hi - lo > lines - y - 3) /* too many rows: start at the tail's end instead */
		lo = hi - (lines - y - 3);
	for (int p = lo; p <= hi && y < lines - 2; p++, y++) {
		char mark[24] = "";

		if (tui_quarter(p50) == p)
			strcat(mark, " p50");
		if (tui_quarter(p90) == p)
			strcat(mark, " p90");
		if (tui_quarter(p99) == p)
			strcat(mark, " p99");
		if (tui_quarter(h->max) == p)
			strcat(mark, " max");
		mvprintw(y, 1, "%s %9" PRIu64, fol_fmt_ns_col(tui_quarter_start(p), 1, 10, a, sizeof(a)),
			 counts[p]);
		tui_style_on(u, C_MARK, A_BOLD);
		mvprintw(y, 22, "%-16s", mark);
		tui_style_off(u, C_MARK, A_BOLD);
		bar(u, y, 39, cols - 41, (double)counts[p] / (double)most);
	}
	tui_status(u, lines, cols, "Tab view  g gap/latency  Up/Down row  ? help  q quit");
}

void tui_draw_timeline(struct ui *u, int lines, int cols)
{
	static const char *const levels[] = { " ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
	static const char ascii[] = " .:-=+*#@";
	const struct fol_summary *s = &u->r->s;
	int y = 1, w = cols - 16, per;
	char a[24], b[24];

	tui_header(u, &y, cols);
	y++;
	if (w < 8 || !s->nbins) {
		mvprintw(y, 1, "no faults over time");
		tui_status(u, lines, cols, "Tab view  q quit");
		return;
	}
	per = (s->nbins + w - 1) / w;
	attron(A_BOLD);
	mvprintw(y++, 1, "faults per %s column, by class, over %s",
		 fol_fmt_ns(s->bin_ns * (uint64_t)per, a, sizeof(a)),
		 fol_fmt_ns(s->bin_ns * (uint64_t)s->nbins, b, sizeof(b)));
	attroff(A_BOLD);
	for (int c = 0; c < FOL_NR_CLASSES && y < lines - 6; c++) {
		uint64_t most = 0, total = 0;

		for (int x = 0; x * per < s->nbins; x++) {
			uint64_t v = 0;

			for (int k = x * per; k < (x + 1) * per && k < s->nbins; k++)
				v += s->bins[(size_t)k * FOL_NR_CLASSES + (size_t)c];
			if (v > most)
				most = v;
			total += v;
		}
		if (!total)
			continue;
		mvprintw(y, 1, "%-10s", fol_class_name((enum fol_class)c));
		tui_style_on(u, C_BAR, 0);
		for (int x = 0; x * per < s->nbins && x < w; x++) {
			uint64_t v = 0;
			int lvl;

			for (int k = x * per; k < (x + 1) * per && k < s->nbins; k++)
				v += s->bins[(size_t)k * FOL_NR_CLASSES + (size_t)c];
			lvl = v ? 1 + (int)((v * 7) / most) : 0;
			if (u->utf8)
				mvaddstr(y, 12 + x, levels[lvl]);
			else
				mvaddch(y, 12 + x, (chtype)ascii[lvl]);
		}
		tui_style_off(u, C_BAR, 0);
		mvprintw(y + 1, 12, "max %" PRIu64 " per column, %" PRIu64 " in all", most, total);
		y += 2;
	}
	y++;
	attron(A_BOLD);
	mvprintw(y++, 1, "PMU counters (whole run)");
	attroff(A_BOLD);
	for (int i = 0; i < u->r->rec.npmu; i++) {
		const struct fol_pmu_count *p = &u->r->rec.pmu[i];

		if (y >= lines - 1)
			break;
		if (p->supported && p->counted)
			mvprintw(y++, 1, "%-20s %14.0f", p->event ?: "?", p->value);
		else
			mvprintw(y++, 1, "%-20s %14s", p->event ?: "?", "not supported");
	}
	tui_status(u, lines, cols, "Tab view  ? help  q quit");
}

void tui_draw_help(const struct ui *u, int lines, int cols)
{
	static const char *const text[] = {
		"foliostat tui: the report of a recording, navigable",
		"",
		"Tab / Shift-Tab   next / previous view",
		"Up / Down, j / k  select a row;  PgUp / PgDn, Home / End",
		"Enter             Overview: latency of the row;  Reuse: its histogram;",
		"                  Sites: the call stacks of the function (record -g)",
		"Esc               back",
		"s                 Overview: cycle the sort column",
		"/                 Overview: filter rows (e.g. 64K, wp_reuse); empty clears",
		"g                 Latency: handler latency / gap before the fault",
		"Sites, Mappings   faults by function and mapping; by mapping",
		"Kernel            system calls, THP collapse (khugepaged's share), swap-out",
		"?                 this help;  q  quit",
		"",
		"Latency: exceptions:page_fault_* entry to the minor-/major-faults sample at",
		"the end of handle_mm_fault(), per fault. Effectiveness: folios / reuse",
		"faults (100% = one write fault per folio).",
	};
	int h = (int)(sizeof(text) / sizeof(text[0])) + 2, w = 78;
	int y0 = (lines - h) / 2, x0 = (cols - w) / 2;

	if (y0 < 0)
		y0 = 0;
	if (x0 < 0)
		x0 = 0;
	for (int i = 0; i < h && y0 + i < lines; i++) {
		mvhline(y0 + i, x0, ' ', w < cols ? w : cols);
		if (i > 0 && i < h - 1)
			mvprintw(y0 + i, x0 + 2, "%.*s", cols - x0 - 3, text[i - 1]);
	}
	(void)u;
	attron(A_REVERSE);
	mvprintw(y0, x0, " Help ");
	attroff(A_REVERSE);
}
