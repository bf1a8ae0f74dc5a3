// SPDX-License-Identifier: GPL-2.0-only
#include "record/record_priv.h"

#include <errno.h>
#include <perf/cpumap.h>
#include <perf/event.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "record/drain.h"
#include "sys/counters.h"
#include "sys/pagecache.h"

int rec_fail(struct fol_recorder *r, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fol_msgs_vadd(&r->res->errors, fmt, ap);
	va_end(ap);
	return err;
}

/* A record into the chunk being filled, which is written when full. */
static int take_record(const union perf_event *ev, void *rp)
{
	struct fol_recorder *r = rp;
	size_t sz = ev->header.size;
	int ret;

	if (r->chunk_used + sz > CHUNK_FLUSH && (ret = rec_flush_chunk(r)))
		return ret;
	memcpy(r->chunk + r->chunk_used, ev, sz);
	r->chunk_used += sz;
	r->res->records++;
	if (ev->header.type == PERF_RECORD_SAMPLE)
		r->res->samples++;
	else if (ev->header.type == PERF_RECORD_MMAP2 && sz > sizeof(ev->mmap2) - PATH_MAX)
		rec_note_mapping(r, ev);
	else if (ev->header.type == PERF_RECORD_LOST)
		r->res->lost += ev->lost.lost;
	return 0;
}

/* A ring buffer's records in chunks of their own: a chunk holds one ring buffer's run. */
static int ring_done(void *r)
{
	return rec_flush_chunk(r);
}

static int drain_evlist(struct fol_recorder *r, struct perf_evlist *evlist)
{
	return fol_drain(evlist, take_record, ring_done, r);
}

/* A pass over the ring buffers, then a round. Live (top, serve), every pass ends one, and
 * says when it began: every record older is in the stream now, and the merge releases it
 * however quiet the machine (merge.h's fol_merge_drained): a scrape counts what came
 * before it. A file's rounds say nothing (its end releases all), and a pass that found
 * nothing ends none: an idle target must not grow the file. */
static int drain(struct fol_recorder *r)
{
	uint64_t before = r->res->records, began = rec_now_ns(CLOCK_MONOTONIC);
	int ret = drain_evlist(r, r->evlist);

	if (!ret && r->kevlist)
		ret = drain_evlist(r, r->kevlist);
	if (ret)
		return ret;
	if (r->o->live)
		ret = fol_writer_chunk_buf(r->w, FOL_CHUNK_ROUND, &began, sizeof(began));
	else if (r->res->records != before)
		ret = fol_writer_chunk_buf(r->w, FOL_CHUNK_ROUND, NULL, 0);
	else
		return 0;
	return ret ? ret : fol_writer_flush(r->w);
}

static void cleanup(struct fol_recorder *r)
{
	fol_start_close(&r->child);
	if (r->child.pid > 0) {
		/* Still corked: it never ran the workload. */
		kill(r->child.pid, SIGKILL);
		waitpid(r->child.pid, NULL, 0);
	}
	for (int i = 0; i < r->nr_counters; i++)
		if (r->counters[i].evsel) {
			perf_evsel__close(r->counters[i].evsel);
			perf_evsel__delete(r->counters[i].evsel);
		}
	rec_close_mm_threads(r);
	if (r->evlist) {
		perf_evlist__munmap(r->evlist);
		perf_evlist__close(r->evlist);
		perf_evlist__delete(r->evlist);
	}
	rec_close_bpf(r);
	for (int i = 0; i < r->nr_ev; i++) {
		free(r->ev[i].name);
		free(r->ev[i].format);
	}
	free(r->ev);
	perf_cpu_map__put(r->cpus);
	perf_thread_map__put(r->threads);
	perf_cpu_map__put(r->kcpus);
	perf_thread_map__put(r->kthreads);
	fol_cgroups_free(&r->cg);
	for (size_t i = 0; i < r->code.n; i++)
		free(*FOL_INDEXED_AT(&r->code, char *, i));
	fol_indexed_free(&r->code);
	fol_pc_files_free(r->pc);
	fol_msgs_free(&r->missing);
	free(r->chunk);
}

