// SPDX-License-Identifier: GPL-2.0-only
#include "tui.h"

#include "compare/compare.h"
#include "report/report_sites.h"
#include "model/sites.h"
#include "util/escape.h"

#include <curses.h>
#include <errno.h>
#include <inttypes.h>
#include <langinfo.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum view { V_OVERVIEW, V_REUSE, V_LATENCY, V_TIMELINE, V_SITES, V_MAPS, V_KERNEL, V_NR };
static const char *const view_names[V_NR] = { "Overview", "Reuse", "Latency", "Timeline",
					      "Sites", "Mappings", "Kernel" };

enum { C_TITLE = 1, C_SEL, C_BAR, C_DIM, C_WARN, C_MARK, C_WORSE };

/* One row of the order x class table: indexes into the summary, nothing computed. */
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

static const char *const sort_names[] = { "order", "faults", "total", "mean", "p99", "max" };

static void restore_terminal(void)
{
	if (!isendwin())
		endwin();
}

static void on_fatal_signal(int sig)
{
	restore_terminal();
	signal(sig, SIG_DFL);
	raise(sig);
}

static const struct fol_cell *cell(const struct ui *u, const struct row *rw)
{
	return &u->r->s.order[rw->slot].cell[rw->cls];
}

static uint64_t sort_key(const struct ui *u, const struct row *rw)
{
	const struct fol_cell *c = cell(u, rw);

	switch (u->sort) {
	case 1: return c->faults;
	case 2: return fol_cell_time(&u->r->s, c);
	case 3: return fol_hist_mean(&c->lat);
	case 4: return fol_hist_quantile(&c->lat, 0.99);
	case 5: return c->lat.max;
	default: return 0;
	}
}

static const struct ui *sort_ui;

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	uint64_t kx = sort_key(sort_ui, x), ky = sort_key(sort_ui, y);

	if (kx != ky)
		return kx < ky ? 1 : -1; /* largest first */
	if (x->slot != y->slot)
		return x->slot - y->slot;
	return x->cls - y->cls;
}

static void build_rows(struct ui *u)
{
	char sz[16], text[64];

	u->nrows = 0;
	for (int slot = 0; slot < FOL_NR_ORDER_SLOTS; slot++)
		for (int c = 0; c < FOL_NR_CLASSES; c++) {
			if (!u->r->s.order[slot].cell[c].faults)
				continue;
			snprintf(text, sizeof(text), "%s %s",
				 fol_order_size(FOL_SLOT_ORDER(slot), u->r->page_size, sz, sizeof(sz)),
				 fol_class_name((enum fol_class)c));
			if (u->filter[0] && !strstr(text, u->filter))
				continue;
			u->rows[u->nrows++] = (struct row){ slot, c };
		}
	sort_ui = u;
	if (u->sort)
		qsort(u->rows, (size_t)u->nrows, sizeof(u->rows[0]), row_cmp);
	if (u->sel >= u->nrows)
		u->sel = u->nrows ? u->nrows - 1 : 0;
}

static void style_on(const struct ui *u, int pair, int extra)
{
	attron((u->colour ? COLOR_PAIR(pair) : 0) | extra);
}

static void style_off(const struct ui *u, int pair, int extra)
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
	style_on(u, C_BAR, 0);
	for (int i = 0; i < full; i++)
		mvaddstr(y, x + i, u->utf8 ? "█" : "#");
	if (full < w && part && u->utf8)
		mvaddstr(y, x + full, eighths[part]);
	style_off(u, C_BAR, 0);
}

static void title(const struct ui *u, int cols)
{
	int x = 0;

	style_on(u, C_TITLE, A_BOLD);
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
	style_off(u, C_TITLE, A_BOLD);
}

static void status(const struct ui *u, int lines, int cols, const char *keys)
{
	style_on(u, C_DIM, A_REVERSE);
	mvhline(lines - 1, 0, ' ', cols);
	mvprintw(lines - 1, 0, " %.*s", cols - 2, keys);
	style_off(u, C_DIM, A_REVERSE);
}

