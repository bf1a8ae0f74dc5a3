// SPDX-License-Identifier: GPL-2.0-only
#include "live/metrics.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "data/bpf_record.h"
#include "util/order.h"

struct labels {
	const struct fol_scrape *sc;
	const struct fol_tally_row *row;
};

/* {cgroup="...",order="4",size="64K" ... the caller closes the braces. */
static void row_labels(FILE *f, const struct labels *l, int slot)
{
	char sz[16];
	int order = FOL_SLOT_ORDER(slot);

	fputc('{', f);
	if (l->sc->by_cgroup) {
		fputs("cgroup=\"", f);
		fol_metrics_label(f, l->row->cgroup);
		fputs("\",", f);
	}
	fprintf(f, "order=\"%d\",size=\"%s\"", order,
		fol_order_size(order, l->sc->page_size, sz, sizeof(sz)));
}

/* The labels of one histogram series: with sampling, which share of the faults it holds. */
static void hist_labels(FILE *f, const struct labels *l, int slot, const char *name)
{
	row_labels(f, l, slot);
	fprintf(f, ",class=\"%s\"", name);
	if (l->sc->sample > 1)
		fprintf(f, ",sample=\"1/%u\"", l->sc->sample);
}

/* Sampled (one fault in n timed, at random): each count stands for n faults, so that
 * rate() and histogram_quantile() read it as they read an unsampled one. */
static void histogram(FILE *f, const struct labels *l, int slot, int cls)
{
	const struct fol_tally_cell *cell = &l->row->total.cell[slot][cls];
	const uint64_t *b = l->row->hist[slot][cls];
	const char *name = fol_class_name((enum fol_class)cls);
	uint64_t cum = 0, n = l->sc->sample > 1 ? l->sc->sample : 1;

	for (int i = 0; i < FOL_LAT_BUCKETS - 1; i++) {
		cum += b[i];
		if ((i + 1) % FOL_LAT_SUB)
			continue;
		fputs("foliostat_fault_seconds_bucket", f);
		hist_labels(f, l, slot, name);
		fprintf(f, ",le=\"%.9g\"} %" PRIu64 "\n", (double)(fol_lat_bucket_top(i) + 1) / 1e9, cum * n);
	}
	fputs("foliostat_fault_seconds_bucket", f);
	hist_labels(f, l, slot, name);
	fprintf(f, ",le=\"+Inf\"} %" PRIu64 "\n", cell->timed * n);
	fputs("foliostat_fault_seconds_count", f);
	hist_labels(f, l, slot, name);
	fprintf(f, "} %" PRIu64 "\n", cell->timed * n);
	fputs("foliostat_fault_seconds_sum", f);
	hist_labels(f, l, slot, name);
	fprintf(f, "} %.9f\n", (double)cell->time_ns * (double)n / 1e9);
}

enum what { FAULTS, HIST, REUSE, EPISODES };

static void row_samples(FILE *f, const struct labels *l, enum what w)
{
	const struct fol_tally_counts *c = &l->row->total;

	for (int slot = 0; slot < FOL_NR_ORDER_SLOTS; slot++) {
		if (w == REUSE || w == EPISODES) {
			if (!c->reuse[slot])
				continue;
			fputs(w == REUSE ? "foliostat_reuse_faults_total" : "foliostat_reuse_episodes_total", f);
			row_labels(f, l, slot);
			fprintf(f, "} %" PRIu64 "\n", w == REUSE ? c->reuse[slot] : c->episodes[slot]);
			continue;
		}
		for (int cls = 0; cls < FOL_NR_CLASSES; cls++) {
			if (!c->cell[slot][cls].faults)
				continue;
			if (w == HIST) {
				if (l->row->hist)
					histogram(f, l, slot, cls);
				continue;
			}
			fputs("foliostat_faults_total", f);
			row_labels(f, l, slot);
			fprintf(f, ",class=\"%s\"} %" PRIu64 "\n", fol_class_name((enum fol_class)cls),
				c->cell[slot][cls].faults);
		}
	}
}

static int by_path(const void *a, const void *b)
{
	const struct fol_tally_row *x = *(const struct fol_tally_row *const *)a;
	const struct fol_tally_row *y = *(const struct fol_tally_row *const *)b;

	return strcmp(x->cgroup, y->cgroup);
}

static void all_rows(FILE *f, const struct fol_scrape *sc, const struct fol_tally_row **v, size_t n,
		     enum what w)
{
	for (size_t i = 0; i < n; i++)
		row_samples(f, &(struct labels){ sc, v[i] }, w);
}

