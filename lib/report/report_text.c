// SPDX-License-Identifier: GPL-2.0-only
/* The report as text. */
#include "report/report.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/escape.h"
#include "report/format.h"
#include "report/report_sites.h"

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
		   "kpageflags):", total, r->rec.seeded_at_attach ? "attach" : "exec");
	for (int o = 0; o <= FOL_MAX_ORDER; o++)
		if (r->s.seeded[o])
			fprintf(f, " %s %" PRIu64, fol_order_size(o, r->page_size, sz, sizeof(sz)),
				r->s.seeded[o]);
	fputc('\n', f);
}

/* The probe effect calibrated before the recording (calibrate.h). */
static void print_probe(const struct fol_report *r, FILE *f)
{
	const struct fol_probe *c = &r->rec.probe;
	double bare = c->untraced_ns, traced = c->traced_ns;

	if (!c->have)
		return;
	/* Traced no slower than untraced: the machine was busy (other tasks, frequency), and
	 * the difference is noise, not a cost. */
	if (traced <= bare)
		fprintf(f, "# probe:    the fault events' cost could not be measured here: traced "
			   "%.0f ns, untraced %.0f ns\n#           (%.0f zero-page read faults, median "
			   "of %.0f passes each; the machine was busy)\n",
			traced, bare, c->faults, c->passes);
	else
		fprintf(f, "# probe:    the fault events add at least %.0f ns to a fault here (calibrated "
			   "at the start: %.0f\n#           zero-page read faults, %.0f ns untraced, %.0f ns "
			   "traced, median of %.0f passes each;\n#           a lower bound: a workload's "
			   "faults cost 2-4x more to trace; record -r N with\n#           untraced runs "
			   "measures its own)\n",
			traced - bare, c->faults, bare, traced, c->passes);
	/* -g / --call-graph dwarf: the calibration's entry samples took the user stack too. */
	if (c->faults * c->passes > 0 && c->sample_bytes / (c->faults * c->passes) >= 1024)
		fprintf(f, "#           with each fault's user stack, as recorded (%.0f bytes of samples "
			   "a fault)\n",
			c->sample_bytes / (c->faults * c->passes));
}

/* How the fault events reached the file (record --fault-path). */
static void print_path(const struct fol_report *r, FILE *f)
{
	const char *path = r->rec.fault_path, *why = r->rec.fault_path_why;
	char esc[512];

	if (path && !strcmp(path, "bpf"))
		fprintf(f, "# path:     bpf: each fault's entry and exit paired in the kernel, one record "
			   "per fault\n#           (its entry written first when an event comes inside "
			   "the fault)\n");
	else if (path && why)
		fprintf(f, "# path:     samples: one sample of each fault event (not bpf: %s)\n",
			fol_escape(why, esc, sizeof(esc)));
	else if (path)
		fprintf(f, "# path:     samples: one sample of each fault event\n");
}

/* Where kernel addresses get their names (report.c's kernel_symbols()). */
static void print_ksyms(const struct fol_report *r, FILE *f)
{
	const char *bid = r->rec.kernel_build_id;
	char esc[512];

	if (!strcmp(r->ksyms_from, "recording"))
		fprintf(f, "# ksyms:    the recording's own (kernel build-id %s)\n", bid ? bid : "not recorded");
	else if (r->ksyms_damaged && !strcmp(r->ksyms_from, "none"))
		fprintf(f, "# ksyms:    none: the recording's kernel symbols are damaged (their chunk reads no "
			   "symbol); --kallsyms FILE of its kernel names them\n");
	else if (!strcmp(r->ksyms_from, "none"))
		fprintf(f, "# ksyms:    none: the recording carries no kernel symbols and %s (--kallsyms FILE)\n",
			bid ? "the running kernel is another build" : "names no kernel build-id");
	else
		fprintf(f, "# ksyms:    %s%s%s\n", fol_escape(r->ksyms_from, esc, sizeof(esc)),
			strcmp(r->ksyms_from, "/proc/kallsyms") ? " (--kallsyms)"
								: ": the running kernel is the recording's build",
			r->ksyms_damaged ? " (the recording's own are damaged)" : "");
}