static void header(const struct ui *u, int *y, int cols)
{
	const struct fol_report *r = u->r;
	char d[24];
	uint64_t total = 0;
	const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(r->meta, "command");
	char line[512], esc[256];

	fol_command_text(cmd, line, sizeof(line));
	for (int i = 0; i < r->nevents; i++)
		total += r->events[i].count;
	mvprintw((*y)++, 1, "%.*s", cols - 2, line[0] ? line : "(attached)");
	{
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(r->meta, "kernel");

		mvprintw((*y)++, 1, "%.*s", cols - 2, "");
		mvprintw(*y - 1, 1, "kernel %s  %s  %" PRIu64 " samples  %" PRIu64 " lost  method %s",
			 fol_escape(cJSON_GetStringValue(k) ?: "?", esc, sizeof(esc)),
			 fol_fmt_ns(r->s.last_ns - r->s.first_ns, d, sizeof(d)), total,
			 r->st.lost ? r->st.lost : r->s.lost, r->method);
	}
	if (r->warnings.n) {
		style_on(u, C_WARN, 0);
		mvprintw((*y)++, 1, "%d warning%s: %.*s", r->warnings.n, r->warnings.n > 1 ? "s" : "",
			 cols - 16, r->warnings.v[0]);
		style_off(u, C_WARN, 0);
	} else if (r->notes.n) {
		style_on(u, C_DIM, 0);
		mvprintw((*y)++, 1, "note: %.*s", cols - 8, r->notes.v[0]);
		style_off(u, C_DIM, 0);
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
	style_on(u, C_TITLE, A_BOLD);
	mvprintw((*y)++, 1, "%.*s", cols - 2, line);
	style_off(u, C_TITLE, A_BOLD);
}

static void draw_overview(struct ui *u, int lines, int cols)
{
	const struct fol_summary *s = &u->r->s;
	char sz[16], t1[48], t2[48], t3[48], t4[48];
	int y = 1, vis;

	header(u, &y, cols);
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
		const struct fol_cell *c = cell(u, &u->rows[i]);
		const struct fol_hist *h = &c->lat;

		if (i == u->sel)
			style_on(u, C_SEL, A_REVERSE);
		mvhline(y, 0, ' ', cols);
		mvprintw(y, 1, "%7s %-10s %9" PRIu64 " %s %s %s %s",
			 fol_order_size(FOL_SLOT_ORDER(u->rows[i].slot), u->r->page_size, sz, sizeof(sz)),
			 fol_class_name((enum fol_class)u->rows[i].cls), c->faults,
			 fol_fmt_ns_col(fol_cell_time(s, c), h->count > 0 || s->sampled, 10, t1, sizeof(t1)),
			 fol_fmt_ns_col(fol_hist_mean(h), h->count > 0, 9, t2, sizeof(t2)),
			 fol_fmt_ns_col(fol_hist_quantile(h, 0.99), h->count > 0, 9, t3, sizeof(t3)),
			 fol_fmt_ns_col(h->max, h->count > 0, 9, t4, sizeof(t4)));
		if (i == u->sel)
			style_off(u, C_SEL, A_REVERSE);
		y++;
	}
	if (!u->nrows)
		mvprintw(y++, 1, "no faults%s", u->filter[0] ? " match the filter" : "");
	if (u->nrows) {
		const struct fol_cell *c = cell(u, &u->rows[u->sel]);
		uint64_t all = fol_total_time(s);
		double share = all ? (double)fol_cell_time(s, c) / (double)all : 0;

		y = lines - 3;
		mvprintw(y, 1, "share of fault time %5.1f%% ", 100 * share);
		bar(u, y, 29, cols - 31, share);
	}
	mvprintw(lines - 2, 1, "sort: %s%s%s", sort_names[u->sort], u->filter[0] ? "  filter: " : "",
		 u->filter);
	status(u, lines, cols, "Tab view  Up/Down select  Enter latency  s sort  / filter  ? help  q quit");
}

static int reuse_orders(const struct ui *u, int *slots)
{
	int n = 0;

	for (int slot = FOL_ORDER_SLOT(1); slot < FOL_NR_ORDER_SLOTS; slot++)
		if (u->r->s.order[slot].reuse.folios)
			slots[n++] = slot;
	return n;
}

