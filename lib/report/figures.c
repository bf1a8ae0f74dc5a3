// SPDX-License-Identifier: GPL-2.0-only
#include "report/figures.h"
#include "util/grow.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum section { S_FAULTS, S_ORDERS, S_REUSE, S_FOLIOS, S_CALLS, S_MM, S_PHASES, S_COUNTERS, S_PMU };
static const char *const section_name[] = { "faults", "orders", "reuse", "folios", "calls",
					    "mm", "phases", "counters", "pmu" };

#define RANK(sec, a, b, c) ((uint32_t)(sec) << 24 | (uint32_t)(a) << 16 | (uint32_t)(b) << 8 | (uint32_t)(c))
#define MAX_PHASES 64

static struct fol_figure *add(struct fol_figures *f, enum section sec, uint32_t rank,
			      enum fol_unit unit, int better, int additive, double v,
			      const char *key_fmt, ...) __attribute__((format(printf, 8, 9)));

static struct fol_figure *add(struct fol_figures *f, enum section sec, uint32_t rank,
			      enum fol_unit unit, int better, int additive, double v,
			      const char *key_fmt, ...)
{
	struct fol_figure *x;
	va_list ap;

	if (FOL_GROW(f->v, f->cap, (size_t)f->n + 1, 64))
		return NULL;
	x = &f->v[f->n++];
	memset(x, 0, sizeof(*x));
	va_start(ap, key_fmt);
	vsnprintf(x->key, sizeof(x->key), key_fmt, ap);
	va_end(ap);
	x->section = section_name[sec];
	x->rank = rank;
	x->unit = unit;
	x->better = better;
	x->additive = additive;
	x->v = v;
	return x;
}

#define LABEL(x, ...) ((x) ? (void)snprintf((x)->label, sizeof((x)->label), __VA_ARGS__) : (void)0)

/* Mean and percentiles of a set of per-fault latencies, compared on them. */
static int add_latency(struct fol_figures *f, enum section sec, int a, int b, const struct fol_hist *h,
		       const char *key, const char *label)
{
	static const struct {
		const char *name;
		double q; /* < 0: the mean */
	} st[] = { { "mean", -1 }, { "p50", 0.5 }, { "p90", 0.9 }, { "p99", 0.99 }, { "max", 1 } };

	if (!h->count)
		return 0;
	for (int i = 0; i < 5; i++) {
		double v = st[i].q < 0 ? (double)fol_hist_mean(h) : (double)fol_hist_quantile(h, st[i].q);
		struct fol_figure *x = add(f, sec, RANK(sec, a, b, 2 + i), FOL_UNIT_NS, FOL_BETTER_LOWER, 0,
					   v, "%s.%s_ns", key, st[i].name);

		if (!x)
			return -ENOMEM;
		LABEL(x, "%s %s", label, st[i].name);
		x->single = st[i].q == 1 || h->count < FOL_FIG_FEW;
		x->latency = 1;
		x->resolution = st[i].q > 0 && st[i].q < 1 ? 1.0 / FOL_HIST_SUB : 0;
	}
	return 0;
}

static int add_faults(const struct fol_report *r, struct fol_figures *f)
{
	const struct fol_summary *s = &r->s;
	struct fol_figure *x;

	x = add(f, S_FAULTS, RANK(S_FAULTS, 0, 0, 0), FOL_UNIT_COUNT, FOL_BETTER_LOWER, 1,
		(double)s->faults, "faults");
	LABEL(x, "faults");
	if (x && strcmp(r->method, "none")) {
		x = add(f, S_FAULTS, RANK(S_FAULTS, 0, 0, 1), FOL_UNIT_NS, FOL_BETTER_LOWER, 1,
			(double)fol_total_time(s), "fault_time_ns");
		LABEL(x, "fault time");
	}
	if (x && !s->sampled && add_latency(f, S_FAULTS, 0, 1, &s->all_lat, "latency", "latency"))
		return -ENOMEM;
	if (x) {
		x = add(f, S_FAULTS, RANK(S_FAULTS, 1, 0, 0), FOL_UNIT_COUNT, FOL_BETTER_NONE, 1,
			(double)s->unclosed, "unclosed");
		LABEL(x, "unclosed faults");
	}
	return x ? 0 : -ENOMEM;
}

