// SPDX-License-Identifier: GPL-2.0-only
/* compare --html: the comparison as one self-contained page (inline SVG and CSS, no
 * script, nothing fetched), to look at what the table sums up: each figure's per-run
 * values as dots with the side's mean and its 95% interval, and the latency
 * distributions of each folio order and class with the sides overlaid. Drawn here: a
 * few rectangles, circles and polylines need no plotting library. Every plotted figure
 * carries its values in data- attributes, so that a browser's DOM can be checked against
 * compare --json. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

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

static void head(const struct fol_cmp *c, FILE *f)
{
	char buf[1200];

	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>foliostat compare</title>\n"
	      "<style>body{font-family:sans-serif;margin:1em 2em;color:#222}"
	      "table{border-collapse:collapse}td,th{padding:1px 8px;text-align:right;font-size:13px}"
	      "td.l,th.l{text-align:left}tr.sec td{font-weight:bold;padding-top:10px;text-align:left}"
	      ".I{color:#228833;font-weight:bold}.R{color:#cc3311;font-weight:bold}.C{font-weight:bold}"
	      "svg{display:block}figure{display:inline-block;margin:6px 12px}"
	      "figcaption{font-size:13px}</style></head><body>\n<h1>foliostat compare</h1>\n<ul id=\"sides\">\n",
	      f);
	for (int s = 0; s < c->nsides; s++) {
		fprintf(f, "<li data-side=\"%d\"><span style=\"color:%s\">&#9632;</span> %s: ", s,
			colour[s % NCOLOUR], s ? "new" : "base");
		html(f, fol_cmp_side_text(&c->sides[s], 1, buf, sizeof(buf)));
		fputs("</li>\n", f);
	}
	fputs("</ul>\n<p id=\"test\">", f);
	html(f, fol_cmp_test_text(c, buf, sizeof(buf)));
	fputs(". Dots: one run each; bar: the side's mean; whisker: its 95% interval (Student's t "
	      "over the runs). (I) better, (R) worse, (*) changed.</p>\n", f);
}

/* The half-width of the 95% interval of a side's mean. */
static double half_ci(const struct fol_desc *d)
{
	return d->n > 1 ? gsl_cdf_tdist_Pinv(0.975, d->n - 1) * d->sd / sqrt(d->n) : 0;
}

/* The per-run values of a figure on side s, into v; how many. */
static int run_values(const struct fol_cmp *c, struct fol_figures *const *figs, int s,
		      const struct fol_cmp_row *row, double *v)
{
	int n = 0;

	for (int r = 0; r < c->sides[s].n; r++) {
		const struct fol_figure *x = fol_figures_find(&figs[s][r], row->fig.key);

		if (x)
			v[n++] = x->v;
		else if (row->fig.additive)
			v[n++] = 0;
	}
	return n;
}

static void strip(const struct fol_cmp *c, struct fol_figures *const *figs, const struct fol_cmp_row *row,
		  double *v, FILE *f)
{
	double lo = INFINITY, hi = -INFINITY;
	int h = STRIP_ROW * c->nsides + 4;

	/* The scale: the runs' extremes (the side's min and max) and the intervals' ends. */
	for (int s = 0; s < c->nsides; s++) {
		const struct fol_desc *d = &row->cell[s].d;

		if (row->cell[s].have && d->n)
			lo = fmin(lo, fmin(d->min, d->mean - half_ci(d))), hi = fmax(hi, fmax(d->max, d->mean + half_ci(d)));
	}
	if (!(hi > lo))
		lo -= 1, hi += 1;
	fprintf(f, "<svg width=\"%d\" height=\"%d\"><line x1=\"0\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>",
		STRIP_W, h, h - 1, STRIP_W, h - 1);
#define X(val) (6 + ((val) - lo) / (hi - lo) * (STRIP_W - 12))
	for (int s = 0; s < c->nsides; s++) {
		const struct fol_desc *d = &row->cell[s].d;
		int n = row->cell[s].have ? run_values(c, figs, s, row, v) : 0, y = 2 + STRIP_ROW * s + STRIP_ROW / 2;

		if (!n)
			continue;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"/>",
			X(d->mean - half_ci(d)), y, X(d->mean + half_ci(d)), y, colour[s % NCOLOUR]);
		fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"3\" height=\"%d\" fill=\"%s\"/>", X(d->mean) - 1.5,
			y - 6, 12, colour[s % NCOLOUR]);
		for (int i = 0; i < n; i++)
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%d\" r=\"3\" fill=\"%s\" fill-opacity=\"0.55\"/>", X(v[i]), y,
				colour[s % NCOLOUR]);
	}
#undef X
	fputs("</svg>", f);
}

