// SPDX-License-Identifier: GPL-2.0-only
#include "report.h"

#include "escape.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "counters.h"

const char *const fol_report_vmstat[] = {
	"pgfault", "pgmajfault", "thp_fault_alloc", "thp_fault_fallback", "thp_split_pmd",
	"thp_split_page", "thp_split_page_failed", "thp_deferred_split_page", "thp_collapse_alloc",
	"thp_collapse_alloc_failed", "thp_migration_split", "pswpin", "pswpout", "pgmigrate_success",
	"thp_swpout", "thp_swpout_fallback", "numa_hint_faults", NULL,
};

/* A display preference of the process, set once by cmd/ from the locale. */
static int fmt_ascii;

void fol_fmt_set_ascii(int ascii)
{
	fmt_ascii = ascii;
}

const char *fol_fmt_ns(uint64_t ns, char *buf, int len)
{
	double v = (double)ns;

	if (ns < 1000)
		snprintf(buf, (size_t)len, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, (size_t)len, fmt_ascii ? "%.1f us" : "%.1f µs", v / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, (size_t)len, "%.2f ms", v / 1e6);
	else
		snprintf(buf, (size_t)len, "%.3f s", v / 1e9);
	return buf;
}

const char *fol_fmt_ns_col(uint64_t ns, int have, int w, char *buf, int len)
{
	char t[24];
	int cols = 0, pad;

	if (have)
		fol_fmt_ns(ns, t, sizeof(t));
	else
		snprintf(t, sizeof(t), "-");
	for (const char *p = t; *p; p++)
		cols += ((unsigned char)*p & 0xc0) != 0x80; /* UTF-8 continuation bytes: no column */
	pad = w > cols ? w - cols : 0;
	if (pad + (int)strlen(t) >= len)
		pad = 0;
	memset(buf, ' ', (size_t)pad);
	memcpy(buf + pad, t, strlen(t) + 1);
	return buf;
}

uint64_t fol_cell_time(const struct fol_summary *s, const struct fol_cell *c)
{
	return s->sampled ? c->sampled_ns : c->lat.sum;
}

uint64_t fol_total_time(const struct fol_summary *s)
{
	uint64_t t = 0;

	if (!s->sampled)
		return s->all_lat.sum;
	for (int slot = 0; slot < FOL_NR_ORDER_SLOTS; slot++)
		for (int c = 0; c < FOL_NR_CLASSES; c++)
			t += s->order[slot].cell[c].sampled_ns;
	return t;
}

static cJSON *dup(const cJSON *j)
{
	return j ? cJSON_Duplicate(j, 1) : NULL;
}