int fol_recorder_poll(struct fol_recorder *r, int timeout_ms)
{
	struct rusage ru;
	pid_t w = 0;
	int ret, st;

	/* A thread that exits leaves its descriptors signalling POLLHUP for ever: they are
	 * taken out of the poll set, or poll() would return at once and the loop spin. With
	 * none left (every recorded thread exited) it sleeps instead. */
	if (r->fds_left) {
		if (perf_evlist__poll(r->evlist, timeout_ms) > 0)
			r->fds_left = perf_evlist__filter_pollfd(r->evlist, POLLERR | POLLHUP);
	} else {
		poll(NULL, 0, timeout_ms);
	}
	ret = drain(r);
	if (ret)
		return rec_fail(r, ret, "cannot write the recording: %s", strerror(-ret));
	if (!r->o->argv)
		return r->o->system_wide || !rec_target_gone(r->o->pid) ? 1 : 0;
	if (r->child.pid <= 0 || (w = wait4(r->child.pid, &st, WNOHANG, &ru)) != r->child.pid)
		return r->child.pid > 0 && w == 0 ? 1 : 0;
	if (WIFSTOPPED(st)) {
		ret = rec_traced_stop(r, st);
		return ret ? rec_fail(r, ret, "cannot write the recording: %s", strerror(-ret)) : 1;
	}
	r->res->wait_status = st;
	rec_note_rusage(r->res, &ru);
	r->child.pid = 0;
	return 0;
}

void rec_note_rusage(struct fol_record_result *res, const struct rusage *ru)
{
	res->user_ns = (double)ru->ru_utime.tv_sec * 1e9 + (double)ru->ru_utime.tv_usec * 1e3;
	res->system_ns = (double)ru->ru_stime.tv_sec * 1e9 + (double)ru->ru_stime.tv_usec * 1e3;
}

int fol_recorder_new(struct fol_recorder **rp, const struct fol_record_opts *o)
{
	struct fol_recorder *r = calloc(1, sizeof(*r));
	int ret;

	*rp = NULL;
	if (!r)
		return -ENOMEM;
	r->o = o;
	r->res = &r->result;
	r->res->wait_status = -1;
	r->res->user_ns = r->res->system_ns = -1;
	r->child = (struct fol_child){ .go_fd = -1, .err_fd = -1 };
	r->fds_left = 1;
	*rp = r;
	if (o->mmap_pages <= 0 || o->mmap_pages > FOL_RECORD_MAX_PAGES ||
	    (o->mmap_pages & (o->mmap_pages - 1)))
		return rec_fail(r, -EINVAL, "mmap pages must be a power of two up to %d, not %d",
				FOL_RECORD_MAX_PAGES, o->mmap_pages);
	r->evlist = perf_evlist__new();
	r->chunk = malloc(CHUNK_FLUSH + 65536);
	r->cpus = perf_cpu_map__new_online_cpus();
	r->pc = fol_pc_files_new();
	if (!r->evlist || !r->chunk || !r->cpus || !r->pc)
		return rec_fail(r, -ENOMEM, "out of memory");
	if (o->cgroup && !o->system_wide)
		return rec_fail(r, -EINVAL, "-G (a cgroup) needs -a: it scopes a system-wide recording");
	if (o->cgroup) {
		struct fol_msgs why = { 0 };

		ret = fol_cgroups_resolve(o->cgroup, &r->cg, &why);
		if (ret)
			rec_fail(r, ret, "%s", fol_msgs_last(&why));
		fol_msgs_free(&why);
		if (ret)
			return ret;
	}
	if (o->cgroup || o->by_cgroup) {
		struct fol_msgs why = { 0 };

		ret = fol_cgroup_perf_check(o->cgroup ? r->cg.path : "/", &why);
		if (ret)
			rec_fail(r, ret, "%s: %s", o->cgroup ? "-G" : "by cgroup", fol_msgs_last(&why));
		fol_msgs_free(&why);
		if (ret)
			return ret;
	}
	if (o->kprobes) {
		struct fol_msgs why = { 0 };

		if (fol_kprobes_create(&r->kp, &why))
			fol_msgs_add(&r->res->warnings, "%s: recorded without kprobes", fol_msgs_last(&why));
		fol_msgs_free(&why);
	}
	ret = rec_setup_events(r);
	if (!ret)
		ret = rec_setup_mm_threads(r);
	return ret;
}

