// SPDX-License-Identifier: GPL-2.0-only
/* report --format openmetrics|prometheus: the report's figures as metrics for Grafana.
 * OpenMetrics: counters with _total, times in seconds with their UNIT, latency histograms
 * with a bucket per power of two of nanoseconds (the histogram's own groups of 16), an
 * info family, "# EOF" at the end. The Prometheus text format (0.0.4) is what
 * node_exporter's textfile collector and Debian 12's promtool read: the same samples,
 * families named as their samples (foo_total), the info family a gauge, no UNIT or EOF. */
#include "report/report.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/escape.h"

/* A label value: escaped as the text is (valid UTF-8, no control bytes), then its
 * backslashes, quotes and newlines escaped as the exposition formats say. */
void fol_metrics_label(FILE *f, const char *raw)
{
	char buf[4096];
	const char *v = fol_printable(raw) ? raw : fol_escape(raw, buf, sizeof(buf));

	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', f);
		if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

void fol_metrics_family(FILE *f, enum fol_metrics fmt, const char *name, const char *type,
			const char *unit, const char *help)
{
	if (fmt == FOL_METRICS_OPENMETRICS) {
		fprintf(f, "# TYPE %s %s\n", name, type);
		if (unit)
			fprintf(f, "# UNIT %s %s\n", name, unit);
		fprintf(f, "# HELP %s %s\n", name, help);
		return;
	}
	if (!strcmp(type, "counter"))
		fprintf(f, "# HELP %s_total %s\n# TYPE %s_total counter\n", name, help, name);
	else if (!strcmp(type, "info"))
		fprintf(f, "# HELP %s_info %s\n# TYPE %s_info gauge\n", name, help, name);
	else
		fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void order_labels(FILE *f, const struct fol_report *r, int order)
{
	char sz[16];

	fprintf(f, "order=\"%d\",size=\"%s\"", order, fol_order_size(order, r->page_size, sz, sizeof(sz)));
}

/* Cumulative buckets at the top of each power of two that holds values, then +Inf. */
static void histogram(FILE *f, const char *name, const struct fol_report *r, int order,
		      const char *cls, const struct fol_hist *h)
{
	uint64_t cum = 0, lo, hi;

	for (int i = 0; h->b && i < FOL_HIST_BUCKETS && cum < h->count; i++) {
		cum += h->b[i];
		if ((i + 1) % (int)FOL_HIST_SUB && i + 1 < FOL_HIST_BUCKETS)
			continue;
		fol_hist_bucket_range(i, &lo, &hi);
		fprintf(f, "%s_bucket{", name);
		order_labels(f, r, order);
		fprintf(f, ",class=\"%s\",le=\"%.9g\"} %" PRIu64 "\n", cls, (double)(hi + 1) / 1e9, cum);
	}
	fprintf(f, "%s_bucket{", name);
	order_labels(f, r, order);
	fprintf(f, ",class=\"%s\",le=\"+Inf\"} %" PRIu64 "\n", cls, h->count);
	fprintf(f, "%s_count{", name);
	order_labels(f, r, order);
	fprintf(f, ",class=\"%s\"} %" PRIu64 "\n", cls, h->count);
	fprintf(f, "%s_sum{", name);
	order_labels(f, r, order);
	fprintf(f, ",class=\"%s\"} %.9f\n", cls, (double)h->sum / 1e9);
}

static void cells(const struct fol_report *r, FILE *f, int what)
{
	for (int slot = 0; slot < FOL_NR_ORDER_SLOTS; slot++)
		for (int c = 0; c < FOL_NR_CLASSES; c++) {
			const struct fol_cell *cell = &r->s.order[slot].cell[c];
			const char *cls = fol_class_name((enum fol_class)c);
			int order = FOL_SLOT_ORDER(slot);

			if (!cell->faults)
				continue;
			if (what == 2) {
				if (cell->lat.count)
					histogram(f, "foliostat_fault_latency_seconds", r, order, cls, &cell->lat);
				continue;
			}
			fprintf(f, what ? "foliostat_fault_time_seconds_total{" : "foliostat_faults_total{");
			order_labels(f, r, order);
			if (what)
				fprintf(f, ",class=\"%s\"} %.9f\n", cls,
					(double)fol_cell_time(&r->s, cell) / 1e9);
			else
				fprintf(f, ",class=\"%s\"} %" PRIu64 "\n", cls, cell->faults);
		}
}

static void reuse(const struct fol_report *r, FILE *f, int what)
{
	for (int slot = 0; slot < FOL_NR_ORDER_SLOTS; slot++) {
		const struct fol_reuse *ru = &r->s.order[slot].reuse;

		if (!ru->episodes)
			continue;
		fprintf(f, what ? "foliostat_reuse_effectiveness{" : "foliostat_reuse_faults_per_folio{");
		order_labels(f, r, FOL_SLOT_ORDER(slot));
		fprintf(f, "} %.6f\n", what ? (double)ru->episodes / (double)ru->faults
					    : (double)ru->faults / (double)ru->episodes);
	}
}

void fol_report_metrics(const struct fol_report *r, enum fol_metrics fmt, FILE *f)
{
	const char *cmd = r->rec.command.n ? r->rec.command.v[0] : NULL;

	fol_metrics_family(f, fmt, "foliostat_recording", "info", NULL, "What was recorded, and on which kernel.");
	fprintf(f, "foliostat_recording_info{kernel=\"");
	fol_metrics_label(f, r->rec.kernel ?: "unknown");
	fprintf(f, "\",command=\"");
	fol_metrics_label(f, cmd ? cmd : "");
	fprintf(f, "\",latency_method=\"%s\"} 1\n", r->method);
	fol_metrics_family(f, fmt, "foliostat_faults", "counter", NULL, "Page faults, by folio order and class.");
	cells(r, f, 0);
	fol_metrics_family(f, fmt, "foliostat_fault_time_seconds", "counter", "seconds",
	       "Time in the fault handler, by folio order and class.");
	cells(r, f, 1);
	fol_metrics_family(f, fmt, "foliostat_fault_latency_seconds", "histogram", "seconds",
	       "Fault handler latency (entry tracepoint to exit sample), by order and class.");
	cells(r, f, 2);
	fol_metrics_family(f, fmt, "foliostat_reuse_faults_per_folio", "gauge", NULL,
	       "Write-protect reuse faults per large folio episode after fork (1 is ideal).");
	reuse(r, f, 0);
	fol_metrics_family(f, fmt, "foliostat_reuse_effectiveness", "gauge", NULL,
	       "Folio episodes per reuse fault (1 is one fault per folio).");
	reuse(r, f, 1);
	fol_metrics_family(f, fmt, "foliostat_lost_events", "counter", NULL, "Samples the kernel dropped.");
	fprintf(f, "foliostat_lost_events_total %" PRIu64 "\n", r->st.lost ? r->st.lost : r->s.lost);
	if (fmt == FOL_METRICS_OPENMETRICS)
		fprintf(f, "# EOF\n");
}

int fol_render_openmetrics(const struct fol_report *r, const struct fol_report_view *v, FILE *f)
{
	(void)v;
	fol_report_metrics(r, FOL_METRICS_OPENMETRICS, f);
	return 0;
}

int fol_render_prometheus(const struct fol_report *r, const struct fol_report_view *v, FILE *f)
{
	(void)v;
	fol_report_metrics(r, FOL_METRICS_PROMETHEUS, f);
	return 0;
}
