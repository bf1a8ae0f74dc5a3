// SPDX-License-Identifier: GPL-2.0-only
/* compare --html and --format svg: the comparison drawn, to look at what the table sums
 * up. The page (inline SVG and CSS, no script, nothing fetched) starts with the marks,
 * then the tested figures, each side's runs on one common axis of the change against the
 * base's mean with the change's interval, its p and q, then the rows shown and not tested
 * folded away, then the latency distributions of each folio order and class with the
 * sides overlaid. The SVG is the marked figures' strips alone: an image a reviewer can
 * link from a mail (linux-mm's list servers take no text/html). Drawn here: a few
 * rectangles, circles and lines need no plotting library. Every plotted figure carries
 * its values in data- attributes, so that a browser's DOM can be checked against
 * compare --json. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"
#include "util/escape.h"
#include "util/hist.h"

/* Colour-blind safe (Paul Tol's bright scheme), a colour a side. */
static const char *const colour[] = { "#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377" };
#define NCOLOUR ((int)(sizeof(colour) / sizeof(colour[0])))

#define STRIP_W 420
#define STRIP_ROW 14
#define DIST_W 560
#define DIST_H 170
/* The latency histogram's 16 buckets a power of two, plotted 4 to a bin: a curve, not
 * comb teeth. */
#define DIST_MERGE 4
/* The common axis spans at least +-10% and at most x16 (+1500%, -94%). */
#define AXIS_MIN 1.1
#define AXIS_MAX 16.0

/* One scale for every strip: the logarithm of a value's ratio to the base's mean, so that
 * x2 and x1/2 are as far from 0, and +2% is drawn near it where +1000% is at the edge. */
struct axis {
	double lim;		/* |log ratio| at either edge */
};

/* Text for HTML: printable first (fol_escape), then the markup's own characters. */
static void html(FILE *f, const char *s)
{
	char esc[1024];

	for (const char *p = fol_escape(s, esc, sizeof(esc)); *p; p++)
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*p, f);
		}
}

/* The change of side s as a ratio to the base's mean and its interval's ends; 0 where
 * there is none. */
static double ratio(const struct fol_cmp_row *row, int s)
{
	double b = row->cell[0].d.mean;

	return row->cell[s].have && row->cell[0].have && b > 0 ? row->cell[s].d.mean / b : 0;
}

static void widen(double *lim, double r)
{
	if (r > 0)
		*lim = fmax(*lim, fabs(log(r)));
}

/* The edge: the largest change of the means of a row drawn (tested or marked), a quarter more,
 * at least +-10%, at most x16, rounded up to a tick. An interval reaching past it is
 * drawn to the edge: the wide interval of two recordings a side would squeeze the rest. */
static struct axis axis_of(const struct fol_cmp *c,
			   int (*drawn)(const struct fol_cmp *, const struct fol_cmp_row *))
{
	static const double nice[] = { 1.1, 1.2, 1.5, 2, 3, 5, 11, 16 };
	struct axis a = { log(AXIS_MIN) };

	for (int k = 0; k < c->nrows; k++)
		if (drawn(c, &c->rows[k]))
			for (int s = 1; s < c->nsides; s++)
				widen(&a.lim, ratio(&c->rows[k], s));
	a.lim = fmin(1.25 * a.lim, log(AXIS_MAX));
	for (size_t i = 0; i < sizeof(nice) / sizeof(*nice); i++)
		if (log(nice[i]) >= a.lim - 1e-9) {
			a.lim = log(nice[i]);
			break;
		}
	return a;
}

/* x of a ratio in a strip of width w starting at x0; past the edge, at the edge. */
static double axis_x(const struct axis *a, double r, double x0, double w)
{
	double l = r > 0 ? log(r) : -a->lim;

	l = fmax(-a->lim, fmin(a->lim, l));
	return x0 + w / 2 + l / a->lim * (w / 2 - 8);
}

/* The ticks: 0, and the changes of a few round sizes within the edge, both ways, the
 * largest first. */