static void print_header(const struct fol_report *r, const struct fol_report_view *v, FILE *f)
{
	const struct fol_recording *rec = &r->rec;
	char b1[32], b2[32], esc[1024];
	uint64_t dur = (uint64_t)(rec->duration_ns >= 0 ? rec->duration_ns
							 : (double)(r->s.last_ns - r->s.first_ns));
	uint64_t total = 0;
	int nevents = 0;
	const char *mode = rec->mode;
	int system_wide = mode && !strcmp(mode, "system-wide");

	fprintf(f, "# command:  %s", rec->command.n ? fol_command_text(rec->command.v, rec->command.n, esc, sizeof(esc))
				     : system_wide		 ? "(every task on every CPU)"
								 : "(attached)");
	if (system_wide)
		fprintf(f, "%s  (system-wide: %" PRIu64 " processes)\n",
			rec->command.n ? " while it ran" : "", r->s.processes);
	else
		fprintf(f, "  (pid %.0f)\n", rec->pid);
	fprintf(f, "# kernel:   %s, ", fol_escape(rec->kernel ?: "?", esc, sizeof(esc)));
	fprintf(f, "%s, %.0f CPUs, %s pages, PMD %s\n",
		fol_escape(rec->machine ?: "?", esc, sizeof(esc)), rec->cpus,
		fol_order_size(0, r->page_size, b1, sizeof(b1)),
		fol_order_size(r->pmd_order, r->page_size, b2, sizeof(b2)));
	/* The BPF path's records are counted as the fault events they stand for. */
	for (int i = 0; i < r->nevents; i++)
		if (!r->events[i].carrier)
			total += r->events[i].count, nevents++;
	fprintf(f, "# recorded: %s, %" PRIu64 " samples of %d events, %" PRIu64 " lost\n",
		fol_fmt_ns(dur, b1, sizeof(b1)), total, nevents,
		r->st.lost ? r->st.lost : r->s.lost);
	if (r->cg.ids)
		fprintf(f, "# cgroup:   %s and the cgroups below it (-G): %" PRIu64 " samples of other "
			   "tasks left out\n", fol_escape(r->cg.path, esc, sizeof(esc)),
			r->s.outside_cgroup);
	if (!strcmp(r->method, "exact")) {
		fprintf(f, "# latency:  exact: exceptions:page_fault_user/kernel entry to the "
			   "minor-/major-faults sample\n#           raised at the end of "
			   "handle_mm_fault(), per fault; gap = previous exit to next entry\n"
			   "#           not corrected for the probe effect (the tracing's own cost is in "
			   "each latency):\n#           record -r N with untraced runs measures it per "
			   "phase\n");
		print_probe(r, f);
		print_path(r, f);
	print_ksyms(r, f);
	} else if (!strcmp(r->method, "sampled")) {
		fprintf(f, "# latency:  sampled: cpu-clock every %.0f ns, kernel call chains inside the "
			   "fault handler\n#           count toward the thread's next fault; totals "
			   "and means only\n", rec->sample_period_ns);
	} else {
		fprintf(f, "# latency:  none: counts and classes only\n");
	}
	print_seeded(r, f);
	if (v->filter[0])
		fprintf(f, "# filter:   %s\n", fol_escape(v->filter, esc, sizeof(esc)));
	for (int i = 0; i < r->warnings.n; i++)
		fprintf(f, "# warning:  %s\n", fol_escape(r->warnings.v[i], esc, sizeof(esc)));
	for (int i = 0; i < r->notes.n; i++)
		fprintf(f, "# note:     %s\n", fol_escape(r->notes.v[i], esc, sizeof(esc)));
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
			fprintf(f, "%7s %9s %9s %9s %14s %11s %14s %11s %12s\n", "order", "folios",
				"episodes", "faults", "faults/episode", "pages/fault", "effectiveness",
				"reuse time", "surplus time");
		}
		fprintf(f, "%7s %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %14.2f %11.2f %13.1f%% %s %s\n",
			fol_order_size(order, r->page_size, sz, sizeof(sz)), ru->folios, ru->episodes,
			ru->faults, (double)ru->faults / (double)ru->episodes,
			(double)(ru->episodes << order) / (double)ru->faults,
			100.0 * (double)ru->episodes / (double)ru->faults,
			fol_fmt_ns_col(ru->time_ns, 1, 11, t1, sizeof(t1)),
			fol_fmt_ns_col(ru->surplus_ns, 1, 12, t2, sizeof(t2)));
		fprintf(f, "%7s episodes by faults:", "");
		for (int b = 0; b < FOL_REUSE_BUCKETS; b++)
			if (ru->hist[b])
				fprintf(f, " %s: %" PRIu64, fol_reuse_bucket_label(b), ru->hist[b]);
		fputc('\n', f);
	}
	if (any)
		fprintf(f, "%7s (an episode: a folio from the time it is exclusive to the next fork "
			   "of its owner or its end;\n%7s  folios: distinct folios with one or more; "
			   "pages/fault = folio pages / faults per\n%7s  episode, every page written)\n",
			"", "", "");
}

