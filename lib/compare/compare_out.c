// SPDX-License-Identifier: GPL-2.0-only
/* The compare and multi-run views: text for mailing-list replies and JSON for dashboards;
 * the numbers come from compare.c. */
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "report/format.h"
#include "compare/compare.h"
#include "compare/compare_priv.h"
#include "util/escape.h"

const char *fol_cmp_value(enum fol_unit u, double v, char *buf, int len)
{
	switch (u) {
	case FOL_UNIT_NS:
		return fol_fmt_ns(v < 0 ? 0 : (uint64_t)llround(v), buf, len);
	case FOL_UNIT_RATIO:
		snprintf(buf, (size_t)len, "%.2f", v);
		break;
	case FOL_UNIT_PERCENT:
		snprintf(buf, (size_t)len, "%.1f%%", v);
		break;
	default:
		snprintf(buf, (size_t)len, fabs(v - round(v)) < 1e-9 ? "%.0f" : "%.1f", v);
		break;
	}
	return buf;
}

void fol_cmp_rcol(FILE *f, const char *s, int w)
{
	int cols = 0;

	for (const char *p = s; *p; p++)
		cols += ((unsigned char)*p & 0xc0) != 0x80;
	fprintf(f, "%*s%s", w > cols ? w - cols : 0, "", s);
}

const char *fol_cmp_test_name(const struct fol_cmp_cell *cell)
{
	return cell->test == FOL_TEST_NONE ? "none" : cell->log ? "welch-log" : "welch";
}

static const char *level_name(enum fol_cmp_level l)
{
	return l == FOL_LEVEL_RECORDINGS ? "recordings" : l == FOL_LEVEL_INTERLEAVED ? "interleaved runs"
										     : "runs";
}

const char *fol_cmp_untested_text(enum fol_cmp_untested u)
{
	static const char *const why[] = {
		[FOL_UNTESTED_NOT] = "",
		[FOL_UNTESTED_FEW_RUNS] = "fewer than 2 values a side",
		[FOL_UNTESTED_SINGLE] = "a maximum or a few faults",
		[FOL_UNTESTED_MACHINE] = "a machine's counter",
		[FOL_UNTESTED_RESTATES] = "restates a row above",
		[FOL_UNTESTED_STATE] = "a difference of state",
		[FOL_UNTESTED_DRIFT] = "a time, one recording a side",
	};

	return (unsigned)u < sizeof(why) / sizeof(*why) ? why[u] : "";
}

const char *fol_cmp_side_text(const struct fol_side *s, int with_name, char *buf, size_t len)
{
	const struct fol_report *r = s->n ? s->runs[0] : NULL;
	const char *kernel = r ? r->rec.kernel : NULL;
	char name[256], file[512], k[256];

	int out = fol_side_left_out(s);
	char left[48] = "";

	if (out)
		snprintf(left, sizeof(left), " (%d left out)", out);
	char recs[32] = "";

	if (s->nrec > 1)
		snprintf(recs, sizeof(recs), "%d recordings, ", s->nrec);
	snprintf(buf, len, "%s%s%s%s%s%d run%s%s, kernel %s", with_name ? fol_escape(s->name, name, sizeof(name)) : "",
		 with_name ? ": " : "", s->file ? fol_escape(s->file, file, sizeof(file)) : "",
		 s->file ? ", " : "", recs, s->n, s->n == 1 ? "" : "s", left,
		 kernel ? fol_escape(kernel, k, sizeof(k)) : "?");
	return buf;
}

int fol_side_left_out(const struct fol_side *s)
{
	int n = 0;

	for (int i = 0; i < s->nout; i++)
		n += s->out[i]->last - s->out[i]->index + 1;
	return n;
}

const char *fol_run_out_text(const struct fol_run_out *o, char *buf, size_t len)
{
	char config[128];

	if (o->last > o->index)
		snprintf(buf, len, "runs %d-%d", o->index + 1, o->last + 1);
	else
		snprintf(buf, len, "run %d%s%s%s", o->index + 1, o->config[0] ? " (" : "",
			 o->config[0] ? fol_escape(o->config, config, sizeof(config)) : "",
			 o->config[0] ? ")" : "");
	return buf;
}