static int ticks(const struct axis *a, double *r, int max)
{
	static const double pct[] = { 1500, 1000, 500, 200, 100, 50, 20, 10, 5, 2 };
	int n = 0;

	r[n++] = 1;
	for (size_t i = 0; i < sizeof(pct) / sizeof(*pct) && n + 2 <= max; i++) {
		double l = log(1 + pct[i] / 100);

		if (l > a->lim + 1e-9 || l < a->lim / 4)
			continue;
		r[n++] = 1 + pct[i] / 100;
		r[n++] = 1 / (1 + pct[i] / 100);
	}
	return n;
}

static const char *tick_label(double r, char *buf, size_t len)
{
	double p = 100 * (r - 1);

	if (fabs(p) < 1e-9)
		snprintf(buf, len, "0");
	else
		snprintf(buf, len, fabs(p) < 10 ? "%+.1f%%" : "%+.0f%%", p);
	return buf;
}

/* The axis itself, for a table's head and the SVG's top: ticks, and labels at least 40
 * pixels apart (0 first). */
static void axis_svg(const struct axis *a, double x0, double w, double y, FILE *f)
{
	double r[24], drawn[24];
	char lab[24];
	int n = ticks(a, r, 24), nd = 0;

	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>", x0, y + 14,
		x0 + w, y + 14);
	for (int i = 0; i < n; i++) {
		double x = axis_x(a, r[i], x0, w);
		int near = 0;

		for (int k = 0; k < nd; k++)
			near |= fabs(drawn[k] - x) < 40;
		if (near)
			continue;
		drawn[nd++] = x;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>"
			   "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"middle\">%s</text>",
			x, y + 10, x, y + 18, x, y + 8, tick_label(r[i], lab, sizeof(lab)));
	}
}

static void axis_head(const struct axis *a, FILE *f)
{
	fprintf(f, "<svg class=\"axis\" width=\"%d\" height=\"20\">", STRIP_W);
	axis_svg(a, 0, STRIP_W, 0, f);
	fputs("</svg>", f);
}

/* A side's runs of a figure over the base's mean, into v; how many. */
static int run_ratios(const struct fol_cmp *c, struct fol_figures *const *figs, int s,
		      const struct fol_cmp_row *row, double *v)
{
	double b = row->cell[0].d.mean;
	int n = 0;

	for (int r = 0; r < c->sides[s].n; r++) {
		const struct fol_figure *x = fol_figures_find(&figs[s][r], row->fig.key);

		if (x || row->fig.additive)
			v[n++] = (x ? x->v : 0) / b;
	}
	return n;
}

/* A side's line of a strip at y: the interval of its change (tested), its runs as dots,
 * its mean as a bar; a mean past the edge points there. */
static void strip_side(const struct fol_cmp *c, struct fol_figures *const *figs, const struct fol_cmp_row *row,
		       int s, const struct axis *a, double x0, double y, double *v, FILE *f)
{
	const struct fol_cmp_cell *cell = &row->cell[s];
	const char *col = colour[s % NCOLOUR];
	double m = s ? ratio(row, s) : 1, xm = axis_x(a, m, x0, STRIP_W);
	int n = run_ratios(c, figs, s, row, v);

	if (s && cell->tested && isfinite(cell->ci_lo))
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"6\" fill=\"%s\" fill-opacity=\"0.25\"/>",
			axis_x(a, 1 + cell->ci_lo, x0, STRIP_W), y - 3,
			axis_x(a, 1 + cell->ci_hi, x0, STRIP_W) - axis_x(a, 1 + cell->ci_lo, x0, STRIP_W), col);
	for (int i = 0; i < n; i++)
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\" fill-opacity=\"0.55\"/>",
			axis_x(a, v[i], x0, STRIP_W), y, col);
	fprintf(f, "<rect class=\"mean\" data-side=\"%d\" x=\"%.1f\" y=\"%.1f\" width=\"3\" height=\"12\" fill=\"%s\"/>",
		s, xm - 1.5, y - 6, col);
	if (fabs(log(m)) > a->lim)
		fprintf(f, "<path d=\"M%.1f %.1fl%d -5v10z\" fill=\"%s\"/>", xm + (m > 1 ? 2 : -2), y, m > 1 ? 6 : -6,
			col);
}