static void draw_reuse(struct ui *u, int lines, int cols)
{
	int slots[FOL_NR_ORDER_SLOTS], n = reuse_orders(u, slots), y = 1;
	char sz[16], t[48];

	header(u, &y, cols);
	y++;
	if (!n) {
		mvprintw(y, 1, "No write-protect reuse faults on large folios in this recording.");
		status(u, lines, cols, "Tab view  ? help  q quit");
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
			style_on(u, C_SEL, A_REVERSE);
		mvhline(y, 0, ' ', cols);
		mvprintw(y, 1, "%6s %8" PRIu64 " %8" PRIu64 " %14.2f %11.2f %s %5.1f%% ",
			 fol_order_size(order, u->r->page_size, sz, sizeof(sz)), ru->folios, ru->faults,
			 (double)ru->faults / (double)ru->episodes,
			 (double)(ru->episodes << order) / (double)ru->faults,
			 fol_fmt_ns_col(ru->surplus_ns, 1, 10, t, sizeof(t)), 100 * eff);
		if (i == u->reuse_sel)
			style_off(u, C_SEL, A_REVERSE);
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
	status(u, lines, cols, "Tab view  Up/Down select  Enter histogram  Esc back  ? help  q quit");
}

/* Quarter-octave row of a value, and the value where a row starts. */
static int quarter(uint64_t v)
{
	int p;

	if (v < 4)
		return (int)v;
	p = 63 - __builtin_clzll(v);
	return p * 4 + (int)((v >> (p - 2)) & 3);
}

static uint64_t quarter_start(int q)
{
	if (q < 4)
		return (uint64_t)q;
	return (1ull << (q / 4)) + ((uint64_t)(q % 4) << (q / 4 - 2));
}

static void draw_latency(struct ui *u, int lines, int cols)
{
	const struct fol_hist *h;
	uint64_t counts[256] = { 0 }, most = 1, p50, p90, p99;
	int y = 1, lo = 256, hi = -1;
	char sz[16], a[48], b[48], c2[48], d[48];

	header(u, &y, cols);
	y++;
	if (!u->nrows) {
		mvprintw(y, 1, "no faults");
		status(u, lines, cols, "Tab view  q quit");
		return;
	}
	h = u->gap ? &cell(u, &u->rows[u->sel])->gap : &cell(u, &u->rows[u->sel])->lat;
	attron(A_BOLD);
	mvprintw(y++, 1, "%s %s %s faults: %" PRIu64, u->gap ? "gap before" : "handler latency of",
		 fol_order_size(FOL_SLOT_ORDER(u->rows[u->sel].slot), u->r->page_size, sz, sizeof(sz)),
		 fol_class_name((enum fol_class)u->rows[u->sel].cls), h->count);
	attroff(A_BOLD);
	if (!h->count) {
		mvprintw(y, 1, "no %s measured for these faults", u->gap ? "gaps" : "latency");
		status(u, lines, cols, "Tab view  g gap/latency  Up/Down row  q quit");
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
		p = quarter(blo);
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

		if (quarter(p50) == p)
			strcat(mark, " p50");
		if (quarter(p90) == p)
			strcat(mark, " p90");
		if (quarter(p99) == p)
			strcat(mark, " p99");
		if (quarter(h->max) == p)
			strcat(mark, " max");
		mvprintw(y, 1, "%s %9" PRIu64, fol_fmt_ns_col(quarter_start(p), 1, 10, a, sizeof(a)),
			 counts[p]);
		style_on(u, C_MARK, A_BOLD);
		mvprintw(y, 22, "%-16s", mark);
		style_off(u, C_MARK, A_BOLD);
		bar(u, y, 39, cols - 41, (double)counts[p] / (double)most);
	}
	status(u, lines, cols, "Tab view  g gap/latency  Up/Down row  ? help  q quit");
}

static void draw_timeline(struct ui *u, int lines, int cols)
{
	static const char *const levels[] = { " ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
	static const char ascii[] = " .:-=+*#@";
	const struct fol_summary *s = &u->r->s;
	int y = 1, w = cols - 16, per;
	char a[24], b[24];
	const cJSON *p;

	header(u, &y, cols);
	y++;
	if (w < 8 || !s->nbins) {
		mvprintw(y, 1, "no faults over time");
		status(u, lines, cols, "Tab view  q quit");
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
		style_on(u, C_BAR, 0);
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
		style_off(u, C_BAR, 0);
		mvprintw(y + 1, 12, "max %" PRIu64 " per column, %" PRIu64 " in all", most, total);
		y += 2;
	}
	y++;
	attron(A_BOLD);
	mvprintw(y++, 1, "PMU counters (whole run)");
	attroff(A_BOLD);
	cJSON_ArrayForEach(p, u->r->pmu)
	{
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(p, "event");
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(p, "value");

		if (y >= lines - 1)
			break;
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "supported")) && cJSON_IsNumber(v))
			mvprintw(y++, 1, "%-20s %14.0f", cJSON_IsString(e) ? e->valuestring : "?",
				 v->valuedouble);
		else
			mvprintw(y++, 1, "%-20s %14s", cJSON_IsString(e) ? e->valuestring : "?",
				 "not supported");
	}
	status(u, lines, cols, "Tab view  ? help  q quit");
}

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
			style_on(u, C_SEL, A_REVERSE);
		mvhline(y, 0, ' ', cols);
		mvprintw(y++, 1, "%.*s", cols - 2, line);
		if ((int)i == sel)
			style_off(u, C_SEL, A_REVERSE);
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

