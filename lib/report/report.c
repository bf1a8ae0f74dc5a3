// SPDX-License-Identifier: GPL-2.0-only
/* A recording analysed: the model run over its events, and what the file says about how
 * it was recorded, checked into warnings. Rendered by report_json.c and report_text.c. */
#include "report/report.h"
#include "symbols/symbols.h"
#include "symbols/ksyms.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/mthp.h"
#include "sys/pagecache.h"
#include "data/pipe.h"

const char *const fol_report_vmstat[] = {
	"pgfault", "pgmajfault", "thp_fault_alloc", "thp_fault_fallback", "thp_split_pmd",
	"thp_split_page", "thp_split_page_failed", "thp_deferred_split_page", "thp_collapse_alloc",
	"thp_collapse_alloc_failed", "thp_migration_split", "pswpin", "pswpout", "pgmigrate_success",
	"thp_swpout", "thp_swpout_fallback", "numa_hint_faults", NULL,
};

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

const char *fol_scan_result(const struct fol_report *r, int status, char *buf, int len)
{
	const char *name = fol_symbols_name(&r->scan_names, status);

	if (name)
		return name;
	snprintf(buf, (size_t)len, "status_%d", status);
	return buf;
}

double fol_report_counter(const struct fol_report *r, const char *section, const char *name)
{
	const struct fol_counter_node *v = r->rec.counters;
	int i = 0, n = r->rec.ncounters;

	while (i < n && (v[i].depth || strcmp(v[i].key, section)))
		i++;
	for (i++; i < n && v[i].depth; i++)
		if (v[i].depth == 1 && v[i].type == FOL_NODE_NUMBER && !strcmp(v[i].key, name))
			return v[i].number;
	return 0;
}

/* What the recording and the file say went wrong: lost events, damage, metadata. */
static void recording_warnings(struct fol_report *r)
{
	const struct fol_summary *s = &r->s;

	for (int i = 0; i < r->rec.warnings.n; i++)
		fol_msgs_add(&r->warnings, "%s", r->rec.warnings.v[i]);
	if (r->st.lost || s->lost)
		fol_msgs_add(&r->warnings,
			     "%" PRIu64 " events were lost while recording: counts are low and faults "
			     "may be misclassified; record again with a larger -m",
			     r->st.lost ? r->st.lost : s->lost);
	if (r->rec.bpf_threads_not_followed > 0)
		fol_msgs_add(&r->warnings, "%.0f threads were not followed by the BPF path (its table "
					   "of 32768 was full): their faults are missing; record with "
					   "--fault-path samples", r->rec.bpf_threads_not_followed);
	if (r->rec.bpf_records_not_written > 0)
		fol_msgs_add(&r->warnings, "the BPF path could not write %.0f fault records (ring "
					   "buffer full): record again with a larger -m",
			     r->rec.bpf_records_not_written);
	if (r->rec.lost_samples > 0)
		fol_msgs_add(&r->warnings, "the kernel dropped %.0f samples (PERF_FORMAT_LOST): "
					   "record again with a larger -m", r->rec.lost_samples);
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
}