static double num(const cJSON *o, const char *k, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

double fol_report_counter(const struct fol_report *r, const char *section, const char *name)
{
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(r->before, section);
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(r->after, section);

	return num(a, name, 0) - num(b, name, 0);
}

/* Samples the kernel dropped, summed over the events (PERF_FORMAT_LOST); -1 when the
 * recording predates that count or the kernel has none. */
static double lost_samples(const struct fol_report *r)
{
	const cJSON *ls = cJSON_GetObjectItemCaseSensitive(r->end, "lost_samples"), *e;
	double n = 0;

	if (!ls)
		return -1;
	cJSON_ArrayForEach(e, ls)
		if (cJSON_IsNumber(e))
			n += e->valuedouble;
	return n;
}

static void add_warnings(struct fol_report *r)
{
	const cJSON *w, *mthp, *sz;
	struct fol_summary *s = &r->s;
	double split = 0, collapse;

	cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(r->meta, "warnings"))
		if (cJSON_IsString(w))
			fol_msgs_add(&r->warnings, "%s", w->valuestring);
	if (r->st.lost || s->lost)
		fol_msgs_add(&r->warnings,
			     "%" PRIu64 " events were lost while recording: counts are low and faults "
			     "may be misclassified; record again with a larger -m",
			     r->st.lost ? r->st.lost : s->lost);
	if (lost_samples(r) > 0)
		fol_msgs_add(&r->warnings, "the kernel dropped %.0f samples (PERF_FORMAT_LOST): "
					   "record again with a larger -m", lost_samples(r));
	if (r->st.file.truncated || !r->st.file.complete)
		fol_msgs_add(&r->warnings, "the recording ends early (cut short?): figures cover "
					   "what was written");
	if (r->st.file.corrupt_chunks)
		fol_msgs_add(&r->warnings, "%" PRIu64 " damaged region(s) of the file were skipped",
			     r->st.file.corrupt_chunks);
	if (r->st.bad_records)
		fol_msgs_add(&r->warnings, "%" PRIu64 " malformed records (bad layout or values out "
					   "of range) were skipped", r->st.bad_records);
	if (r->st.bad_metadata)
		fol_msgs_add(&r->warnings, "%" PRIu64 " metadata values of the wrong type or range "
					   "were ignored", r->st.bad_metadata);
	if (s->unclosed)
		fol_msgs_add(&r->warnings,
			     "%" PRIu64 " faults had no exit sample (failed with SIGSEGV, or events "
			     "lost): counted, but not in latency",
			     s->unclosed);
	if (r->st.retimed)
		fol_msgs_add(&r->warnings,
			     "%" PRIu64 " samples had a time out of place in their ring buffer: another "
			     "tool sampling the same events on these tasks (e.g. perf record -e "
			     "minor-faults -p PID) hands them its own sample data, clock included "
			     "(do_perf_sw_event()); placed by their position, so counts and classes "
			     "hold, but the %" PRIu64 " faults they closed have no latency or gap",
			     r->st.retimed, s->untimed);
	if (r->st.out_of_order)
		fol_msgs_add(&r->warnings,
			     "%" PRIu64 " records arrived after newer ones had been released (a file "
			     "with too few round markers, or damaged): events around them may be out "
			     "of order", r->st.out_of_order);
	if (r->st.unknown_records)
		fol_msgs_add(&r->warnings,
			     "%" PRIu64 " records carry event ids this recording does not describe "
			     "(another tool's events on the same tasks share the kernel's sample data, "
			     "or the file is damaged): skipped, and faults they would have closed "
			     "count as unclosed", r->st.unknown_records);
	if (s->orphan_exits)
		fol_msgs_add(&r->warnings,
			     "%" PRIu64 " fault exits had no entry (at exec the software events are "
			     "enabled a moment before the tracepoints, or an entry was lost)",
			     s->orphan_exits);
	if (s->mismatched_exits)
		fol_msgs_add(&r->warnings, "%" PRIu64 " fault exits had another address than their "
					   "entry", s->mismatched_exits);
	for (int u = 0; u < FOL_NR_UNKNOWN; u++)
		if (s->unknown[u])
			fol_msgs_add(&r->warnings, "%" PRIu64 " faults of order unknown: %s",
				     s->unknown[u], fol_unknown_text((enum fol_unknown)u));
	if (s->moved_unaligned)
		fol_msgs_add(&r->warnings, "mremap moved %" PRIu64 " folios to addresses not "
					   "aligned to their size: the folio map cannot key them",
			     s->moved_unaligned);
	if (str(r->synth, "folios_error"))
		fol_msgs_add(&r->warnings, "the attached process's folios were not read from its page "
					   "tables (%s): faults on memory older than the attach have "
					   "order unknown", str(r->synth, "folios_error"));
	if (num(r->synth, "unaligned_folios", 0) > 0)
		fol_msgs_add(&r->warnings, "%.0f folios in the page tables at attach were not naturally "
					   "aligned (moved by mremap): not seeded, faults on them have "
					   "order unknown", num(r->synth, "unaligned_folios", 0));
	if (s->seed_dropped)
		fol_msgs_add(&r->warnings, "%" PRIu64 " folios of the page tables at attach were over "
					   "foliostat's bound of 2^26 and not seeded", s->seed_dropped);
	if (r->before && !cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r->before, "mthp")))
		fol_msgs_add(&r->warnings, "this kernel has no multi-size THP (no "
					   "transparent_hugepage/hugepages-*kB): only 4K and PMD-size folios");
	split += fol_report_counter(r, "vmstat", "thp_split_page");
	collapse = fol_report_counter(r, "vmstat", "thp_collapse_alloc");
	mthp = cJSON_GetObjectItemCaseSensitive(r->after, "mthp");
	cJSON_ArrayForEach(sz, mthp)
	{
		const cJSON *bs = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r->before, "mthp"),
							 sz->string),
			"stats");
		const cJSON *as = cJSON_GetObjectItemCaseSensitive(sz, "stats");

		split += num(as, "split", 0) - num(bs, "split", 0);
	}
	if (split > 0 || collapse > 0 || s->huge_events)
		fol_msgs_add(&r->warnings,
			     "the kernel split %.0f and collapsed %.0f large folios during the run "
			     "(system-wide counters; %" PRIu64 " huge_memory events of the workload): "
			     "orders from the folio map may be stale",
			     split, collapse, s->huge_events);
}

