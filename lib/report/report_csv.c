// SPDX-License-Identifier: GPL-2.0-only
/* report --csv: one of the report's tables as RFC 4180 CSV (a header row, then a row per
 * line of the table; times in ns), for spreadsheets and scripts. */
#include "report/report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/escape.h"
#include "report/report_sites.h"

/* A field, escaped as the text is (names from a recording may hold terminal escapes and
 * invalid UTF-8), then quoted when it holds a comma or a quote (quotes doubled). */
static void field(FILE *f, const char *raw, int last)
{
	char buf[4096];
	const char *s = fol_escape(raw, buf, sizeof(buf));

	if (strpbrk(s, ",\"\r\n")) {
		fputc('"', f);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', f);
			fputc(*s, f);
		}
		fputc('"', f);
	} else {
		fputs(s, f);
	}
	fputs(last ? "\r\n" : ",", f);
}

static void faults_csv(const struct fol_report *r, FILE *f)
{
	fputs("order,size_bytes,class,faults,fault_time_ns,mean_ns,p50_ns,p99_ns,max_ns,unclosed\r\n", f);
	for (int slot = 0; slot < FOL_NR_ORDER_SLOTS; slot++)
		for (int c = 0; c < FOL_NR_CLASSES; c++) {
			const struct fol_cell *cell = &r->s.order[slot].cell[c];
			const struct fol_hist *h = &cell->lat;
			int order = FOL_SLOT_ORDER(slot);

			if (!cell->faults)
				continue;
			fprintf(f, "%d,%" PRIu64 ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
				   ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\r\n",
				order, order < 0 ? 0 : (uint64_t)r->page_size << order,
				fol_class_name((enum fol_class)c), cell->faults,
				fol_cell_time(&r->s, cell), fol_hist_mean(h), fol_hist_quantile(h, 0.5),
				fol_hist_quantile(h, 0.99), h->max, cell->unclosed);
		}
}

static void reuse_csv(const struct fol_report *r, FILE *f)
{
	fputs("order,size_bytes,folios,episodes,faults,faults_per_folio,effectiveness,time_ns,"
	      "surplus_time_ns\r\n", f);
	for (int slot = 0; slot < FOL_NR_ORDER_SLOTS; slot++) {
		const struct fol_reuse *ru = &r->s.order[slot].reuse;
		int order = FOL_SLOT_ORDER(slot);

		if (!ru->episodes)
			continue;
		fprintf(f, "%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.6f,%.6f,%" PRIu64
			   ",%" PRIu64 "\r\n",
			order, order < 0 ? 0 : (uint64_t)r->page_size << order, ru->folios,
			ru->episodes, ru->faults, (double)ru->faults / (double)ru->episodes,
			ru->faults ? (double)ru->episodes / (double)ru->faults : 0, ru->time_ns,
			ru->surplus_ns);
	}
}

static void calls_csv(const struct fol_report *r, FILE *f)
{
	fputs("call,calls,errors,bytes,time_ns,p50_ns,p99_ns,max_ns\r\n", f);
	for (int c = 0; c < FOL_NR_CALLS; c++) {
		const struct fol_call_stats *cs = &r->s.calls[c];

		if (!cs->calls)
			continue;
		fprintf(f, "%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			   ",%" PRIu64 "\r\n",
			fol_call_key((enum fol_call)c), cs->calls, cs->errors, cs->bytes, cs->time.sum,
			fol_hist_quantile(&cs->time, 0.5), fol_hist_quantile(&cs->time, 0.99),
			cs->time.max);
	}
}

/* The sites by --sort's keys (default order,class,dso,sym,map), --top rows. */
static int sites_csv(const struct fol_report *r, const struct fol_report_view *v, FILE *f)
{
	static const int def[] = { FOL_SORT_ORDER, FOL_SORT_CLASS, FOL_SORT_DSO, FOL_SORT_SYM,
				   FOL_SORT_MAP };
	const int *keys = v->nsort ? v->sort : def;
	int nkeys = v->nsort ? v->nsort : 5;
	struct fol_grouping g;
	char num[32];

	if (fol_report_group(r, keys, nkeys, &g))
		return -ENOMEM;
	for (int k = 0; k < nkeys; k++)
		field(f, fol_sort_name(keys[k]), 0);
	fputs("faults,time_ns,max_ns\r\n", f);
	for (size_t i = 0; i < g.n && (!v->top || i < (size_t)v->top); i++) {
		for (int k = 0; k < nkeys; k++) {
			if (keys[k] == FOL_SORT_ORDER)
				snprintf(num, sizeof(num), "%d", g.v[i].order);
			field(f, keys[k] == FOL_SORT_ORDER ? num : g.v[i].part[keys[k]], 0);
		}
		fprintf(f, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\r\n", g.v[i].faults, g.v[i].time_ns,
			g.v[i].max_ns);
	}
	fol_grouping_free(&g);
	return 0;
}

int fol_report_csv(const struct fol_report *r, const struct fol_report_view *v, FILE *f)
{
	const char *table = v->table ? v->table : "faults";

	if (!strcmp(table, "faults"))
		faults_csv(r, f);
	else if (!strcmp(table, "reuse"))
		reuse_csv(r, f);
	else if (!strcmp(table, "calls"))
		calls_csv(r, f);
	else if (!strcmp(table, "sites"))
		return sites_csv(r, v, f);
	else
		return -EINVAL;
	return 0;
}

int fol_render_csv(const struct fol_report *r, const struct fol_report_view *v, FILE *f)
{
	return fol_report_csv(r, v, f);
}