/* The kernel's own per-size mTHP counters: events (counters) and nr_* (folios now). */
static void kernel_mthp(FILE *f, enum fol_metrics fmt, const cJSON *counters, int gauges)
{
	const cJSON *mthp = cJSON_GetObjectItemCaseSensitive(counters, "mthp"), *size, *st;

	if (gauges)
		fol_metrics_family(f, fmt, "foliostat_kernel_mthp_folios", "gauge", NULL,
				   "The kernel's mTHP folio gauges (stats/nr_*), by size.");
	else
		fol_metrics_family(f, fmt, "foliostat_kernel_mthp_events", "counter", NULL,
				   "The kernel's mTHP event counters (transparent_hugepage/"
				   "hugepages-SIZE/stats), by size and counter.");
	cJSON_ArrayForEach(size, mthp)
	{
		cJSON_ArrayForEach(st, cJSON_GetObjectItemCaseSensitive(size, "stats"))
		{
			int nr = !strncmp(st->string, "nr_", 3);

			if (nr != gauges || !cJSON_IsNumber(st))
				continue;
			fprintf(f, "%s{size=\"", gauges ? "foliostat_kernel_mthp_folios" : "foliostat_kernel_mthp_events_total");
			fol_metrics_label(f, size->string);
			fprintf(f, "\",stat=\"");
			fol_metrics_label(f, st->string);
			fprintf(f, "\"} %.0f\n", st->valuedouble);
		}
	}
}

/* How many reuse faults the BPF programs decided, and why the others were written out
 * for the model (bpf_record.h's FOL_BPF_K_*): the model's share is what costs. */
static void kernel_reuse(FILE *f, enum fol_metrics fmt, const uint64_t *k, uint64_t keys)
{
	static const char *const result[] = { "decided", "folio_not_kept", "unmapped_since",
					      "table_full", "events_inside" };

	fol_metrics_family(f, fmt, "foliostat_kernel_reuse_faults", "counter", NULL,
			   "Reuse faults looked at by the BPF programs: decided in the kernel, or "
			   "written out for the model to judge, and why.");
	for (int i = 0; i < (int)(sizeof(result) / sizeof(result[0])); i++)
		fprintf(f, "foliostat_kernel_reuse_faults_total{result=\"%s\"} %" PRIu64 "\n",
			result[i], k[i]);
	fol_metrics_family(f, fmt, "foliostat_kernel_reuse_folios", "counter", NULL,
			   "Folios the BPF programs saw allocated and kept for their reuse faults.");
	fprintf(f, "foliostat_kernel_reuse_folios_total %" PRIu64 "\n", k[FOL_BPF_K_INSERTED]);
	fol_metrics_family(f, fmt, "foliostat_kernel_reuse_inherited_folios", "counter", NULL,
			   "Folios a forked child took from those its parent kept, at its first "
			   "reuse fault of one (or put of a smaller one inside).");
	fprintf(f, "foliostat_kernel_reuse_inherited_folios_total %" PRIu64 "\n", k[FOL_BPF_K_INHERITED]);
	fol_metrics_family(f, fmt, "foliostat_kernel_reuse_last_folio_faults", "counter", NULL,
			   "Reuse faults decided in the kernel from the faulting thread's last folio, "
			   "without a look in the folio map (a large folio's faults after its first).");
	fprintf(f, "foliostat_kernel_reuse_last_folio_faults_total %" PRIu64 "\n", k[FOL_BPF_K_LAST]);
	fol_metrics_family(f, fmt, "foliostat_kernel_alloc_faults", "counter", NULL,
			   "Faults that allocated a folio in an anonymous private VMA, held by the BPF "
			   "programs: decided in the kernel, or written out for the model because a "
			   "recorded event came inside.");
	fprintf(f, "foliostat_kernel_alloc_faults_total{result=\"decided\"} %" PRIu64 "\n", k[FOL_BPF_K_ALLOC]);
	fprintf(f, "foliostat_kernel_alloc_faults_total{result=\"events_inside\"} %" PRIu64 "\n",
		k[FOL_BPF_K_UNHELD]);
	fol_metrics_family(f, fmt, "foliostat_kernel_file_faults", "counter", NULL,
			   "File faults on pages already cached decided in the kernel: their "
			   "page-cache folio read inside the fault, nothing allocated or recorded "
			   "inside.");
	fprintf(f, "foliostat_kernel_file_faults_total %" PRIu64 "\n", k[FOL_BPF_K_FILE]);
	fol_metrics_family(f, fmt, "foliostat_kernel_swap_faults", "counter", NULL,
			   "Swap-ins from the swap cache decided in the kernel: nothing allocated, "
			   "as many pages joined the anonymous count as left the swap entries.");
	fprintf(f, "foliostat_kernel_swap_faults_total %" PRIu64 "\n", k[FOL_BPF_K_SWAP]);
	fol_metrics_family(f, fmt, "foliostat_kernel_zero_faults", "counter", NULL,
			   "Reads of pages not present decided in the kernel: the 4K zero page mapped "
			   "in an anonymous private VMA where no huge zero page could be, or a page "
			   "of a special mapping (the vDSO's).");
	fprintf(f, "foliostat_kernel_zero_faults_total %" PRIu64 "\n", k[FOL_BPF_K_ZERO]);
	fol_metrics_family(f, fmt, "foliostat_kernel_vma_lookups", "counter", NULL,
			   "VMAs the BPF programs looked up for the faults they decide (for the others "
			   "the faulting thread's last one held: no mapping of its process changed "
			   "since).");
	fprintf(f, "foliostat_kernel_vma_lookups_total %" PRIu64 "\n", k[FOL_BPF_K_VMA]);
	fol_metrics_family(f, fmt, "foliostat_kernel_count_keys", "gauge", NULL,
			   "The BPF programs' counts held, one per cgroup, class and order seen (a "
			   "removed cgroup's are forgotten); when their table is full, faults are "
			   "counted as table_full.");
	fprintf(f, "foliostat_kernel_count_keys %" PRIu64 "\n", keys);
}