static int add_cells(const struct fol_report *r, struct fol_figures *f)
{
	const struct fol_summary *s = &r->s;
	char buf[16], key[48], label[32];

	for (int slot = 0; slot < FOL_NR_ORDER_SLOTS; slot++) {
		const char *sz = fol_order_size(FOL_SLOT_ORDER(slot), r->page_size, buf, sizeof(buf));

		for (int c = 0; c < FOL_NR_CLASSES; c++) {
			const struct fol_cell *cell = &s->order[slot].cell[c];
			const char *cls = fol_class_name((enum fol_class)c);
			struct fol_figure *x;

			if (!cell->faults)
				continue;
			snprintf(key, sizeof(key), "order.%s.%s", sz, cls);
			snprintf(label, sizeof(label), "%s %s", sz, cls);
			x = add(f, S_ORDERS, RANK(S_ORDERS, slot, c, 0), FOL_UNIT_COUNT, FOL_BETTER_LOWER, 1,
				(double)cell->faults, "%s.faults", key);
			LABEL(x, "%s faults", label);
			if (x && strcmp(r->method, "none")) {
				x = add(f, S_ORDERS, RANK(S_ORDERS, slot, c, 1), FOL_UNIT_NS, FOL_BETTER_LOWER,
					1, (double)fol_cell_time(s, cell), "%s.time_ns", key);
				LABEL(x, "%s time", label);
				if (x)
					x->single = cell->faults < FOL_FIG_FEW;
			}
			if (!x || (!s->sampled && add_latency(f, S_ORDERS, slot, c, &cell->lat, key, label)))
				return -ENOMEM;
		}
	}
	return 0;
}

/* Reuse of one order (slot >= 0) or of all (slot -1, rank 0). */
static int add_reuse_of(const struct fol_reuse *ru, int slot, const char *sz, struct fol_figures *f)
{
	char key[32], label[32];
	int a = slot + 1;
	struct fol_figure *x;

	snprintf(key, sizeof(key), slot < 0 ? "reuse" : "reuse.%s", sz);
	snprintf(label, sizeof(label), slot < 0 ? "reuse (all)" : "%s reuse", sz);
	x = add(f, S_REUSE, RANK(S_REUSE, a, 0, 0), FOL_UNIT_RATIO, FOL_BETTER_LOWER, 0,
		(double)ru->faults / (double)ru->episodes, "%s.faults_per_folio", key);
	LABEL(x, "%s faults/episode", label);
	if (x) {
		x = add(f, S_REUSE, RANK(S_REUSE, a, 0, 1), FOL_UNIT_PERCENT, FOL_BETTER_HIGHER, 0,
			100.0 * (double)ru->episodes / (double)ru->faults, "%s.effectiveness", key);
		LABEL(x, "%s effectiveness", label);
	}
	if (x) {
		x = add(f, S_REUSE, RANK(S_REUSE, a, 0, 2), FOL_UNIT_COUNT, FOL_BETTER_LOWER, 1,
			(double)ru->faults, "%s.faults", key);
		LABEL(x, "%s faults", label);
	}
	if (x) {
		x = add(f, S_REUSE, RANK(S_REUSE, a, 0, 3), FOL_UNIT_COUNT, FOL_BETTER_NONE, 1,
			(double)ru->episodes, "%s.folios", key);
		LABEL(x, "%s folios", label);
	}
	if (x) {
		x = add(f, S_REUSE, RANK(S_REUSE, a, 0, 4), FOL_UNIT_NS, FOL_BETTER_LOWER, 1,
			(double)ru->surplus_ns, "%s.surplus_time_ns", key);
		LABEL(x, "%s surplus time", label);
	}
	return x ? 0 : -ENOMEM;
}