static void print_phases(const struct fol_report *r, FILE *f)
{
	char t[24], esc[256];

	if (!r->rec.phases.n)
		return;
	fprintf(f, "\nWorkload phases (timed by the workload)\n");
	for (int i = 0; i < r->rec.phases.n; i++) {
		const struct fol_phase *p = &r->rec.phases.v[i];
		double start = p->start_ns, end = p->end_ns;

		fprintf(f, "  %-20s %s\n", fol_escape(p->name ?: "?", esc, sizeof(esc)),
			fol_fmt_ns_col(end >= start ? (uint64_t)(end - start) : 0, end >= start, 12,
				       t, sizeof(t)));
	}
}

static void print_counters(const struct fol_report *r, FILE *f)
{
	char esc[256], esc2[256];
	int any = 0;

	if (r->rec.npmu) {
		fprintf(f, "\nPMU and software counters (the workload and its children)\n");
		for (int i = 0; i < r->rec.npmu; i++) {
			const struct fol_pmu_count *p = &r->rec.pmu[i];

			if (p->supported)
				fprintf(f, "  %-22s %16.0f\n",
					fol_escape(p->event ?: "?", esc, sizeof(esc)), p->value);
			else
				fprintf(f, "  %-22s %16s\n",
					fol_escape(p->event ?: "?", esc, sizeof(esc)), "not supported");
		}
	}
	if (!r->rec.counted)
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
	for (int i = 0; i < r->rec.nmthp; i++) {
		const struct fol_mthp_stat *m = &r->rec.mthp[i];
		char name[80];

		if (m->delta == 0 || !strncmp(m->stat, "nr_", 3))
			continue;
		if (!any++)
			fprintf(f, "\nKernel counters (system-wide: every process moves them; "
				   "after - before)\n");
		snprintf(name, sizeof(name), "mthp %s %s", fol_escape(m->size, esc, sizeof(esc)),
			 fol_escape(m->stat, esc2, sizeof(esc2)));
		fprintf(f, "  %-34s %+14.0f\n", name, m->delta);
	}
}

/* The folio composition of the process's anonymous memory at the end of the run. */
static void print_left_behind(const struct fol_report *r, FILE *f)
{
	const struct fol_left_behind *l = &r->rec.left;
	double anon = l->v[FOL_LB_ANON];
	char sz[16];

	if (!l->have || anon <= 0)
		return;
	fprintf(f, "\nLeft behind: %.0f kB of anonymous memory in the page tables at the end "
		   "(pagemap + kpageflags)\n", anon / 1024);
	for (int i = 0; i < l->norders; i++) {
		const double *o = l->orders[i].v;
		int order = (int)o[FOL_LO_ORDER];

		fprintf(f, "  %6s %9.0f folios %12.0f kB %5.1f%%", fol_order_size(order, r->page_size,
			sz, sizeof(sz)), o[FOL_LO_FOLIOS], o[FOL_LO_BYTES] / 1024,
			100.0 * o[FOL_LO_BYTES] / anon);
		if (order == r->pmd_order)
			fprintf(f, "  %.0f PMD-mapped", l->v[FOL_LB_PMD_FOLIOS]);
		if (o[FOL_LO_PARTIAL] > 0)
			fprintf(f, "  %.0f partially mapped", o[FOL_LO_PARTIAL]);
		fputc('\n', f);
	}
}

/* Pages by order: "  4K 12, 2M 128", or "  -" when none. */
static void print_by_order(const uint64_t *n, unsigned page_size, FILE *f)
{
	char sz[16];
	int any = 0;

	for (int o = 0; o <= FOL_MAX_ORDER; o++)
		if (n[o])
			fprintf(f, "%s%s %" PRIu64, any++ ? ", " : "  ",
				fol_order_size(o, page_size, sz, sizeof(sz)), n[o]);
	if (!any)
		fprintf(f, "  -");
}

static void print_swapped(const struct fol_swapout *sw, unsigned page_size, FILE *f)
{
	char buf[1024];

	fputs(fol_swapout_text(sw, page_size, 0, buf, sizeof(buf)), f);
}

static int swapped_any(const struct fol_swapout *sw)
{
	uint64_t n = sw->unknown;

	for (int o = 0; o <= FOL_MAX_ORDER; o++)
		n += sw->whole[o] + sw->split[o];
	return n != 0;
}

