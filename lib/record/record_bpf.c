// SPDX-License-Identifier: GPL-2.0-only
/* The recorder's BPF fault path (bpf_faults.h): the events that carry its programs and the
 * bpf-output events they write into, opened beside the plain event set. */
#include "record/record_priv.h"

#include <errno.h>
#include <perf/cpumap.h>
#include <perf/event.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/tracepoint.h"
#include "sys/maps.h"
#include "sys/mthp.h"
#include "util/grow.h"
#include "util/msgs.h"

#define MMAP_LOCK "mmap_lock:mmap_lock_acquire_returned"

static int carry(struct fol_recorder *r, struct perf_evsel *e, enum fol_bpf_prog p)
{
	if (FOL_GROW(r->carry, r->carry_cap, (size_t)r->ncarry + 1, 8))
		return -ENOMEM;
	r->carry[r->ncarry].evsel = e;
	r->carry[r->ncarry++].prog = p;
	return 0;
}

static int carried(const struct fol_recorder *r, const struct perf_evsel *e)
{
	for (int i = 0; i < r->ncarry; i++)
		if (r->carry[i].evsel == e)
			return 1;
	return 0;
}

/* An event that only holds program p: disabled for good, on one CPU, for no task. A
 * tracepoint runs its programs wherever it fires, whatever event they came with; an
 * inherited event would take them along into each child, and the child's, at its exit,
 * would take them off the tracepoint again (and wait for RCU doing so: ~12 ms each). */
static int add_carrier(struct fol_recorder *r, uint64_t tp_id, enum fol_bpf_prog p)
{
	struct perf_event_attr a;
	struct perf_evsel *e;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = tp_id;
	a.read_format = PERF_FORMAT_ID;
	a.disabled = 1;
	if (!(e = perf_evsel__new(&a)))
		return -ENOMEM;
	perf_evlist__add(r->carriers, e);
	return carry(r, e, p);
}

static int unsampled_prog(const struct fol_recorder *r, const char *name, enum fol_bpf_prog *p)
{
	static const struct {
		const char *name;
		enum fol_bpf_prog prog;
		int kernel_decisions;
	} tps[] = { { "exceptions:page_fault_user", FOL_BPF_PROG_FAULT_USER, 0 },
		    { "exceptions:page_fault_kernel", FOL_BPF_PROG_FAULT_KERNEL, 0 },
		    { "kmem:mm_page_alloc", FOL_BPF_PROG_ALLOC, 1 },
		    { "kmem:rss_stat", FOL_BPF_PROG_RSS, 1 } };

	for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++)
		if (!strcmp(name, tps[i].name) && (!tps[i].kernel_decisions || r->kernel_reuse)) {
			*p = tps[i].prog;
			return 1;
		}
	return 0;
}

int rec_add_unsampled(struct fol_recorder *r, const char *name, char *format,
		      struct perf_event_attr *a)
{
	enum fol_bpf_prog p;
	int ret;

	if (!r->bpf || !unsampled_prog(r, name, &p))
		return 0;
	a->disabled = 1;
	a->enable_on_exec = 0;
	a->inherit = 0;
	ret = rec_add_event(r, r->carriers, name, "tracepoint", format, a);
	return ret ? ret : carry(r, r->ev[r->nr_ev - 1].evsel, p) ? -ENOMEM : 1;
}

/* Why this recording takes the plain path whatever the machine can do; NULL: it need not. */
static const char *bpf_unfit(const struct fol_recorder *r)
{
	const struct fol_record_opts *o = r->o;

	if (o->fault_path == FOL_PATH_SAMPLES)
		return "--fault-path samples";
	if (o->events)
		return "-e names the events";
	if (o->callchain)
		return "-g and --call-graph take each fault's user stack from its entry sample";
	/* Not root: the tracepoints were out of reach, which is why the method is sampled. */
	if (r->sampled && o->method == FOL_METHOD_AUTO && geteuid())
		return "it needs root (its programs need CAP_BPF and CAP_PERFMON, and the fault "
		       "entry tracepoints are in tracefs, root's): run as root";
	if (r->sampled)
		return "the sampled method has no fault entry events";
	if (r->kp.n)
		return "--kprobes: kprobe events take it";
	return NULL;
}