int fol_report_begin(struct fol_report *r, struct fol_session *sess, const struct fol_model_opts *o)
{
	struct fol_model_opts mo = *o;
	const char *method;

	memset(r, 0, sizeof(*r));
	r->meta = dup(fol_session_meta(sess));
	r->page_size = (unsigned)num(r->meta, "page_size", 4096);
	if (r->page_size < 1024 || (r->page_size & (r->page_size - 1)))
		r->page_size = 4096;
	r->pmd_order = (int)num(r->meta, "pmd_order", -1);
	method = str(r->meta, "latency_method");
	mo.page_size = r->page_size;
	mo.sampled = method && !strcmp(method, "sampled");
	mo.pmd_order = r->pmd_order > 0 ? r->pmd_order : 0;
	r->model = fol_model_new(&mo);
	return r->model ? 0 : -ENOMEM;
}

int fol_report_drain(struct fol_report *r, struct fol_session *sess)
{
	struct fol_event ev;
	int ret;

	while ((ret = fol_session_next(sess, &ev)) == 1) {
		ret = fol_model_event(r->model, &ev);
		if (ret)
			return ret;
	}
	return ret;
}

int fol_report_end(struct fol_report *r, struct fol_session *sess)
{
	const struct fol_decoder *dec;
	int ret, have_exit = 0;

	ret = fol_report_drain(r, sess);
	if (!ret)
		ret = fol_model_finish(r->model, &r->s);
	fol_model_free(r->model);
	r->model = NULL;
	if (ret)
		return ret;
	r->st = fol_session_stats(sess);
	r->pmu = dup(fol_session_pmu(sess));
	r->before = dup(fol_session_counters_before(sess));
	r->after = dup(fol_session_counters_after(sess));
	r->end = dup(fol_session_end(sess));
	r->phases = dup(fol_session_phases(sess));
	r->synth = dup(fol_session_synth(sess));
	r->maps = dup(fol_session_maps(sess));
	dec = fol_session_decoder(sess);
	r->nevents = fol_decoder_nr_events(dec);
	r->events = calloc((size_t)r->nevents + 1, sizeof(*r->events));
	if (!r->events)
		return -ENOMEM;
	for (int i = 0, n = r->nevents; i < n; i++) {
		const struct fol_evdesc *d = fol_decoder_event(dec, i);

		if (d->fkind == FOL_EV_FAULT_EXIT)
			have_exit = 1;
		if (!strcmp(d->kind, "tracking")) {
			r->nevents--; /* it carries MMAP/COMM/FORK/EXIT records, not samples */
			continue;
		}
		snprintf(r->events[i - (n - r->nevents)].name, sizeof(r->events[0].name), "%s", d->name);
		r->events[i - (n - r->nevents)].count = d->samples;
	}
	r->method = !have_exit ? "none" : r->s.sampled ? "sampled" : "exact";
	add_warnings(r);
	if (r->s.sampled && r->s.clock_samples)
		fol_msgs_add(&r->warnings,
			     "sampled method: fault time = cpu-clock samples in the fault handler "
			     "x %.0f ns (%" PRIu64 " of %" PRIu64 " samples); classes without the "
			     "error code; no per-fault percentiles",
			     num(r->meta, "sample_period_ns", 0), r->s.clock_in_fault, r->s.clock_samples);
	if (!have_exit)
		fol_msgs_add(&r->warnings, "no minor-faults samples in this recording: fault counts "
					   "and classes only, no latency");
	return 0;
}

int fol_report_build(const char *path, const struct fol_model_opts *o, struct fol_report *r)
{
	struct fol_session *sess;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = fol_session_open(&sess, path);
	if (ret)
		return ret;
	ret = fol_report_begin(r, sess, o);
	if (!ret)
		ret = fol_report_end(r, sess);
	fol_session_close(sess);
	if (ret)
		fol_report_free(r);
	return ret;
}

void fol_report_free(struct fol_report *r)
{
	fol_model_free(r->model);
	fol_summary_free(&r->s);
	cJSON_Delete(r->meta);
	cJSON_Delete(r->pmu);
	cJSON_Delete(r->before);
	cJSON_Delete(r->after);
	cJSON_Delete(r->end);
	cJSON_Delete(r->phases);
	cJSON_Delete(r->synth);
	cJSON_Delete(r->maps);
	free(r->events);
	fol_msgs_free(&r->warnings);
	memset(r, 0, sizeof(*r));
}

