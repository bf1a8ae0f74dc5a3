// SPDX-License-Identifier: GPL-2.0-only
/* The report as JSON, schema foliostat/report/v1 (man/foliostat-report.1). */
#include "report/report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sys/counters.h"
#include "util/escape.h"
#include "report/report_sites.h"
#include "sys/pagecache.h"

static void add_u64(cJSON *o, const char *k, uint64_t v)
{
	/* Doubles hold integers exactly up to 2^53: 104 days in ns. */
	cJSON_AddNumberToObject(o, k, (double)v);
}

static cJSON *lat_json(const struct fol_hist *h)
{
	cJSON *o = cJSON_CreateObject();

	add_u64(o, "count", h->count);
	add_u64(o, "p50", fol_hist_quantile(h, 0.50));
	add_u64(o, "p90", fol_hist_quantile(h, 0.90));
	add_u64(o, "p99", fol_hist_quantile(h, 0.99));
	add_u64(o, "max", h->max);
	add_u64(o, "mean", fol_hist_mean(h));
	return o;
}

static int order_used(const struct fol_order_stats *os)
{
	if (os->folios_allocated || os->reuse.folios)
		return 1;
	for (int c = 0; c < FOL_NR_CLASSES; c++)
		if (os->cell[c].faults)
			return 1;
	return 0;
}

static double ratio(uint64_t a, uint64_t b)
{
	return b ? round((double)a / (double)b * 1e6) / 1e6 : 0;
}

static cJSON *reuse_json(const struct fol_reuse *ru, int order)
{
	cJSON *o = cJSON_CreateObject(), *h;

	add_u64(o, "folios", ru->folios);
	add_u64(o, "episodes", ru->episodes);
	add_u64(o, "faults", ru->faults);
	cJSON_AddNumberToObject(o, "faults_per_folio", ratio(ru->faults, ru->episodes));
	cJSON_AddNumberToObject(o, "pages_per_fault",
				ru->faults ? ratio(ru->episodes << (order < 0 ? 0 : order), ru->faults) : 0);
	cJSON_AddNumberToObject(o, "effectiveness", ratio(ru->episodes, ru->faults));
	add_u64(o, "time_ns", ru->time_ns);
	add_u64(o, "surplus_time_ns", ru->surplus_ns);
	h = cJSON_AddArrayToObject(o, "histogram");
	for (int b = 0; b < FOL_REUSE_BUCKETS; b++) {
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "faults_per_folio", fol_reuse_bucket_label(b));
		add_u64(e, "folios", ru->hist[b]);
		cJSON_AddItemToArray(h, e);
	}
	return o;
}

static char *iso_time(double ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1e9);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return buf;
}

static cJSON *kernel_counters_json(const struct fol_report *r)
{
	cJSON *k = cJSON_CreateObject(), *at[8] = { k };

	cJSON_AddStringToObject(k, "scope", "system");
	/* The sections under kernel_counters, the nodes back into their tree. */
	for (int i = 0; i < r->rec.ncounters; i++) {
		const struct fol_counter_node *n = &r->rec.counters[i];
		cJSON *parent = n->depth < 7 ? at[n->depth] : NULL, *v;

		if (!parent)
			continue;
		v = n->type == FOL_NODE_OBJECT	 ? cJSON_CreateObject()
		  : n->type == FOL_NODE_NUMBER ? cJSON_CreateNumber(n->number)
					       : cJSON_CreateString(n->text);
		cJSON_AddItemToObject(parent, n->key, v);
		if (n->type == FOL_NODE_OBJECT)
			at[n->depth + 1] = v;
	}
	return k;
}


/* Counts by folio order, the orders with none left out: [{"order": 4, KEY: n}, ...]. */
static cJSON *by_order_json(const uint64_t counts[FOL_MAX_ORDER + 1], const char *key)
{
	cJSON *arr = cJSON_CreateArray();

	for (int o = 0; o <= FOL_MAX_ORDER; o++) {
		cJSON *e;

		if (!counts[o])
			continue;
		e = cJSON_CreateObject();
		cJSON_AddNumberToObject(e, "order", o);
		add_u64(e, key, counts[o]);
		cJSON_AddItemToArray(arr, e);
	}
	return arr;
}