/* Enter on a site: its faults' call stacks, most fault time first. */
static void open_stacks(struct ui *u)
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

	header(u, &y, cols);
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
	status(u, lines, cols, "Up/Down scroll  Esc back  ? help  q quit   (report --folded for all)");
}

/* Where the faults come from: the functions and the mappings they touched. */
static void draw_sites(struct ui *u, int lines, int cols)
{
	int y = 1;

	group_sites(u);
	if (u->stacks_shown && u->site_sel < (int)u->sites.n) {
		draw_stacks(u, lines, cols);
		return;
	}
	header(u, &y, cols);
	y++;
	draw_groups(u, y, lines - 2, cols, &u->sites, "time%   faults      total  order class function mapping",
		    u->site_sel, &u->site_top);
	status(u, lines, cols, "Tab view  Up/Down select  Enter call stacks  ? help  q quit");
}

/* The mappings touched: each with its faults, then by order and class. */
static void draw_maps(struct ui *u, int lines, int cols)
{
	int y = 1, mid, none = 0;

	group_sites(u);
	header(u, &y, cols);
	y++;
	mid = y + (lines - 2 - y) / 2;
	y = draw_groups(u, y, mid, cols, &u->maps, "time%   faults      total  mapping", u->map_sel, &u->map_top);
	draw_groups(u, y + 1, lines - 2, cols, &u->map_cells, "time%   faults      total  order class mapping",
		    -1, &none);
	status(u, lines, cols, "Tab view  Up/Down select  ? help  q quit   (report --sort map,... for any keys)");
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

/* The kernel's work for the workload: bulk system calls, THP collapse, swap-out, reclaim. */
static void draw_kernel(struct ui *u, int lines, int cols)
{
	const struct fol_summary *s = &u->r->s;
	const struct fol_reclaim *rc = &s->reclaim;
	int y = 1, last = lines - 2, y0;
	char buf[160], t[2][48];

	header(u, &y, cols);
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
	status(u, lines, cols, "Tab view  ? help  q quit");
}

static void draw_help(const struct ui *u, int lines, int cols)
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

static void draw(struct ui *u)
{
	int lines, cols;

	getmaxyx(stdscr, lines, cols);
	erase();
	if (lines < 10 || cols < 60) {
		mvprintw(0, 0, "foliostat: the window is too small (%dx%d, needs 60x10)", cols, lines);
		refresh();
		return;
	}
	title(u, cols);
	switch (u->view) {
	case V_OVERVIEW: draw_overview(u, lines, cols); break;
	case V_REUSE: draw_reuse(u, lines, cols); break;
	case V_LATENCY: draw_latency(u, lines, cols); break;
	case V_KERNEL: draw_kernel(u, lines, cols); break;
	case V_SITES: draw_sites(u, lines, cols); break;
	case V_MAPS: draw_maps(u, lines, cols); break;
	default: draw_timeline(u, lines, cols); break;
	}
	if (u->help)
		draw_help(u, lines, cols);
	refresh();
}

static void read_filter(struct ui *u)
{
	int lines, cols;
	char buf[sizeof(u->filter)] = "";

	getmaxyx(stdscr, lines, cols);
	(void)cols;
	mvhline(lines - 2, 0, ' ', cols);
	mvprintw(lines - 2, 1, "filter: ");
	echo();
	curs_set(1);
	getnstr(buf, (int)sizeof(buf) - 1);
	noecho();
	curs_set(0);
	memcpy(u->filter, buf, sizeof(buf));
	u->sel = u->top = 0;
	build_rows(u);
}

/* *v moved by delta within [0, n). */
static void clamp(int *v, int delta, int n)
{
	*v += delta;
	if (*v >= n)
		*v = n - 1;
	if (*v < 0)
		*v = 0;
}

static void move_sel(struct ui *u, int delta)
{
	if (u->view == V_REUSE) {
		int slots[FOL_NR_ORDER_SLOTS], n = reuse_orders(u, slots);

		u->reuse_sel += delta;
		if (u->reuse_sel >= n)
			u->reuse_sel = n - 1;
		if (u->reuse_sel < 0)
			u->reuse_sel = 0;
		return;
	}
	if (u->view == V_SITES && u->stacks_shown)
		clamp(&u->stacks_top, delta, (int)u->stacks.n);
	else if (u->view == V_SITES)
		clamp(&u->site_sel, delta, (int)u->sites.n);
	else if (u->view == V_MAPS)
		clamp(&u->map_sel, delta, (int)u->maps.n);
	else
		clamp(&u->sel, delta, u->nrows);
}

static const int fatal_sigs[4] = { SIGINT, SIGTERM, SIGSEGV, SIGABRT };

/* The terminal set up for drawing, the signals that must put it back handled. */
static int term_open(int *colour, int *utf8, struct sigaction *old, char *err, size_t errlen)
{
	struct sigaction sa = { .sa_handler = on_fatal_signal };

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		snprintf(err, errlen, "the TUI needs a terminal: use 'foliostat report' for text or "
				      "--json");
		return -ENOTTY;
	}
	*utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	if (!initscr()) {
		snprintf(err, errlen, "cannot set up the terminal (TERM=%s)",
			 getenv("TERM") ? getenv("TERM") : "unset");
		return -EIO;
	}
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 4; i++)
		sigaction(fatal_sigs[i], &sa, &old[i]);
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	mousemask(BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	*colour = has_colors() && !getenv("NO_COLOR");
	if (*colour) {
		start_color();
		use_default_colors();
		init_pair(C_TITLE, COLOR_WHITE, COLOR_BLUE);
		init_pair(C_SEL, COLOR_BLACK, COLOR_CYAN);
		init_pair(C_BAR, COLOR_GREEN, -1);
		init_pair(C_DIM, COLOR_WHITE, COLOR_BLACK);
		init_pair(C_WARN, COLOR_YELLOW, -1);
		init_pair(C_MARK, COLOR_MAGENTA, -1);
		init_pair(C_WORSE, COLOR_RED, -1);
	}
	return 0;
}