/* ---- JSON ---- */

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
	cJSON *k = cJSON_CreateObject(), *d = fol_counters_delta(r->before, r->after);

	cJSON_AddStringToObject(k, "scope", "system");
	if (d) {
		cJSON *c, *next;

		/* Move the delta's sections under kernel_counters. */
		for (c = d->child; c; c = next) {
			next = c->next;
			cJSON_AddItemToObject(k, c->string, cJSON_DetachItemViaPointer(d, c));
		}
		cJSON_Delete(d);
	}
	return k;
}


cJSON *fol_report_json(const struct fol_report *r)
{
	const struct fol_summary *s = &r->s;
	cJSON *j = cJSON_CreateObject(), *t, *rec, *arr, *w;
	char buf[64];
	uint64_t total_time = 0;

	cJSON_AddStringToObject(j, "schema", "foliostat/report/v1");
	t = cJSON_AddObjectToObject(j, "tool");
	cJSON_AddStringToObject(t, "name", "foliostat");
	cJSON_AddStringToObject(t, "version", FOL_VERSION);

	rec = cJSON_AddObjectToObject(j, "recording");
	cJSON_AddItemToObject(rec, "command",
			      dup(cJSON_GetObjectItemCaseSensitive(r->meta, "command"))
				      ?: cJSON_CreateArray());
	cJSON_AddNumberToObject(rec, "pid", num(r->meta, "pid", 0));
	cJSON_AddStringToObject(rec, "kernel", str(r->meta, "kernel") ?: "unknown");
	cJSON_AddStringToObject(rec, "started", iso_time(num(r->meta, "started_realtime_ns", 0), buf,
							 sizeof(buf)));
	add_u64(rec, "duration_ns", (uint64_t)num(r->end, "duration_ns",
						  (double)(s->last_ns - s->first_ns)));
	cJSON_AddStringToObject(rec, "latency_method", r->method);
	if (r->s.sampled)
		cJSON_AddNumberToObject(rec, "sample_period_ns", num(r->meta, "sample_period_ns", 0));
	else
		cJSON_AddNullToObject(rec, "sample_period_ns");
	add_u64(rec, "page_size", r->page_size);
	arr = cJSON_AddArrayToObject(rec, "events");
	for (int i = 0; i < r->nevents; i++) {
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "name", r->events[i].name);
		cJSON_AddBoolToObject(e, "available", 1);
		add_u64(e, "count", r->events[i].count);
		cJSON_AddItemToArray(arr, e);
	}
	cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(r->meta, "missing_events"))
	{
		cJSON *e;

		if (!cJSON_IsString(w))
			continue;
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "name", w->valuestring);
		cJSON_AddBoolToObject(e, "available", 0);
		add_u64(e, "count", 0);
		cJSON_AddItemToArray(arr, e);
	}
	add_u64(rec, "lost_events", r->st.lost ? r->st.lost : s->lost);
	add_u64(rec, "retimed_samples", r->st.retimed);
	{
		cJSON *seeded = cJSON_AddArrayToObject(rec, "seeded_folios");

		for (int o = 0; o <= FOL_MAX_ORDER; o++) {
			cJSON *e;

			if (!s->seeded[o])
				continue;
			e = cJSON_CreateObject();
			cJSON_AddNumberToObject(e, "order", o);
			add_u64(e, "folios", s->seeded[o]);
			cJSON_AddItemToArray(seeded, e);
		}
	}
	add_u64(rec, "unknown_records", r->st.unknown_records);
	add_u64(rec, "malformed_records", r->st.bad_records);
	add_u64(rec, "bad_metadata", r->st.bad_metadata);
	if (lost_samples(r) >= 0)
		add_u64(rec, "lost_samples", (uint64_t)lost_samples(r));
	else
		cJSON_AddNullToObject(rec, "lost_samples");
	w = cJSON_AddArrayToObject(rec, "warnings");
	for (int i = 0; i < r->warnings.n; i++)
		cJSON_AddItemToArray(w, cJSON_CreateString(r->warnings.v[i]));
	if (r->filter[0])
		cJSON_AddStringToObject(rec, "filter", r->filter);

	arr = cJSON_AddArrayToObject(j, "orders");
	for (int slot = 0; slot < FOL_NR_ORDER_SLOTS; slot++) {
		const struct fol_order_stats *os = &s->order[slot];
		int order = FOL_SLOT_ORDER(slot);
		cJSON *o, *f, *ft, *lc;
		struct fol_hist lat = { 0 };

		if (!order_used(os))
			continue;
		o = cJSON_CreateObject();
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

			if (!cell->faults)
				continue;
			add_u64(f, fol_class_name((enum fol_class)c), cell->faults);
			add_u64(ft, fol_class_name((enum fol_class)c), fol_cell_time(s, cell));
			total_time += fol_cell_time(s, cell);
			fol_hist_merge(&lat, &cell->lat);
			if (cell->lat.count)
				cJSON_AddItemToObject(lc, fol_class_name((enum fol_class)c),
						      lat_json(&cell->lat));
		}
		if (lat.count)
			cJSON_AddItemToObject(o, "latency_ns", lat_json(&lat));
		else
			cJSON_AddNullToObject(o, "latency_ns");
		cJSON_AddItemToObject(o, "reuse", reuse_json(&os->reuse, order));
		cJSON_AddItemToArray(arr, o);
	}

	t = cJSON_AddObjectToObject(j, "totals");
	add_u64(t, "faults", s->faults);
	add_u64(t, "fault_time_ns", total_time);
	add_u64(t, "unclosed_faults", s->unclosed);
	add_u64(t, "exits_without_entry", s->orphan_exits);
	add_u64(t, "untimed_faults", s->untimed);
	{
		cJSON *u = cJSON_AddObjectToObject(t, "unknown_order");

		for (int i = 0; i < FOL_NR_UNKNOWN; i++)
			add_u64(u, fol_unknown_name((enum fol_unknown)i), s->unknown[i]);
	}
	cJSON_AddItemToObject(t, "latency_ns", s->all_lat.count ? lat_json(&s->all_lat)
								: cJSON_CreateNull());
	cJSON_AddItemToObject(t, "gap_ns", s->all_gap.count ? lat_json(&s->all_gap)
							    : cJSON_CreateNull());
	add_u64(t, "threads", s->threads);
	add_u64(t, "processes", s->processes);

	arr = cJSON_AddArrayToObject(j, "classes");
	for (int c = 0; c < FOL_NR_CLASSES; c++) {
		struct fol_hist lat = { 0 }, gap = { 0 };
		uint64_t faults = 0, unclosed = 0, time = 0;
		cJSON *o;

		for (int slot = 0; slot < FOL_NR_ORDER_SLOTS; slot++) {
			faults += s->order[slot].cell[c].faults;
			time += fol_cell_time(s, &s->order[slot].cell[c]);
			unclosed += s->order[slot].cell[c].unclosed;
			fol_hist_merge(&lat, &s->order[slot].cell[c].lat);
			fol_hist_merge(&gap, &s->order[slot].cell[c].gap);
		}
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "class", fol_class_name((enum fol_class)c));
		add_u64(o, "faults", faults);
		add_u64(o, "fault_time_ns", time);
		add_u64(o, "unclosed", unclosed);
		cJSON_AddItemToObject(o, "latency_ns", lat.count ? lat_json(&lat) : cJSON_CreateNull());
		cJSON_AddItemToObject(o, "gap_ns", gap.count ? lat_json(&gap) : cJSON_CreateNull());
		cJSON_AddItemToArray(arr, o);
	}

	arr = cJSON_AddArrayToObject(j, "pmu");
	cJSON_ArrayForEach(w, r->pmu)
	{
		cJSON *e = cJSON_CreateObject();
		const cJSON *sup = cJSON_GetObjectItemCaseSensitive(w, "supported");

		cJSON_AddStringToObject(e, "event", str(w, "event") ?: "?");
		if (cJSON_IsTrue(sup))
			cJSON_AddNumberToObject(e, "value", num(w, "value", 0));
		else
			cJSON_AddNullToObject(e, "value");
		cJSON_AddBoolToObject(e, "supported", cJSON_IsTrue(sup));
		cJSON_AddItemToArray(arr, e);
	}
	cJSON_AddItemToObject(j, "kernel_counters", kernel_counters_json(r));
	/* Faults per time bin and class, from the first fault on: for dashboards' plots. */
	t = cJSON_AddObjectToObject(j, "timeline");
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
	cJSON_AddItemToObject(j, "phases", dup(r->phases) ?: cJSON_CreateArray());
	if (r->maps)
		cJSON_AddItemToObject(j, "left_behind",
				      dup(cJSON_GetObjectItemCaseSensitive(r->maps, "total")));
	else
		cJSON_AddNullToObject(j, "left_behind");
	return fol_escape_json(j) ? j : (cJSON_Delete(j), NULL);
}