/* A figure's strip: every side's runs over the base's mean on the common axis. */
static void strip(const struct fol_cmp *c, struct fol_figures *const *figs, const struct fol_cmp_row *row,
		  const struct axis *a, double x0, double y0, double *v, FILE *f)
{
	double zero = axis_x(a, 1, x0, STRIP_W);

	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ccc\"/>", zero, y0, zero,
		y0 + STRIP_ROW * c->nsides + 2);
	if (!(row->cell[0].have && row->cell[0].d.mean > 0))
		return;
	for (int s = 0; s < c->nsides; s++)
		if (row->cell[s].have)
			strip_side(c, figs, row, s, a, x0, y0 + 2 + STRIP_ROW * s + STRIP_ROW / 2.0, v, f);
}

static void head(const struct fol_cmp *c, FILE *f)
{
	char buf[1200];

	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>foliostat compare</title>\n"
	      "<style>body{font-family:sans-serif;margin:1em 2em;color:#222}"
	      "table{border-collapse:collapse}td,th{padding:1px 8px;text-align:right;font-size:13px}"
	      "td.l,th.l{text-align:left}tr.sec td{font-weight:bold;padding-top:10px;text-align:left}"
	      ".I{color:#228833;font-weight:bold}.R{color:#cc3311;font-weight:bold}.C,.S{font-weight:bold}"
	      "svg{display:block}figure{display:inline-block;margin:6px 12px}"
	      "figcaption{font-size:13px}details{margin-top:1em}summary{cursor:pointer;font-weight:bold}"
	      "</style></head><body>\n<h1>foliostat compare</h1>\n<ul id=\"sides\">\n",
	      f);
	for (int s = 0; s < c->nsides; s++) {
		fprintf(f, "<li data-side=\"%d\"><span style=\"color:%s\">&#9632;</span> %s: ", s,
			colour[s % NCOLOUR], s ? "new" : "base");
		html(f, fol_cmp_side_text(&c->sides[s], 1, buf, sizeof(buf)));
		fputs("</li>\n", f);
	}
	fputs("</ul>\n<p id=\"test\">", f);
	html(f, fol_cmp_test_text(c, buf, sizeof(buf)));
	if (c->level == FOL_LEVEL_RUNS)
		fputs(". One recording a side: the variation between recordings (a boot, the page cache) "
		      "is not measured, and times are not tested; record each side again after a reboot "
		      "into a directory and compare the directories to test them", f);
	if (c->order == FOL_ORDER_IN_TURN)
		fputs(". The sides were recorded one after the other: a drift of the machine between them "
		      "is the side's, and a mark can be it; alternate the sides' recordings (A, B, A, B) "
		      "to tell the two apart", f);
	fputs(".</p>\n", f);
}

static void mark_text(const struct fol_cmp_cell *cell, FILE *f)
{
	char m = cell->marker;

	if (m)
		fprintf(f, " (%c)", m);
	else if (cell->test != FOL_TEST_NONE && !cell->tested)
		fputs(" n/t", f);
}

static const char *mark_class(char m)
{
	return m == 'I' ? "I" : m == 'R' ? "R" : m == '=' ? "S" : m ? "C" : "";
}

static void num_td(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "<td>%.2g</td>", v);
	else
		fputs("<td>-</td>", f);
}

/* Change and mark, p, q and the interval of the change, of side s. */
static void change_tds(const struct fol_cmp_row *row, int s, FILE *f)
{
	const struct fol_cmp_cell *cell = &row->cell[s];

	if (cell->have && row->cell[0].have && !isnan(cell->change)) {
		fprintf(f, "<td class=\"%s\">%+.2f%%", mark_class(cell->marker), 100 * cell->change);
		mark_text(cell, f);
		fputs("</td>", f);
	} else {
		fputs("<td>-</td>", f);
	}
	num_td(f, cell->test != FOL_TEST_NONE ? cell->t.p : NAN);
	num_td(f, cell->q);
	if (isfinite(cell->ci_lo))
		fprintf(f, "<td>[%+.1f%%, %+.1f%%]</td>", 100 * cell->ci_lo, 100 * cell->ci_hi);
	else
		fputs("<td>-</td>", f);
}

