#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Mutation check of the core rules: break the code on purpose, one change at a time, in a
# copy of the tree, and run the unit tests there. Every mutant must be killed (a test
# fails or crashes); a survivor is a hole in the tests. make mutate; exit 1 on a survivor.
#
# Each line: FILE@sed expression@what the change breaks[@by]. by says which tests must
# kill it: unit (the default: the cmocka tests), golden (the golden-file tests, for the
# renderers), scripts (the tests of the guest library and the bench's arithmetic), or
# live:FILE (tests/live/FILE, for what only a real recording reaches; needs root, else
# the mutant is skipped and said). MUTATE_ONLY=REGEX: only the lines it matches (a quick
# check of new mutants).
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
MUTANTS=$(cat <<'EOF'
lib/data/decode_event.c@s/return order <= FOL_MAX_ORDER;/return 1;/@folio order range check at decode
lib/data/recording_check.c@s/	{ "thp", RC_OBJ, 0, 0, thp },//@the counters' THP policy checked
lib/data/recording_check.c@s/^	STR("enabled"),$//@each mTHP size's policy checked
lib/data/recording_facts.c@s/bad += removed < 0 ? 1 : (uint64_t)removed;/bad += removed < 0;/@a phase line's removed values counted as bad metadata
scripts/guest.sh@s/\[ "$(guest_mark "$log" KPROBE-LEFT-INT)" = 0 \]/true/@check-kernels: a kprobe left after SIGINT fails the guest@scripts
scripts/guest.sh@s/ \&\& \[ "$ru" -eq 0 \]//@check-kernels: a 64K folio reused before 6.13 fails the guest@scripts
scripts/guest.sh@s/\[ "$(guest_mark "$log" KH-SLEEP)" = 10000 \]/true/@check-kernels: khugepaged's scan sleep put back@scripts
scripts/guest.sh@s/if grep -q "Kernel panic" "$1" || /if /@check-kernels: a panic after the completion marker fails the guest@scripts
scripts/benchlib.py@s/if name == .foliostat_faults_total.:/if name.startswith("foliostat_faults"):/@bench: serve's faults are one family's@scripts
scripts/benchlib.py@s/    xs = \[x for x in xs if x is not None\]/    xs = [x or 0 for x in xs]/@bench: a failed phase read is no run@scripts
lib/model/model_fault.c@s/	if (f->file_read) {/	if (0) {/@a file fault's folio read inside it gives its order
lib/data/decode_event.c@s/if (r.file_folio > FOL_MAX_ORDER + 1 ||/if (0 ||/@a read file folio's order within range
lib/record/bpf/file.bpf.c@s/		if (XA_INTERNAL(e) \&\& e < (nslots << 2)) {/		if (0) {/@a file folio read through a sibling slot of its xarray entry@live:18-file-orders.t
lib/record/bpf/file.bpf.c@s/	p->file_folio = file_folio_at(addr);/	p->file_folio = 0;/@file faults' folios read inside the fault@live:18-file-orders.t
lib/model/model_space.c@s/	return mm->unaligned_orders ? unaligned_lookup(m, mm, addr, order) : NULL;/	return NULL;/@a folio mremap left unaligned is found by its first page
lib/model/model_space.c@s/			key |= FOLIO_UNALIGNED;/			;/@an unaligned folio keyed as such
lib/model/summary.c@s/	return c != FOL_CALL_MPROTECT \&\& /	return /@mprotect frees no user memory
lib/model/model.c@s/<= FOL_MAX_ORDER \&\& !ev->page.in_irq \&\&/<= FOL_MAX_ORDER \&\&/@a page an interrupt frees is not the call's
lib/record/bpf/decide.bpf.c@s/	if (file_counted(p, now) || /	if (/@serve decides file faults on cached pages in the kernel@live:18-file-orders.t
lib/model/summary.c@s/c == FOL_CALL_MADV_POPULATE || c == FOL_CALL_MMAP_POPULATE || c == FOL_CALL_MLOCK/c == FOL_CALL_MADV_POPULATE/@mmap(MAP_POPULATE) and mlock populate too
lib/live/connguard.c@s/if (same >= g->per_peer || g->n >= g->max) {/if (g->n >= g->max) {/@serve: at most per_peer connections of one peer
lib/live/connguard.c@s/		if (!g->v\[i\].ended \&\& now_ns > g->v\[i\].due_ns) {/		if (now_ns > g->v[i].due_ns) {/@serve: a late connection is ended once
lib/live/connguard.c@s/		c->due_ns = now_ns + g->deadline_ns;/		;/@serve: a whole request gives the next its time
lib/sys/peer.c@s/	\*local = !ret;/	*local = 0;/@serve: a local peer is its user, whatever its address
lib/model/model_kernel.c@s/	if (!c->open || !fol_call_populates(c->call) || t->open ||/	if (!c->open || t->open ||/@only a populating call's allocations are populated folios
lib/model/model.c@s/	if (k == 1 \&\& (!ev->rss.mm_id || !mm->rss_mm_id || ev->rss.mm_id == mm->rss_mm_id))/	if (k == 1)/@GUP's folios: another mm's RSS counter claims none
lib/model/model_kernel.c@s/anon_bytes != (int64_t)1 << (m->page_shift + order))/anon_bytes <= 0)/@GUP's folios: the RSS grows by the folio's size
lib/model/model_kernel.c@s/	if (t->gup_pfn == ev->filemap.pfn + 1)/	if (0)/@GUP's folios: a page the page cache takes is not one
lib/model/model_kernel.c@s/	if (t->open || t->call.open || !(ev->page.gfp/	if (t->open || !(ev->page.gfp/@GUP's folios: none allocated inside a recorded call
lib/model/model_kernel.c@s/	m->s.order\[FOL_ORDER_SLOT(order)\].folios_allocated++;/	;/@GUP's folios count among the order's folios allocated
lib/model/model_fault.c@s/		m->s.unclosed_faults_disabled += f->kernel \&\& f->faults_disabled;/		m->s.unclosed_faults_disabled += f->kernel;/@an unclosed kernel fault's cause as read at its entry
lib/data/decode_event.c@s/	ev->fault.faults_disabled = !!(r.flags \& FOL_BPF_NOFAULT);/	;/@the BPF record's page-faults-disabled flag decoded@live:12-fault-path.t
lib/model/summary.c@s/	keep = sw->whole\[order\] < \*most ? sw->whole\[order\] : \*most;/	keep = sw->whole[order];/@no more folios written whole than the kernel counted
lib/report/report.c@s/	bound_swapout(r);/	;/@the report bounds whole swap-outs by the kernel's count@live:19-cow-selftest.t
lib/data/decode_event.c@s/	x.exit.untimed = !!(r.flags \& FOL_BPF_UNTIMED);/	;/@serve --sample: an exit the programs did not time is decoded so
lib/model/model_fault.c@s/	t->f.untimed = ev->retimed || ev->exit.untimed;/	t->f.untimed = ev->retimed;/@serve --sample: an untimed fault is counted, not timed
lib/live/metrics.c@s/uint64_t cum = 0, n = l->sc->sample > 1 ? l->sc->sample : 1;/uint64_t cum = 0, n = 1;/@serve --sample: the histogram stands for N faults a count
lib/data/merge.c@s/	m->drained_prev = m->drained;/	;/@a live round's drain time releases what came before it
lib/record/bpf/faults.bpf.c@s/	p->untimed = sample_below \&\& bpf_get_prandom_u32() >= sample_below;/	p->untimed = 0;/@serve --sample times one fault in N@live:20-serve-sample.t
lib/model/model_kernel.c@s/		m->s.order\[FOL_ORDER_SLOT(i)\].folios_allocated += c->populated\[i\];/		;/@populated folios count among the order's folios allocated
lib/live/tally.c@s/		if (r->gone == 2) {/		if (0) {/@rows of ended tasks dropped after one interval
lib/live/tally.c@s/nrows(t) >= (size_t)t->o.max_rows)/0)/@cgroup label sets bounded
lib/sys/cgroup.c@s/have >= desc + 1)/have >= desc)/@-G refuses a cgroup one perf_event state short
lib/sys/cgroup.c@s/if (hier > 0) {/if (hier >= 0) {/@-G refuses only a perf_event on v1
lib/model/model.c@s/return ev->evidx < 0 ? 0 : filemap_add(m, ev);/return 0;/@-G keeps the page cache other tasks fill
lib/model/model_space.c@s/		ret = fol_pagecache_sweep(m->pc, file_mapped, set);/		ret = 0;/@live: the page cache of a file no one maps is forgotten
lib/model/model_space.c@s/	if (!v->file || !v->id.ino)/	if (1)/@live: a file still mapped keeps its page cache
lib/sys/pagecache.c@s/		if (!(keep\[i\] = mapped(\&f->id, ctx) == 1))/		if (!(keep[i] = 1))/@live: a swept file's additions go
lib/live/tally.c@s/		if (row_alive(t, r->cgroup)) {/		if (1) {/@a removed cgroup's row goes
lib/live/tally.c@s/removed_ns >= t->o.linger_ns/removed_ns > t->o.linger_ns/@a removed cgroup's row lingers no longer than asked
lib/live/tally.c@s/	for (ssize_t i = 0; i < nid; i++)/	for (ssize_t i = 0; i < 0; i++)/@a removed cgroup's ids are looked up again
lib/live/kcounts.c@s/	return FOL_BPF_FORGET;/	return 0;/@the programs forget a removed cgroup's counts@live:15-serve.t
lib/live/kcounts.c@s/	if (r \&\& fol_mono_ns() - kc->pulled_ns >= PULL_EVERY_NS)/	if (0)/@serve pulls the kernel's counts at its ticks@live:15-serve.t
lib/live/kcounts.c@s/	kc->cgroup_gone = !fol_cgroup_alive(kc->root, kc->cgroup, 0);/	kc->cgroup_gone = 0;/@serve -G sees its cgroup removed@live:15-serve.t
lib/live/tally.c@s/	c->episodes\[slot\] += f->new_episode;/	c->episodes[slot]++;/@reuse episodes are first reuse faults
lib/live/tally.c@s/	key = \*parent;/	key = 0;/@a forked child in its parent's cgroup
lib/live/tally.c@s/		if ((double)cum >= q \* (double)n)/		if ((double)cum > q * (double)n)/@the quantile's bucket
lib/model/model.c@s/	return m->o.live \&\& !fol_u64map_get(m->threads/	return 0 \&\& !fol_u64map_get(m->threads/@live: a task's teardown after its exit does not make it anew
lib/live/metrics.c@s/cum += b\[i\];/cum = b[i];/@histogram buckets are cumulative
lib/data/decode.c@s/n = fol_decoder_clean_format(fmt, clean, FOL_FORMAT_MAX);/n = (int)strlen(strcpy(clean, fmt));/@format text rebuilt before libtraceevent
lib/data/decode_text.c@s/if (idents < 2 || !last/if (idents < 1 || !last/@a field declaration needs a type before its name
lib/data/decode_text.c@s/if (!dynamic_in_bounds(f, ev)) {/if (0) {/@dynamic fields checked against the record
lib/data/decode_event.c@s/ || r.raw_size > FOL_BPF_RAW_MAX)) ||/)) ||/@a BPF record's raw copy no longer than its array
lib/data/decode_event.c@s/	    (r.what == FOL_BPF_FAULT \&\& r.t1 < r.t0))/	    0)/@a BPF record's exit not before its entry
lib/data/decode_event.c@s/(ev->raw_size < sizeof(r) || r.raw_size/(r.raw_size/@a BPF record with an entry holds the raw copy
lib/data/decode_event.c@s/int idx = d->first_of\[kind\];/int idx = d->first_of[kind] < 0 ? 0 : d->first_of[kind];/@a BPF record needs the events it stands for
lib/data/recording_facts.c@s/bad = recording_check_value(shape, j);/bad = 0;/@metadata schema check
lib/data/recording_check.c@s/v->valuedouble < f->min ||/0 \&\&/@metadata numeric range
lib/data/recording_facts.c@s/		\*none = f->omit \&\& \*(const double \*)p == f->dflt;/		*none = *(const double *)p == f->dflt;/@a fact at its default is written unless its row omits it
lib/data/recording_facts.c@s/	case F_STRS: s.type = RC_ARR; s.sub = rc_a_string; break;/	case F_STRS: s.type = RC_ARR; s.sub = rc_a_count; break;/@a fact's list checked as its row says
lib/data/recording_facts.c@s/		\*(double \*)p = cJSON_IsNumber(v) ? v->valuedouble : f->dflt;/		*(double *)p = cJSON_IsNumber(v) ? v->valuedouble : 0;/@a fact not recorded reads as its default
lib/data/recording_facts.c@s/	case F_OBJ: return cJSON_IsObject(v) ? check_object(v, f->chunk, f->key) : -1;/	case F_OBJ: return cJSON_IsObject(v) ? 0 : -1;/@an object's facts checked inside it
lib/data/recording.c@s/	return c->have ? n : -1;/	return n;/@lost samples: none counted is not zero lost
lib/data/recording.c@s/		rec->pmu\[i\].counted = rec->pmu\[i\].value >= 0;/		rec->pmu[i].counted = 1;/@a PMU count without its value is not counted
lib/data/recording_facts.c@s/		if (cJSON_IsObject(e)) {/		if (1) {/@a PMU chunk's member that is no object is removed
lib/util/escape.c@s/	if (fol_printable(s) /	if (1 || fol_printable(s) /@escaping of file strings
lib/util/escape.c@s/if (cp < 0xa0 ||/if (cp < 0x80 ||/@C1 controls escaped
lib/util/u64map.c@s/if (!key) {/if (0) {/@key 0 in the hash map
lib/data/merge.c@s/if (r->unsorted)/if (0)/@out-of-order chunk sorted
lib/data/file.c@s/if (!S_ISREG(st.st_mode) || !is_ours(path))/if (!S_ISREG(st.st_mode))/@only recordings replaced
lib/data/file.c@s/|| !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)))/)/@links followed only to devices and FIFOs
lib/data/file.c@s/if (h.version == 0) {/if (0) {/@version 0 is damage
lib/model/model_fault.c@s/		return f->alloc_order >= 0 ? FOL_C_WP_COPY : FOL_C_WP_REUSE;/		return FOL_C_WP_REUSE;/@wp_copy told from wp_reuse
lib/model/model_fault.c@s/	if (!write \&\& !f->anon_rss)/	if (!write)/@zero page needs no anon rss
lib/model/model.c@s/r->hist\[fol_reuse_bucket(f->reuse)\]++;/r->hist[0]++;/@reuse histogram bucket
lib/data/merge.c@s/if (!early \&\& !late)/if (1)/@records out of place in their ring buffer retimed
lib/model/model_fault.c@s/} else if (end \&\& (f->untimed || end/} else if (end \&\& (0 || end/@a retimed exit gives no latency
lib/model/model.c@s|fol_model_end_episode(m, parent, key, f); /\* shared again \*/|;|@a fork ends the parent's reuse episodes
lib/model/model_fault.c@s/if ((f->error_code \& FOL_PF_WRITE) \&\& f->anon_rss \&\& f->last_order >= 0) {/if (0) {/@a private file copy is an anonymous folio
lib/model/model_space.c@s/		if (at \& (size - 1)) {/		if (0) {/@a folio mremap moves to an unaligned address is keyed by its first page
lib/model/model_fault.c@s/		return FOL_U_SWAP_CACHE;/		return FOL_U_BEFORE;/@unknown causes told apart
lib/model/model_fault.c@s/if (pages <= 0 || f->anon_delta != -f->swap_delta/if (pages <= 0/@a swap-in's order needs the two counters to agree
lib/model/model_fault.c@s/^\tif (!created) {$/\tif (0) {/@a second zero-page read in a PMD range proves 4K
lib/model/model_space.c@s/if (!(mm->orders \& (1u << o)))/if (0)/@order mask is only a shortcut (must not change results)
lib/util/stats.c@s/t->p = fmin(1, 2 \* gsl_cdf_tdist_Q(fabs(t->stat), df));/t->p = fmin(1, gsl_cdf_tdist_Q(fabs(t->stat), df));/@Welch's p is two-sided
lib/util/stats.c@s/ties += pow(j - i, 3) - (j - i);/ties += 0;/@Mann-Whitney tie correction
lib/util/stats.c@s/if (small <= MWU_EXACT_MAX \&\& !tied/if (0 \&\& !tied/@exact Mann-Whitney for small samples
lib/compare/compare.c@s/	return fmax(FOL_CMP_FLOOR, 2 \* fig->resolution);/	return FOL_CMP_FLOOR;/@a percentile's change within its resolution is not marked
lib/compare/compare.c@s/	if (cell->nb < FOL_CMP_MIN_RUNS || cell->nv < FOL_CMP_MIN_RUNS)/	if (cell->nb < 1 || cell->nv < 1)/@one run a side is never tested
lib/compare/compare.c@s/	if (fig->single)$/	if (0)/@maxima and a few faults never marked
lib/compare/compare.c@s/	if (restates)$/	if (0)/@a restated row is not tested twice
lib/compare/compare.c@s/	if (cell->level == FOL_LEVEL_RUNS \&\& b->sd == 0 \&\& n->sd == 0 \&\& b->mean != n->mean)/	if (0)/@a difference of state over one recording a side is (=), not tested
lib/compare/compare.c@s/	if (cell->level == FOL_LEVEL_RUNS \&\& fig->unit == FOL_UNIT_NS)/	if (0)/@a time over one recording a side is not tested
lib/compare/compare.c@s/	if (cell->level == FOL_LEVEL_RUNS \&\& fig->unit == FOL_UNIT_COUNT)/	if (0)/@over one recording a side a count must pass its drift
lib/compare/compare.c@s/				sum += logs ? log(s->v\[i\]) : s->v\[i\];/				sum += s->v[i];/@a recording's times averaged on logs
lib/compare/compare.c@s/	if (recordings(base) > 1 \&\& recordings(v) > 1)/	if (0)/@runs nested in recordings: tested on the recordings' means
lib/compare/compare.c@s/	if (base->recording \&\& base->recording == v->recording)/	if (0)/@a sweep's sides alternate in one recording
lib/compare/compare.c@s/		if (l < bf || f > bl)/		if (l < bf \&\& f > bl)/@a side recorded wholly after the base is said to be
lib/compare/compare.c@s/		if (!(t > 0))/		if (0)/@a run without its start leaves the order unknown
lib/compare/compare.c@s/	cell->log = fig->unit == FOL_UNIT_NS \&\& all_positive(base)/	cell->log = 0 \&\& all_positive(base)/@times on a log scale
lib/compare/compare.c@s/			if (kept < 0 \&\& r\[k - 1\].p <= (double)k \* fdr \/ m)/			if (kept < 0 \&\& r[k - 1].p <= fdr)/@Benjamini-Hochberg over the family
lib/compare/compare.c@s/			q = fmin(q, r\[k - 1\].p \* m \/ k);/			q = r[k - 1].p;/@q is BH's adjusted p
lib/compare/compare.c@s/(n.mean < b.mean) == (fig->better == FOL_BETTER_LOWER)/(n.mean < b.mean) != (fig->better == FOL_BETTER_LOWER)/@improvement or regression by the figure's direction
lib/compare/compare.c@s/		if (!present\[r\] \&\& !row->fig.additive)/		if (0)/@a run without a latency figure gives it no value
lib/compare/compare.c@s/		cell->ci_lo = cell->t.lo \/ fabs(bd.mean);/		cell->ci_lo = cell->t.lo;/@the interval of a change is relative to the base
lib/compare/compare.c@s/			c->gmean\[s\] += log(c->rows\[k\].cell\[s\].d.mean);/			c->gmean[s] += c->rows[k].cell[s].d.mean;/@the Gmean is geometric
lib/compare/compare.c@s/	if (!row->fig.latency || row->fig.single/	if (row->fig.single/@the Gmean is of per-fault latencies only
lib/compare/compare_mmtests.c@s/diff > MMTESTS_Z \* base->sd \&\&/diff > MMTESTS_Z * base->sd ||/@mmtests' star needs both sides' spread passed
lib/model/swapout.c@s/	if (order < f->order) {/	if (0) {/@pages freed at a smaller order: the folio was split
lib/sys/pagecache.c@s/		else if (index - r->index >= r->n << r->order)/		else if (0)/@a page-cache run covers only its folios
lib/sys/pagecache.c@s/if (last \&\& f->runs\[i\].index < last->index + (last->n << last->order))/if (0)/@overlapping page-cache runs left out
lib/data/session.c@s/(type == FOL_CHUNK_RUN \&\& (s->run || s->meta)) ||/0 ||/@a RUN chunk starts the next run
lib/data/session.c@s/|| (type == FOL_CHUNK_META \&\& s->meta);/;/@a run whose RUN chunk was lost is not merged into the one before
lib/report/runs.c@s/if (st.run_corrupt_chunks)/if (0)/@a run damaged inside is left out
lib/report/runs.c@s/else if (!ended)/else if (0)/@a run cut short is left out
lib/report/runs.c@s/\&\& !x->numbered) {/\&\& 0) {/@in a sweep, a run without its RUN chunk is left out
lib/compare/sides.c@s/			if (!strcmp(bc ? bc : "", config))/			if (1)/@a sweep's untraced runs go to their configuration's side
lib/report/runs.c@s/		rs->bare\[rs->nbare++\] = \&b->v\[i\];/		;/@a run's untraced runs are listed with the recording's
lib/util/stats.c@s/t->hi += gsl_cdf_tdist_Pinv/t->hi -= gsl_cdf_tdist_Pinv/@the interval of a difference spans its estimate
lib/compare/compare_sites.c@s/fol_cmp_decide(\&ff, \&b,/if (0) fol_cmp_decide(\&ff, \&b,/@a site's faults are tested
lib/symbols/symtab.c@s/a->size < b->size ? 1 :/a->size > b->size ? 1 :/@of two symbols alike, libdwfl names the smaller
lib/symbols/symtab.c@s/if (!v\[i\].size \&\& v\[i\].value < ends_get(\&e, rank))/if (0)/@a label that a symbol before it ends past is never taken
lib/symbols/symtab.c@s/if (best->index < t->first_global \&\& global)/if (0)/@globals are searched before locals
lib/symbols/symtab.c@s/return lo \&\& t->labels\[lo - 1\].shndx == shndx \&\& t->labels\[lo - 1\].reach > addr;/return 0;/@an assembly label below the address may name it
lib/symbols/symtab.c@s/if (k \&\& t->sizeless\[k - 1\] == addr)/if (0)/@a label at the address is libdwfl's to judge
lib/symbols/debugfile.c@s/sh\[z\[i\].index\].sh_flags \&= ~(uint64_t)SHF_COMPRESSED;/;/@an inflated section is no longer marked compressed
lib/symbols/debugfile.c@s/sh\[i\].sh_size > len - sh\[i\].sh_offset ||/0 ||/@a compressed section within the file
lib/symbols/debugfile.c@s/if (z\[i\].off < z\[i - 1\].off + z\[i - 1\].len)/if (0)/@compressed sections do not overlap
lib/symbols/debugsearch.c@s/ || strchr(link, '\/') ||/ ||/@a debug link with a '/' is refused
lib/symbols/debugsearch.c@s/	int fd = fol_open_recorded(root, path);/	int fd = open(path, O_RDONLY);/@debug files are opened under the root, regular only
lib/symbols/debugsearch.c@s/(len <= 0 \&\& crc \&\& !same_crc(fd, crc))/0/@a debug link's file has its CRC
lib/symbols/ksyms.c@s/sorted \&= !k->n || k->v\[k->n - 1\].addr <= a;/;/@kernel symbols out of order are sorted
lib/symbols/ksyms.c@s/	     (uint64_t)st.st_size == sizeof(hd) + hd.n \* sizeof(\*v) + hd.names_len;/	     1;/@a kept kernel symbol table is whole
lib/symbols/ksyms.c@s/	if (cached \&\& !load_kept(k, kept, h)) {/	if (0) {/@a recording's kernel symbols are read from the kept table
lib/util/cache.c@s/		if (i >= (size_t)keep || total > max_bytes)/		if (total > max_bytes)/@only the newest files of a kind are kept
lib/util/cache.c@s/	utimensat(AT_FDCWD, path, NULL, 0);/	;/@a kept file used counts as new
lib/model/model_fault.c@s/	m->s.retimed_exits += ev->retimed;/	;/@the retimed exits counted
lib/data/pipe.c@s/		memcpy(b->arena + b->used, p, size);/		;/@what a piped event points to is copied with it
lib/data/pipe.c@s/		e->mmap.filename = address(b, e->mmap.filename);/		;/@a piped event's pointers are made addresses again
lib/compare/compare_sites.c@s/f\[(size_t)nsides \* (size_t)maxruns\] += (double)e\[i\].g->time_ns;/f[0] += (double)e[i].g->time_ns;/@a site's time is its own figure
lib/report/figures.c@s/n += (double)in \* (double)(ohi - olo) \/ (double)s->bin_ns;/n += (double)in;/@faults of a bin shared by overlap
lib/model/model.c@s/(!m->o.comm || !strcmp(m->o.comm, fol_comms_get(m->comms, tid)))/1/@--comm filter
lib/model/model.c@s/(o->t_end \&\& start >= o->t_end)/(o->t_end \&\& start > o->t_end)/@--time window is half-open
lib/model/model_fault.c@s/m->s.bins\[(size_t)(2 \* i) \* FOL_NR_CLASSES + (size_t)c\] +$/m->s.bins[(size_t)(2 * i) * FOL_NR_CLASSES + (size_t)c] * 0 +/@timeline coarsening adds bins pairwise
lib/model/model_fault.c@s/		m->s.mismatched_exits++;/		;/@an exit on another page is counted
lib/model/model_kernel.c@s/	memset(c, 0, sizeof(\*c));/	c->start = 0;/@pages freed count only inside a call
lib/model/model_kernel.c@s/		return FOL_CALL_MADV_PAGEOUT;/		return FOL_CALL_MADV_OTHER;/@madvise calls by advice
lib/model/model_kernel.c@s/^	t->isolated_at = 0;/	;/@a collapse is timed from its own isolation only
lib/model/model.c@s/	return mm \&\& ev->time > mm->seeded_at ? fol_model_drop_mm(m, ev->pid) : 0;/	return 0;/@an exec drops the old address space's folios
lib/model/model_space.c@s/^\tmm->seeded_at = ev->time;/\t;/@the command's own exec keeps the folios seeded after it
lib/data/symbolic.c@s/		if (len == FOL_SYMBOL_NAME_MAX - 1)/		if (0)/@a symbol's name is bounded
lib/model/swapout.c@s/if (f->writes == 1 \&\& f->at_head \&\& !f->pieces_freed)/if (f->at_head \&\& !f->pieces_freed)/@a folio written in pieces is split, even with its first page among them
lib/model/swapout.c@s/if (f \&\& f->order < k)/if (0)/@a folio holds only the frames of its order
lib/model/model_kernel.c@s/	if (c->wrote)/	if (0)/@swap writes judged at the end of the call that made them
lib/model/model_kernel.c@s/	return fol_model_selected(m, \*pid, \*pid);/	return 1;/@khugepaged's work on an unselected process is not the workload's
lib/model/model_kernel.c@s/	if (!ev->lock.mm || fol_model_mm_thread(/	if (!ev->lock.mm || 0 \&\& fol_model_mm_thread(/@an mm thread locking an mm does not own it
lib/model/model_kernel.c@s/	khugepaged = fol_model_mm_thread(m, tid) \&\& !strcmp(fol_comms_get(m->comms, tid), "khugepaged");/	khugepaged = 1;/@MADV_COLLAPSE is not khugepaged's
lib/model/model_kernel.c@s/			t->awake_since = m->s.first_ns;/			;/@kswapd asleep first was awake since the start
lib/model/model.c@s/				!fol_model_mm_thread(m, tid);/				1;/@the mm threads are not the workload's threads
lib/model/model_fault.c@s/		.ip = code ? f->ip - code->start + code->pgoff : f->ip,/		.ip = code ? f->ip - code->start : f->ip,/@a site's IP is an offset in the file, the mapping's pgoff counted
lib/model/model_space.c@s/		tail.pgoff += end - head.start;/		;/@a mapping cut at its head keeps its file offsets
lib/util/indexed.c@s/		if (same(el, key))/		if (1)/@elements on one hash told apart by the caller's equality
lib/model/model.c@s|			t->comm_id = 0; /\* renamed: its sites' name is looked up again \*/|			;|@a renamed thread's faults take its new name
lib/data/symbolic.c@s/	while (out->n < FOL_SYMBOLS_MAX) {/	while (out->n < FOL_SYMBOLS_MAX + 40) {/@at most FOL_SYMBOLS_MAX symbols
lib/report/report_om.c@s/# TYPE %s_total counter/# TYPE %s counter/@the Prometheus text format names a counter family as its samples
lib/report/report_sites.c@s/		if (g \&\& !in_group(\&nm, \&st\[i\], g, gi))/		if (0)/@a group's stacks are those of its sites only
lib/data/decode_sample.c@s/			if (take(c, \&dyn, 8) || dyn > size)/			if (take(c, \&dyn, 8))/@a stack copy filled no further than copied
lib/report/report.c@s/if (!strcmp(r->rec.mthp\[i\].stat, "split"))/if (0)/@every mTHP size's splits count in the split warning
lib/record/record.c@s/	    (o->mmap_pages \& (o->mmap_pages - 1)))/	    0)/@ring buffer pages a power of two
lib/record/record.c@s/if (o->cgroup \&\& !o->system_wide)/if (0)/@-G only with -a
lib/record/record.c@s/if (r->chunk_used + sz > CHUNK_FLUSH \&\& (ret = rec_flush_chunk(r)))/if (0 \&\& (ret = rec_flush_chunk(r)))/@a chunk written before its buffer overflows@live:04-report-geometry.t
lib/record/start.c@s/	say(err_fd, errno);/	;/@exec's failure told to the parent
lib/record/start.c@s/if (go_fd >= 0 \&\& read(go_fd, \&c, 1) != 1)/if (0)/@a corked command waits to be let go
lib/util/grow.c@s/if (size \&\& n > SIZE_MAX \/ size)/if (0)/@an array's size in bytes cannot overflow
lib/report/report_om.c@s/if ((i + 1) % (int)FOL_HIST_SUB \&\& i + 1 < FOL_HIST_BUCKETS)/if (0)/@OpenMetrics buckets only at the powers of two@golden
lib/report/report_text.c@s/100.0 \* (double)ru->episodes \/ (double)ru->faults,/100.0 * (double)ru->faults \/ (double)ru->faults,/@the text's effectiveness is episodes over faults@golden
lib/report/report_json.c@s/ratio(ru->episodes, ru->faults)/ratio(ru->faults, ru->episodes)/@the JSON's effectiveness is episodes over faults@golden
lib/report/report_csv.c@s/order < 0 ? 0 : (uint64_t)r->page_size << order,/order < 0 ? 0 : (uint64_t)r->page_size << (order + 1),/@the CSV's folio size in bytes@golden
lib/compare/compare_out.c@s/snprintf(t, sizeof(t), "%+.2f%%", 100 \* cell->change);/snprintf(t, sizeof(t), "%.2f%%", 100 * cell->change);/@a compare's change signed@golden
lib/record/bpf/decide.bpf.c@s/	int first = f->gen != s->gen || !f->reuse;/	int first = !f->reuse;/@kernel reuse: a fork ends the parent's reuse episodes
lib/model/model_fault.c@s/ \&\& !f->episode_kept,/,/@kernel reuse: an episode the BPF programs counted is not told again
lib/record/bpf/decide.bpf.c@s/		return FOL_BPF_CLS_COPY;/		return FOL_BPF_CLS_ALLOC;/@kernel allocations: a write to a present page is a copy
lib/record/bpf/decide.bpf.c@s/keeps_folio(fault_ec(p), fault_vma(p))/keeps_folio(fault_ec(p), p->anon)/@kernel reuse: a folio of a fault written out before it allocated is kept
lib/record/bpf/decide.bpf.c@s/	if (f || !s->parent)/	if (1)/@kernel reuse: a forked child's folios are its parent's at the fork
lib/record/bpf/decide.bpf.c@s/		__sync_fetch_and_add(\&s->maps, 1);/		(void)s;/@kernel zero reads: a mapping call's exit makes the threads look their VMA up again
lib/record/bpf/decide.bpf.c@s/	return huge_zero == FOL_BPF_HZ_MADVISE \&\& !(v->huge \& FOL_BPF_VMA_HUGE);/	return huge_zero == FOL_BPF_HZ_MADVISE;/@kernel zero reads: under MADV_HUGEPAGE the huge zero page's order is the model's
lib/record/bpf/decide.bpf.c@s/ || base < v->start || base + pmd > v->end)/)/@kernel zero reads: a PMD range outside the VMA gets the 4K zero page
lib/record/bpf/decide.bpf.c@s/	if (p->vma.space == s->id \&\& p->vma.maps == maps/	if (0 \&\& p->vma.maps == maps/@kernel zero reads: a VMA looked up once, not once a fault
lib/record/bpf/decide.bpf.c@s/	else if (v->kind == VMA_SPECIAL)/	else if (v->kind != VMA_ANON)/@kernel zero reads: a file's read goes out
lib/sys/mthp.c@s/	if (pmd_enabled \&\& strcmp(pmd_enabled, "inherit"))/	if (0)/@the huge zero page's policy is the PMD size's own unless it inherits
lib/record/bpf/decide.bpf.c@s/		kfolio_keep_previous(\&k);/		;/@kernel reuse: the folio a parent's COW copy replaced stays the child's
lib/record/bpf/decide.bpf.c@s/		if (s->unmapped\[i\].seq > born \&\& addr >= s->unmapped\[i\].start \&\& addr < s->unmapped\[i\].end)/		if (0)/@kernel reuse: a folio kept in a range unmapped since is gone
lib/record/bpf/decide.bpf.c@s/	return p->last.space == s->id \&\& p->last.gen == s->gen \&\&/	return p->last.space == s->id \&\&/@kernel reuse: a thread's last folio does not hold across a fork
lib/record/bpf/decide.bpf.c@s/	    p->alloc_order >= 0 || swap >= 0 || anon != -swap ||/	    p->alloc_order >= 0 || swap >= 0 ||/@kernel swap-ins: as many pages in as swap entries out, or the model judges
lib/record/bpf/decide.bpf.c@s/	kfolio_put(tgid, addr, order);/	;/@kernel swap-ins: the folio swapped in is kept for its reuse faults
lib/record/bpf/faults.bpf.c@s/			emit_rss(ctx, p->rss_hold\[1\].t1, FOL_BPF_SUM_PREV, p->rss_hold\[1\].before, p->rss_hold\[1\].raw);/			;/@kernel swap-ins: a change held goes out behind the entry when the fault is not decided
lib/record/bpf/faults.bpf.c@s/		p->t0 = h->t1 - 1;/		;/@kernel swap-ins: an untimed fault's entry goes out before the changes it held
lib/record/bpf/decide.bpf.c@s/	return cls >= 0 \&\& (kind == VMA_ANON || (cls == FOL_BPF_CLS_COPY \&\& kind == VMA_FILE_PRIVATE));/	return cls >= 0;/@kernel allocations: a write in a shared file's mapping is the file's
lib/record/bpf/decide.bpf.c@s/		v->kind = flags \& VM_MAYSHARE ? VMA_OTHER : VMA_FILE_PRIVATE;/		v->kind = VMA_FILE_PRIVATE;/@kernel allocations: a shared file mapping is told from a private one
lib/record/bpf/decide.bpf.c@s/	return kind == VMA_ANON || (kind == VMA_FILE_PRIVATE \&\& (ec \& 1));/	return kind == VMA_FILE_PRIVATE \&\& (ec \& 1);/@kernel reuse: a folio kept wherever the model keeps one, whatever the fault's class
cmd/serve.c@s/^\tpolicy = fol_live_policy_tick(s->l);/\tpolicy = -1;/@serve: a THP policy changed while it runs is read again@live:22-serve-policy.t
lib/live/stream.c@s/^\t\tfol_model_set_huge_zero(l->r.model, policy);/\t\t;/@serve: the model places the huge zero page by the policy now@live:22-serve-policy.t
lib/record/bpf_faults.c@s/^\tb->skel->bss->huge_zero = hz_of(policy);/\t(void)b, (void)policy;/@serve: the programs decide zero-page reads by the policy now@live:22-serve-policy.t
lib/record/bpf/decide.bpf.c@s/	if (old \&\& old->born <= s->forked_at) {/	if (old \&\& s->forked_at) {/@kernel reuse: a folio born after the last fork is no child's: the version kept for children stays
lib/record/bpf/decide.bpf.c@s/	if (s \&\& s->mm != current_mm())/	if (s)/@kernel reuse: exec keeps the folios its own faults put in the new space
lib/record/bpf/decide.bpf.c@s/	if (!s || !len || !may_hold_kept(start, end))/	if (!s || !len)/@kernel reuse: a library's mmap MAP_FIXED hides no kept folio
lib/model/model_fault.c@s/	if (ev->exit.summed)/	if (0 \&\& ev->exit.summed)/@a summed fault's allocations and RSS changes count as the events would
lib/model/model.c@s/	if (ev->rss.prev_known) {/	if (0) {/@an RSS change's value before, where the record says it
lib/data/decode_event.c@s/	if ((r->sum \& ~(FOL_BPF_SUM | FOL_BPF_SUM_ANON | FOL_BPF_SUM_SWAP)) || r->alloc_order < -1 ||/	if (r->alloc_order < -1 ||/@a BPF record's summary has only its bits
lib/data/session.c@s/		       g->tail_round < s->round ? g->tail_len : 0);/		       0);/@a quiet ring's held records go in at its next chunk
lib/live/tally.c@s/		return f->cgroup ? id_row(t, f->cgroup) : cgroup_row(t, f->pid);/		return cgroup_row(t, f->pid);/@a fault is counted in the cgroup of its id
lib/report/report.c@s/	    type == FOL_CHUNK_BARE || !fol_session_ready(s))/	    type == FOL_CHUNK_BARE)/@a live report begins only once the session has its header
tui/top.c@s/		if (v\[i\]->pid == u->sel_pid)/		if (0)/@top: the selection is a task, wherever a new sort puts it@live:14-top.t
EOF
)
W=$(mktemp -d /tmp/foliostat-mutate.XXXXXX)
trap 'rm -rf "$W"' EXIT
UNIT=$(ls tests/unit/test_*.c | sed 's,^,build/,; s,\.c$,,')
# The tree built once; each mutant is a copy of it (times kept, so that make rebuilds
# only the mutated file and the links): 5 s a mutant instead of a whole build.
mkdir -p "$W/base"
cp -r lib cmd tui tests scripts Makefile "$W/base/"
ln -s "$ROOT/deps" "$W/base/deps"
touch -r "$ROOT/deps/libperf/.stamp" "$W/base/scripts/"*
# A mutant may leave a variable unused: warnings are not errors here.
make -C "$W/base" -s -j2 DEVELOPER= $UNIT foliostat >"$W/log" 2>&1 || { cat "$W/log"; exit 1; }
survivors=0
killed=0
equivalent=0
# The tests a mutant must fail, run in the mutated tree: 0 when they all pass.
run_tests() {
	case $1 in
	golden)
		(cd "$W/t" && FOLIOSTAT=./foliostat prove tests/golden/*.t) >/dev/null 2>&1 ;;
	scripts)
		(cd "$W/t" && prove --exec bash tests/unit/guest.t && tests/unit/test_bench.py) >/dev/null 2>&1 ;;
	live:*)
		(cd "$W/t" && FOLIOSTAT=./foliostat WORKLOAD_BIN=./foliostat \
			timeout 900 prove "tests/live/${1#live:}") >/dev/null 2>&1 ;;
	*)
		(cd "$W/t" && for t in build/tests/unit/test_*; do [ -x "$t" ] || continue
			CMOCKA_MESSAGE_OUTPUT=stdout timeout 300 "$t" >/dev/null 2>&1 || exit 1; done) ;;
	esac
}
skipped=0
while IFS='@' read -r file expr what by; do
	[ -n "$file" ] || continue
	if [ "${by#live:}" != "$by" ] && [ "$(id -u)" -ne 0 ]; then
		echo "skipped  $what: its live test needs root"
		skipped=$((skipped + 1))
		continue
	fi
	rm -rf "$W/t" && cp -a "$W/base" "$W/t"
	sed -i "$expr" "$W/t/$file"
	touch "$W/t/$file"
	if cmp -s "$file" "$W/t/$file"; then
		echo "BROKEN   $what: the expression did not change $file"
		survivors=$((survivors + 1))
		continue
	fi
	if ! make -C "$W/t" -s -j2 DEVELOPER= $UNIT foliostat >"$W/log" 2>&1; then
		echo "BROKEN   $what: the mutant does not build ($(grep -m1 error: "$W/log"))"
		survivors=$((survivors + 1))
		continue
	fi
	# A mutant that crashes a test leaves that test's files in /tmp: removed after it.
	tmp_before=$(ls -d /tmp/foliostat-* 2>/dev/null | sort)
	run_tests "${by:-unit}"
	passed=$?
	comm -13 <(echo "$tmp_before") <(ls -d /tmp/foliostat-* 2>/dev/null | sort) |
		grep -E '/foliostat-(rb|out|in|test-file|fuzz)\.' | xargs -r rm -rf
	if [ "$passed" -eq 0 ]; then
		case "$what" in
		*"must not change results"*)
			echo "ok       $what (equivalent mutant: same results, as it should)"
			equivalent=$((equivalent + 1));;
		*)
			echo "SURVIVED $what ($file: $expr)"
			survivors=$((survivors + 1));;
		esac
	else
		echo "killed   $what"
		killed=$((killed + 1))
	fi
done <<<"$(echo "$MUTANTS" | grep -E -- "${MUTATE_ONLY:-.}")"
echo "mutants: $killed killed, $survivors survived, $equivalent equivalent, $skipped skipped"
[ "$survivors" -eq 0 ]