/* ---- text ---- */

/* Folios the folio map got from the page tables at attach rather than from faults. */
static void print_seeded(const struct fol_report *r, FILE *f)
{
	uint64_t total = 0;
	char sz[16];

	for (int o = 0; o <= FOL_MAX_ORDER; o++)
		total += r->s.seeded[o];
	if (!total)
		return;
	fprintf(f, "# seeded:   %" PRIu64 " folios from the page tables at %s (pagemap + "
		   "kpageflags):", total, r->synth && str(r->meta, "mode") &&
		   !strcmp(str(r->meta, "mode"), "attach") ? "attach" : "exec");
	for (int o = 0; o <= FOL_MAX_ORDER; o++)
		if (r->s.seeded[o])
			fprintf(f, " %s %" PRIu64, fol_order_size(o, r->page_size, sz, sizeof(sz)),
				r->s.seeded[o]);
	fputc('\n', f);
}

const char *fol_command_text(const cJSON *command, char *buf, size_t len)
{
	const cJSON *c, *first = command ? command->child : NULL;
	const char *w = first && first->next ? cJSON_GetStringValue(first->next) : NULL;
	/* A built-in workload's foliostat is this program, wherever it was installed. */
	int builtin = w && (!strcmp(w, "workload") || !strcmp(w, "__workload"));
	char esc[1024];
	size_t used = 0;

	buf[0] = '\0';
	cJSON_ArrayForEach(c, command)
	{
		const char *a = cJSON_GetStringValue(c);

		if (!a)
			continue;
		if (c == first && builtin && strrchr(a, '/'))
			a = strrchr(a, '/') + 1;
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? " " : "",
						 fol_escape(a, esc, sizeof(esc)));
	}
	return buf;
}