/* What the events say: faults left open or unmatched, another sampler's records. */
static void event_warnings(struct fol_report *r)
{
	const struct fol_summary *s = &r->s;

	if (s->unclosed > s->unclosed_kernel)
		fol_msgs_add(&r->warnings,
			     "%" PRIu64 " faults had no exit sample (failed with SIGSEGV, or events "
			     "lost): counted, but not in latency",
			     s->unclosed - s->unclosed_kernel);
	/* With page faults disabled (pagefault_disable(): the signal frame's FPU state, a
	 * futex's word) the kernel fixes its access up without handling the fault and
	 * retries once get_user_pages has the page: no exit comes, and nothing failed. */
	if (s->unclosed_faults_disabled)
		fol_msgs_add(&r->notes,
			     "%" PRIu64 " faults taken in kernel mode had no exit sample because their "
			     "task had page faults disabled (read at the fault by the BPF path): the "
			     "kernel fixed the access up and retried: counted, but not in latency",
			     s->unclosed_faults_disabled);
	if (s->unclosed_kernel > s->unclosed_faults_disabled)
		fol_msgs_add(&r->notes,
			     "%" PRIu64 " faults taken in kernel mode had no exit sample: most likely "
			     "accesses with page faults disabled, fixed up and retried by the kernel "
			     "(not read at the fault on this path; events lost would look the same): "
			     "counted, but not in latency",
			     s->unclosed_kernel - s->unclosed_faults_disabled);
	if (s->in_flight)
		fol_msgs_add(&r->notes,
			     "%" PRIu64 " faults were in flight when the recording ended: left out "
			     "of the tables (their class and time are not known)", s->in_flight);
	if (r->st.retimed)
		fol_msgs_add(&r->warnings,
			     "%" PRIu64 " samples (%" PRIu64 " fault exits) had a time out of place in "
			     "their ring buffer: another tool sampling the same events on these "
			     "tasks (e.g. perf record -e minor-faults -p PID) hands them its own "
			     "sample data, clock included (do_perf_sw_event()), or the clock read "
			     "for a sample stepped back (seen in emulated guests, ~1 in 5000); "
			     "placed by their position, so counts and classes hold, but the %"
			     PRIu64 " faults they closed have no latency or gap",
			     r->st.retimed, s->retimed_exits, s->untimed);
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
	if (s->huge_zero_refuted)
		fol_msgs_add(&r->warnings, "%" PRIu64 " PMD ranges took a second read fault after "
					   "a first one the THP policy let map the huge zero page: the "
					   "4K zero page was there, but their first is counted 2M",
			     s->huge_zero_refuted);
}

/* Where the folio map could not know an order, and why. */
static void order_warnings(struct fol_report *r)
{
	const struct fol_summary *s = &r->s;

	/* File faults on page cache the program found there (its own text, its libraries'):
	 * every run has them, and no event can tell their folio's order. A note, not a
	 * warning: nothing went wrong. */
	for (int u = 0; u < FOL_NR_UNKNOWN; u++)
		if (s->unknown[u])
			fol_msgs_add(u == FOL_U_FILE_CACHED || u == FOL_U_FILE_EVICTED ||
					     u == FOL_U_FILE_UNREAD ? &r->notes : &r->warnings,
				     "%" PRIu64 " faults of order unknown: %s", s->unknown[u],
				     fol_unknown_text((enum fol_unknown)u));
	if (s->file_order[FOL_PC_ADDED] || s->file_order[FOL_PC_AT_END] || s->file_order[FOL_PC_AT_FAULT])
		fol_msgs_add(&r->notes, "%" PRIu64 " file faults on pages already in the page cache "
					"have the order of the page cache's folio: %" PRIu64 " read "
					"inside the fault, %" PRIu64 " added earlier in the recording, "
					"%" PRIu64 " as read at its end",
			     s->file_order[FOL_PC_ADDED] + s->file_order[FOL_PC_AT_END] +
				     s->file_order[FOL_PC_AT_FAULT],
			     s->file_order[FOL_PC_AT_FAULT], s->file_order[FOL_PC_ADDED],
			     s->file_order[FOL_PC_AT_END]);
	if (s->moved_unaligned)
		fol_msgs_add(&r->notes, "mremap moved %" PRIu64 " folios to addresses not aligned to "
					"their size: the kernel keeps them whole, mapped by PTEs, and so "
					"does the folio map (by their first page), but for those read "
					"from the page tables at attach (see moved_unaligned)",
			     s->moved_unaligned);
	if (r->rec.seed_error)
		fol_msgs_add(&r->warnings, "the attached process's folios were not read from its page "
					   "tables (%s): faults on memory older than the attach have "
					   "order unknown", r->rec.seed_error);
	if (r->rec.seed_unaligned > 0)
		fol_msgs_add(&r->warnings, "%.0f folios in the page tables at attach were not naturally "
					   "aligned (moved by mremap): not seeded, faults on them have "
					   "order unknown", r->rec.seed_unaligned);
	if (s->seed_dropped)
		fol_msgs_add(&r->warnings, "%" PRIu64 " folios of the page tables at attach ran past "
					   "the top of the address space and were not seeded",
			     s->seed_dropped);
}