static int add_reuse(const struct fol_report *r, struct fol_figures *f)
{
	struct fol_reuse all = { 0 };
	char sz[16];
	int orders = 0;

	for (int slot = 0; slot < FOL_NR_ORDER_SLOTS; slot++) {
		const struct fol_reuse *ru = &r->s.order[slot].reuse;

		if (!ru->episodes)
			continue;
		orders++;
		all.episodes += ru->episodes;
		all.faults += ru->faults;
		all.surplus_ns += ru->surplus_ns;
	}
	/* All orders together: what one figure says across folio sizes (a sweep). */
	if (all.episodes && add_reuse_of(&all, -1, "", f))
		return -ENOMEM;
	for (int slot = 0; slot < FOL_NR_ORDER_SLOTS; slot++) {
		const struct fol_reuse *ru = &r->s.order[slot].reuse;

		if (ru->episodes &&
		    add_reuse_of(ru, slot, fol_order_size(FOL_SLOT_ORDER(slot), r->page_size, sz, sizeof(sz)), f))
			return -ENOMEM;
	}
	for (int slot = 0; slot < FOL_NR_ORDER_SLOTS; slot++) {
		uint64_t n = r->s.order[slot].folios_allocated;
		const char *size = fol_order_size(FOL_SLOT_ORDER(slot), r->page_size, sz, sizeof(sz));
		struct fol_figure *x;

		if (!n)
			continue;
		x = add(f, S_FOLIOS, RANK(S_FOLIOS, slot, 0, 0), FOL_UNIT_COUNT, FOL_BETTER_NONE, 1,
			(double)n, "folios.%s.allocated", size);
		if (!x)
			return -ENOMEM;
		LABEL(x, "%s folios allocated", size);
	}
	return 0;
}

double fol_faults_between(const struct fol_summary *s, uint64_t start, uint64_t end)
{
	double n = 0;

	if (!s->bins || !s->bin_ns || end <= start)
		return 0;
	for (int b = 0; b < s->nbins; b++) {
		uint64_t lo = s->bins_t0 + (uint64_t)b * s->bin_ns, hi = lo + s->bin_ns;
		uint64_t olo = lo > start ? lo : start, ohi = hi < end ? hi : end;
		uint64_t in = 0;

		if (ohi <= olo)
			continue;
		for (int c = 0; c < FOL_NR_CLASSES; c++)
			in += s->bins[(size_t)b * FOL_NR_CLASSES + (size_t)c];
		n += (double)in * (double)(ohi - olo) / (double)s->bin_ns;
	}
	return n;
}

int fol_phase_totals(const struct fol_report *r, const char **names, double *ns, double *faults,
		     int max)
{
	int n = 0;

	for (int k = 0; k < r->rec.phases.n; k++) {
		const struct fol_phase *p = &r->rec.phases.v[k];
		const char *name = p->name;
		int i;

		if (!name || !p->timed || p->end_ns < p->start_ns)
			continue;
		for (i = 0; i < n && strcmp(names[i], name); i++)
			;
		if (i == n) {
			if (n == max)
				continue;
			names[n] = name;
			ns[n] = faults[n] = 0;
			n++;
		}
		ns[i] += p->end_ns - p->start_ns;
		faults[i] += fol_faults_between(&r->s, (uint64_t)p->start_ns, (uint64_t)p->end_ns);
	}
	return n;
}