static void print_header(const struct fol_report *r, FILE *f)
{
	const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(r->meta, "command");
	char b1[32], b2[32], esc[1024];
	uint64_t dur = (uint64_t)num(r->end, "duration_ns", (double)(r->s.last_ns - r->s.first_ns));
	uint64_t total = 0;

	fprintf(f, "# command:  %s", cJSON_GetArraySize(cmd) ? fol_command_text(cmd, esc, sizeof(esc))
							  : "(attached)");
	fprintf(f, "  (pid %.0f)\n", num(r->meta, "pid", 0));
	fprintf(f, "# kernel:   %s, ", fol_escape(str(r->meta, "kernel") ?: "?", esc, sizeof(esc)));
	fprintf(f, "%s, %.0f CPUs, %s pages, PMD %s\n",
		fol_escape(str(r->meta, "machine") ?: "?", esc, sizeof(esc)), num(r->meta, "cpus", 0),
		fol_order_size(0, r->page_size, b1, sizeof(b1)),
		fol_order_size(r->pmd_order, r->page_size, b2, sizeof(b2)));
	for (int i = 0; i < r->nevents; i++)
		total += r->events[i].count;
	fprintf(f, "# recorded: %s, %" PRIu64 " samples of %d events, %" PRIu64 " lost\n",
		fol_fmt_ns(dur, b1, sizeof(b1)), total, r->nevents,
		r->st.lost ? r->st.lost : r->s.lost);
	if (!strcmp(r->method, "exact"))
		fprintf(f, "# latency:  exact: exceptions:page_fault_user/kernel entry to the "
			   "minor-/major-faults sample\n#           raised at the end of "
			   "handle_mm_fault(), per fault; gap = previous exit to next entry\n");
	else if (!strcmp(r->method, "sampled"))
		fprintf(f, "# latency:  sampled: cpu-clock every %.0f ns, kernel call chains inside the "
			   "fault handler\n#           count toward the thread's next fault; totals "
			   "and means only\n", num(r->meta, "sample_period_ns", 0));
	else
		fprintf(f, "# latency:  none: counts and classes only\n");
	print_seeded(r, f);
	if (r->filter[0])
		fprintf(f, "# filter:   %s\n", fol_escape(r->filter, esc, sizeof(esc)));
	for (int i = 0; i < r->warnings.n; i++)
		fprintf(f, "# warning:  %s\n", fol_escape(r->warnings.v[i], esc, sizeof(esc)));
}