/* A carrier of program p on the tracepoint named. */
static int add_tp_carrier(struct fol_recorder *r, const char *name, enum fol_bpf_prog p)
{
	struct fol_tp *tp = NULL;
	int n = 0, ret = fol_tp_resolve(name, &tp, &n);

	if (!ret)
		ret = add_carrier(r, tp[0].id, p);
	fol_tp_free(tp, n);
	return ret;
}

static const char *const maps_calls[] = {
	"syscalls:sys_exit_mmap", "syscalls:sys_exit_munmap", "syscalls:sys_exit_mremap",
	"syscalls:sys_exit_brk", "syscalls:sys_exit_madvise", "syscalls:sys_exit_mprotect",
	"syscalls:sys_exit_pkey_mprotect", "syscalls:sys_exit_mlock", "syscalls:sys_exit_mlock2",
	"syscalls:sys_exit_munlock", "syscalls:sys_exit_mlockall", "syscalls:sys_exit_munlockall",
	"syscalls:sys_exit_shmat", "syscalls:sys_exit_shmdt",
};

/* The threads' bookkeeping (fork, exec, exit) and the bpf-output events. */
static int bpf_events(struct fol_recorder *r)
{
	static const struct {
		const char *tp;
		enum fol_bpf_prog prog;
	} book[] = { { "sched:sched_process_fork", FOL_BPF_PROG_FORK },
		     { "sched:sched_process_exec", FOL_BPF_PROG_EXEC },
		     { "sched:sched_process_exit", FOL_BPF_PROG_THREAD_EXIT } };
	struct perf_event_attr a;
	char cpu[16];
	int ret = 0;

	snprintf(cpu, sizeof(cpu), "%d", perf_cpu_map__cpu(r->cpus, 0).cpu);
	r->carriers = perf_evlist__new();
	r->bevlist = perf_evlist__new();
	r->no_thread = perf_thread_map__new_dummy();
	r->carrier_cpu = perf_cpu_map__new(cpu);
	if (!r->carriers || !r->bevlist || !r->no_thread || !r->carrier_cpu)
		return -ENOMEM;
	for (size_t i = 0; i < sizeof(book) / sizeof(book[0]) && !ret; i++)
		ret = add_tp_carrier(r, book[i].tp, book[i].prog);
	/* Kernel reuse: mmap(MAP_FIXED) replaces a mapping; not recorded, only watched. */
	if (!ret && r->kernel_reuse)
		ret = add_tp_carrier(r, "syscalls:sys_enter_mmap", FOL_BPF_PROG_MMAP);
	/* Kernel decisions keep each thread's last VMA: the calls that change a mapping's
	 * place, kind or THP advice, or merge it with its neighbour (its PMD ranges), at their
	 * exits. A kernel without one of them (no SysV IPC) has no such call. */
	for (size_t i = 0; r->kernel_reuse && !ret && i < sizeof(maps_calls) / sizeof(maps_calls[0]); i++)
		if ((ret = add_tp_carrier(r, maps_calls[i], FOL_BPF_PROG_MAPS)) == -ENOENT)
			ret = 0;
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_BPF_OUTPUT;
	a.sample_type = PERF_SAMPLE_RAW;
	rec_sample_attr(r, &a, 0);
	/* Per CPU, for every task: the programs choose what goes in. */
	a.inherit = a.disabled = a.enable_on_exec = 0;
	return rec_add_event(r, r->bevlist, "foliostat:faults", "bpf", NULL, &a);
}

/* Whether the recording must take the BPF path, failing rather than falling back to the
 * samples: --fault-path bpf, or --sample (the programs draw which faults to time). */
static int bpf_demanded(const struct fol_record_opts *o)
{
	return o->fault_path == FOL_PATH_BPF || o->sample > 1;
}

/* A demanded BPF path cannot be taken: ret, said in the words of what asked for it, with
 * why (unfit: this recording's options, else what failed). */
static int bpf_refused(struct fol_recorder *r, int ret, int unfit, const char *why)
{
	if (r->o->fault_path == FOL_PATH_BPF)
		return rec_fail(r, ret, unfit ? "--fault-path bpf is not for this recording: %s" : "--fault-path bpf: %s",
				why);
	return rec_fail(r, ret, unfit ? "--sample needs the BPF fault path, not for this recording: %s"
				      : "--sample needs the BPF fault path: %s",
			why);
}