static cJSON *left_out_json(const struct fol_side *s)
{
	cJSON *a = cJSON_CreateArray();

	for (int i = 0; a && i < s->nout; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "run", s->out[i]->index);
		cJSON_AddNumberToObject(o, "last", s->out[i]->last);
		cJSON_AddStringToObject(o, "why", s->out[i]->why);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

/* The runs of the side with fewest: under FOL_CMP_MIN_RUNS, nothing is tested. */
static int fewest_runs(const struct fol_cmp *c)
{
	int fewest = c->nsides ? c->sides[0].n : 0;

	for (int s = 1; s < c->nsides; s++)
		fewest = c->sides[s].n < fewest ? c->sides[s].n : fewest;
	return fewest;
}

const char *fol_cmp_test_text(const struct fol_cmp *c, char *buf, size_t len)
{
	int fewest = fewest_runs(c);
	const char *over = level_name(c->level);

	if (fewest < FOL_CMP_MIN_RUNS)
		snprintf(buf, len, "no test: a side has %d run; marks need %d or more a side (record -r 5)",
			 fewest, FOL_CMP_MIN_RUNS);
	else if (c->p_kept >= 0)
		snprintf(buf, len, "Welch over %s, %d tested, FDR %g: p <= %.2g kept", over, c->tested,
			 c->fdr, c->p_kept);
	else
		snprintf(buf, len, "Welch over %s, %d tested, FDR %g: no p kept", over, c->tested, c->fdr);
	return buf;
}

static void side_header(const struct fol_side *s, const char *role, FILE *f)
{
	const struct fol_report *r = s->n ? s->runs[0] : NULL;
	char esc[1200];

	if (role)
		fprintf(f, "# %-5s %s\n", role, fol_cmp_side_text(s, 1, esc, sizeof(esc)));
	else
		fprintf(f, "# %s\n", fol_cmp_side_text(s, 0, esc, sizeof(esc)));
	fprintf(f, "#       %s\n", r ? fol_command_text(r->rec.command.v, r->rec.command.n, esc, sizeof(esc)) : "");
}

/* "3 and 2": the recordings of each side. */
static const char *recordings_text(const struct fol_cmp *c, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (int s = 0; s < c->nsides && used < len; s++)
		used += (size_t)snprintf(buf + used, len - used, "%s%d",
					 !s ? "" : s + 1 < c->nsides ? ", " : " and ", c->sides[s].nrec);
	return buf;
}

/* "2026-12-07 01:23:04 to 01:23:30 UTC": the starts of a side's runs. */
static const char *span_text(const struct fol_side *s, char *buf, size_t len)
{
	double first, last;
	time_t a, b;
	struct tm ta, tb;
	char x[32], y[32];

	if (fol_side_span(s, &first, &last))
		return "";
	a = (time_t)(first / 1e9);
	b = (time_t)(last / 1e9);
	gmtime_r(&a, &ta);
	gmtime_r(&b, &tb);
	strftime(x, sizeof(x), "%F %H:%M:%S", &ta);
	strftime(y, sizeof(y), ta.tm_yday == tb.tm_yday && ta.tm_year == tb.tm_year ? "%H:%M:%S" : "%F %H:%M:%S", &tb);
	snprintf(buf, len, "%s to %s UTC", x, y);
	return buf;
}

static void order_line(const struct fol_cmp *c, FILE *f)
{
	char esc[128], span[80];

	fprintf(f, "# order: the sides were recorded one after the other, their runs starting\n");
	for (int s = 0; s < c->nsides; s++)
		fprintf(f, "#        %s %s\n", fol_escape(c->sides[s].name, esc, sizeof(esc)),
			span_text(&c->sides[s], span, sizeof(span)));
	fprintf(f, "#        A drift of the machine between them (a service settling, the page\n"
		   "#        cache, a boot) is the side's, and a mark can be it. Alternate the\n"
		   "#        sides' recordings (A, B, A, B) to tell the two apart.\n");
}

static void test_line(const struct fol_cmp *c, FILE *f)
{
	char recs[128];

	if (c->level == FOL_LEVEL_RECORDINGS)
		fprintf(f, "# test:  runs nested in recordings: Welch's t-test on each recording's mean\n"
			   "#        (%s recordings; times on a log scale);",
			recordings_text(c, recs, sizeof(recs)));
	else if (c->level == FOL_LEVEL_INTERLEAVED)
		fprintf(f, "# test:  Welch's t-test on the per-run values, the sides' runs alternating\n"
			   "#        in one recording (times on a log scale);");
	else
		fprintf(f, "# test:  Welch's t-test on the per-run values of counts;");
	fprintf(f, " %d figures tested,\n#        marks at a false-discovery rate of %g "
		   "(Benjamini-Hochberg:\n#        ", c->tested, c->fdr);
	if (c->p_kept >= 0)
		fprintf(f, "p <= %.2g kept), ", c->p_kept);
	else
		fprintf(f, "no p kept), ");
	fprintf(f, "never under %.0f%% nor two steps of a percentile's\n#        resolution\n",
		FOL_CMP_FLOOR * 100);
	if (c->order == FOL_ORDER_IN_TURN)
		order_line(c, f);
	if (c->level == FOL_LEVEL_RUNS)
		fprintf(f, "# one recording a side: the variation between recordings (a boot, the page\n"
			   "#        cache, the machine's load) is not measured. Times move with it,\n"
			   "#        every one at once (13%% to 39%% between two recordings of one\n"
			   "#        setup here), and are not tested; counts by about sqrt(n), and a\n"
			   "#        count is marked only past that. A mark can be the machine's as\n"
			   "#        well as the kernel's. To test both, record each side again (after\n"
			   "#        a reboot) into a directory, and compare the directories.\n");
}

static void test_legend(const struct fol_cmp *c, FILE *f)
{
	int fewest = fewest_runs(c);

	if (fewest < FOL_CMP_MIN_RUNS) {
		fprintf(f, "# test:  none: a side has %d run; marks need %d or more a side (record -r 5):\n"
			   "#        the faults of one run share its machine state, not samples of it\n",
			fewest, FOL_CMP_MIN_RUNS);
		return;
	}
	test_line(c, f);
	fprintf(f, "# marks: (I) better, (R) worse, (*) changed (no better way), - not measured;\n"
		   "#        n/t shown, not tested (a maximum, a few faults, a machine's counter,\n"
		   "#        a row restated%s)\n", c->level == FOL_LEVEL_RUNS ? ", a time" : "");
	if (c->level == FOL_LEVEL_RUNS)
		fprintf(f, "#        (=) the same in every run of each side but not between them (%d\n"
			   "#        here): the kernel's doing or the machine's state (the page cache,\n"
			   "#        a boot), not tested\n", c->state);
}

void fol_cmp_cell_change(const struct fol_cmp_cell *cell, const struct fol_cmp_cell *base, int last,
			 FILE *f)
{
	char t[24];

	if (!cell->have)
		snprintf(t, sizeof(t), "-");
	else if (!base->have)
		snprintf(t, sizeof(t), "new");
	else if (isnan(cell->change))
		snprintf(t, sizeof(t), "from 0");
	else
		snprintf(t, sizeof(t), "%+.2f%%", 100 * cell->change);
	fol_cmp_rcol(f, t, 9);
	if (cell->marker)
		fprintf(f, " (%c)", cell->marker);
	else if (cell->test != FOL_TEST_NONE && !cell->tested)
		fputs(" n/t", f);
	else if (!last)
		fputs("    ", f);
}

void fol_cmp_header(const struct fol_cmp *c, FILE *f)
{
	side_header(&c->sides[0], "base", f);
	for (int s = 1; s < c->nsides; s++)
		side_header(&c->sides[s], "new", f);
	test_legend(c, f);
}

/* The geometric mean of the time figures, as the table's last row. */
static void gmean_text(const struct fol_cmp *c, FILE *f)
{
	char v[32], label[48];

	if (!c->gmean_n)
		return;
	snprintf(label, sizeof(label), "gmean of %d latencies", c->gmean_n);
	fprintf(f, "summary\n  %-28.28s", label);
	for (int s = 0; s < c->nsides; s++) {
		fputc(' ', f);
		fol_cmp_rcol(f, fol_cmp_value(FOL_UNIT_NS, c->gmean[s], v, sizeof(v)), 12);
		if (s) {
			snprintf(v, sizeof(v), "%+.2f%%", 100 * (c->gmean[s] / c->gmean[0] - 1));
			fputc(' ', f);
			fol_cmp_rcol(f, v, 9);
			if (s + 1 < c->nsides)
				fputs("    ", f);
		}
	}
	fputc('\n', f);
}

void fol_cmp_text(const struct fol_cmp *c, FILE *f)
{
	const char *section = NULL;
	char v[32], esc[128];

	if (c->nsides == 1) {
		side_header(&c->sides[0], NULL, f);
		fol_cmp_runs_text(c, 0, f);
		return;
	}
	fol_cmp_header(c, f);
	fprintf(f, "\n%-30s", "figure (mean over runs)");
	for (int s = 0; s < c->nsides; s++) {
		fprintf(f, " %12.12s", fol_escape(c->sides[s].name, esc, sizeof(esc)));
		if (s)
			fprintf(f, " %9s%s", "change", s + 1 < c->nsides ? "    " : "");
	}
	fputc('\n', f);
	for (int k = 0; k < c->nrows; k++) {
		const struct fol_cmp_row *row = &c->rows[k];

		if (!section || strcmp(section, row->fig.section)) {
			section = row->fig.section;
			fprintf(f, "%s\n", section);
		}
		fprintf(f, "  %-28.28s", fol_escape(row->fig.label, esc, sizeof(esc)));
		for (int s = 0; s < c->nsides; s++) {
			fputc(' ', f);
			fol_cmp_rcol(f, row->cell[s].have ? fol_cmp_value(row->fig.unit, row->cell[s].d.mean, v, sizeof(v)) : "-",
			     12);
			if (s) {
				fputc(' ', f);
				fol_cmp_cell_change(&row->cell[s], &row->cell[0], s + 1 == c->nsides, f);
			}
		}
		fputc('\n', f);
	}
	gmean_text(c, f);
}

void fol_cmp_runs_text(const struct fol_cmp *c, int side, FILE *f)
{
	const char *section = NULL;
	char v[32], esc[128];

	fprintf(f, "\n%-26s %10s %7s %10s %10s %10s\n", "figure", "mean", "± cv", "min", "median", "max");
	for (int k = 0; k < c->nrows; k++) {
		const struct fol_cmp_row *row = &c->rows[k];
		const struct fol_cmp_cell *cell = &row->cell[side];
		char cv[16];

		if (!cell->have)
			continue;
		if (!section || strcmp(section, row->fig.section)) {
			section = row->fig.section;
			fprintf(f, "%s\n", section);
		}
		fprintf(f, "  %-24.24s ", fol_escape(row->fig.label, esc, sizeof(esc)));
		fol_cmp_rcol(f, fol_cmp_value(row->fig.unit, cell->d.mean, v, sizeof(v)), 10);
		snprintf(cv, sizeof(cv), "%.1f%%", 100 * cell->d.cv);
		fputc(' ', f);
		fol_cmp_rcol(f, cell->d.n > 1 ? cv : "-", 7);
		fputc(' ', f);
		fol_cmp_rcol(f, fol_cmp_value(row->fig.unit, cell->d.min, v, sizeof(v)), 10);
		fputc(' ', f);
		fol_cmp_rcol(f, fol_cmp_value(row->fig.unit, cell->d.median, v, sizeof(v)), 10);
		fputc(' ', f);
		fol_cmp_rcol(f, fol_cmp_value(row->fig.unit, cell->d.max, v, sizeof(v)), 10);
		fputc('\n', f);
	}
}

/* "+1.23 ms" or "-1.23 ms". */
static const char *signed_ns(double v, char *buf, int len)
{
	buf[0] = v < 0 ? '-' : '+';
	fol_cmp_value(FOL_UNIT_NS, fabs(v), buf + 1, len - 1);
	return buf;
}

/* The standard error of a phase's added time. */
static double probe_se(const struct fol_cmp_probe *p)
{
	return sqrt(p->traced.sd * p->traced.sd / p->traced.n + p->bare.sd * p->bare.sd / p->bare.n);
}

double fol_cmp_probe_per_fault(const struct fol_cmp *c, int s)
{
	double added = 0, faults = 0, all = 0;

	for (int i = 0; i < c->nprobe[s]; i++)
		all += c->probe[s][i].faults;
	/* Only the phases whose cost is their faults' and measured: a tenth of the faults
	 * or more, the difference past 2 standard errors. A THP populate phase untraced
	 * 57.4 ms (+-43.6) against 8.5 ms recorded, 46 faults, swamped the sum otherwise. */
	for (int i = 0; i < c->nprobe[s]; i++) {
		const struct fol_cmp_probe *p = &c->probe[s][i];
		double d = p->traced.mean - p->bare.mean;

		if (p->faults < all / 10 || fabs(d) <= 2 * probe_se(p))
			continue;
		added += d;
		faults += p->faults;
	}
	return faults >= 1 ? added / faults : NAN;
}

/* The phases' added time over their faults, beside what the calibration said: the
 * figure the header's "at least" stands for. */
static void probe_summary(const struct fol_cmp *c, int s, FILE *f)
{
	const struct fol_probe *cal = &c->sides[s].runs[0]->rec.probe;
	double m = fol_cmp_probe_per_fault(c, s);
	char t[32];

	if (!isfinite(m))
		return;
	fprintf(f, "  measured: %s a fault (the phases with a tenth of the faults or more,\n"
		   "  their difference past 2 se)", signed_ns(m, t, sizeof(t)));
	if (cal->have && cal->traced_ns > cal->untraced_ns)
		fprintf(f, ": %.1fx the calibration's %.0f ns, a lower bound",
			m / (cal->traced_ns - cal->untraced_ns), cal->traced_ns - cal->untraced_ns);
	fputs("\n", f);
}

void fol_cmp_probe_text(const struct fol_cmp *c, FILE *f)
{
	char t[32], esc[128];

	for (int s = 0; s < c->nsides; s++) {
		if (!c->nprobe[s])
			continue;
		fprintf(f, "\nProbe effect%s%s: the workload's phase times, untraced and recorded\n",
			c->nsides > 1 ? " of " : "",
			c->nsides > 1 ? fol_escape(c->sides[s].name, esc, sizeof(esc)) : "");
		fprintf(f, "  %-15s %10s %10s %11s ", "phase", "untraced", "recorded", "added");
		fol_cmp_rcol(f, "± se", 9);
		fprintf(f, " %8s %9s\n", "faults", "per fault");
		for (int i = 0; i < c->nprobe[s]; i++) {
			const struct fol_cmp_probe *p = &c->probe[s][i];
			double added = p->traced.mean - p->bare.mean;
			/* The standard error of the difference of the two means. */
			double se = probe_se(p);

			fprintf(f, "  %-15.15s ", fol_escape(p->phase, esc, sizeof(esc)));
			fol_cmp_rcol(f, fol_cmp_value(FOL_UNIT_NS, p->bare.mean, t, sizeof(t)), 10);
			fputc(' ', f);
			fol_cmp_rcol(f, fol_cmp_value(FOL_UNIT_NS, p->traced.mean, t, sizeof(t)), 10);
			fputc(' ', f);
			fol_cmp_rcol(f, signed_ns(added, t, sizeof(t)), 11);
			fputc(' ', f);
			fol_cmp_rcol(f, fol_cmp_value(FOL_UNIT_NS, se, t, sizeof(t)), 9);
			fprintf(f, " %8.0f ", p->faults);
			fol_cmp_rcol(f, p->faults >= 1 ? signed_ns(added / p->faults, t, sizeof(t)) : "-", 9);
			fputc('\n', f);
		}
		fprintf(f, "  (means of %d untraced and %d recorded runs, alternating; se: the standard\n"
			   "   error of the difference; faults in a phase from the timeline; per fault:\n"
			   "   what recording adds to each fault, and so to the latencies above)\n",
			c->probe[s][0].bare.n, c->probe[s][0].traced.n);
		probe_summary(c, s, f);
	}
}

static void add_num_or_null(cJSON *o, const char *k, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

static cJSON *desc_json(const struct fol_desc *d)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "n", d->n);
	cJSON_AddNumberToObject(o, "mean", d->mean);
	cJSON_AddNumberToObject(o, "stddev", d->sd);
	cJSON_AddNumberToObject(o, "cv", d->cv);
	cJSON_AddNumberToObject(o, "min", d->min);
	cJSON_AddNumberToObject(o, "median", d->median);
	cJSON_AddNumberToObject(o, "max", d->max);
	return o;
}