static void events_json(const struct fol_report *r, cJSON *rec)
{
	cJSON *arr = cJSON_AddArrayToObject(rec, "events");

	for (int i = 0; i < r->nevents; i++) {
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "name", r->events[i].name);
		cJSON_AddStringToObject(e, "scope", r->events[i].mm_threads ? "mm-threads" : "target");
		cJSON_AddBoolToObject(e, "available", 1);
		add_u64(e, "count", r->events[i].count);
		cJSON_AddItemToArray(arr, e);
	}
	for (int i = 0; i < r->rec.missing_events.n; i++) {
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "name", r->rec.missing_events.v[i]);
		cJSON_AddStringToObject(e, "scope", "target");
		cJSON_AddBoolToObject(e, "available", 0);
		add_u64(e, "count", 0);
		cJSON_AddItemToArray(arr, e);
	}
}

/* How it was recorded: command, kernel, events, what was lost, dropped or warned about. */

/* The probe effect calibrated before the recording (calibrate.h), or null. */
static void probe_json(const struct fol_report *r, cJSON *rec)
{
	const struct fol_probe *c = &r->rec.probe;
	cJSON *p;

	if (!c->have) {
		cJSON_AddNullToObject(rec, "probe_effect");
		return;
	}
	p = cJSON_AddObjectToObject(rec, "probe_effect");
	cJSON_AddNumberToObject(p, "faults", c->faults);
	cJSON_AddNumberToObject(p, "passes", c->passes);
	cJSON_AddNumberToObject(p, "untraced_ns", c->untraced_ns);
	cJSON_AddNumberToObject(p, "traced_ns", c->traced_ns);
	/* Not measurable (the machine was busy): null, not a negative cost. */
	if (c->traced_ns > c->untraced_ns)
		cJSON_AddNumberToObject(p, "added_ns", c->traced_ns - c->untraced_ns);
	else
		cJSON_AddNullToObject(p, "added_ns");
	cJSON_AddNumberToObject(p, "samples", c->samples);
	/* Records that closed a fault (1 a fault): null in recordings made before it was kept. */
	if (c->exits >= 0)
		cJSON_AddNumberToObject(p, "exits", c->exits);
	else
		cJSON_AddNullToObject(p, "exits");
	/* The bytes of those samples: a user stack per fault when the recording took one
	 * (calibrated with it since); null in recordings made before. */
	if (c->sample_bytes >= 0)
		cJSON_AddNumberToObject(p, "sample_bytes", c->sample_bytes);
	else
		cJSON_AddNullToObject(p, "sample_bytes");
}


/* What the page cache read at the end of the recording covered: files read, files not
 * read and (the first few) why; null without one. */
static cJSON *page_cache_json(const struct fol_pagecache_read *pc)
{
	cJSON *o, *u;

	if (!pc->have)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "files", pc->files);
	cJSON_AddNumberToObject(o, "unreadable_files", pc->unreadable_files);
	u = cJSON_AddArrayToObject(o, "unread");
	for (int i = 0; i < pc->nunread; i++) {
		cJSON *e = cJSON_CreateObject();

		if (pc->unread[i].path)
			cJSON_AddStringToObject(e, "path", pc->unread[i].path);
		if (pc->unread[i].why)
			cJSON_AddStringToObject(e, "why", pc->unread[i].why);
		cJSON_AddItemToArray(u, e);
	}
	if (pc->error)
		cJSON_AddStringToObject(o, "error", pc->error);
	else
		cJSON_AddNullToObject(o, "error");
	return o;
}

/* The page tables' totals at the end, each field where the recording has it. */
static cJSON *left_behind_json(const struct fol_left_behind *l)
{
	cJSON *o, *orders;

	if (!l->have)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	orders = cJSON_AddArrayToObject(o, "orders");
	for (int i = 0; i < l->norders; i++) {
		cJSON *e = cJSON_CreateObject();

		for (int k = 0; k < FOL_LEFT_ORDER_FIELDS; k++)
			if (l->orders[i].present & 1u << k)
				cJSON_AddNumberToObject(e, fol_left_order_keys[k], l->orders[i].v[k]);
		cJSON_AddItemToArray(orders, e);
	}
	for (int k = 0; k < FOL_LEFT_FIELDS; k++)
		if (l->present & 1u << k)
			cJSON_AddNumberToObject(o, fol_left_keys[k], l->v[k]);
	return o;
}

