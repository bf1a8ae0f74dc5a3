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

/* The figures' view: where it is scrolled, and how it is drawn. */
struct cview {
	const struct fol_cmp *c;
	int top;		/* the first line shown, headings counted */
	int only;		/* only the marked figures */
	int first;		/* the first side after the base shown */
	int full;		/* labels in full, not in 26 columns */
	int colour;
};

#define LABEL_W 26
#define BASE_W 17	/* a side's mean and CV */
#define SIDE_W 37	/* and its change, mark and p */

/* The lines of the figures, a section's heading before its first row: line i is row
 * out[i], or a heading (-1 - the row it heads). Returns how many (at most 2 nrows). */
static int compare_lines(const struct fol_cmp *c, int only_marked, int *out)
{
	const char *section = NULL;
	int n = 0;

	for (int k = 0; k < c->nrows; k++) {
		if (only_marked && !fol_cmp_row_marked(c, &c->rows[k]))
			continue;
		if (!section || strcmp(section, c->rows[k].fig.section)) {
			section = c->rows[k].fig.section;
			out[n++] = -1 - k;
		}
		out[n++] = k;
	}
	return n;
}

static int label_width(const struct cview *v)
{
	int w = LABEL_W;

	for (int k = 0; v->full && k < v->c->nrows; k++)
		w = (int)strlen(v->c->rows[k].fig.label) > w ? (int)strlen(v->c->rows[k].fig.label) : w;
	return w;
}

/* How many sides after the base fit beside the labels: one at least. */
static int sides_fit(const struct cview *v)
{
	int n = (COLS - label_width(v) - 1 - BASE_W + 1) / SIDE_W;

	return n > 0 ? n : 1;
}

static int last_side(const struct cview *v)
{
	int last = v->first + sides_fit(v) - 1;

	return last < v->c->nsides - 1 ? last : v->c->nsides - 1;
}

static int sides_hidden(const struct cview *v)
{
	return v->first > 1 || last_side(v) < v->c->nsides - 1;
}

/* The lines above the figures: the title, one per side, the test, the hint of sides
 * scrolled away, the column heads. */
static int compare_head_lines(const struct cview *v)
{
	return v->c->nsides + 3 + sides_hidden(v);
}

static void side_colour(int s, int colour, int on)
{
	if (!colour)
		return;
	if (on)
		attron(COLOR_PAIR(C_SIDE + s % TUI_SIDE_COLOURS) | A_BOLD);
	else
		attroff(COLOR_PAIR(C_SIDE + s % TUI_SIDE_COLOURS) | A_BOLD);
}

/* The title bar on the first line. */
static void draw_title(const char *title, int colour)
{
	if (colour)
		attron(COLOR_PAIR(C_TITLE) | A_BOLD);
	mvhline(0, 0, ' ', COLS);
	mvprintw(0, 0, "%s", title);
	if (colour)
		attroff(COLOR_PAIR(C_TITLE) | A_BOLD);
}