static const char *unit_name(enum fol_unit u)
{
	return u == FOL_UNIT_NS ? "ns" : u == FOL_UNIT_RATIO ? "ratio" : u == FOL_UNIT_PERCENT ? "percent" : "count";
}

static cJSON *figure_json(const struct fol_figure *fig)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "key", fig->key);
	cJSON_AddStringToObject(o, "label", fig->label);
	cJSON_AddStringToObject(o, "section", fig->section);
	cJSON_AddStringToObject(o, "unit", unit_name(fig->unit));
	cJSON_AddStringToObject(o, "better", fig->better < 0 ? "lower" : fig->better > 0 ? "higher" : "none");
	cJSON_AddBoolToObject(o, "system_wide", fig->system_wide);
	return o;
}

static cJSON *probe_json(const struct fol_cmp *c, int s)
{
	cJSON *a = cJSON_CreateArray();

	for (int i = 0; i < c->nprobe[s]; i++) {
		const struct fol_cmp_probe *p = &c->probe[s][i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "phase", p->phase);
		cJSON_AddItemToObject(o, "untraced_ns", desc_json(&p->bare));
		cJSON_AddItemToObject(o, "recorded_ns", desc_json(&p->traced));
		cJSON_AddNumberToObject(o, "added_ns", p->traced.mean - p->bare.mean);
		cJSON_AddNumberToObject(o, "faults", p->faults);
		if (p->faults >= 1)
			cJSON_AddNumberToObject(o, "added_ns_per_fault", (p->traced.mean - p->bare.mean) / p->faults);
		else
			cJSON_AddNullToObject(o, "added_ns_per_fault");
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

cJSON *fol_cmp_side_json(const struct fol_cmp *c, int side)
{
	cJSON *o = cJSON_CreateObject(), *figs = cJSON_AddArrayToObject(o, "figures");

	cJSON_AddNumberToObject(o, "runs", c->sides[side].n);
	for (int k = 0; k < c->nrows; k++) {
		const struct fol_cmp_cell *cell = &c->rows[k].cell[side];
		cJSON *fo;

		if (!cell->have)
			continue;
		fo = figure_json(&c->rows[k].fig);
		cJSON_AddItemToObject(fo, "value", desc_json(&cell->d));
		cJSON_AddItemToArray(figs, fo);
	}
	cJSON_AddItemToObject(o, "probe_effect", probe_json(c, side));
	add_num_or_null(o, "probe_ns_per_fault", fol_cmp_probe_per_fault(c, side));
	return o;
}

cJSON *fol_cmp_cell_json(const struct fol_cmp_cell *cell, int base)
{
	cJSON *o;

	if (!cell->have)
		return cJSON_CreateNull();
	o = desc_json(&cell->d);
	if (base)
		return o;
	add_num_or_null(o, "change", cell->change);
	cJSON_AddStringToObject(o, "test", fol_cmp_test_name(cell));
	cJSON_AddBoolToObject(o, "tested", cell->tested);
	if (cell->tested)
		cJSON_AddNullToObject(o, "untested");
	else
		cJSON_AddStringToObject(o, "untested", fol_cmp_untested_text(cell->untested));
	if (cell->test != FOL_TEST_NONE) {
		cJSON_AddStringToObject(o, "over", level_name(cell->level));
		cJSON_AddNumberToObject(o, "n_base", cell->nb);
		cJSON_AddNumberToObject(o, "n_tested", cell->nv);
		add_num_or_null(o, "p", cell->t.p);
		add_num_or_null(o, "q", cell->q);
		add_num_or_null(o, "t", cell->t.stat);
		add_num_or_null(o, "mann_whitney_p", cell->mwu.p);
	}
	if (isfinite(cell->ci_lo) && isfinite(cell->ci_hi)) {
		cJSON *ci = cJSON_AddArrayToObject(o, "ci95");

		cJSON_AddItemToArray(ci, cJSON_CreateNumber(cell->ci_lo));
		cJSON_AddItemToArray(ci, cJSON_CreateNumber(cell->ci_hi));
	} else {
		cJSON_AddNullToObject(o, "ci95");
	}
	cJSON_AddBoolToObject(o, "significant", cell->significant);
	if (cell->marker == 'I' || cell->marker == 'R')
		cJSON_AddStringToObject(o, "marker", cell->marker == 'I' ? "improvement" : "regression");
	else if (cell->marker == '=')
		cJSON_AddStringToObject(o, "marker", "state");
	else if (cell->marker)
		cJSON_AddStringToObject(o, "marker", "changed");
	else
		cJSON_AddNullToObject(o, "marker");
	return o;
}

cJSON *fol_cmp_json(const struct fol_cmp *c)
{
	cJSON *o = cJSON_CreateObject(), *sides, *figs, *t, *gm, *gv;

	cJSON_AddStringToObject(o, "schema", "foliostat/compare/v3");
	sides = cJSON_AddArrayToObject(o, "sides");
	for (int s = 0; s < c->nsides; s++) {
		const struct fol_report *r = c->sides[s].n ? c->sides[s].runs[0] : NULL;
		cJSON *so = cJSON_CreateObject();

		cJSON_AddStringToObject(so, "name", c->sides[s].name);
		cJSON_AddNumberToObject(so, "runs", c->sides[s].n);
		cJSON_AddNumberToObject(so, "recordings", c->sides[s].nrec);
		cJSON_AddItemToObject(so, "left_out", left_out_json(&c->sides[s]));
		cJSON_AddItemToObject(so, "kernel", r && r->rec.kernel ? cJSON_CreateString(r->rec.kernel)
								       : cJSON_CreateNull());
		cJSON_AddItemToObject(so, "command", r && r->rec.command.have
			? cJSON_CreateStringArray((const char *const *)r->rec.command.v, r->rec.command.n)
			: cJSON_CreateNull());
		cJSON_AddItemToObject(so, "probe_effect", probe_json(c, s));
		add_num_or_null(so, "probe_ns_per_fault", fol_cmp_probe_per_fault(c, s));
		cJSON_AddItemToArray(sides, so);
	}
	t = cJSON_AddObjectToObject(o, "test");
	cJSON_AddNumberToObject(t, "fdr", c->fdr);
	cJSON_AddNumberToObject(t, "min_runs", FOL_CMP_MIN_RUNS);
	cJSON_AddNumberToObject(t, "tested", c->tested);
	add_num_or_null(t, "p_kept", c->p_kept >= 0 ? c->p_kept : NAN);
	cJSON_AddStringToObject(t, "over", level_name(c->level));
	if (c->order == FOL_ORDER_UNKNOWN)
		cJSON_AddNullToObject(t, "order");
	else
		cJSON_AddStringToObject(t, "order", c->order == FOL_ORDER_IN_TURN ? "one after the other" : "alternate");
	cJSON_AddNumberToObject(t, "state", c->state);
	cJSON_AddNumberToObject(t, "floor", FOL_CMP_FLOOR);

	gm = cJSON_AddObjectToObject(o, "gmean");
	cJSON_AddNumberToObject(gm, "figures", c->gmean_n);
	gv = cJSON_AddArrayToObject(gm, "values");
	for (int s = 0; s < c->nsides; s++)
		cJSON_AddItemToArray(gv, c->gmean_n ? cJSON_CreateNumber(c->gmean[s]) : cJSON_CreateNull());
	figs = cJSON_AddArrayToObject(o, "figures");
	for (int k = 0; k < c->nrows; k++) {
		cJSON *fo = figure_json(&c->rows[k].fig), *vals;

		if (c->rows[k].restates >= 0)
			cJSON_AddStringToObject(fo, "restates", c->rows[c->rows[k].restates].fig.key);
		else
			cJSON_AddNullToObject(fo, "restates");
		vals = cJSON_AddArrayToObject(fo, "values");

		for (int s = 0; s < c->nsides; s++)
			cJSON_AddItemToArray(vals, fol_cmp_cell_json(&c->rows[k].cell[s], s == 0));
		cJSON_AddItemToArray(figs, fo);
	}
	return fol_escape_json(o) ? o : (cJSON_Delete(o), NULL);
}