int fol_recorder_open(struct fol_recorder *r, struct fol_writer *w)
{
	cJSON *before;
	int ret;

	r->w = w;
	ret = rec_open_target(r);
	if (!ret && r->bpf)
		ret = rec_bpf_open_carriers(r);
	if (ret)
		return ret;
	/* The exact method's cost per fault, measured here before anything runs: every
	 * report can say what its latencies include. */
	{
		struct perf_event_attr stack = { 0 };

		rec_user_stack_attr(r->o, &stack);
		if (!r->sampled && !r->o->events &&
		    fol_calibrate(FOL_CALIBRATE_PAGES, r->bpf, r->o->callchain ? &stack : NULL,
				  &r->calibration))
			memset(&r->calibration, 0, sizeof(r->calibration));
	}
	ret = rec_open_events(r);
	if (ret)
		return ret;
	r->start_real = rec_now_ns(CLOCK_REALTIME);
	r->start_mono = rec_now_ns(CLOCK_MONOTONIC);
	ret = rec_write_meta(r, r->start_real, r->start_mono);
	if (!ret)
		ret = rec_write_events(r);
	/* After the metadata: its warnings are about the sampled events; the PMU chunk says
	 * which counters are supported. Before the tasks and folios there: a live model
	 * (stat -a, top, serve) begins at the first chunk after the events, and takes the THP
	 * policy from these (after them, a system-wide one knew no huge zero page policy). */
	rec_open_counters(r);
	before = fol_counters_snapshot("");
	if (!ret && before)
		ret = fol_writer_chunk_json(w, FOL_CHUNK_COUNTERS, before);
	cJSON_Delete(before);
	if (!ret && r->o->system_wide)
		ret = rec_write_system_comms(r, r->start_mono);
	else if (!ret && !r->o->argv)
		ret = rec_write_synth(r, r->start_mono);
	if (!ret)
		ret = fol_writer_flush(w);
	return ret ? rec_fail(r, ret, "cannot write the recording: %s", strerror(-ret)) : 0;
}

int fol_recorder_start(struct fol_recorder *r)
{
	int ret;

	if (r->o->mthp) {
		ret = fol_mthp_apply(r->o->mthp);
		if (ret)
			return rec_fail(r, ret, "cannot set the THP policy (%s): %s",
					r->o->mthp_spec ? r->o->mthp_spec : "",
					ret == -EACCES || ret == -EPERM ? "run as root" : strerror(-ret));
		r->mthp_applied = 1;
	}
	if (!rec_enabled_by_exec(r))
		perf_evlist__enable(r->evlist);
	if (r->kevlist)
		perf_evlist__enable(r->kevlist);
	r->counting_mono = rec_now_ns(CLOCK_MONOTONIC);
	if (r->o->argv) {
		ret = rec_uncork(r);
		if (ret)
			return rec_fail(r, ret, "cannot execute '%s': %s", r->o->argv[0], strerror(-ret));
	}
	/* The workload runs: from here on the file is the recording, and whatever was at
	 * the output path makes way for it. */
	ret = fol_writer_commit(r->w);
	if (ret) {
		perf_evlist__disable(r->evlist);
		if (r->child.pid > 0) {
			kill(r->child.pid, SIGKILL);
			waitpid(r->child.pid, &r->res->wait_status, 0);
			r->child.pid = 0;
		}
	}
	return ret;
}