int rec_bpf_setup(struct fol_recorder *r)
{
	const char *unfit = bpf_unfit(r);
	struct fol_msgs why = { 0 };
	struct fol_bpf_layout l = { 0 };
	int ret;

	if (unfit && bpf_demanded(r->o))
		return bpf_refused(r, -EINVAL, 1, unfit);
	if (unfit) {
		snprintf(r->path_why, sizeof(r->path_why), "%s", unfit);
		return 0;
	}
	l.kernel_reuse = r->o->kernel_reuse && !r->o->cgroup;
	l.by_cgroup = r->o->by_cgroup;
	l.sample = r->o->sample;
	l.pmd_order = fol_maps_pmd_order("", (unsigned)sysconf(_SC_PAGESIZE));
	l.huge_zero = fol_huge_zero_now("", l.pmd_order);
	ret = fol_bpf_faults_layout(&l, &why);
	l.every_task = r->o->system_wide;
	r->kernel_reuse = l.kernel_reuse;
	r->file_folio = l.file_folio;
	if (!ret)
		ret = fol_bpf_faults_new(&r->bpf, &l, &why);
	/* Without the statistics the figure is not known: said by its absence, not fatal. */
	if (!ret && r->o->bpf_time)
		r->bpf_time = !fol_bpf_faults_time_on(r->bpf);
	if (ret && bpf_demanded(r->o))
		bpf_refused(r, ret, 0, fol_msgs_last(&why));
	else if (ret)
		snprintf(r->path_why, sizeof(r->path_why), "%s", fol_msgs_last(&why));
	fol_msgs_free(&why);
	if (ret)
		return bpf_demanded(r->o) ? ret : 0;
	ret = bpf_events(r);
	return ret ? rec_fail(r, ret, "cannot make the BPF path's events: %s", strerror(-ret)) : 0;
}

/* The program of a recorded tracepoint: flush, or one that also keeps what it says (a
 * file page mapped; with kernel reuse, an unmapped range). */
static enum fol_bpf_prog flush_prog(const struct fol_recorder *r, const char *name)
{
	if (!strcmp(name, "kmem:rss_stat"))
		return FOL_BPF_PROG_RSS_FLUSH;
	if (!strcmp(name, MMAP_LOCK))
		return FOL_BPF_PROG_LOCK_FLUSH;
	if (!r->kernel_reuse)
		return FOL_BPF_PROG_FLUSH;
	if (!strcmp(name, "syscalls:sys_enter_munmap"))
		return FOL_BPF_PROG_MUNMAP;
	if (!strcmp(name, "syscalls:sys_enter_mremap"))
		return FOL_BPF_PROG_MREMAP;
	return FOL_BPF_PROG_FLUSH;
}

/* Each tracepoint recorded for the target flushes a thread's pending fault entry before
 * its own sample: a carrier of flush per tracepoint. Where the mmap lock is not flushed
 * (not recorded, or with kernel reuse), a carrier that only reads file faults' folios. */
static int bpf_flush_carriers(struct fol_recorder *r)
{
	int ret = 0, lock = 0;

	for (int i = 0, n = r->nr_ev; i < n && !ret; i++) {
		struct perf_event_attr *a = perf_evsel__attr(r->ev[i].evsel);

		/* Kernel reuse: the mmap lock a fault takes (every fault before 6.4's per-VMA
		 * locks, the first after a fork since) would send it to the model; the model
		 * reads the event only for whose mm it is, wherever it comes. */
		if (r->kernel_reuse && !strcmp(r->ev[i].name, MMAP_LOCK))
			continue;
		if (a->type != PERF_TYPE_TRACEPOINT || r->ev[i].mm_threads || carried(r, r->ev[i].evsel))
			continue;
		lock |= !strcmp(r->ev[i].name, MMAP_LOCK);
		ret = add_carrier(r, a->config, flush_prog(r, r->ev[i].name));
	}
	if (!ret && r->file_folio && !lock && add_tp_carrier(r, MMAP_LOCK, FOL_BPF_PROG_LOCK_READ) == -ENOMEM)
		ret = -ENOMEM;
	return ret;
}