static void unclosed(FILE *f, const struct fol_summary *s)
{
	uint64_t all = s ? s->unclosed : 0, kernel = s ? s->unclosed_kernel : 0;
	uint64_t disabled = s ? s->unclosed_faults_disabled : 0;

	fprintf(f, "foliostat_unclosed_faults_total{cause=\"faults_disabled\"} %" PRIu64 "\n", disabled);
	fprintf(f, "foliostat_unclosed_faults_total{cause=\"kernel_mode\"} %" PRIu64 "\n", kernel - disabled);
	fprintf(f, "foliostat_unclosed_faults_total{cause=\"user_mode\"} %" PRIu64 "\n", all - kernel);
}

/* serve's own memory and CPU (sys/self.h): process_* as Prometheus' client libraries
 * name them, so that the dashboards that know those read serve's too. */
static void self(FILE *f, enum fol_metrics fmt, const struct fol_self *me)
{
	fol_metrics_family(f, fmt, "process_resident_memory_bytes", "gauge", "bytes",
			   "serve's resident memory.");
	fprintf(f, "process_resident_memory_bytes %" PRIu64 "\n", me->resident_bytes);
	fol_metrics_family(f, fmt, "process_cpu_seconds", "counter", "seconds",
			   "serve's user and system CPU time, all its threads.");
	fprintf(f, "process_cpu_seconds_total %.3f\n", me->cpu_seconds);
	fol_metrics_family(f, fmt, "foliostat_heap_bytes", "gauge", "bytes",
			   "serve's malloc heap: in use, and free but held (not given back to "
			   "the kernel). A leak grows the first, fragmentation the second.");
	fprintf(f, "foliostat_heap_bytes{state=\"in_use\"} %" PRIu64 "\n", me->heap_in_use_bytes);
	fprintf(f, "foliostat_heap_bytes{state=\"free\"} %" PRIu64 "\n", me->heap_free_bytes);
	fol_metrics_family(f, fmt, "foliostat_bpf_map_bytes", "gauge", "bytes",
			   "The kernel's memory of the BPF maps serve holds (their fdinfo's "
			   "memlock), not in its resident memory.");
	fprintf(f, "foliostat_bpf_map_bytes %" PRIu64 "\n", me->bpf_map_bytes);
}