static cJSON *recording_json(const struct fol_report *r, const struct fol_report_view *v)
{
	const struct fol_summary *s = &r->s;
	cJSON *rec = cJSON_CreateObject(), *seeded, *w;
	char buf[64];

	cJSON_AddItemToObject(rec, "command", r->rec.command.n ? cJSON_CreateStringArray(
		(const char *const *)r->rec.command.v, r->rec.command.n) : cJSON_CreateArray());
	cJSON_AddNumberToObject(rec, "pid", r->rec.pid);
	/* The kernel's mm threads recorded beside the workload (pids); none: not recorded. */
	cJSON_AddItemToObject(rec, "mm_threads", r->rec.mm_threads.n ? cJSON_CreateDoubleArray(
		r->rec.mm_threads.v, r->rec.mm_threads.n) : cJSON_CreateArray());
	cJSON_AddStringToObject(rec, "kernel", r->rec.kernel ?: "unknown");
	cJSON_AddStringToObject(rec, "started", iso_time(r->rec.started_realtime_ns, buf, sizeof(buf)));
	add_u64(rec, "duration_ns", (uint64_t)(r->rec.duration_ns >= 0 ? r->rec.duration_ns
									 : (double)(s->last_ns - s->first_ns)));
	cJSON_AddStringToObject(rec, "latency_method", r->method);
	/* Latencies hold the tracing's own cost: measured (record -r, untraced runs), never
	 * subtracted, and said so for a dashboard that compares them with other tools'. */
	cJSON_AddBoolToObject(rec, "latency_probe_corrected", 0);
	probe_json(r, rec);
	if (r->rec.kernel_build_id)
		cJSON_AddStringToObject(rec, "kernel_build_id", r->rec.kernel_build_id);
	else
		cJSON_AddNullToObject(rec, "kernel_build_id");
	cJSON_AddStringToObject(rec, "kernel_symbols", r->ksyms_from);
	cJSON_AddBoolToObject(rec, "kernel_symbols_damaged", r->ksyms_damaged);
	/* record --fault-path: "bpf" or "samples"; null in recordings made before it. */
	if (r->rec.fault_path)
		cJSON_AddStringToObject(rec, "fault_path", r->rec.fault_path);
	else
		cJSON_AddNullToObject(rec, "fault_path");
	if (r->rec.fault_path_why)
		cJSON_AddStringToObject(rec, "fault_path_why", r->rec.fault_path_why);
	else
		cJSON_AddNullToObject(rec, "fault_path_why");
	if (r->s.sampled)
		cJSON_AddNumberToObject(rec, "sample_period_ns", r->rec.sample_period_ns);
	else
		cJSON_AddNullToObject(rec, "sample_period_ns");
	add_u64(rec, "page_size", r->page_size);
	events_json(r, rec);
	add_u64(rec, "lost_events", r->st.lost ? r->st.lost : s->lost);
	add_u64(rec, "retimed_samples", r->st.retimed);
	seeded = by_order_json(s->seeded, "folios");
	cJSON_AddItemToObject(rec, "seeded_folios", seeded);
	cJSON_AddItemToObject(rec, "page_cache", page_cache_json(&r->rec.pagecache));
	add_u64(rec, "unknown_records", r->st.unknown_records);
	add_u64(rec, "malformed_records", r->st.bad_records);
	add_u64(rec, "bad_metadata", r->st.bad_metadata);
	if (r->rec.lost_samples >= 0)
		add_u64(rec, "lost_samples", (uint64_t)r->rec.lost_samples);
	else
		cJSON_AddNullToObject(rec, "lost_samples");
	w = cJSON_AddArrayToObject(rec, "warnings");
	for (int i = 0; i < r->warnings.n; i++)
		cJSON_AddItemToArray(w, cJSON_CreateString(r->warnings.v[i]));
	w = cJSON_AddArrayToObject(rec, "notes");
	for (int i = 0; i < r->notes.n; i++)
		cJSON_AddItemToArray(w, cJSON_CreateString(r->notes.v[i]));
	if (v->filter[0])
		cJSON_AddStringToObject(rec, "filter", v->filter);
	if (r->cg.ids) {
		cJSON *cg = cJSON_AddObjectToObject(rec, "cgroup");

		cJSON_AddStringToObject(cg, "path", r->cg.path);
		add_u64(cg, "samples_outside", r->s.outside_cgroup);
	} else {
		cJSON_AddNullToObject(rec, "cgroup");
	}
	return rec;
}