/* An id for a row's anchor: its key with what is not a letter or digit as '-'. */
static void row_id(const struct fol_cmp_row *row, FILE *f)
{
	fputs("f-", f);
	for (const char *p = row->fig.key; *p; p++)
		fputc((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ? *p : '-', f);
}

static void figure_row(const struct fol_cmp *c, struct fol_figures *const *figs, const struct fol_cmp_row *row,
		       const struct axis *a, double *v, FILE *f)
{
	char val[32];

	fputs("<tr id=\"", f);
	row_id(row, f);
	fputs("\" data-key=\"", f);
	html(f, row->fig.key);
	fputs("\" data-mean=\"", f);
	for (int s = 0; s < c->nsides; s++)
		fprintf(f, s ? " %.17g" : "%.17g", row->cell[s].have ? row->cell[s].d.mean : NAN);
	fputs("\"><td class=\"l\">", f);
	html(f, row->fig.label);
	fputs("</td>", f);
	for (int s = 0; s < c->nsides; s++)
		fprintf(f, "<td>%s</td>", row->cell[s].have ? fol_cmp_value(row->fig.unit, row->cell[s].d.mean, val,
									       sizeof(val)) : "-");
	fprintf(f, "<td><svg width=\"%d\" height=\"%d\">", STRIP_W, STRIP_ROW * c->nsides + 4);
	strip(c, figs, row, a, 0, 0, v, f);
	fputs("</svg></td>", f);
	for (int s = 1; s < c->nsides; s++)
		change_tds(row, s, f);
	fputs("</tr>\n", f);
}

static void table_head(const struct fol_cmp *c, const struct axis *a, const char *id, FILE *f)
{
	fprintf(f, "<table id=\"%s\"><tr><th class=\"l\">figure</th>", id);
	for (int s = 0; s < c->nsides; s++) {
		fputs("<th>", f);
		html(f, c->sides[s].name);
		fputs("</th>", f);
	}
	fputs("<th>", f);
	axis_head(a, f);
	fputs("</th>", f);
	for (int s = 1; s < c->nsides; s++)
		fputs("<th>change</th><th>p</th><th>q</th><th>CI95 of the change</th>", f);
	fputs("</tr>\n", f);
}

/* The rows tested (tested: 1) or the others, in a table of their own. */
static void figures_table(const struct fol_cmp *c, struct fol_figures *const *figs, const struct axis *a,
			  int tested, double *v, FILE *f)
{
	const char *section = NULL;

	table_head(c, a, tested ? "figures" : "untested-figures", f);
	for (int k = 0; k < c->nrows; k++) {
		if (fol_cmp_row_tested(c, &c->rows[k]) != tested)
			continue;
		if (!section || strcmp(section, c->rows[k].fig.section)) {
			section = c->rows[k].fig.section;
			fprintf(f, "<tr class=\"sec\"><td colspan=\"%d\">%s</td></tr>\n", 2 + 5 * c->nsides, section);
		}
		figure_row(c, figs, &c->rows[k], a, v, f);
	}
	fputs("</table>\n", f);
}

/* The marks at the top: how many of each per side, and the marked rows. */
static void summary(const struct fol_cmp *c, FILE *f)
{
	fputs("<h2>Marks</h2>\n<table id=\"summary\">", f);
	for (int s = 1; s < c->nsides; s++) {
		int n[4] = { 0 }, tested = 0;

		for (int k = 0; k < c->nrows; k++) {
			char m = c->rows[k].cell[s].marker;

			tested += c->rows[k].cell[s].tested;
			n[m == 'I' ? 0 : m == 'R' ? 1 : m == '*' ? 2 : 3] += m != 0;
		}
		fputs("<tr class=\"sec\"><td class=\"l\" colspan=\"5\">", f);
		html(f, c->sides[s].name);
		fprintf(f, " against the base: %d tested; <span class=\"I\">%d (I)</span>, <span class=\"R\">%d "
			   "(R)</span>, %d (*), %d (=)</td></tr>\n", tested, n[0], n[1], n[2], n[3]);
		for (int k = 0; k < c->nrows; k++) {
			const struct fol_cmp_row *row = &c->rows[k];

			if (!row->cell[s].marker)
				continue;
			fputs("<tr><td class=\"l\"><a href=\"#", f);
			row_id(row, f);
			fputs("\">", f);
			html(f, row->fig.label);
			fputs("</a></td>", f);
			change_tds(row, s, f);
			fputs("</tr>\n", f);
		}
	}
	fputs("</table>\n<p>(I) better, (R) worse, (*) changed (no better way); (=) the same in every run "
	      "of each side but not between them, over one recording a side: the kernel's doing or the "
	      "machine's state, not tested; n/t shown, not tested. q: Benjamini-Hochberg's adjusted p, "
	      "marked at most the rate. Strips: each side's runs as dots over the base's mean, its mean "
	      "as a bar, the 95% interval of its change shaded, on one log scale for every row.</p>\n",
	      f);
}

/* One side's latencies of a cell over its runs, merged. */
static int side_hist(const struct fol_side *side, int slot, int cls, struct fol_hist *h)
{
	memset(h, 0, sizeof(*h));
	for (int r = 0; r < side->n; r++) {
		int ret = fol_hist_merge(h, &side->runs[r]->s.order[slot].cell[cls].lat);

		if (ret)
			return ret;
	}
	return 0;
}

/* The bins of a merged histogram, as fractions of its count. */
static double bin_frac(const struct fol_hist *h, int bin)
{
	uint64_t n = 0;

	for (int i = bin * DIST_MERGE; h->b && i < (bin + 1) * DIST_MERGE && i < FOL_HIST_BUCKETS; i++)
		n += h->b[i];
	return h->count ? (double)n / (double)h->count : 0;
}

/* The x axis of a distribution: a label every doubling of the latency (4 bins), or every
 * few, 60 pixels apart at least. */
static void dist_axis(int first, int last, FILE *f)
{
	double bin_w = (double)DIST_W / (last - first + 1);
	int step = 4 * (int)ceil(60 / (4 * bin_w));
	char v[32];

	for (int b = first; b <= last + 1; b += step) {
		uint64_t lo, hi;
		double x = (double)(b - first) * bin_w;

		fol_hist_bucket_range(b * DIST_MERGE, &lo, &hi);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#888\"/>"
			   "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"%s\">%s</text>", x, DIST_H, x,
			DIST_H + 4, x, DIST_H + 15, b == first ? "start" : x > DIST_W - 30 ? "end" : "middle",
			fol_cmp_value(FOL_UNIT_NS, (double)lo, v, sizeof(v)));
	}
}