static void families(FILE *f, enum fol_metrics fmt, const struct fol_scrape *sc,
		     const struct fol_tally_row **v, size_t n)
{
	fol_metrics_family(f, fmt, "foliostat_exporter", "info", NULL,
			   "foliostat serve: the kernel it watches, and how faults are recorded.");
	fputs("foliostat_exporter_info{kernel=\"", f);
	fol_metrics_label(f, sc->kernel ? sc->kernel : "unknown");
	fprintf(f, "\",fault_path=\"%s\"", sc->fault_path ? sc->fault_path : "unknown");
	if (sc->sample > 1)
		fprintf(f, ",sample=\"1/%u\"", sc->sample);
	fputs("} 1\n", f);
	fol_metrics_family(f, fmt, "foliostat_start_time_seconds", "gauge", "seconds",
			   "When serve started, seconds since the epoch.");
	fprintf(f, "foliostat_start_time_seconds %.3f\n", (double)sc->started_ns / 1e9);
	fol_metrics_family(f, fmt, "foliostat_faults", "counter", NULL,
			   "Page faults, by folio order and class (order -1: unknown).");
	all_rows(f, sc, v, n, FAULTS);
	fol_metrics_family(f, fmt, "foliostat_fault_seconds", "histogram", "seconds",
			   sc->sample > 1 ? "Fault handler latency, entry to exit, by folio order and "
					    "class: one fault in N timed at random (sample=\"1/N\"), "
					    "each count multiplied by N."
					  : "Fault handler latency, entry to exit, by folio order and class.");
	all_rows(f, sc, v, n, HIST);
	fol_metrics_family(f, fmt, "foliostat_reuse_faults", "counter", NULL,
			   "Write-protect reuse faults (a folio made writable in place), by order.");
	all_rows(f, sc, v, n, REUSE);
	fol_metrics_family(f, fmt, "foliostat_reuse_episodes", "counter", NULL,
			   "Folio reuse episodes: the first reuse fault on a folio since it was "
			   "last shared (faults / episodes = faults per folio; 1 is ideal).");
	all_rows(f, sc, v, n, EPISODES);
	fol_metrics_family(f, fmt, "foliostat_unknown_order_faults", "counter", NULL,
			   "Faults whose folio order is not known, by cause.");
	for (int u = 0; u < FOL_NR_UNKNOWN; u++)
		fprintf(f, "foliostat_unknown_order_faults_total{cause=\"%s\"} %" PRIu64 "\n",
			fol_unknown_name((enum fol_unknown)u), sc->s ? sc->s->unknown[u] : 0);
	fol_metrics_family(f, fmt, "foliostat_unclosed_faults", "counter", NULL,
			   "Faults with no exit, counted but not timed, by cause: faults_disabled "
			   "(kernel mode, its task's page faults off, read at the fault: the kernel "
			   "fixes the access up), kernel_mode (the same most likely, not read), "
			   "user_mode (SIGSEGV, or events lost).");
	unclosed(f, sc->s);
	fol_metrics_family(f, fmt, "foliostat_streamed_faults", "counter", NULL,
			   "Faults streamed to user space and judged by the model, by class; the "
			   "others were decided by the BPF programs in the kernel.");
	for (int c = 0; c < FOL_NR_CLASSES; c++)
		fprintf(f, "foliostat_streamed_faults_total{class=\"%s\"} %" PRIu64 "\n",
			fol_class_name((enum fol_class)c), fol_tally_streamed(sc->tally, c));
	fol_metrics_family(f, fmt, "foliostat_lost_events", "counter", NULL,
			   "Samples the kernel dropped (a ring buffer full).");
	fprintf(f, "foliostat_lost_events_total %" PRIu64 "\n", sc->lost);
	if (sc->by_cgroup) {
		fol_metrics_family(f, fmt, "foliostat_cgroup_overflow_faults", "counter", NULL,
				   "Faults counted under cgroup=\"other\": the cgroup label sets "
				   "were all taken, or the process's cgroup could not be read.");
		fprintf(f, "foliostat_cgroup_overflow_faults_total %" PRIu64 "\n",
			fol_tally_overflow(sc->tally));
	}
	if (sc->http) {
		fol_metrics_family(f, fmt, "foliostat_http_connections", "gauge", NULL,
				   "Connections serve keeps (scrapes, and those idle between them).");
		fprintf(f, "foliostat_http_connections %d\n", sc->http_kept);
		fol_metrics_family(f, fmt, "foliostat_http_refused_connections", "counter", NULL,
				   "Connections ended as they came: their peer (a local user, or "
				   "another machine's address) had as many as it may, or serve had.");
		fprintf(f, "foliostat_http_refused_connections_total %" PRIu64 "\n", sc->http_refused);
		fol_metrics_family(f, fmt, "foliostat_http_late_connections", "counter", NULL,
				   "Connections ended because no whole request came in time.");
		fprintf(f, "foliostat_http_late_connections_total %" PRIu64 "\n", sc->http_ended);
	}
	if (sc->self)
		self(f, fmt, sc->self);
	if (sc->kernel_reuse)
		kernel_reuse(f, fmt, sc->kernel_reuse, sc->kernel_keys);
	if (sc->counters) {
		kernel_mthp(f, fmt, sc->counters, 0);
		kernel_mthp(f, fmt, sc->counters, 1);
	}
	if (fmt == FOL_METRICS_OPENMETRICS)
		fputs("# EOF\n", f);
}

int fol_scrape_write(const struct fol_scrape *sc, enum fol_metrics fmt, FILE *f)
{
	size_t n = fol_tally_list(sc->tally, NULL, 0);
	const struct fol_tally_row **v = calloc(n ? n : 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	n = fol_tally_list(sc->tally, v, n);
	qsort(v, n, sizeof(*v), by_path);
	families(f, fmt, sc, v, n);
	free(v);
	return ferror(f) ? -EIO : 0;
}