/* The bulk system calls: how many, and their time (munmap of 256M of 64K folios...). */
static int add_calls(const struct fol_report *r, struct fol_figures *f)
{
	for (int c = 0; c < FOL_NR_CALLS; c++) {
		const struct fol_call_stats *cs = &r->s.calls[c];
		const char *key = fol_call_key((enum fol_call)c), *name = fol_call_name((enum fol_call)c);
		struct fol_figure *x;
		char k[48];

		if (!cs->calls)
			continue;
		x = add(f, S_CALLS, RANK(S_CALLS, c, 0, 0), FOL_UNIT_COUNT, FOL_BETTER_NONE, 1,
			(double)cs->calls, "calls.%s.calls", key);
		LABEL(x, "%s calls", name);
		if (x) {
			x = add(f, S_CALLS, RANK(S_CALLS, c, 0, 1), FOL_UNIT_NS, FOL_BETTER_LOWER, 1,
				(double)cs->time.sum, "calls.%s.time_ns", key);
			LABEL(x, "%s time", name);
			if (x)
				x->single = cs->calls < FOL_FIG_FEW;
		}
		snprintf(k, sizeof(k), "calls.%s", key);
		if (!x || add_latency(f, S_CALLS, c, 1, &cs->time, k, name))
			return -ENOMEM;
	}
	return 0;
}

static int add_count(struct fol_figures *f, uint32_t rank, int better, double v, const char *key,
		     const char *label)
{
	struct fol_figure *x = add(f, S_MM, rank, FOL_UNIT_COUNT, better, 1, v, "%.63s", key);

	if (!x)
		return -ENOMEM;
	LABEL(x, "%.47s", label);
	return 0;
}

/* The kernel's work on the workload's memory: collapses by result, folios swapped out by
 * order (whole or split first), reclaim time. */
static int add_mm(const struct fol_report *r, struct fol_figures *f)
{
	const struct fol_collapse *c = &r->s.collapse;
	const struct fol_swapout *sw = &r->s.swapout;
	const struct fol_reclaim *rc = &r->s.reclaim;
	char k[64], label[48], name[32], sz[16];
	int ret = 0;

	for (int st = 0; st < FOL_SCAN_RESULTS && !ret; st++) {
		if (!c->collapses[st])
			continue;
		fol_scan_result(r, st, name, sizeof(name));
		snprintf(k, sizeof(k), "collapse.collapses.%s", name);
		snprintf(label, sizeof(label), "collapses %s", name);
		ret = add_count(f, RANK(S_MM, 0, st, 0), FOL_BETTER_NONE, (double)c->collapses[st], k, label);
	}
	if (!ret && add_latency(f, S_MM, 0, FOL_SCAN_RESULTS, &c->time, "collapse.time", "collapse time"))
		ret = -ENOMEM;
	for (int o = 0; o <= FOL_MAX_ORDER && !ret; o++) {
		fol_order_size(o, r->page_size, sz, sizeof(sz));
		snprintf(k, sizeof(k), "swapout.%s.whole", sz);
		snprintf(label, sizeof(label), "%s swapped out whole", sz);
		if (sw->whole[o])
			ret = add_count(f, RANK(S_MM, 1, o, 0), FOL_BETTER_NONE, (double)sw->whole[o], k, label);
		snprintf(k, sizeof(k), "swapout.%s.split", sz);
		snprintf(label, sizeof(label), "%s split to swap out", sz);
		if (!ret && sw->split[o])
			ret = add_count(f, RANK(S_MM, 1, o, 1), FOL_BETTER_LOWER, (double)sw->split[o], k, label);
	}
	if (!ret && rc->direct)
		ret = add_count(f, RANK(S_MM, 2, 0, 0), FOL_BETTER_LOWER, (double)rc->direct,
				"reclaim.direct.count", "direct reclaims");
	if (!ret && rc->direct && add_latency(f, S_MM, 2, 1, &rc->direct_time, "reclaim.direct.time",
					      "direct reclaim"))
		ret = -ENOMEM;
	if (!ret && rc->kswapd_ns) {
		struct fol_figure *x = add(f, S_MM, RANK(S_MM, 2, 2, 0), FOL_UNIT_NS, FOL_BETTER_NONE, 1,
					   (double)rc->kswapd_ns, "reclaim.kswapd.awake_ns");

		ret = x ? 0 : -ENOMEM;
		LABEL(x, "kswapd awake");
	}
	return ret;
}