static void term_close(const struct sigaction *old)
{
	restore_terminal();
	for (int i = 0; i < 4; i++)
		sigaction(fatal_sigs[i], &old[i], NULL);
}

/* Enter drills down, Esc goes back: each view's own step. */
static void drill(struct ui *u, int ch)
{
	if (ch == '\n' || ch == KEY_ENTER) {
		if (u->view == V_OVERVIEW)
			u->view = V_LATENCY;
		else if (u->view == V_REUSE)
			u->reuse_hist = 1;
		else if (u->view == V_SITES && !u->stacks_shown)
			open_stacks(u);
		return;
	}
	if (u->view == V_REUSE && u->reuse_hist)
		u->reuse_hist = 0;
	else if (u->view == V_SITES && u->stacks_shown)
		u->stacks_shown = 0;
	else if (u->view == V_LATENCY)
		u->view = V_OVERVIEW;
}

static void mouse(struct ui *u)
{
	MEVENT me;

	if (getmouse(&me) != OK)
		return;
	if (me.bstate & BUTTON4_PRESSED)
		move_sel(u, -1);
	else if (me.bstate & BUTTON5_PRESSED)
		move_sel(u, 1);
	else if (me.y == 0)
		u->view = (u->view + 1) % V_NR;
}

/* One key: 1 when it quits. */
static int key(struct ui *u, int ch)
{
	switch (ch) {
	case 'q':
	case 'Q':
		return 1;
	case '?': u->help = 1; break;
	case '\t': u->view = (u->view + 1) % V_NR; break;
	case KEY_BTAB: u->view = (u->view + V_NR - 1) % V_NR; break;
	case KEY_UP:
	case 'k': move_sel(u, -1); break;
	case KEY_DOWN:
	case 'j': move_sel(u, 1); break;
	case KEY_PPAGE: move_sel(u, -10); break;
	case KEY_NPAGE: move_sel(u, 10); break;
	case KEY_HOME: move_sel(u, -100000); break;
	case KEY_END: move_sel(u, 100000); break;
	case '\n':
	case KEY_ENTER:
	case 27: /* Esc */
	case KEY_BACKSPACE: drill(u, ch); break;
	case 's':
		if (u->view == V_OVERVIEW) {
			u->sort = (u->sort + 1) % (int)(sizeof(sort_names) / sizeof(sort_names[0]));
			build_rows(u);
		}
		break;
	case '/':
		if (u->view == V_OVERVIEW)
			read_filter(u);
		break;
	case 'g': u->gap = !u->gap; break;
	case KEY_MOUSE: mouse(u); break;
	default: break; /* KEY_RESIZE: ncurses has the new size; the loop redraws */
	}
	return 0;
}