static void dist_svg(const struct fol_cmp *c, const struct fol_hist *h, FILE *f)
{
	int first = FOL_HIST_BUCKETS, last = 0;
	double top = 0;

	for (int s = 0; s < c->nsides; s++)
		for (int i = 0; h[s].b && i < FOL_HIST_BUCKETS; i++)
			if (h[s].b[i]) {
				first = i / DIST_MERGE < first ? i / DIST_MERGE : first;
				last = i / DIST_MERGE > last ? i / DIST_MERGE : last;
			}
	if (first > last)
		return;
	for (int s = 0; s < c->nsides; s++)
		for (int b = first; b <= last; b++)
			top = fmax(top, bin_frac(&h[s], b));
	fprintf(f, "<svg width=\"%d\" height=\"%d\"><rect width=\"%d\" height=\"%d\" fill=\"#fafafa\" stroke=\"#ccc\"/>"
		   "<text x=\"4\" y=\"12\" font-size=\"11\">%.0f%% of a side's faults</text>",
		DIST_W, DIST_H + 20, DIST_W, DIST_H, 100 * top);
	for (int s = 0; s < c->nsides; s++) {
		fprintf(f, "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"%s\" points=\"", colour[s % NCOLOUR]);
		for (int b = first; b <= last; b++) {
			double x0 = (double)(b - first) / (last - first + 1) * DIST_W;
			double x1 = (double)(b - first + 1) / (last - first + 1) * DIST_W;
			double y = DIST_H - 2 - bin_frac(&h[s], b) / (top > 0 ? top : 1) * (DIST_H - 18);

			fprintf(f, "%.1f,%.1f %.1f,%.1f ", x0, y, x1, y);
		}
		fputs("\"/>", f);
	}
	dist_axis(first, last, f);
	fputs("</svg>", f);
}