static int add_phases(const struct fol_report *r, struct fol_figures *f)
{
	const char *names[MAX_PHASES];
	double ns[MAX_PHASES], faults[MAX_PHASES];
	int n = fol_phase_totals(r, names, ns, faults, MAX_PHASES);

	for (int i = 0; i < n; i++) {
		struct fol_figure *x = add(f, S_PHASES, RANK(S_PHASES, 0, 0, i), FOL_UNIT_NS,
					   FOL_BETTER_LOWER, 1, ns[i], "phase.%s_ns", names[i]);

		if (!x)
			return -ENOMEM;
		LABEL(x, "phase %s", names[i]);
	}
	return 0;
}

static int add_counters(const struct fol_report *r, struct fol_figures *f)
{
	int i = 0;

	if (r->rec.counted) {
		for (int k = 0; fol_report_vmstat[k]; k++) {
			double d = fol_report_counter(r, "vmstat", fol_report_vmstat[k]);
			struct fol_figure *x;

			if (d == 0)
				continue;
			x = add(f, S_COUNTERS, RANK(S_COUNTERS, 0, 0, 0) + (uint32_t)i++, FOL_UNIT_COUNT,
				FOL_BETTER_NONE, 1, d, "vmstat.%s", fol_report_vmstat[k]);
			if (!x)
				return -ENOMEM;
			x->system_wide = 1;
			LABEL(x, "%s", fol_report_vmstat[k]);
		}
		for (int k = 0; k < r->rec.nmthp; k++) {
			const struct fol_mthp_stat *m = &r->rec.mthp[k];
			struct fol_figure *x;

			if (m->delta == 0 || !strncmp(m->stat, "nr_", 3))
				continue;
			x = add(f, S_COUNTERS, RANK(S_COUNTERS, 0, 0, 0) + (uint32_t)i++, FOL_UNIT_COUNT,
				FOL_BETTER_NONE, 1, m->delta, "mthp.%s.%s", m->size, m->stat);
			if (!x)
				return -ENOMEM;
			x->system_wide = 1;
			LABEL(x, "mthp %s %s", strncmp(m->size, "hugepages-", 10) ? m->size : m->size + 10,
			      m->stat);
		}
	}
	i = 0;
	for (int k = 0; k < r->rec.npmu; k++) {
		const struct fol_pmu_count *pc = &r->rec.pmu[k];
		const char *ev = pc->event;
		struct fol_figure *x;

		if (!ev || !pc->supported || !pc->counted)
			continue;
		/* The workload's own costs (faults, TLB misses, cycles, instructions): fewer is
		 * better, as for the faults counted from the events (page-faults was marked (*)
		 * where the same count as faults was (I)). */
		x = add(f, S_PMU, RANK(S_PMU, 0, 0, 0) + (uint32_t)i++, FOL_UNIT_COUNT, FOL_BETTER_LOWER, 1,
			pc->value, "pmu.%s", ev);
		if (!x)
			return -ENOMEM;
		LABEL(x, "%s", ev);
	}
	return 0;
}

int fol_figures_of(const struct fol_report *r, struct fol_figures *f)
{
	int ret;

	memset(f, 0, sizeof(*f));
	ret = add_faults(r, f);
	if (!ret)
		ret = add_cells(r, f);
	if (!ret)
		ret = add_reuse(r, f);
	if (!ret)
		ret = add_calls(r, f);
	if (!ret)
		ret = add_mm(r, f);
	if (!ret)
		ret = add_phases(r, f);
	if (!ret)
		ret = add_counters(r, f);
	if (ret)
		fol_figures_free(f);
	return ret;
}

void fol_figures_free(struct fol_figures *f)
{
	free(f->v);
	memset(f, 0, sizeof(*f));
}

const struct fol_figure *fol_figures_find(const struct fol_figures *f, const char *key)
{
	for (int i = 0; i < f->n; i++)
		if (!strcmp(f->v[i].key, key))
			return &f->v[i];
	return NULL;
}