/* The workload's collapses that made a huge page: khugepaged's scans and failed attempts
 * change no folio. */
static uint64_t collapses_done(const struct fol_report *r)
{
	uint64_t n = 0;
	char name[64];

	for (int st = 0; st < FOL_SCAN_RESULTS; st++)
		if (r->s.collapse.collapses[st] &&
		    !strcmp(fol_scan_result(r, st, name, sizeof(name)), "succeeded"))
			n += r->s.collapse.collapses[st];
	return n;
}

/* What the kernel did to large folios meanwhile, system-wide: the map may be stale. A PMD
 * mapping split (thp_split_pmd) leaves the folio whole, its order true: not counted. */
static void kernel_warnings(struct fol_report *r)
{
	double split = 0, collapse;
	uint64_t done = collapses_done(r);

	if (r->rec.thp.have && !r->rec.thp.mthp_sizes)
		fol_msgs_add(&r->warnings, "this kernel has no multi-size THP (no "
					   "transparent_hugepage/hugepages-*kB): only 4K and PMD-size folios");
	split += fol_report_counter(r, "vmstat", "thp_split_page");
	collapse = fol_report_counter(r, "vmstat", "thp_collapse_alloc");
	for (int i = 0; i < r->rec.nmthp; i++)
		if (!strcmp(r->rec.mthp[i].stat, "split"))
			split += r->rec.mthp[i].delta;
	if (split > 0 || collapse > 0 || done)
		fol_msgs_add(&r->warnings,
			     "the kernel split %.0f and collapsed %.0f large folios during the run "
			     "(system-wide counters; the workload's own collapses: %" PRIu64 "): "
			     "orders from the folio map may be stale",
			     split, collapse, done);
}

/* The kernel's count of whole swap-outs of order's folio size over the recording,
 * system-wide (hugepages-<size>/stats/swpout, 6.10 and later); -1 where there is none. */
static double kernel_swpout(const struct fol_report *r, int order)
{
	char size[32];

	snprintf(size, sizeof(size), "%" PRIu64 "kB", ((uint64_t)r->page_size << order) >> 10);
	for (int i = 0; i < r->rec.nmthp; i++) {
		const char *s = r->rec.mthp[i].size;

		if (!strncmp(s, "hugepages-", 10))
			s += 10;
		if (!strcmp(s, size) && !strcmp(r->rec.mthp[i].stat, "swpout"))
			return r->rec.mthp[i].delta;
	}
	return -1;
}

/* Folios judged written whole beyond the kernel's own count of them were split
 * (fol_swapout_bound): moved in the recording's swap-out and in its calls', and said. */
static void bound_swapout(struct fol_report *r)
{
	char list[256] = "", sz[16];
	uint64_t all = 0;
	size_t len = 0;

	for (int o = 1; o <= FOL_MAX_ORDER; o++) {
		double d = kernel_swpout(r, o);
		uint64_t most, moved;

		if (d < 0 || !r->s.swapout.whole[o])
			continue;
		most = (uint64_t)d;
		moved = fol_swapout_bound(&r->s.swapout, o, &most);
		most = (uint64_t)d;
		for (int c = 0; c < FOL_NR_CALLS; c++)
			fol_swapout_bound(&r->s.calls[c].swapped, o, &most);
		if (moved && len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s %" PRIu64,
						all ? ", " : "", fol_order_size(o, r->page_size, sz, sizeof(sz)),
						moved);
		all += moved;
	}
	if (all)
		fol_msgs_add(&r->notes,
			     "%" PRIu64 " large folios written at their first page alone were split, not "
			     "written whole (%s): the kernel's own count of whole swap-outs of their "
			     "size moved by less, system-wide (the write tracepoint names a page, and no "
			     "split is traced)", all, list);
}

static void add_warnings(struct fol_report *r)
{
	recording_warnings(r);
	event_warnings(r);
	order_warnings(r);
	kernel_warnings(r);
}