int fol_tui_run(const struct fol_report *r, const char *path, char *err, size_t errlen)
{
	struct ui u = { .r = r, .path = path };
	struct sigaction old[4];
	int ch, ret = term_open(&u.colour, &u.utf8, old, err, errlen);

	if (ret)
		return ret;
	build_rows(&u);
	/* The latency view opens on the row with the most fault time: the one to look at. */
	for (int i = 1; i < u.nrows; i++)
		if (fol_cell_time(&r->s, cell(&u, &u.rows[i])) > fol_cell_time(&r->s, cell(&u, &u.rows[u.sel])))
			u.sel = i;
	for (;;) {
		draw(&u);
		ch = getch();
		/* Any key closes the help; q still quits. */
		if (u.help && ch != KEY_RESIZE) {
			u.help = 0;
			if (ch != 'q')
				continue;
		}
		if (key(&u, ch))
			break;
	}
	term_close(old);
	fol_grouping_free(&u.sites);
	fol_grouping_free(&u.maps);
	fol_grouping_free(&u.map_cells);
	fol_folded_free(&u.stacks);
	return 0;
}

/* ---- compare ---- */

static int row_marked(const struct fol_cmp *c, const struct fol_cmp_row *r)
{
	for (int s = 1; s < c->nsides; s++)
		if (r->cell[s].marker)
			return 1;
	return 0;
}

/* How many rows are shown: every figure, or the marked ones. */
static int compare_rows(const struct fol_cmp *c, int only_marked)
{
	int n = 0;

	for (int k = 0; k < c->nrows; k++)
		n += !only_marked || row_marked(c, &c->rows[k]);
	return n;
}

/* The lines above the figures: the title, one per side, the test, the column heads. */
static int compare_head_lines(const struct fol_cmp *c)
{
	return c->nsides + 3;
}

static void draw_compare_head(const struct fol_cmp *c, int colour)
{
	int cols = COLS, y = 1, x = 27;
	char buf[1400];

	if (colour)
		attron(COLOR_PAIR(C_TITLE) | A_BOLD);
	mvhline(0, 0, ' ', cols);
	mvprintw(0, 0, " foliostat compare");
	if (colour)
		attroff(COLOR_PAIR(C_TITLE) | A_BOLD);
	for (int s = 0; s < c->nsides; s++)
		mvprintw(y++, 0, " %-5s %.*s", s ? "new" : "base", cols > 8 ? cols - 8 : 0,
			 fol_cmp_side_text(&c->sides[s], 1, buf, sizeof(buf)));
	mvprintw(y++, 0, " test  %.*s", cols > 8 ? cols - 8 : 0, fol_cmp_test_text(c, buf, sizeof(buf)));
	mvprintw(y, 0, "%-26s", "figure (mean over runs)");
	for (int s = 0; s < c->nsides && x + 16 <= cols; s++) {
		mvprintw(y, x, "%11.11s %4s", c->sides[s].name, "cv");
		x += 17;
		if (s && x + 19 <= cols) {
			mvprintw(y, x, "%8s     %6s", "change", "p");
			x += 20;
		}
	}
}

/* printf's width counts bytes: "12.3 µs" is one column narrower than its 8 bytes. The
 * width for s to take w columns. */
static int cols_width(const char *s, int w)
{
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) == 0x80;
	return w;
}

/* One figure's row at line y: each side's mean and CV, the others' change, mark and p. */
static void draw_compare_row(const struct fol_cmp_row *r, int nsides, int y, int colour)
{
	int cols = COLS, x = 27;
	char v[32], t[32], p[16], cv[16];

	mvprintw(y, 0, "%-26.26s", r->fig.label);
	for (int s = 0; s < nsides && x + 16 <= cols; s++) {
		const struct fol_cmp_cell *cl = &r->cell[s];

		snprintf(cv, sizeof(cv), cl->have >= 2 ? "%3.0f%%" : "-", 100 * cl->d.cv);
		if (!cl->have)
			snprintf(v, sizeof(v), "-");
		else
			fol_cmp_value(r->fig.unit, cl->d.mean, v, sizeof(v));
		mvprintw(y, x, "%*s %4s", cols_width(v, 11), v, cv);
		x += 17;
		if (!s || x + 19 > cols)
			continue;
		if (!cl->have || !r->cell[0].have || isnan(cl->change))
			snprintf(t, sizeof(t), "%s", !cl->have ? "-" : !r->cell[0].have ? "new" : "from 0");
		else
			snprintf(t, sizeof(t), "%+.1f%%", 100 * cl->change);
		if (cl->test == FOL_TEST_NONE || isnan(cl->t.p))
			snprintf(p, sizeof(p), "-");
		else
			snprintf(p, sizeof(p), cl->t.p < 0.001 ? "<.001" : "%.3f", cl->t.p);
		if (colour && cl->marker)
			attron(COLOR_PAIR(cl->marker == 'R' ? C_WORSE : cl->marker == 'I' ? C_BAR : C_MARK) | A_BOLD);
		mvprintw(y, x, "%8s %3s", t, cl->marker == 'I' ? "(I)" : cl->marker == 'R' ? "(R)"
					   : cl->marker ? "(*)" : "");
		if (colour && cl->marker)
			attroff(COLOR_PAIR(cl->marker == 'R' ? C_WORSE : cl->marker == 'I' ? C_BAR : C_MARK) | A_BOLD);
		mvprintw(y, x + 13, "%6s", p);
		x += 20;
	}
}

