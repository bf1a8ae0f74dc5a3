// SPDX-License-Identifier: GPL-2.0-only
/* foliostat compare --tui: the sides' figures with their marks, and a figure's
 * distribution per side. */
#include "tui_priv.h"

#include <curses.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"

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
			q[tui_quarter(lo)] += h->b[i];
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
			mvprintw(y, 1, "%s", fol_fmt_ns_col(tui_quarter_start(p), 1, 10, a, sizeof(a)));
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
	int ret = tui_term_open(&colour, &utf8, old, err, errlen);

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
	tui_term_close(old);
	return 0;
}