static void print_orders(const struct fol_report *r, FILE *f)
{
	const struct fol_summary *s = &r->s;
	char sz[16], t1[48], t2[48], t3[48], t4[48], t5[48];

	fprintf(f, "\nFaults by folio order and class\n");
	fprintf(f, "%7s  %-10s %9s %11s %10s %10s %10s %10s %9s\n", "order", "class", "faults",
		"total", "mean", "p50", "p99", "max", "unclosed");
	for (int slot = 0; slot < FOL_NR_ORDER_SLOTS; slot++) {
		const struct fol_order_stats *os = &s->order[slot];

		for (int c = 0; c < FOL_NR_CLASSES; c++) {
			const struct fol_cell *cell = &os->cell[c];
			const struct fol_hist *h = &cell->lat;
			int n = h->count > 0;

			if (!cell->faults)
				continue;
			uint64_t tot = fol_cell_time(s, cell);

			fprintf(f, "%7s  %-10s %9" PRIu64 " %s %s %s %s %s %9" PRIu64 "\n",
				fol_order_size(FOL_SLOT_ORDER(slot), r->page_size, sz, sizeof(sz)),
				fol_class_name((enum fol_class)c), cell->faults,
				fol_fmt_ns_col(tot, n || s->sampled, 11, t1, sizeof(t1)),
				fol_fmt_ns_col(s->sampled ? tot / cell->faults : fol_hist_mean(h),
					       n || s->sampled, 10, t2, sizeof(t2)),
				fol_fmt_ns_col(fol_hist_quantile(h, 0.5), n, 10, t3, sizeof(t3)),
				fol_fmt_ns_col(fol_hist_quantile(h, 0.99), n, 10, t4, sizeof(t4)),
				fol_fmt_ns_col(h->max, n, 10, t5, sizeof(t5)), cell->unclosed);
		}
	}
	fprintf(f, "%7s  %-10s %9" PRIu64 " %s %s %s %s %s %9" PRIu64 "\n", "all", "", s->faults,
		fol_fmt_ns_col(fol_total_time(s), 1, 11, t1, sizeof(t1)),
		fol_fmt_ns_col(s->sampled ? (s->faults ? fol_total_time(s) / s->faults : 0)
					  : fol_hist_mean(&s->all_lat), 1, 10, t2, sizeof(t2)),
		fol_fmt_ns_col(fol_hist_quantile(&s->all_lat, 0.5), !s->sampled, 10, t3, sizeof(t3)),
		fol_fmt_ns_col(fol_hist_quantile(&s->all_lat, 0.99), !s->sampled, 10, t4, sizeof(t4)),
		fol_fmt_ns_col(s->all_lat.max, !s->sampled, 10, t5, sizeof(t5)), s->unclosed);
	if (s->all_gap.count)
		fprintf(f, "%7s  %-10s %9" PRIu64 " %11s %s %s %s %s\n", "gap", "", s->all_gap.count, "",
			fol_fmt_ns_col(fol_hist_mean(&s->all_gap), 1, 10, t2, sizeof(t2)),
			fol_fmt_ns_col(fol_hist_quantile(&s->all_gap, 0.5), 1, 10, t3, sizeof(t3)),
			fol_fmt_ns_col(fol_hist_quantile(&s->all_gap, 0.99), 1, 10, t4, sizeof(t4)),
			fol_fmt_ns_col(s->all_gap.max, 1, 10, t5, sizeof(t5)));
}

static void print_reuse(const struct fol_report *r, FILE *f)
{
	const struct fol_summary *s = &r->s;
	char sz[16], t1[48], t2[48];
	int any = 0;

	for (int slot = FOL_ORDER_SLOT(1); slot < FOL_NR_ORDER_SLOTS; slot++) {
		const struct fol_reuse *ru = &s->order[slot].reuse;
		int order = FOL_SLOT_ORDER(slot);

		if (!ru->folios)
			continue;
		if (!any++) {
			fprintf(f, "\nReuse batching: write faults on exclusive large folios (1 fault "
				   "per folio is ideal)\n");
			fprintf(f, "%7s %9s %9s %9s %12s %11s %14s %11s %12s\n", "order", "folios",
				"episodes", "faults", "faults/folio", "pages/fault", "effectiveness",
				"reuse time", "surplus time");
		}
		fprintf(f, "%7s %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %12.2f %11.2f %13.1f%% %s %s\n",
			fol_order_size(order, r->page_size, sz, sizeof(sz)), ru->folios, ru->episodes,
			ru->faults, (double)ru->faults / (double)ru->episodes,
			(double)(ru->episodes << order) / (double)ru->faults,
			100.0 * (double)ru->episodes / (double)ru->faults,
			fol_fmt_ns_col(ru->time_ns, 1, 11, t1, sizeof(t1)),
			fol_fmt_ns_col(ru->surplus_ns, 1, 12, t2, sizeof(t2)));
		fprintf(f, "%7s faults per folio:", "");
		for (int b = 0; b < FOL_REUSE_BUCKETS; b++)
			if (ru->hist[b])
				fprintf(f, " %s: %" PRIu64, fol_reuse_bucket_label(b), ru->hist[b]);
		fputc('\n', f);
	}
	if (any)
		fprintf(f, "%7s (an episode: a folio from the time it is exclusive to the next fork "
			   "of its owner or its end;\n%7s  per folio = per episode; pages/fault = folio "
			   "pages / faults per folio, every page written)\n", "", "");
}