static void draw_compare_head(const struct cview *v)
{
	const struct fol_cmp *c = v->c;
	int cols = COLS, y = 1, x = label_width(v) + 1;
	char buf[1400];

	draw_title(" foliostat compare", v->colour);
	for (int s = 0; s < c->nsides; s++) {
		side_colour(s, v->colour, 1);
		mvprintw(y++, 0, " %-5s %.*s", s ? "new" : "base", cols > 8 ? cols - 8 : 0,
			 fol_cmp_side_text(&c->sides[s], 1, buf, sizeof(buf)));
		side_colour(s, v->colour, 0);
	}
	mvprintw(y++, 0, " test  %.*s", cols > 8 ? cols - 8 : 0, fol_cmp_test_text(c, buf, sizeof(buf)));
	if (sides_hidden(v) && v->first == last_side(v))
		mvprintw(y++, 0, " side %d of the %d after the base shown: h/l or the arrows for the others",
			 v->first, c->nsides - 1);
	else if (sides_hidden(v))
		mvprintw(y++, 0, " sides %d-%d of the %d after the base shown: h/l or the arrows for the others",
			 v->first, last_side(v), c->nsides - 1);
	mvprintw(y, 0, "%-*s", label_width(v), "figure (mean over runs)");
	for (int s = 0; s < c->nsides; s++) {
		if (s && (s < v->first || s > last_side(v)))
			continue;
		side_colour(s, v->colour, 1);
		mvprintw(y, x, "%11.11s", c->sides[s].name);
		side_colour(s, v->colour, 0);
		mvprintw(y, x + 11, " %4s", "cv");
		x += BASE_W;
		if (s && x + SIDE_W - BASE_W - 1 <= cols) {
			mvprintw(y, x, "%8s     %6s", "change", "p");
			x += SIDE_W - BASE_W;
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

static void draw_mean(const struct fol_cmp_row *r, int s, int y, int x)
{
	const struct fol_cmp_cell *cl = &r->cell[s];
	char v[32], cv[16];

	snprintf(cv, sizeof(cv), cl->have >= 2 ? "%3.0f%%" : "-", 100 * cl->d.cv);
	if (!cl->have)
		snprintf(v, sizeof(v), "-");
	else
		fol_cmp_value(r->fig.unit, cl->d.mean, v, sizeof(v));
	mvprintw(y, x, "%*s %4s", cols_width(v, 11), v, cv);
}

/* A side's change, its mark and p: p only where the figure is tested, n/t where it is
 * shown and not tested. */
static void draw_change(const struct fol_cmp_row *r, int s, int y, int x, int colour)
{
	const struct fol_cmp_cell *cl = &r->cell[s];
	int pair = cl->marker == 'R' ? C_WORSE : cl->marker == 'I' ? C_BAR : C_MARK;
	char t[32], p[16], m[4] = "";

	if (!cl->have || !r->cell[0].have || isnan(cl->change))
		snprintf(t, sizeof(t), "%s", !cl->have ? "-" : !r->cell[0].have ? "new" : "from 0");
	else
		snprintf(t, sizeof(t), "%+.1f%%", 100 * cl->change);
	if (cl->tested && !isnan(cl->t.p))
		snprintf(p, sizeof(p), cl->t.p < 0.001 ? "<.001" : "%.3f", cl->t.p);
	else
		snprintf(p, sizeof(p), "%s", cl->test != FOL_TEST_NONE ? "n/t" : "-");
	if (cl->marker)
		snprintf(m, sizeof(m), "(%c)", cl->marker);
	if (colour && cl->marker)
		attron(COLOR_PAIR(pair) | A_BOLD);
	mvprintw(y, x, "%8s %3s", t, m);
	if (colour && cl->marker)
		attroff(COLOR_PAIR(pair) | A_BOLD);
	mvprintw(y, x + 13, "%6s", p);
}

/* One figure's row at line y: each side's mean and CV, the others' change, mark and p;
 * a row never tested dimmed. */
static void draw_compare_row(const struct cview *v, const struct fol_cmp_row *r, int y)
{
	int cols = COLS, w = label_width(v), x = w + 1, dim = !fol_cmp_row_tested(v->c, r);

	if (dim)
		attron(A_DIM);
	mvprintw(y, 0, "%-*.*s", w, w, r->fig.label);
	if (dim)
		attroff(A_DIM);
	for (int s = 0; s < v->c->nsides && x + BASE_W - 1 <= cols; s++) {
		if (s && (s < v->first || s > last_side(v)))
			continue;
		draw_mean(r, s, y, x);
		x += BASE_W;
		if (!s || x + SIDE_W - BASE_W - 1 > cols)
			continue;
		draw_change(r, s, y, x, v->colour);
		x += SIDE_W - BASE_W;
	}
}

static void draw_heading(const struct cview *v, const char *section, int y)
{
	if (v->colour)
		attron(A_BOLD);
	mvprintw(y, 0, "-- %s", section);
	if (v->colour)
		attroff(A_BOLD);
}

/* The keys on the last line, as the figures, the help and the distributions show them
 * (reversed in colour only, as this view always did; tui_status reverses always). */
static void draw_footer(int colour, const char *keys)
{
	if (colour)
		attron(COLOR_PAIR(C_DIM) | A_REVERSE);
	mvhline(LINES - 1, 0, ' ', COLS);
	mvprintw(LINES - 1, 0, " %.*s", COLS - 2, keys);
	if (colour)
		attroff(COLOR_PAIR(C_DIM) | A_REVERSE);
}

static void draw_compare(const struct cview *v)
{
	const struct fol_cmp *c = v->c;
	int *line = calloc(2 * (size_t)c->nrows + 1, sizeof(*line));
	int y = compare_head_lines(v), n = line ? compare_lines(c, v->only, line) : 0;

	erase();
	draw_compare_head(v);
	for (int i = v->top; i < n && y < LINES - 1; i++, y++) {
		if (line[i] < 0)
			draw_heading(v, c->rows[-1 - line[i]].fig.section, y);
		else
			draw_compare_row(v, &c->rows[line[i]], y);
	}
	free(line);
	draw_footer(v->colour, v->only ? "q quit  j/k PgUp/PgDn g/G  m all figures  d distributions  f labels  ? help  "
				 "[marked only]"
			       : "q quit  j/k PgUp/PgDn g/G  m marked only  d distributions  f labels  ? help");
	refresh();
}

static void draw_help(const struct cview *v)
{
	static const char *const text[] = {
		"keys",
		"  j k, the arrows  a line (in the distributions, another order and class)",
		"  PgDn PgUp space  a page",
		"  g G Home End     the first, the last figure",
		"  h l, the arrows  the sides after the base, when more than fit",
		"  m                only the marked figures, or all of them",
		"  f                labels in full, or in 26 columns",
		"  d                the latency distributions, or the figures",
		"  ?                this help; any key goes back",
		"  q                quit",
		"marks",
		"  (I) better   (R) worse   (*) changed (no better way)",
		"  (=) the same in every run of each side, not between them, over one",
		"      recording a side: the kernel's doing or the machine's state (the",
		"      page cache, a boot); not tested",
		"  n/t shown, not tested: a maximum, a few faults, a machine's counter, a",
		"      row restated, a time over one recording a side; the row dimmed",
		"  p   Welch's, over the runs or the recordings the test line names",
	};
	int y = 2;

	erase();
	draw_title(" foliostat compare: help", v->colour);
	for (size_t i = 0; i < sizeof(text) / sizeof(*text) && y < LINES - 1; i++, y++)
		mvprintw(y, 1, "%.*s", COLS - 2, text[i]);
	draw_footer(v->colour, "any key: back");
	refresh();
}

/* The first line shown after key ch, kept so that the last page stays full. */
static int compare_scroll(const struct cview *v, int ch)
{
	int *line = calloc(2 * (size_t)v->c->nrows + 1, sizeof(*line));
	int page = LINES - compare_head_lines(v) - 1, last, top = v->top;

	last = (line ? compare_lines(v->c, v->only, line) : 0);
	free(line);
	page = page > 1 ? page : 1;
	last -= page;
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

/* h/l: the sides shown start one earlier or later, the last page of sides full. */
static int side_scroll(const struct cview *v, int ch)
{
	int last = v->c->nsides - sides_fit(v), first = v->first + (ch == 'l' || ch == KEY_RIGHT ? 1 : -1);

	last = last > 1 ? last : 1;
	return first < 1 ? 1 : first > last ? last : first;
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
	draw_title(" foliostat compare: latency distributions", colour);
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
					attron(COLOR_PAIR(C_SIDE + s % TUI_SIDE_COLOURS));
				mvhline(y, 12 + s * w + 7, colour ? ' ' | A_REVERSE : '#', n);
				if (colour)
					attroff(COLOR_PAIR(C_SIDE + s % TUI_SIDE_COLOURS));
			}
		}
	}
	free(q);
	draw_footer(colour, "q quit  j/k order and class  d the figures");
	refresh();
}

/* A key in the figures' view. */
static void compare_key(struct cview *v, int ch)
{
	if (ch == 'm') {
		v->only = !v->only;
		v->top = 0;
	} else if (ch == 'f') {
		v->full = !v->full;
		v->first = side_scroll(v, 0);
	} else if (ch == 'h' || ch == 'l' || ch == KEY_LEFT || ch == KEY_RIGHT) {
		v->first = side_scroll(v, ch);
	} else {
		v->top = compare_scroll(v, ch);
	}
}

int fol_tui_compare(const struct fol_cmp *c, char *err, size_t errlen)
{
	struct dist_cell dc[FOL_NR_ORDER_SLOTS * FOL_NR_CLASSES];
	struct cview v = { .c = c, .first = 1 };
	struct sigaction old[4];
	int utf8, ch, dist = 0, help = 0, sel = 0;
	int ncell = dist_cells(c, dc, (int)(sizeof(dc) / sizeof(dc[0])));
	int ret = tui_term_open(&v.colour, &utf8, old, err, errlen);

	if (ret)
		return ret;
	for (;;) {
		if (help)
			draw_help(&v);
		else if (dist)
			draw_dist(c, dc, ncell, sel, v.colour);
		else
			draw_compare(&v);
		ch = getch();
		if (help) {
			help = 0;
			continue;
		}
		if (ch == 'q' || ch == 'Q')
			break;
		if (ch == '?') {
			help = 1;
		} else if (ch == 'd') {
			dist = !dist;
		} else if (dist) {
			if ((ch == 'j' || ch == KEY_DOWN) && sel + 1 < ncell)
				sel++;
			else if ((ch == 'k' || ch == KEY_UP) && sel > 0)
				sel--;
		} else {
			compare_key(&v, ch);
		}
	}
	tui_term_close(old);
	return 0;
}