/* The recording kernel's symbols: --kallsyms FILE as the user says; else those the
 * recording carries; else the running kernel's, but only where its build-id is the
 * recording's (a release string is the same across builds). Under a --symfs the running
 * kernel is not where the recording's files are: not asked. */
static void kernel_symbols(struct fol_report *r, struct fol_session *sess)
{
	const char *bid = r->rec.kernel_build_id;
	char here[129];

	if (r->kallsyms) {
		r->ksyms = fol_ksyms_from_file(r->kallsyms);
		r->ksyms_from = r->kallsyms;
	} else if (fol_ksyms_count(fol_session_ksyms(sess))) {
		r->ksyms = fol_ksyms_get(fol_session_ksyms(sess));
		r->ksyms_from = "recording";
	} else if (bid && !r->symfs && fol_kernel_build_id("/sys/kernel/notes", here, sizeof(here)) > 0 &&
		   !strcmp(here, bid)) {
		r->ksyms = fol_ksyms_from_file("/proc/kallsyms");
		r->ksyms_from = "/proc/kallsyms";
	}
	/* A chunk that reads no symbol (damaged) is said, not claimed as the names' source. */
	r->ksyms_damaged = !r->kallsyms && fol_session_ksyms(sess) && !fol_ksyms_count(fol_session_ksyms(sess));
	if (!r->ksyms)
		r->ksyms_from = "none";
}

/* Whether the recording has an event of this kind. */
static int has_kind(const struct fol_session *sess, enum fol_kind kind)
{
	const struct fol_decoder *dec = fol_session_decoder(sess);

	for (int i = 0; i < fol_decoder_nr_events(dec); i++)
		if (fol_decoder_event(dec, i)->fkind == kind)
			return 1;
	return 0;
}

/* The model's options that the recording's head (its metadata, the counters at the start)
 * sets: the machine's page sizes, the latency method, the kernel's threads, the scope. */
static int head_opts(struct fol_report *r, const struct fol_recording *head,
		     struct fol_model_opts *mo, int *mm_tids)
{
	/* The kernel's mm threads by tid, where the recording names them (a workload can
	 * be named khugepaged: the kernel's selftest is); recorded before kernel_mm_threads:
	 * those it recorded, if any. */
	const struct fol_numbers *k = head->kernel_mm_threads.have ? &head->kernel_mm_threads
								    : &head->mm_threads;

	r->page_size = fol_recording_page_size(head);
	r->pmd_order = (int)head->pmd_order;
	mo->page_size = r->page_size;
	mo->sampled = head->latency_method && !strcmp(head->latency_method, "sampled");
	mo->pmd_order = r->pmd_order > 0 ? r->pmd_order : 0;
	mo->huge_zero = fol_huge_zero_policy(head->thp.enabled, head->thp.pmd_enabled, head->thp.use_zero_page,
					      mo->pmd_order);
	mo->mm_threads_known = k->have;
	for (int i = 0; i < k->n && mo->nr_mm_threads < 64; i++)
		mm_tids[mo->nr_mm_threads++] = (int)k->v[i];
	mo->mm_threads = k->have ? mm_tids : NULL;
	/* A recording scoped by -G: its samples of other tasks are left out here. */
	if (head->scope.ids) {
		if (fol_cgroups_clone(&head->scope, &r->cg))
			return -ENOMEM;
		mo->cgroups = &r->cg;
	}
	return 0;
}

int fol_report_begin(struct fol_report *r, struct fol_session *sess, const struct fol_model_opts *o)
{
	struct fol_model_opts mo = *o;
	int mm_tids[64], ret;

	memset(r, 0, sizeof(*r));
	r->symfs = o->symfs;
	r->kallsyms = o->kallsyms;
	/* The head until the end: what was written after the records is read then. */
	ret = fol_session_recording(sess, &r->rec);
	if (!ret)
		ret = head_opts(r, &r->rec, &mo, mm_tids);
	if (ret)
		return ret;
	mo.pagecache = fol_session_pagecache(sess);
	mo.no_swap_writes = !has_kind(sess, FOL_EV_WRITE_FOLIO);
	mo.no_page_frees = !has_kind(sess, FOL_EV_PAGE_FREE);
	r->model = fol_model_new(&mo);
	return r->model ? 0 : -ENOMEM;
}