/* The exit programs on every descriptor of minor- and major-faults: a software event runs
 * only its own program, and the inherited copies take it along. */
static int bpf_attach_exits(struct fol_recorder *r)
{
	int ret = 0;

	for (int i = 0; i < r->nr_ev && !ret; i++) {
		if (r->ev[i].mm_threads)
			continue;
		if (!strcmp(r->ev[i].name, "minor-faults"))
			ret = fol_bpf_faults_attach(r->bpf, FOL_BPF_PROG_EXIT, r->ev[i].evsel);
		else if (!strcmp(r->ev[i].name, "major-faults"))
			ret = fol_bpf_faults_attach(r->bpf, FOL_BPF_PROG_EXIT_MAJOR, r->ev[i].evsel);
	}
	return ret;
}

/* The records of each CPU's faults into its bpf-output event, which writes into the
 * target's ring buffer of that CPU: one buffer, one poll, and a fault's entry before the
 * samples inside it. */
static int bpf_outputs(struct fol_recorder *r)
{
	return fol_bpf_faults_output(r->bpf, perf_evlist__next(r->bevlist, NULL),
				     perf_evlist__next(r->evlist, NULL));
}

int rec_bpf_open_carriers(struct fol_recorder *r)
{
	int ret = bpf_flush_carriers(r);

	perf_evlist__set_maps(r->carriers, r->carrier_cpu, r->no_thread);
	if (!ret)
		ret = perf_evlist__open(r->carriers);
	for (int i = 0; i < r->ncarry && !ret; i++)
		ret = fol_bpf_faults_attach(r->bpf, r->carry[i].prog, r->carry[i].evsel);
	return ret ? rec_fail(r, ret, "cannot set up the BPF fault path: %s; record with --fault-path samples",
			      strerror(-ret)) : 0;
}

int rec_bpf_open_target(struct fol_recorder *r)
{
	int ret;

	perf_evlist__set_maps(r->bevlist, r->cpus, r->no_thread);
	ret = perf_evlist__open(r->bevlist);
	if (!ret)
		ret = bpf_attach_exits(r);
	if (!ret)
		ret = bpf_outputs(r);
	for (int t = 0; t < perf_thread_map__nr(r->threads) && !ret && !r->o->system_wide; t++)
		ret = fol_bpf_faults_follow(r->bpf, perf_thread_map__pid(r->threads, t), rec_enabled_by_exec(r));
	return ret ? rec_fail(r, ret, "cannot set up the BPF fault path: %s; record with --fault-path samples",
			      strerror(-ret)) : 0;
}

void rec_close_bpf(struct fol_recorder *r)
{
	if (r->bevlist) {
		perf_evlist__close(r->bevlist);
		perf_evlist__delete(r->bevlist);
	}
	if (r->carriers) {
		perf_evlist__close(r->carriers);
		perf_evlist__delete(r->carriers);
	}
	perf_thread_map__put(r->no_thread);
	perf_cpu_map__put(r->carrier_cpu);
	fol_bpf_faults_free(r->bpf);
	free(r->carry);
	r->bevlist = r->carriers = NULL;
	r->bpf = NULL;
	r->carry = NULL;
	r->ncarry = 0;
	r->carry_cap = 0;
}

int fol_recorder_bpf_time(const struct fol_recorder *r, uint64_t *ns, uint64_t *runs)
{
	if (!r->bpf || !r->bpf_time)
		return -ENOENT;
	return fol_bpf_faults_time(r->bpf, ns, runs);
}

int fol_recorder_huge_zero(struct fol_recorder *r, int policy)
{
	if (!r->bpf || !r->kernel_reuse)
		return -ENOENT;
	fol_bpf_faults_huge_zero(r->bpf, policy);
	return 0;
}

int fol_recorder_reuse(struct fol_recorder *r,
		       int (*each)(void *ctx, const struct fol_bpf_reuse_key *k, const struct fol_bpf_reuse *v),
		       void *ctx, uint64_t *kstat, int n)
{
	if (!r->bpf || !r->kernel_reuse)
		return -ENOENT;
	fol_bpf_faults_kstat(r->bpf, kstat, n);
	return fol_bpf_faults_reuse(r->bpf, each, ctx);
}