static void restore_mthp(struct fol_recorder *r)
{
	if (r->mthp_applied)
		fol_mthp_restore(r->o->mthp);
	r->mthp_applied = 0;
}

/* The faults in flight when the recording stops end before the events go off: no new one
 * is followed, and their exits are waited for, STOP_GRACE_MS at most (a thread blocked
 * in a fault for good, on a userfaultfd nobody serves, is left as it is). On the BPF
 * path 4 such faults a run on a quiet machine, 110 in the last 60 ms on a busy one, were
 * counted unclosed as if they had failed. The samples path has no such state. */
#define STOP_GRACE_MS 200
static int let_faults_end(struct fol_recorder *r)
{
	int ret = 0;

	if (!r->bpf)
		return 0;
	fol_bpf_faults_stopping(r->bpf);
	for (int ms = 0; ms < STOP_GRACE_MS && !ret && fol_bpf_faults_in_flight(r->bpf); ms += 2) {
		ret = drain(r);
		poll(NULL, 0, 2);
	}
	return ret;
}

int fol_recorder_stop(struct fol_recorder *r, int signal)
{
	cJSON *after;
	uint64_t dur;
	int ret = 0;

	r->interrupted_by = signal;
	/* Attached: the process lives on; what the run leaves in its page tables now. */
	if (!r->o->argv && !r->o->system_wide && !rec_target_gone(r->o->pid))
		ret = rec_write_maps(r, r->o->pid);
	if (!ret)
		ret = let_faults_end(r);
	perf_evlist__disable(r->evlist);
	if (r->kevlist)
		perf_evlist__disable(r->kevlist);
	/* The events' own span: not what draining their backlog takes after (seconds on a
	 * busy machine). */
	dur = rec_now_ns(CLOCK_MONOTONIC) - (r->counting_mono ? r->counting_mono : r->start_mono);
	if (!ret)
		ret = drain(r);
	/* After the events are off: its own faults on the files are not the workload's. */
	if (!ret)
		ret = rec_write_pagecache(r);
	r->res->seconds = (double)dur / 1e9;
	if (!ret)
		ret = rec_write_counters_pmu(r);
	after = fol_counters_snapshot("");
	restore_mthp(r);
	if (!ret && after)
		ret = fol_writer_chunk_json(r->w, FOL_CHUNK_COUNTERS, after);
	cJSON_Delete(after);
	if (!ret)
		ret = rec_write_phases(r);
	/* At the end, not the start: packing them takes 0.2 s here (seconds in an emulated
	 * guest), which would hold up the workload's start or an attach. */
	if (!ret)
		ret = rec_write_ksyms(r);
	if (!ret)
		ret = rec_write_end(r, dur);
	/* A writer shared by several runs stays open: this run is on disk now. */
	if (!ret)
		ret = fol_writer_flush(r->w);
	return ret ? rec_fail(r, ret, "cannot write the recording: %s", strerror(-ret)) : 0;
}

pid_t fol_recorder_pid(const struct fol_recorder *r)
{
	return r->child.pid;
}

int fol_recorder_has_kprobes(const struct fol_recorder *r)
{
	return r->kp.n > 0;
}

const struct fol_record_result *fol_recorder_result(const struct fol_recorder *r)
{
	return r->res;
}

int fol_recorder_delete(struct fol_recorder *r)
{
	int ret = 0;

	if (!r)
		return 0;
	restore_mthp(r);
	cleanup(r);
	/* A kprobe event cannot be removed while a perf event uses it: after cleanup. */
	if (r->kp.n && fol_kprobes_destroy(&r->kp))
		ret = -EBUSY;
	fol_msgs_free(&r->res->warnings);
	fol_msgs_free(&r->res->errors);
	free(r);
	return ret;
}