int fol_report_begin_at(struct fol_report *r, int *begun, struct fol_session *s,
			const struct fol_model_opts *o, uint32_t type)
{
	int ret;

	if (*begun || type == FOL_CHUNK_META || type == FOL_CHUNK_EVENT || type == FOL_CHUNK_RUN ||
	    type == FOL_CHUNK_BARE || !fol_session_ready(s))
		return 0;
	ret = fol_report_begin(r, s, o);
	if (!ret)
		*begun = 1;
	return ret;
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

static int to_model(void *model, const struct fol_event *ev)
{
	return fol_model_event(model, ev);
}

int fol_report_end(struct fol_report *r, struct fol_session *sess)
{
	const struct fol_decoder *dec;
	int ret, have_exit = 0;

	/* What is left of the session, read in a thread of its own (pipe.h). */
	ret = fol_pipe_drain(sess, to_model, r->model);
	if (!ret)
		ret = fol_model_finish(r->model, &r->s);
	fol_model_free(r->model);
	r->model = NULL;
	if (ret)
		return ret;
	r->st = fol_session_stats(sess);
	fol_recording_free(&r->rec);
	if (fol_session_recording(sess, &r->rec))
		return -ENOMEM;
	/* One run of several: the file's damage elsewhere is not this run's. */
	if (r->rec.place.have) {
		r->st.file.corrupt_chunks = r->st.run_corrupt_chunks;
		r->st.file.corrupt_bytes = r->st.run_corrupt_bytes;
		r->st.file.complete = r->rec.ended;
		r->st.file.truncated &= !r->st.file.complete;
	}
	/* The recording's symbols come after its records (record writes them at the end). */
	kernel_symbols(r, sess);
	r->symcache = fol_symbols_new(r->ksyms, r->symfs,
				      (int64_t)(r->rec.started_realtime_ns / 1e9));
	if (!r->symcache)
		return -ENOMEM;
	dec = fol_session_decoder(sess);
	r->nevents = fol_decoder_nr_events(dec);
	r->events = calloc((size_t)r->nevents + 1, sizeof(*r->events));
	if (!r->events)
		return -ENOMEM;
	for (int i = 0, n = r->nevents; i < n; i++) {
		const struct fol_evdesc *d = fol_decoder_event(dec, i);

		if (d->status && !r->scan_names.n)
			r->scan_names = *d->status;
		if (d->fkind == FOL_EV_FAULT_EXIT)
			have_exit = 1;
		if (!strcmp(d->kind, "tracking")) {
			r->nevents--; /* it carries MMAP/COMM/FORK/EXIT records, not samples */
			continue;
		}
		snprintf(r->events[i - (n - r->nevents)].name, sizeof(r->events[0].name), "%s", d->name);
		r->events[i - (n - r->nevents)].count = d->samples;
		r->events[i - (n - r->nevents)].mm_threads = d->mm_threads;
		r->events[i - (n - r->nevents)].carrier = d->fkind == FOL_EV_PAIRED;
	}
	r->method = !have_exit ? "none" : r->s.sampled ? "sampled" : "exact";
	bound_swapout(r);
	add_warnings(r);
	if (r->s.sampled && r->s.clock_samples)
		fol_msgs_add(&r->warnings,
			     "sampled method: fault time = cpu-clock samples in the fault handler "
			     "x %.0f ns (%" PRIu64 " of %" PRIu64 " samples); classes without the "
			     "error code; no per-fault percentiles",
			     r->rec.sample_period_ns, r->s.clock_in_fault, r->s.clock_samples);
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
	fol_symbols_free(r->symcache);
	fol_model_free(r->model);
	fol_summary_free(&r->s);
	fol_recording_free(&r->rec);
	fol_ksyms_put(r->ksyms);
	free(r->events);
	fol_msgs_free(&r->warnings);
	fol_msgs_free(&r->notes);
	fol_cgroups_free(&r->cg);
	memset(r, 0, sizeof(*r));
}