static void figure_row(const struct fol_cmp *c, struct fol_figures *const *figs, const struct fol_cmp_row *row,
		       double *v, FILE *f)
{
	char val[32];

	fputs("<tr data-key=\"", f);
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
	fputs("<td>", f);
	strip(c, figs, row, v, f);
	fputs("</td>", f);
	for (int s = 1; s < c->nsides; s++) {
		const struct fol_cmp_cell *cell = &row->cell[s];
		char m = cell->marker;

		if (cell->have && row->cell[0].have && !isnan(cell->change))
			fprintf(f, "<td class=\"%s\">%+.2f%%%s%c%s</td>", m == 'I' ? "I" : m == 'R' ? "R" : m ? "C" : "",
				100 * cell->change, m ? " (" : "", m ? m : ' ', m ? ")" : "");
		else
			fputs("<td>-</td>", f);
	}
	fputs("</tr>\n", f);
}

static void figures_table(const struct fol_cmp *c, struct fol_figures *const *figs, double *v, FILE *f)
{
	const char *section = NULL;

	fputs("<h2>Figures</h2>\n<table id=\"figures\"><tr><th class=\"l\">figure</th>", f);
	for (int s = 0; s < c->nsides; s++) {
		fputs("<th>", f);
		html(f, c->sides[s].name);
		fputs("</th>", f);
	}
	fputs("<th>runs, mean, 95% interval</th>", f);
	for (int s = 1; s < c->nsides; s++)
		fputs("<th>change</th>", f);
	fputs("</tr>\n", f);
	for (int k = 0; k < c->nrows; k++) {
		if (!section || strcmp(section, c->rows[k].fig.section)) {
			section = c->rows[k].fig.section;
			fprintf(f, "<tr class=\"sec\"><td colspan=\"%d\">%s</td></tr>\n", 2 + 2 * c->nsides, section);
		}
		figure_row(c, figs, &c->rows[k], v, f);
	}
	fputs("</table>\n", f);
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

static void dist_svg(const struct fol_cmp *c, const struct fol_hist *h, FILE *f)
{
	int first = FOL_HIST_BUCKETS, last = 0;
	double top = 0;
	uint64_t lo, hi;

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
	fprintf(f, "<svg width=\"%d\" height=\"%d\"><rect width=\"%d\" height=\"%d\" fill=\"#fafafa\" stroke=\"#ccc\"/>",
		DIST_W, DIST_H + 18, DIST_W, DIST_H);
	for (int s = 0; s < c->nsides; s++) {
		fprintf(f, "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"%s\" points=\"", colour[s % NCOLOUR]);
		for (int b = first; b <= last; b++) {
			double x0 = (double)(b - first) / (last - first + 1) * DIST_W;
			double x1 = (double)(b - first + 1) / (last - first + 1) * DIST_W;
			double y = DIST_H - 2 - bin_frac(&h[s], b) / (top > 0 ? top : 1) * (DIST_H - 8);

			fprintf(f, "%.1f,%.1f %.1f,%.1f ", x0, y, x1, y);
		}
		fputs("\"/>", f);
	}
	fol_hist_bucket_range(first * DIST_MERGE, &lo, &hi);
	fprintf(f, "<text x=\"2\" y=\"%d\" font-size=\"11\">%llu ns</text>", DIST_H + 14, (unsigned long long)lo);
	fol_hist_bucket_range((last + 1) * DIST_MERGE - 1, &lo, &hi);
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">%llu ns</text></svg>", DIST_W - 2,
		DIST_H + 14, (unsigned long long)hi);
}

/* Every order and class some side has latencies of: its sides' histograms overlaid. */
static int distributions(const struct fol_cmp *c, FILE *f)
{
	struct fol_hist *h = calloc((size_t)c->nsides, sizeof(*h));
	unsigned page = c->sides[0].runs[0]->page_size;
	int ret = h ? 0 : -ENOMEM;
	char sz[16], v[32];

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
			for (int s = 0; s < c->nsides; s++)
				fol_hist_free(&h[s]);
		}
	free(h);
	return ret;
}

int fol_cmp_html(const struct fol_cmp *c, FILE *f)
{
	struct fol_figures **figs = calloc((size_t)c->nsides, sizeof(*figs));
	int ret = figs ? 0 : -ENOMEM, maxruns = 1;
	double *v;

	for (int s = 0; s < c->nsides; s++)
		maxruns = c->sides[s].n > maxruns ? c->sides[s].n : maxruns;
	v = calloc((size_t)maxruns, sizeof(*v));
	if (!v)
		ret = -ENOMEM;
	for (int s = 0; s < c->nsides && !ret; s++) {
		figs[s] = calloc((size_t)c->sides[s].n + 1, sizeof(**figs));
		if (!figs[s])
			ret = -ENOMEM;
		for (int r = 0; r < c->sides[s].n && !ret; r++)
			ret = fol_figures_of(c->sides[s].runs[r], &figs[s][r]);
	}
	if (!ret) {
		head(c, f);
		figures_table(c, figs, v, f);
		ret = distributions(c, f);
		fputs("</body></html>\n", f);
	}
	for (int s = 0; figs && s < c->nsides; s++) {
		for (int r = 0; figs[s] && r < c->sides[s].n; r++)
			fol_figures_free(&figs[s][r]);
		free(figs[s]);
	}
	free(figs);
	free(v);
	return ret;
}