static void draw_compare(const struct fol_cmp *c, int top, int only_marked, int colour)
{
	int lines = LINES, cols = COLS, y = compare_head_lines(c), row = 0;

	erase();
	draw_compare_head(c, colour);
	for (int k = 0; k < c->nrows && y < lines - 1; k++) {
		if (only_marked && !row_marked(c, &c->rows[k]))
			continue;
		if (row++ < top)
			continue;
		draw_compare_row(&c->rows[k], c->nsides, y++, colour);
	}
	if (colour)
		attron(COLOR_PAIR(C_DIM) | A_REVERSE);
	mvhline(lines - 1, 0, ' ', cols);
	mvprintw(lines - 1, 0, " %.*s", cols - 2,
		 only_marked ? "q quit  j/k PgUp/PgDn g/G  m all figures  d distributions  [marked only]"
			     : "q quit  j/k PgUp/PgDn g/G  m marked only  d distributions  (I) better (R) worse");
	if (colour)
		attroff(COLOR_PAIR(C_DIM) | A_REVERSE);
	refresh();
}

/* The first row shown after key ch, kept so that the last page stays full. */
static int compare_scroll(const struct fol_cmp *c, int top, int only, int ch)
{
	int page = LINES - compare_head_lines(c) - 1, last;

	page = page > 1 ? page : 1;
	last = compare_rows(c, only) - page;
	last = last > 0 ? last : 0;
	if (ch == 'j' || ch == KEY_DOWN)
		top++;
	else if (ch == 'k' || ch == KEY_UP)
		top--;
	else if (ch == KEY_NPAGE || ch == ' ')
		top += page;
	else if (ch == KEY_PPAGE)
		top -= page;
	else if (ch == KEY_HOME || ch == 'g')
		top = 0;
	else if (ch == KEY_END || ch == 'G')
		top = last;
	return top < 0 ? 0 : top > last ? last : top;
}

/* The compare view's distributions ('d'): one folio order and class at a time, each
 * side's faults by latency in a column, a row a quarter of a power of two, as fractions
 * of the side's own faults, so that shapes compare whatever the counts. */
struct dist_cell {
	int slot, cls;
};

/* The orders and classes some side has latencies of, at most max. */
static int dist_cells(const struct fol_cmp *c, struct dist_cell *v, int max)
{
	int n = 0;

	for (int slot = 0; slot < FOL_NR_ORDER_SLOTS; slot++)
		for (int cls = 0; cls < FOL_NR_CLASSES; cls++) {
			uint64_t any = 0;

			for (int s = 0; s < c->nsides; s++)
				for (int r = 0; r < c->sides[s].n; r++)
					any += c->sides[s].runs[r]->s.order[slot].cell[cls].lat.count;
			if (any && n < max)
				v[n++] = (struct dist_cell){ slot, cls };
		}
	return n;
}

/* A side's latencies of one cell over its runs, by quarter octave; the total. */
static uint64_t side_quarters(const struct fol_side *side, const struct dist_cell *dc, uint64_t *q)
{
	uint64_t total = 0;

	memset(q, 0, 256 * sizeof(*q));
	for (int r = 0; r < side->n; r++) {
		const struct fol_hist *h = &side->runs[r]->s.order[dc->slot].cell[dc->cls].lat;

		for (int i = 0; h->b && i < FOL_HIST_BUCKETS; i++) {
			uint64_t lo, hi;

			if (!h->b[i])
				continue;
			fol_hist_bucket_range(i, &lo, &hi);
			q[quarter(lo)] += h->b[i];
			total += h->b[i];
		}
	}
	return total;
}