static void print_calls_header(FILE *f)
{
	fprintf(f, "\nSystem calls that change mappings (entry to exit; pages freed inside "
		   "them, by order)\n");
	fprintf(f, "  %-18s %6s %9s %11s %10s %10s %10s  %s\n", "call", "calls", "MiB", "total",
		"p50", "p99", "max", "freed");
}

/* Folios get_user_pages() faulted in for calls not recorded: no row of their own to
 * time, only what they populated. */
static void print_populated_other(const struct fol_report *r, int any, FILE *f)
{
	uint64_t n = 0;

	for (int o = 0; o <= FOL_MAX_ORDER; o++)
		n += r->s.populated_other[o];
	if (!n)
		return;
	if (!any)
		print_calls_header(f);
	fprintf(f, "  %-18s folios populated without a fault (get_user_pages):", "other calls");
	print_by_order(r->s.populated_other, r->page_size, f);
	fputc('\n', f);
}

static void print_calls(const struct fol_report *r, FILE *f)
{
	char t[4][48];
	int any = 0;

	for (int c = 0; c < FOL_NR_CALLS; c++) {
		const struct fol_call_stats *cs = &r->s.calls[c];

		if (!cs->calls)
			continue;
		if (!any++)
			print_calls_header(f);
		fprintf(f, "  %-18s %6" PRIu64 " %9.1f %s %s %s %s", fol_call_name((enum fol_call)c),
			cs->calls, (double)cs->bytes / (1 << 20),
			fol_fmt_ns_col(cs->time.sum, cs->time.count, 11, t[0], sizeof(t[0])),
			fol_fmt_ns_col(fol_hist_quantile(&cs->time, 0.5), cs->time.count, 10, t[1], sizeof(t[1])),
			fol_fmt_ns_col(fol_hist_quantile(&cs->time, 0.99), cs->time.count, 10, t[2], sizeof(t[2])),
			fol_fmt_ns_col(cs->time.max, cs->time.count, 10, t[3], sizeof(t[3])));
		print_by_order(cs->freed, r->page_size, f);
		if (cs->errors)
			fprintf(f, "  (%" PRIu64 " failed)", cs->errors);
		fputc('\n', f);
		if (fol_call_populates((enum fol_call)c)) {
			fprintf(f, "  %-18s folios populated without a fault:", "");
			print_by_order(cs->populated, r->page_size, f);
			fputc('\n', f);
		}
		if (swapped_any(&cs->swapped)) {
			fprintf(f, "  %-18s written to swap: ", "");
			print_swapped(&cs->swapped, r->page_size, f);
			fputc('\n', f);
		}
	}
	print_populated_other(r, any, f);
}

/* Swap-out by folio order, and reclaim overlapping the run. */
static void print_reclaim(const struct fol_report *r, FILE *f)
{
	const struct fol_reclaim *rc = &r->s.reclaim;
	char t[3][48];

	if (!swapped_any(&r->s.swapout) && !rc->direct && !rc->kswapd_wakes && !rc->kswapd_ns)
		return;
	fprintf(f, "\nReclaim and swap-out (vmscan tracepoints; kswapd's with the mm threads)\n");
	if (swapped_any(&r->s.swapout)) {
		fprintf(f, "  folios written to swap, by the order allocated at: ");
		print_swapped(&r->s.swapout, r->page_size, f);
		fputc('\n', f);
	}
	if (rc->direct)
		fprintf(f, "  direct reclaim in the recorded threads: %" PRIu64 " times, %s in all, "
			   "p99 %s, %" PRIu64 " pages reclaimed\n", rc->direct,
			fol_fmt_ns(rc->direct_time.sum, t[0], sizeof(t[0])),
			fol_fmt_ns(fol_hist_quantile(&rc->direct_time, 0.99), t[1], sizeof(t[1])),
			rc->direct_reclaimed);
	if (rc->kswapd_wakes || rc->kswapd_ns)
		fprintf(f, "  kswapd: woken %" PRIu64 " times, awake %s of the recording\n",
			rc->kswapd_wakes, fol_fmt_ns(rc->kswapd_ns, t[2], sizeof(t[2])));
}