static void dist_figure(const struct fol_cmp *c, const struct fol_hist *h, const char *sz, int cls, FILE *f)
{
	char v[32];

	fprintf(f, "<figure data-cell=\"%s %s\" data-faults=\"", sz, fol_class_name((enum fol_class)cls));
	for (int s = 0; s < c->nsides; s++)
		fprintf(f, s ? " %llu" : "%llu", (unsigned long long)h[s].count);
	fprintf(f, "\"><figcaption>%s %s:", sz, fol_class_name((enum fol_class)cls));
	for (int s = 0; s < c->nsides; s++)
		fprintf(f, " <span style=\"color:%s\">%llu faults, p50 %s</span>", colour[s % NCOLOUR],
			(unsigned long long)h[s].count,
			fol_cmp_value(FOL_UNIT_NS, (double)fol_hist_quantile(&h[s], 0.5), v, sizeof(v)));
	fputs("</figcaption>", f);
	dist_svg(c, h, f);
	fputs("</figure>\n", f);
}

/* Every order and class some side has latencies of: its sides' histograms overlaid. */
static int distributions(const struct fol_cmp *c, FILE *f)
{
	struct fol_hist *h = calloc((size_t)c->nsides, sizeof(*h));
	unsigned page = c->sides[0].runs[0]->page_size;
	int ret = h ? 0 : -ENOMEM;
	char sz[16];

	fputs("<h2>Latency distributions</h2>\n<p>Per folio order and class, each side's faults by "
	      "latency (log scale, a quarter of a power of two a step), as fractions of its own faults: "
	      "the shapes compare, whatever the counts.</p>\n", f);
	for (int slot = 0; slot < FOL_NR_ORDER_SLOTS && !ret; slot++)
		for (int cls = 0; cls < FOL_NR_CLASSES && !ret; cls++) {
			uint64_t any = 0;

			for (int s = 0; s < c->nsides && !ret; s++) {
				ret = side_hist(&c->sides[s], slot, cls, &h[s]);
				any += h[s].count;
			}
			if (!ret && any) {
				fol_order_size(FOL_SLOT_ORDER(slot), page, sz, sizeof(sz));
				dist_figure(c, h, sz, cls, f);
			}
			for (int s = 0; s < c->nsides; s++)
				fol_hist_free(&h[s]);
		}
	free(h);
	return ret;
}

/* Every run's figures of every side, and room for one side's values: what the strips are
 * drawn from. */
struct drawn {
	struct fol_figures **figs;
	double *v;
};

static void drawn_free(const struct fol_cmp *c, struct drawn *d)
{
	for (int s = 0; d->figs && s < c->nsides; s++) {
		for (int r = 0; d->figs[s] && r < c->sides[s].n; r++)
			fol_figures_free(&d->figs[s][r]);
		free(d->figs[s]);
	}
	free(d->figs);
	free(d->v);
}

static int drawn_of(const struct fol_cmp *c, struct drawn *d)
{
	int ret = 0, maxruns = 1;

	d->figs = calloc((size_t)c->nsides, sizeof(*d->figs));
	for (int s = 0; s < c->nsides; s++)
		maxruns = c->sides[s].n > maxruns ? c->sides[s].n : maxruns;
	d->v = calloc((size_t)maxruns, sizeof(*d->v));
	if (!d->figs || !d->v)
		ret = -ENOMEM;
	for (int s = 0; s < c->nsides && !ret; s++) {
		d->figs[s] = calloc((size_t)c->sides[s].n + 1, sizeof(**d->figs));
		if (!d->figs[s])
			ret = -ENOMEM;
		for (int r = 0; r < c->sides[s].n && !ret; r++)
			ret = fol_figures_of(c->sides[s].runs[r], &d->figs[s][r]);
	}
	if (ret)
		drawn_free(c, d);
	return ret;
}