static void print_phases(const struct fol_report *r, FILE *f)
{
	const cJSON *p;
	char t[24], esc[256];

	if (!cJSON_GetArraySize(r->phases))
		return;
	fprintf(f, "\nWorkload phases (timed by the workload)\n");
	cJSON_ArrayForEach(p, r->phases)
	{
		double start = num(p, "start_ns", 0), end = num(p, "end_ns", 0);

		fprintf(f, "  %-20s %s\n", fol_escape(str(p, "phase") ?: "?", esc, sizeof(esc)),
			fol_fmt_ns_col(end >= start ? (uint64_t)(end - start) : 0, end >= start, 12,
				       t, sizeof(t)));
	}
}

static void print_counters(const struct fol_report *r, FILE *f)
{
	const cJSON *p, *sz;
	char esc[256], esc2[256];
	int any = 0;

	if (cJSON_GetArraySize(r->pmu)) {
		fprintf(f, "\nPMU and software counters (the workload and its children)\n");
		cJSON_ArrayForEach(p, r->pmu)
		{
			if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "supported")))
				fprintf(f, "  %-22s %16.0f\n",
					fol_escape(str(p, "event") ?: "?", esc, sizeof(esc)), num(p, "value", 0));
			else
				fprintf(f, "  %-22s %16s\n",
					fol_escape(str(p, "event") ?: "?", esc, sizeof(esc)), "not supported");
		}
	}
	if (!r->before || !r->after)
		return;
	for (int i = 0; fol_report_vmstat[i]; i++) {
		double d = fol_report_counter(r, "vmstat", fol_report_vmstat[i]);

		if (d == 0)
			continue;
		if (!any++)
			fprintf(f, "\nKernel counters (system-wide: every process moves them; after - "
				   "before)\n");
		fprintf(f, "  %-34s %+14.0f\n", fol_report_vmstat[i], d);
	}
	cJSON_ArrayForEach(sz, cJSON_GetObjectItemCaseSensitive(r->after, "mthp"))
	{
		const cJSON *bs = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r->before, "mthp"),
							 sz->string),
			"stats");
		const cJSON *st;

		cJSON_ArrayForEach(st, cJSON_GetObjectItemCaseSensitive(sz, "stats"))
		{
			double d = st->valuedouble - num(bs, st->string, 0);
			char name[80];

			if (d == 0 || !strncmp(st->string, "nr_", 3))
				continue;
			if (!any++)
				fprintf(f, "\nKernel counters (system-wide: every process moves them; "
					   "after - before)\n");
			snprintf(name, sizeof(name), "mthp %s %s", fol_escape(sz->string, esc, sizeof(esc)),
				 fol_escape(st->string, esc2, sizeof(esc2)));
			fprintf(f, "  %-34s %+14.0f\n", name, d);
		}
	}
}

/* The folio composition of the process's anonymous memory at the end of the run. */
static void print_left_behind(const struct fol_report *r, FILE *f)
{
	const cJSON *total = cJSON_GetObjectItemCaseSensitive(r->maps, "total"), *o;
	double anon = num(total, "anon_bytes", 0);
	char sz[16];

	if (!total || anon <= 0)
		return;
	fprintf(f, "\nLeft behind: %.0f kB of anonymous memory in the page tables at the end "
		   "(pagemap + kpageflags)\n", anon / 1024);
	cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(total, "orders"))
	{
		int order = (int)num(o, "order", 0);

		fprintf(f, "  %6s %9.0f folios %12.0f kB %5.1f%%", fol_order_size(order, r->page_size,
			sz, sizeof(sz)), num(o, "folios", 0), num(o, "bytes", 0) / 1024,
			100.0 * num(o, "bytes", 0) / anon);
		if (order == r->pmd_order)
			fprintf(f, "  %.0f PMD-mapped", num(total, "pmd_mapped_folios", 0));
		if (num(o, "partially_mapped", 0) > 0)
			fprintf(f, "  %.0f partially mapped", num(o, "partially_mapped", 0));
		fputc('\n', f);
	}
}

void fol_report_text(const struct fol_report *r, FILE *f)
{
	print_header(r, f);
	print_orders(r, f);
	print_reuse(r, f);
	print_phases(r, f);
	print_left_behind(r, f);
	print_counters(r, f);
}