static void draw_dist(const struct fol_cmp *c, const struct dist_cell *dc, int ncell, int sel, int colour)
{
	uint64_t (*q)[256] = calloc((size_t)c->nsides, sizeof(*q)), total[16] = { 0 };
	int lines = LINES, cols = COLS, lo = 256, hi = -1, y = 2, w;
	char sz[16], a[48], esc[64];

	erase();
	if (colour)
		attron(COLOR_PAIR(C_TITLE) | A_BOLD);
	mvhline(0, 0, ' ', cols);
	mvprintw(0, 0, " foliostat compare: latency distributions");
	if (colour)
		attroff(COLOR_PAIR(C_TITLE) | A_BOLD);
	if (!ncell || !q) {
		mvprintw(y, 1, "%s", q ? "no latencies measured on any side" : "out of memory");
	} else {
		const struct fol_side *base = &c->sides[0];
		int nside = c->nsides < 16 ? c->nsides : 16;

		mvprintw(1, 1, "%s %s (%d of %d; j/k for another)",
			 fol_order_size(FOL_SLOT_ORDER(dc[sel].slot), base->runs[0]->page_size, sz, sizeof(sz)),
			 fol_class_name((enum fol_class)dc[sel].cls), sel + 1, ncell);
		w = (cols - 12) / nside;
		for (int s = 0; s < nside; s++) {
			total[s] = side_quarters(&c->sides[s], &dc[sel], q[s]);
			for (int p = 0; p < 256; p++)
				if (q[s][p]) {
					lo = p < lo ? p : lo;
					hi = p > hi ? p : hi;
				}
			mvprintw(y, 12 + s * w, "%.*s: %" PRIu64 " faults", w > 14 ? w - 14 : 1,
				 fol_escape(c->sides[s].name, esc, sizeof(esc)), total[s]);
		}
		y++;
		if (hi - lo > lines - y - 2) /* too many rows: the tail's end shown */
			lo = hi - (lines - y - 2);
		for (int p = lo; p <= hi && y < lines - 1; p++, y++) {
			mvprintw(y, 1, "%s", fol_fmt_ns_col(quarter_start(p), 1, 10, a, sizeof(a)));
			for (int s = 0; s < nside; s++) {
				double frac = total[s] ? (double)q[s][p] / (double)total[s] : 0;
				int n = (int)lround(frac * (w - 8));

				mvprintw(y, 12 + s * w, "%5.1f%% ", 100 * frac);
				if (colour)
					attron(COLOR_PAIR(s ? C_WORSE : C_BAR));
				mvhline(y, 12 + s * w + 7, colour ? ' ' | A_REVERSE : '#', n);
				if (colour)
					attroff(COLOR_PAIR(s ? C_WORSE : C_BAR));
			}
		}
	}
	free(q);
	if (colour)
		attron(COLOR_PAIR(C_DIM) | A_REVERSE);
	mvhline(lines - 1, 0, ' ', cols);
	mvprintw(lines - 1, 0, " %.*s", cols - 2, "q quit  j/k order and class  d the figures");
	if (colour)
		attroff(COLOR_PAIR(C_DIM) | A_REVERSE);
	refresh();
}

int fol_tui_compare(const struct fol_cmp *c, char *err, size_t errlen)
{
	struct dist_cell dc[FOL_NR_ORDER_SLOTS * FOL_NR_CLASSES];
	struct sigaction old[4];
	int colour, utf8, top = 0, only = 0, ch, dist = 0, sel = 0;
	int ncell = dist_cells(c, dc, (int)(sizeof(dc) / sizeof(dc[0])));
	int ret = term_open(&colour, &utf8, old, err, errlen);

	if (ret)
		return ret;
	for (;;) {
		if (dist)
			draw_dist(c, dc, ncell, sel, colour);
		else
			draw_compare(c, top, only, colour);
		ch = getch();
		if (ch == 'q' || ch == 'Q')
			break;
		if (ch == 'd') {
			dist = !dist;
		} else if (dist) {
			if ((ch == 'j' || ch == KEY_DOWN) && sel + 1 < ncell)
				sel++;
			else if ((ch == 'k' || ch == KEY_UP) && sel > 0)
				sel--;
		} else if (ch == 'm') {
			only = !only;
			top = 0;
		} else {
			top = compare_scroll(c, top, only, ch);
		}
	}
	term_close(old);
	return 0;
}