int fol_cmp_html(const struct fol_cmp *c, FILE *f)
{
	struct axis a = axis_of(c, fol_cmp_row_tested);
	struct drawn d = { 0 };
	int ret = drawn_of(c, &d), untested = 0;

	if (ret)
		return ret;
	for (int k = 0; k < c->nrows; k++)
		untested += !fol_cmp_row_tested(c, &c->rows[k]);
	head(c, f);
	summary(c, f);
	fputs("<h2>Figures tested</h2>\n", f);
	figures_table(c, d.figs, &a, 1, d.v, f);
	fprintf(f, "<details id=\"untested\"><summary>%d figures shown, not tested (a maximum, a few faults, "
		   "a machine's counter, a row restated%s, or a side with one run)</summary>\n", untested,
		c->level == FOL_LEVEL_RUNS ? ", a time over one recording a side" : "");
	figures_table(c, d.figs, &a, 0, d.v, f);
	fputs("</details>\n", f);
	ret = distributions(c, f);
	fputs("</body></html>\n", f);
	drawn_free(c, &d);
	return ret;
}

#define SVG_LABEL 250
#define SVG_W (SVG_LABEL + STRIP_W + 170)

static void svg_row(const struct fol_cmp *c, const struct drawn *d, const struct fol_cmp_row *row,
		    const struct axis *a, double y, FILE *f)
{
	double h = STRIP_ROW * c->nsides + 4;

	fprintf(f, "<g class=\"row\" data-key=\"");
	html(f, row->fig.key);
	fprintf(f, "\" data-y=\"%.0f\" data-h=\"%.0f\"><text x=\"4\" y=\"%.1f\" font-size=\"12\">", y, h, y + h / 2 + 4);
	html(f, row->fig.label);
	fputs("</text>", f);
	strip(c, d->figs, row, a, SVG_LABEL, y, d->v, f);
	for (int s = 1; s < c->nsides; s++) {
		const struct fol_cmp_cell *cell = &row->cell[s];

		fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" fill=\"%s\">", SVG_LABEL + STRIP_W + 8,
			y + 2 + STRIP_ROW * s + STRIP_ROW / 2.0 + 4, colour[s % NCOLOUR]);
		if (cell->have && row->cell[0].have && !isnan(cell->change))
			fprintf(f, "%+.2f%%", 100 * cell->change);
		mark_text(cell, f);
		if (isfinite(cell->q))
			fprintf(f, " q %.2g", cell->q);
		fputs("</text>", f);
	}
	fputs("</g>", f);
}

static int any_row(const struct fol_cmp *c, const struct fol_cmp_row *row)
{
	(void)c;
	(void)row;
	return 1;
}

int fol_cmp_svg(const struct fol_cmp *c, int every_row, FILE *f)
{
	struct axis a = axis_of(c, every_row ? any_row : fol_cmp_row_marked);
	struct drawn d = { 0 };
	double top = 14 + 14 * c->nsides + 30, y, rh = STRIP_ROW * c->nsides + 10;
	int ret = drawn_of(c, &d), n = 0;
	char buf[1200];

	if (ret)
		return ret;
	for (int k = 0; k < c->nrows; k++)
		n += every_row || fol_cmp_row_marked(c, &c->rows[k]);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" "
		   "font-family=\"sans-serif\"><rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>",
		SVG_W, top + rh * (n ? n : 1) + 8);
	for (int s = 0; s < c->nsides; s++) {
		fprintf(f, "<text x=\"4\" y=\"%d\" font-size=\"12\" fill=\"%s\">%s: ", 14 + 14 * s, colour[s % NCOLOUR],
			s ? "new" : "base");
		html(f, fol_cmp_side_text(&c->sides[s], 1, buf, sizeof(buf)));
		fputs("</text>", f);
	}
	y = 14 + 14 * c->nsides;
	fputs("<text x=\"4\" y=\"", f);
	fprintf(f, "%.0f\" font-size=\"11\">", y);
	html(f, fol_cmp_test_text(c, buf, sizeof(buf)));
	fputs("; change against the base's mean, log scale</text>", f);
	axis_svg(&a, SVG_LABEL, STRIP_W, y + 6, f);
	y += 30;
	for (int k = 0; k < c->nrows; k++)
		if (every_row || fol_cmp_row_marked(c, &c->rows[k])) {
			svg_row(c, &d, &c->rows[k], &a, y, f);
			y += rh;
		}
	if (!n)
		fprintf(f, "<text x=\"4\" y=\"%.0f\" font-size=\"12\">no figure marked</text>", y + 14);
	fputs("</svg>\n", f);
	drawn_free(c, &d);
	return 0;
}