static void print_collapse(const struct fol_report *r, FILE *f)
{
	const struct fol_collapse *c = &r->s.collapse;
	char name[32], t[3][48];
	int any = 0;

	for (int st = 0; st < FOL_SCAN_RESULTS; st++) {
		if (!c->scans[st] && !c->collapses[st])
			continue;
		if (!any++) {
			fprintf(f, "\nTHP collapse of the recorded processes' memory (MADV_COLLAPSE in "
				   "their threads, khugepaged on their mms): PMDs scanned and collapses, "
				   "by result\n");
			fprintf(f, "  %-28s %10s %10s %21s\n", "", "", "", "of which khugepaged's");
			fprintf(f, "  %-28s %10s %10s %10s %10s\n", "result", "scans", "collapses",
				"scans", "collapses");
		}
		fprintf(f, "  %-28s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64 "\n",
			fol_scan_result(r, st, name, sizeof(name)), c->scans[st], c->collapses[st],
			c->khugepaged_scans[st], c->khugepaged_collapses[st]);
	}
	if (c->other_scans || c->other_collapses || c->unattributed_scans || c->unattributed_collapses)
		fprintf(f, "  khugepaged elsewhere: %" PRIu64 " scans, %" PRIu64 " collapses of other "
			   "processes' memory; %" PRIu64 " scans, %" PRIu64 " collapses not attributable "
			   "(an mm no recorded task was seen to lock)\n",
			c->other_scans, c->other_collapses, c->unattributed_scans,
			c->unattributed_collapses);
	if (c->time.count)
		fprintf(f, "  collapse time (isolation to the end): %" PRIu64 " collapses, p50 %s, p99 %s, "
			   "max %s\n", c->time.count,
			fol_fmt_ns(fol_hist_quantile(&c->time, 0.5), t[0], sizeof(t[0])),
			fol_fmt_ns(fol_hist_quantile(&c->time, 0.99), t[1], sizeof(t[1])),
			fol_fmt_ns(c->time.max, t[2], sizeof(t[2])));
}

/* Where the faults come from: the sites grouped by --sort (sym,map by default, top 10). */
static void print_sites(const struct fol_report *r, const struct fol_report_view *v, FILE *f)
{
	static const int def[] = { FOL_SORT_SYM, FOL_SORT_MAP };
	const int *keys = v->nsort ? v->sort : def;
	int nkeys = v->nsort ? v->nsort : 2, top = v->top ? v->top : v->nsort ? 0 : 10;
	struct fol_grouping g;
	char t[2][48];
	size_t shown;

	if (fol_report_group(r, keys, nkeys, &g) || !g.n) {
		fol_grouping_free(&g);
		return;
	}
	shown = top && (size_t)top < g.n ? (size_t)top : g.n;
	fprintf(f, "\nWhere the faults come from, by ");
	for (int k = 0; k < nkeys; k++)
		fprintf(f, "%s%s", k ? "," : "", fol_sort_name(keys[k]));
	fprintf(f, " (%zu of %zu, most fault time first)\n", shown, g.n);
	fprintf(f, "  %6s %9s %11s %10s  ", "time%", "faults", "total", "max");
	for (int k = 0; k < nkeys; k++)
		fprintf(f, "%s%s", k ? "  " : "", fol_sort_name(keys[k]));
	fputc('\n', f);
	for (size_t i = 0; i < shown; i++) {
		const struct fol_group *gr = &g.v[i];

		fprintf(f, "  %5.1f%% %9" PRIu64 " %s %s  ",
			g.time_ns ? 100.0 * (double)gr->time_ns / (double)g.time_ns : 0.0, gr->faults,
			fol_fmt_ns_col(gr->time_ns, 1, 11, t[0], sizeof(t[0])),
			fol_fmt_ns_col(gr->max_ns, 1, 10, t[1], sizeof(t[1])));
		for (int k = 0; k < nkeys; k++) {
			char esc[512];

			fprintf(f, "%s%s", k ? "  " : "", fol_escape(gr->part[keys[k]], esc, sizeof(esc)));
			if (keys[k] == FOL_SORT_SYM && gr->src && gr->src[0])
				fprintf(f, " (%s)", fol_escape(gr->src, esc, sizeof(esc)));
		}
		fputc('\n', f);
	}
	fol_grouping_free(&g);
}

void fol_report_text(const struct fol_report *r, const struct fol_report_view *v, FILE *f)
{
	print_header(r, v, f);
	print_orders(r, f);
	print_reuse(r, f);
	print_sites(r, v, f);
	print_calls(r, f);
	print_collapse(r, f);
	print_reclaim(r, f);
	print_phases(r, f);
	print_left_behind(r, f);
	print_counters(r, f);
}

int fol_render_text(const struct fol_report *r, const struct fol_report_view *v, FILE *f)
{
	fol_report_text(r, v, f);
	return 0;
}