static cJSON *order_json(const struct fol_report *r, int slot)
{
	const struct fol_summary *s = &r->s;
	const struct fol_order_stats *os = &s->order[slot];
	int order = FOL_SLOT_ORDER(slot);
	cJSON *o = cJSON_CreateObject(), *f, *ft, *lc;
	struct fol_hist lat = { 0 };
	int nomem = 0;

	cJSON_AddNumberToObject(o, "order", order);
	if (order >= 0)
		add_u64(o, "size_bytes", (uint64_t)r->page_size << order);
	else
		cJSON_AddNullToObject(o, "size_bytes");
	add_u64(o, "folios_allocated", os->folios_allocated);
	f = cJSON_AddObjectToObject(o, "faults");
	ft = cJSON_AddObjectToObject(o, "fault_time_ns");
	lc = cJSON_AddObjectToObject(o, "latency_by_class_ns");
	for (int c = 0; c < FOL_NR_CLASSES; c++) {
		const struct fol_cell *cell = &os->cell[c];
		const char *name = fol_class_name((enum fol_class)c);

		if (!cell->faults)
			continue;
		add_u64(f, name, cell->faults);
		add_u64(ft, name, fol_cell_time(s, cell));
		nomem |= fol_hist_merge(&lat, &cell->lat);
		if (cell->lat.count)
			cJSON_AddItemToObject(lc, name, lat_json(&cell->lat));
	}
	cJSON_AddItemToObject(o, "latency_ns", lat.count ? lat_json(&lat) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "reuse", reuse_json(&os->reuse, order));
	fol_hist_free(&lat);
	if (nomem) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static cJSON *totals_json(const struct fol_summary *s)
{
	cJSON *t = cJSON_CreateObject(), *u;

	add_u64(t, "faults", s->faults);
	add_u64(t, "fault_time_ns", fol_total_time(s));
	add_u64(t, "unclosed_faults", s->unclosed);
	add_u64(t, "unclosed_kernel_faults", s->unclosed_kernel);
	add_u64(t, "unclosed_faults_disabled", s->unclosed_faults_disabled);
	add_u64(t, "in_flight_faults", s->in_flight);
	add_u64(t, "exits_without_entry", s->orphan_exits);
	add_u64(t, "untimed_faults", s->untimed);
	add_u64(t, "retimed_exits", s->retimed_exits);
	u = cJSON_AddObjectToObject(t, "unknown_order");
	for (int i = 0; i < FOL_NR_UNKNOWN; i++)
		add_u64(u, fol_unknown_name((enum fol_unknown)i), s->unknown[i]);
	u = cJSON_AddObjectToObject(t, "file_order_from_page_cache");
	add_u64(u, "added", s->file_order[FOL_PC_ADDED]);
	add_u64(u, "at_end", s->file_order[FOL_PC_AT_END]);
	add_u64(u, "at_fault", s->file_order[FOL_PC_AT_FAULT]);
	cJSON_AddItemToObject(t, "latency_ns", s->all_lat.count ? lat_json(&s->all_lat) : cJSON_CreateNull());
	cJSON_AddItemToObject(t, "gap_ns", s->all_gap.count ? lat_json(&s->all_gap) : cJSON_CreateNull());
	add_u64(t, "threads", s->threads);
	add_u64(t, "processes", s->processes);
	return t;
}

/* Each class over every order. */
static cJSON *class_json(const struct fol_summary *s, int c)
{
	struct fol_hist lat = { 0 }, gap = { 0 };
	uint64_t faults = 0, unclosed = 0, time = 0;
	cJSON *o = cJSON_CreateObject();
	int nomem = 0;

	for (int slot = 0; slot < FOL_NR_ORDER_SLOTS; slot++) {
		faults += s->order[slot].cell[c].faults;
		time += fol_cell_time(s, &s->order[slot].cell[c]);
		unclosed += s->order[slot].cell[c].unclosed;
		nomem |= fol_hist_merge(&lat, &s->order[slot].cell[c].lat);
		nomem |= fol_hist_merge(&gap, &s->order[slot].cell[c].gap);
	}
	cJSON_AddStringToObject(o, "class", fol_class_name((enum fol_class)c));
	add_u64(o, "faults", faults);
	add_u64(o, "fault_time_ns", time);
	add_u64(o, "unclosed", unclosed);
	cJSON_AddItemToObject(o, "latency_ns", lat.count ? lat_json(&lat) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "gap_ns", gap.count ? lat_json(&gap) : cJSON_CreateNull());
	fol_hist_free(&lat);
	fol_hist_free(&gap);
	if (nomem) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* The workload's phases as it timed them: name, start and end, each where it gave it. */
static cJSON *phases_json(const struct fol_report *r)
{
	cJSON *arr = cJSON_CreateArray();

	for (int i = 0; i < r->rec.phases.n; i++) {
		const struct fol_phase *p = &r->rec.phases.v[i];
		cJSON *e = cJSON_CreateObject();

		if (p->name)
			cJSON_AddStringToObject(e, "phase", p->name);
		if (p->timed) {
			cJSON_AddNumberToObject(e, "start_ns", p->start_ns);
			cJSON_AddNumberToObject(e, "end_ns", p->end_ns);
		}
		cJSON_AddItemToArray(arr, e);
	}
	return arr;
}

static cJSON *pmu_json(const struct fol_report *r)
{
	cJSON *arr = cJSON_CreateArray();

	for (int i = 0; i < r->rec.npmu; i++) {
		const struct fol_pmu_count *p = &r->rec.pmu[i];
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "event", p->event ?: "?");
		if (p->supported)
			cJSON_AddNumberToObject(e, "value", p->value);
		else
			cJSON_AddNullToObject(e, "value");
		cJSON_AddBoolToObject(e, "supported", p->supported);
		cJSON_AddItemToArray(arr, e);
	}
	return arr;
}

/* Folios written to swap by the order they were allocated at: whole, or split first (and
 * the pieces written). */
static cJSON *swapout_json(const struct fol_swapout *sw)
{
	cJSON *o = cJSON_CreateObject(), *split = cJSON_CreateArray();

	cJSON_AddItemToObject(o, "whole", by_order_json(sw->whole, "folios"));
	for (int k = 0; k <= FOL_MAX_ORDER; k++) {
		cJSON *e;

		if (!sw->split[k])
			continue;
		e = cJSON_CreateObject();
		cJSON_AddNumberToObject(e, "order", k);
		add_u64(e, "folios", sw->split[k]);
		add_u64(e, "pieces", sw->pieces[k]);
		cJSON_AddItemToArray(split, e);
	}
	cJSON_AddItemToObject(o, "split", split);
	add_u64(o, "unknown_writes", sw->unknown);
	return o;
}

static cJSON *reclaim_json(const struct fol_reclaim *rc)
{
	cJSON *o = cJSON_CreateObject(), *d = cJSON_AddObjectToObject(o, "direct");
	cJSON *k = cJSON_AddObjectToObject(o, "kswapd");

	add_u64(d, "count", rc->direct);
	add_u64(d, "pages_reclaimed", rc->direct_reclaimed);
	add_u64(d, "time_ns", rc->direct_time.sum);
	cJSON_AddItemToObject(d, "latency_ns",
			      rc->direct_time.count ? lat_json(&rc->direct_time) : cJSON_CreateNull());
	add_u64(k, "wakes", rc->kswapd_wakes);
	add_u64(k, "awake_ns", rc->kswapd_ns);
	return o;
}

/* The bulk system calls: count, time, bytes asked for, pages freed inside by order. */
static cJSON *calls_json(const struct fol_report *r)
{
	cJSON *arr = cJSON_CreateArray();

	for (int c = 0; c < FOL_NR_CALLS; c++) {
		const struct fol_call_stats *cs = &r->s.calls[c];
		cJSON *o, *fr;

		if (!cs->calls)
			continue;
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "call", fol_call_key((enum fol_call)c));
		add_u64(o, "calls", cs->calls);
		add_u64(o, "errors", cs->errors);
		add_u64(o, "bytes", cs->bytes);
		add_u64(o, "time_ns", cs->time.sum);
		cJSON_AddItemToObject(o, "latency_ns", cs->time.count ? lat_json(&cs->time) : cJSON_CreateNull());
		fr = by_order_json(cs->freed, "pages");
		cJSON_AddItemToObject(o, "freed", fr);
		cJSON_AddItemToObject(o, "populated", by_order_json(cs->populated, "folios"));
		cJSON_AddItemToObject(o, "swapped", swapout_json(&cs->swapped));
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

/* Counts by scan result name, the ones not zero. */
static cJSON *by_result_json(const struct fol_report *r, const uint64_t v[FOL_SCAN_RESULTS])
{
	cJSON *o = cJSON_CreateObject();
	char name[32];

	for (int st = 0; st < FOL_SCAN_RESULTS; st++)
		if (v[st])
			add_u64(o, fol_scan_result(r, st, name, sizeof(name)), v[st]);
	return o;
}

static cJSON *scans_collapses(uint64_t scans, uint64_t collapses)
{
	cJSON *o = cJSON_CreateObject();

	add_u64(o, "scans", scans);
	add_u64(o, "collapses", collapses);
	return o;
}

/* PMDs scanned and collapses tried, by result name; the collapse time; what of it
 * khugepaged did, and its work elsewhere. */
static cJSON *collapse_json(const struct fol_report *r)
{
	const struct fol_collapse *c = &r->s.collapse;
	cJSON *o = cJSON_CreateObject(), *k;

	cJSON_AddItemToObject(o, "scans", by_result_json(r, c->scans));
	cJSON_AddItemToObject(o, "collapses", by_result_json(r, c->collapses));
	cJSON_AddItemToObject(o, "time_ns", c->time.count ? lat_json(&c->time) : cJSON_CreateNull());
	k = cJSON_AddObjectToObject(o, "khugepaged");
	cJSON_AddItemToObject(k, "scans", by_result_json(r, c->khugepaged_scans));
	cJSON_AddItemToObject(k, "collapses", by_result_json(r, c->khugepaged_collapses));
	cJSON_AddItemToObject(o, "other_processes", scans_collapses(c->other_scans, c->other_collapses));
	cJSON_AddItemToObject(o, "not_attributable",
			      scans_collapses(c->unattributed_scans, c->unattributed_collapses));
	return o;
}

/* The sites grouped by keys: one object per group, a field per key ("sym" with its "src"),
 * then the figures. top: the first rows only (0: all). */
static cJSON *groups_json(const struct fol_report *r, const int *keys, int nkeys, int top)
{
	cJSON *arr = cJSON_CreateArray();
	struct fol_grouping g;

	if (fol_report_group(r, keys, nkeys, &g))
		return arr;
	for (size_t i = 0; i < g.n && (!top || i < (size_t)top); i++) {
		const struct fol_group *gr = &g.v[i];
		cJSON *o = cJSON_CreateObject();

		for (int k = 0; k < nkeys; k++) {
			const char *v = gr->part[keys[k]];

			if (keys[k] == FOL_SORT_PID)
				cJSON_AddNumberToObject(o, "pid", atoi(v));
			else if (keys[k] == FOL_SORT_ORDER)
				cJSON_AddNumberToObject(o, "order", gr->order);
			else
				cJSON_AddStringToObject(o, fol_sort_name(keys[k]), v);
			if (keys[k] == FOL_SORT_SYM)
				cJSON_AddStringToObject(o, "src", gr->src ? gr->src : "");
		}
		add_u64(o, "faults", gr->faults);
		add_u64(o, "time_ns", gr->time_ns);
		add_u64(o, "max_ns", gr->max_ns);
		cJSON_AddItemToArray(arr, o);
	}
	fol_grouping_free(&g);
	return arr;
}

/* Faults per time bin and class, from the first fault on: for dashboards' plots. */
static cJSON *timeline_json(const struct fol_summary *s)
{
	cJSON *t = cJSON_CreateObject(), *w;

	add_u64(t, "bin_ns", s->bin_ns);
	w = cJSON_AddObjectToObject(t, "faults");
	for (int c = 0; c < FOL_NR_CLASSES && s->bins; c++) {
		cJSON *row = cJSON_CreateArray();
		uint64_t total = 0;

		for (int b = 0; b < s->nbins; b++) {
			uint64_t v = s->bins[(size_t)b * FOL_NR_CLASSES + (size_t)c];

			total += v;
			cJSON_AddItemToArray(row, cJSON_CreateNumber((double)v));
		}
		if (total)
			cJSON_AddItemToObject(w, fol_class_name((enum fol_class)c), row);
		else
			cJSON_Delete(row);
	}
	return t;
}

cJSON *fol_report_json(const struct fol_report *r, const struct fol_report_view *v)
{
	cJSON *j = cJSON_CreateObject(), *t, *arr;

	cJSON_AddStringToObject(j, "schema", "foliostat/report/v1");
	t = cJSON_AddObjectToObject(j, "tool");
	cJSON_AddStringToObject(t, "name", "foliostat");
	cJSON_AddStringToObject(t, "version", FOL_VERSION);
	cJSON_AddItemToObject(j, "recording", recording_json(r, v));
	arr = cJSON_AddArrayToObject(j, "orders");
	for (int slot = 0; slot < FOL_NR_ORDER_SLOTS; slot++)
		if (order_used(&r->s.order[slot]))
			cJSON_AddItemToArray(arr, order_json(r, slot));
	cJSON_AddItemToObject(j, "totals", totals_json(&r->s));
	arr = cJSON_AddArrayToObject(j, "classes");
	for (int c = 0; c < FOL_NR_CLASSES; c++)
		cJSON_AddItemToArray(arr, class_json(&r->s, c));
	{
		static const int site_keys[] = { FOL_SORT_ORDER, FOL_SORT_CLASS, FOL_SORT_DSO,
						 FOL_SORT_SYM, FOL_SORT_MAP };
		static const int map_keys[] = { FOL_SORT_MAP, FOL_SORT_ORDER, FOL_SORT_CLASS };

		cJSON_AddItemToObject(j, "sites", v->nsort ? groups_json(r, v->sort, v->nsort, v->top)
							   : groups_json(r, site_keys, 5, v->top));
		cJSON_AddItemToObject(j, "mappings", groups_json(r, map_keys, 3, v->top));
	}
	cJSON_AddItemToObject(j, "calls", calls_json(r));
	cJSON_AddItemToObject(j, "populated_in_other_calls", by_order_json(r->s.populated_other, "folios"));
	cJSON_AddItemToObject(j, "collapse", collapse_json(r));
	cJSON_AddItemToObject(j, "swapout", swapout_json(&r->s.swapout));
	cJSON_AddItemToObject(j, "reclaim", reclaim_json(&r->s.reclaim));
	cJSON_AddItemToObject(j, "pmu", pmu_json(r));
	cJSON_AddItemToObject(j, "kernel_counters", kernel_counters_json(r));
	cJSON_AddItemToObject(j, "timeline", timeline_json(&r->s));
	cJSON_AddItemToObject(j, "phases", phases_json(r));
	cJSON_AddItemToObject(j, "left_behind", left_behind_json(&r->rec.left));
	return fol_escape_json(j) ? j : (cJSON_Delete(j), NULL);
}

int fol_render_json(const struct fol_report *r, const struct fol_report_view *v, FILE *f)
{
	cJSON *j = fol_report_json(r, v);
	char *s = j ? cJSON_Print(j) : NULL;

	cJSON_Delete(j);
	if (!s)
		return -ENOMEM;
	fprintf(f, "%s\n", s);
	free(s);
	return 0;
}
