// SPDX-License-Identifier: GPL-2.0-only
#include "record.h"
#include "bpf_faults.h"
#include "bpf_record.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/event.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/mmap.h>
#include <perf/threadmap.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "calibrate.h"
#include "metadata.h"
#include "cgroup.h"
#include "comm.h"
#include "counters.h"
#include "file.h"
#include "kprobe.h"
#include "ksyms.h"
#include "maps.h"
#include "pagecache.h"
#include "symbols.h"
#include "tracepoint.h"
#include "unwind.h"
#include "indexed.h"

const char *const fol_default_tracepoints[] = {
	"exceptions:page_fault_user",
	"exceptions:page_fault_kernel",
	"kmem:mm_page_alloc",
	"kmem:mm_page_free",
	"kmem:rss_stat",
	"pagemap:mm_lru_insertion",
	"filemap:mm_filemap_add_to_page_cache",
	"huge_memory:*",
	"migrate:*",
	"tlb:tlb_flush",
	"syscalls:sys_enter_munmap",
	"syscalls:sys_enter_mremap",
	"syscalls:sys_exit_mremap",
	"syscalls:sys_enter_madvise",
	"syscalls:sys_exit_munmap",
	"syscalls:sys_exit_madvise",
	"syscalls:sys_enter_mprotect",
	"syscalls:sys_exit_mprotect",
	"vmscan:mm_vmscan_write_folio",
	"vmscan:mm_vmscan_direct_reclaim_begin",
	"vmscan:mm_vmscan_direct_reclaim_end",
	"vmscan:mm_vmscan_memcg_reclaim_begin",
	"vmscan:mm_vmscan_memcg_reclaim_end",
	"vmscan:mm_vmscan_kswapd_wake",
	"vmscan:mm_vmscan_kswapd_sleep",
	"mmap_lock:mmap_lock_acquire_returned",
	NULL,
};

/* What the kernel's mm threads do to the workload's memory: khugepaged's scans and
 * collapses, kswapd's reclaim and swap-out. Only these, and only in those threads. */
static const char *const mm_thread_tracepoints[] = {
	"huge_memory:*",
	"vmscan:mm_vmscan_write_folio",
	"vmscan:mm_vmscan_kswapd_wake",
	"vmscan:mm_vmscan_kswapd_sleep",
	NULL,
};

const char *const fol_software_events[] = { "minor-faults", "major-faults", NULL };

const char *const fol_counting_events[] = {
	"dTLB-load-misses", "dTLB-store-misses", "iTLB-load-misses", "cycles", "instructions",
	"page-faults", "minor-faults", "major-faults", NULL,
};

#define HWC(cache, op, res)                                                             \
	((PERF_COUNT_HW_CACHE_##cache) | (PERF_COUNT_HW_CACHE_OP_##op << 8) |           \
	 (PERF_COUNT_HW_CACHE_RESULT_##res << 16))

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} named_events[] = {
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "dTLB-load-misses", PERF_TYPE_HW_CACHE, HWC(DTLB, READ, MISS) },
	{ "dTLB-store-misses", PERF_TYPE_HW_CACHE, HWC(DTLB, WRITE, MISS) },
	{ "iTLB-load-misses", PERF_TYPE_HW_CACHE, HWC(ITLB, READ, MISS) },
};

int fol_record_named_attr(const char *name, struct perf_event_attr *attr)
{
	for (size_t i = 0; i < sizeof(named_events) / sizeof(named_events[0]); i++) {
		if (strcmp(name, named_events[i].name))
			continue;
		memset(attr, 0, sizeof(*attr));
		attr->size = sizeof(*attr);
		attr->type = named_events[i].type;
		attr->config = named_events[i].config;
		return 0;
	}
	return -ENOENT;
}

/* One sampled event of the recording, in the order it was added to the evlist. */
struct rec_event {
	char *name;
	const char *kind; /* "tracking", "software", "tracepoint" */
	char *format;	  /* tracepoints: the tracefs format text */
	struct perf_evsel *evsel;
	int mm_threads;	  /* opened on the kernel's mm threads (kevlist), not the target */
};

struct rec_counter {
	const char *name;
	struct perf_evsel *evsel; /* NULL: could not be opened */
	int err;
};

struct fol_recorder {
	const struct fol_record_opts *o;
	struct fol_calibration calibration; /* faults 0: not calibrated */
	struct fol_record_result *res;	/* &result */
	struct fol_record_result result;
	uint64_t start_real, start_mono;
	int mthp_applied;
	int fds_left;		/* ring buffers still worth polling */
	int interrupted_by;	/* the signal that ended the run, for the END chunk */
	struct perf_evlist *evlist;
	struct perf_cpu_map *cpus;
	struct perf_thread_map *threads;
	/* The kernel's mm threads, recorded beside the workload: their own events, enabled
	 * with the run rather than by the workload's exec. NULL when not recorded. */
	struct perf_evlist *kevlist;
	struct perf_thread_map *kthreads;
	struct perf_cpu_map *kcpus;
	struct fol_cgroups cg;	/* -G: the scope, its ids resolved at the start */
	/* The files mapped executable (MMAP2 records as they pass): their build-ids go in
	 * the END chunk, so that a report names code from these very files. */
	struct fol_indexed code; /* char *: the paths */
	/* Every file mapped (MMAP2 records, the mappings at attach): their page-cache folios
	 * are read at the end (pagecache.h). NULL out of memory. */
	struct fol_pc_files *pc;
	struct rec_event *ev;
	int nr_ev;
	struct rec_counter counters[16];
	int nr_counters;
	struct fol_writer *w;
	char *chunk;
	size_t chunk_used;
	struct fol_kprobes kp;
	struct fol_msgs missing; /* events asked for that this kernel lacks */
	int sampled;		 /* latency method: cpu-clock samples */
	int no_format_lost;	 /* the kernel predates PERF_FORMAT_LOST */
	uint64_t ranges[16];	 /* fault handler text, for the sampled method */
	int nranges;
	pid_t child;
	int go_fd;
	int err_fd;
	/* The BPF fault path (bpf_faults.h), NULL on the plain path. carriers: events that
	 * only hold its tracepoint programs (carry[] says which); bevlist: a bpf-output event
	 * per CPU, writing into evlist's ring buffers. */
	struct fol_bpf_faults *bpf;
	struct perf_evlist *carriers, *bevlist;
	struct perf_cpu_map *carrier_cpu;
	struct perf_thread_map *no_thread;
	struct carried *carry;
	int ncarry;
	char path_why[256]; /* the plain path, when BPF was possible or asked for: why */
};

struct carried {
	struct perf_evsel *evsel;
	enum fol_bpf_prog prog;
};

#define CHUNK_FLUSH (256u << 10)
/* Ring buffer per mm thread: khugepaged scanning at full speed writes a few thousand
 * samples a second, drained every poll. */
#define MM_THREAD_PAGES 64

static int fail(struct fol_recorder *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct fol_recorder *r, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->res->error, sizeof(r->res->error), fmt, ap);
	va_end(ap);
	return err;
}

static int paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v = 2;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

static int add_event(struct fol_recorder *r, struct perf_evlist *to, const char *name,
		     const char *kind, char *format, struct perf_event_attr *attr)
{
	struct rec_event *grown = realloc(r->ev, sizeof(*r->ev) * (size_t)(r->nr_ev + 1));
	struct perf_evsel *evsel;

	if (!grown)
		return -ENOMEM;
	r->ev = grown;
	evsel = perf_evsel__new(attr);
	if (!evsel)
		return -ENOMEM;
	grown[r->nr_ev].name = strdup(name);
	grown[r->nr_ev].kind = kind;
	grown[r->nr_ev].format = format;
	grown[r->nr_ev].evsel = evsel;
	grown[r->nr_ev].mm_threads = to == r->kevlist;
	r->nr_ev++;
	perf_evlist__add(to, evsel);
	return 0;
}

/* A recorded command's events start at its exec (enable_on_exec), so that nothing of
 * foliostat's own is in them; per-CPU events cannot wait for one task's exec, so a
 * system-wide recording enables them just before letting the command go. */
static int enabled_by_exec(const struct fol_recorder *r)
{
	return r->o->argv && !r->o->system_wide;
}

static void sample_attr(struct fol_recorder *r, struct perf_event_attr *a, int mm_threads)
{
	size_t bytes = (size_t)r->o->mmap_pages * (size_t)sysconf(_SC_PAGESIZE);

	a->size = sizeof(*a);
	/* IDENTIFIER first in samples and last in other records: one rule finds the event
	 * of any record. */
	a->sample_type |= PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			  PERF_SAMPLE_CPU;
	if (r->o->cgroup && !mm_threads) {
		a->sample_type |= PERF_SAMPLE_CGROUP;
		a->cgroup = a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_DUMMY;
	}
	a->sample_period = 1;
	a->sample_id_all = 1;
	/* LOST: samples the kernel dropped for this event, which PERF_RECORD_LOST alone
	 * does not always tell (kernel 6.0+; older ones refuse it, see open_sampling). */
	a->read_format = PERF_FORMAT_ID | (r->no_format_lost ? 0 : PERF_FORMAT_LOST);
	/* Per CPU (system-wide), an event sees every task already: inheriting is for tasks. */
	a->inherit = !r->o->system_wide;
	a->disabled = enabled_by_exec(r);
	a->enable_on_exec = enabled_by_exec(r);
	/* The workloads time their phases with CLOCK_MONOTONIC: one clock for both. */
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(bytes / 4);
	if (mm_threads) {
		a->inherit = 0;
		a->disabled = 1;
		a->enable_on_exec = 0;
		a->wakeup_watermark = (uint32_t)((size_t)MM_THREAD_PAGES * (size_t)sysconf(_SC_PAGESIZE) / 4);
	}
}

/* -g / --call-graph on a fault entry event: the user stack of each fault (the kernel's is
 * the fault handler, always). */
static void user_stack_attr(const struct fol_record_opts *o, struct perf_event_attr *a)
{
	if (o->callchain == FOL_CALLCHAIN_FP) {
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		a->exclude_callchain_kernel = 1;
	} else if (o->callchain == FOL_CALLCHAIN_DWARF) {
		/* The registers at the fault (the exception's user frame) and the stack above
		 * them: what libdw needs to unwind by the CFI. */
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = FOL_UNWIND_REGS;
		a->sample_stack_user = o->stack_dump ? o->stack_dump : FOL_STACK_DUMP_DEFAULT;
	}
}

static int carry(struct fol_recorder *r, struct perf_evsel *e, enum fol_bpf_prog p)
{
	struct carried *grown = realloc(r->carry, sizeof(*grown) * (size_t)(r->ncarry + 1));

	if (!grown)
		return -ENOMEM;
	r->carry = grown;
	grown[r->ncarry].evsel = e;
	grown[r->ncarry++].prog = p;
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

/* A fault entry tracepoint on the BPF path: described in the file like any event (its
 * format decodes the records' copies of it), opened as a carrier of the entry program. */
static int add_entry_carrier(struct fol_recorder *r, const char *name, char *format,
			     struct perf_event_attr *a)
{
	int ret;

	a->disabled = 1;
	a->enable_on_exec = 0;
	a->inherit = 0;
	ret = add_event(r, r->carriers, name, "tracepoint", format, a);
	return ret ? ret : carry(r, r->ev[r->nr_ev - 1].evsel,
				 strcmp(name, "exceptions:page_fault_kernel") ? FOL_BPF_PROG_FAULT_USER
									       : FOL_BPF_PROG_FAULT_KERNEL);
}

/* Why this recording takes the plain path whatever the machine can do; NULL: it need not. */
static const char *bpf_unfit(const struct fol_recorder *r)
{
	const struct fol_record_opts *o = r->o;

	if (o->fault_path == FOL_PATH_SAMPLES)
		return "--fault-path samples";
	if (o->events)
		return "-e names the events";
	if (o->system_wide)
		return "system-wide recordings take it";
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
	for (size_t i = 0; i < sizeof(book) / sizeof(book[0]) && !ret; i++) {
		struct fol_tp *tp = NULL;
		int n = 0;

		ret = fol_tp_resolve(book[i].tp, &tp, &n);
		if (!ret)
			ret = add_carrier(r, tp[0].id, book[i].prog);
		fol_tp_free(tp, n);
	}
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_BPF_OUTPUT;
	a.sample_type = PERF_SAMPLE_RAW;
	sample_attr(r, &a, 0);
	/* Per CPU, for every task: the programs choose what goes in. */
	a.inherit = a.disabled = a.enable_on_exec = 0;
	return add_event(r, r->bevlist, "foliostat:faults", "bpf", NULL, &a);
}

/* Load the programs when this recording can take the BPF path; the plain path and why
 * otherwise, or a failure when --fault-path bpf asked for it. */
static int bpf_setup(struct fol_recorder *r)
{
	const char *unfit = bpf_unfit(r);
	struct fol_bpf_layout l;
	char why[200];
	int ret;

	if (unfit && r->o->fault_path == FOL_PATH_BPF)
		return fail(r, -EINVAL, "--fault-path bpf is not for this recording: %s", unfit);
	if (unfit) {
		snprintf(r->path_why, sizeof(r->path_why), "%s", unfit);
		return 0;
	}
	ret = fol_bpf_faults_layout(&l, why, sizeof(why));
	if (!ret)
		ret = fol_bpf_faults_new(&r->bpf, &l, why, sizeof(why));
	if (ret && r->o->fault_path == FOL_PATH_BPF)
		return fail(r, ret, "--fault-path bpf: %s", why);
	if (ret) {
		snprintf(r->path_why, sizeof(r->path_why), "%s", why);
		return 0;
	}
	ret = bpf_events(r);
	return ret ? fail(r, ret, "cannot make the BPF path's events: %s", strerror(-ret)) : 0;
}

/* Each tracepoint recorded for the target flushes a thread's pending fault entry before
 * its own sample: a carrier of flush per tracepoint. */
static int bpf_flush_carriers(struct fol_recorder *r)
{
	int ret = 0;

	for (int i = 0, n = r->nr_ev; i < n && !ret; i++) {
		struct perf_event_attr *a = perf_evsel__attr(r->ev[i].evsel);

		if (a->type == PERF_TYPE_TRACEPOINT && !r->ev[i].mm_threads && !carried(r, r->ev[i].evsel))
			ret = add_carrier(r, a->config, FOL_BPF_PROG_FLUSH);
	}
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

/* The carriers and their programs: before the calibration, which measures the path with
 * them, and before the target's events, so that an attached process's faults meanwhile
 * go nowhere but where the samples path would put them. */
static int bpf_open_carriers(struct fol_recorder *r)
{
	int ret = bpf_flush_carriers(r);

	perf_evlist__set_maps(r->carriers, r->carrier_cpu, r->no_thread);
	if (!ret)
		ret = perf_evlist__open(r->carriers);
	for (int i = 0; i < r->ncarry && !ret; i++)
		ret = fol_bpf_faults_attach(r->bpf, r->carry[i].prog, r->carry[i].evsel);
	return ret ? fail(r, ret, "cannot set up the BPF fault path: %s; record with --fault-path samples",
			  strerror(-ret)) : 0;
}

/* With the target's events open and mapped: their exit programs, the outputs into their
 * ring buffers, and the target's threads followed (a workload's from its exec, as its
 * events are enabled: not its faults in foliostat's code before). */
static int bpf_open_target(struct fol_recorder *r)
{
	int ret;

	perf_evlist__set_maps(r->bevlist, r->cpus, r->no_thread);
	ret = perf_evlist__open(r->bevlist);
	if (!ret)
		ret = bpf_attach_exits(r);
	if (!ret)
		ret = bpf_outputs(r);
	for (int t = 0; t < perf_thread_map__nr(r->threads) && !ret; t++)
		ret = fol_bpf_faults_follow(r->bpf, perf_thread_map__pid(r->threads, t), enabled_by_exec(r));
	return ret ? fail(r, ret, "cannot set up the BPF fault path: %s; record with --fault-path samples",
			  strerror(-ret)) : 0;
}

static void close_bpf(struct fol_recorder *r)
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
}

/* Add the tracepoints that spec names (a glob may name several) to the evlist to.
 * required: a missing one fails the recording (the user asked for it); otherwise it is
 * skipped with a warning (once: the mm threads' events are the target's again). */
static int add_tracepoints(struct fol_recorder *r, struct perf_evlist *to, const char *spec,
			   const char *kind, int required)
{
	struct perf_event_attr a;
	struct fol_tp *tp = NULL;
	int n = 0, ret;

	ret = fol_tp_resolve(spec, &tp, &n);
	if (ret == -ENODEV)
		return fail(r, ret,
			    "tracefs is not mounted and could not be mounted: run as root or mount "
			    "it (mount -t tracefs nodev /sys/kernel/tracing)");
	if (ret == -EACCES)
		return fail(r, ret,
			    "tracefs is not readable: run as root, or give your user access to "
			    "/sys/kernel/tracing");
	if (ret && required)
		return fail(r, ret, "tracepoint '%s' does not exist on this kernel (see "
				    "/sys/kernel/tracing/events)", spec);
	if (ret && to == r->kevlist)
		return 0;
	if (ret) {
		fol_msgs_add(&r->res->warnings, "%s %s not available on this kernel: skipped", kind,
			     spec);
		fol_msgs_add(&r->missing, "%s", spec);
		return 0;
	}
	for (int k = 0; k < n && !ret; k++) {
		char full[256];
		int entry;

		memset(&a, 0, sizeof(a));
		a.type = PERF_TYPE_TRACEPOINT;
		a.config = tp[k].id;
		a.sample_type = PERF_SAMPLE_RAW;
		sample_attr(r, &a, to == r->kevlist);
		snprintf(full, sizeof(full), "%s:%s", tp[k].system, tp[k].name);
		entry = !strncmp(full, "exceptions:page_fault_", 22);
		if (entry)
			user_stack_attr(r->o, &a);
		if (entry && r->bpf && to == r->evlist)
			ret = add_entry_carrier(r, full, tp[k].format, &a);
		else
			ret = add_event(r, to, full, kind, tp[k].format, &a);
		if (!ret)
			tp[k].format = NULL; /* the event owns it now */
	}
	fol_tp_free(tp, n);
	return ret;
}

/* The kernel text of the fault handler, for the sampled method: [start, end) of each
 * function, end being the next symbol's address. */
static const char *const fault_functions[] = { "exc_page_fault", "do_page_fault",
					       "handle_mm_fault", NULL };

static int fault_ranges(uint64_t *out, int max)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	uint64_t start[8] = { 0 }, end[8];
	char line[512], name[256], type;
	unsigned long long addr;
	int n = 0;

	if (!f)
		return 0;
	for (int i = 0; i < 8; i++)
		end[i] = UINT64_MAX;
	/* Two passes over kallsyms: find the functions, then the nearest symbol after each
	 * (kallsyms is not sorted by address). */
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 && !strchr(line, '['))
			for (int i = 0; fault_functions[i]; i++)
				if (!strcmp(name, fault_functions[i]))
					start[i] = addr;
	rewind(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c", &addr, &type) == 2)
			for (int i = 0; fault_functions[i]; i++)
				if (start[i] && addr > start[i] && addr < end[i])
					end[i] = addr;
	fclose(f);
	for (int i = 0; fault_functions[i] && n < max; i++)
		if (start[i] && end[i] != UINT64_MAX) {
			out[2 * n] = start[i];
			out[2 * n + 1] = end[i];
			n++;
		}
	return n;
}

static int sampled_method(const struct fol_recorder *r)
{
	struct fol_tp *tp = NULL;
	int n = 0, ret;

	if (r->o->method != FOL_METHOD_AUTO)
		return r->o->method == FOL_METHOD_SAMPLED;
	ret = fol_tp_resolve("exceptions:page_fault_user", &tp, &n);
	fol_tp_free(tp, n);
	return ret != 0;
}

static int setup_events(struct fol_recorder *r)
{
	const char *const *tps = r->o->events ? NULL : fol_default_tracepoints;
	struct perf_event_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.mmap = a.mmap2 = a.mmap_data = a.comm = a.comm_exec = a.task = 1;
	/* No attr.build_id: on 6.18 an event that asks for build-ids in MMAP2 sets the
	 * record's misc bit for the other events' MMAP2 too (seen: a perf record of the same
	 * task, which did not ask, read maj/min/ino as a build-id, asserted and smashed its
	 * stack). The build-ids of the mapped code are read from the files at the end
	 * instead (record_build_ids), as perf record does by default. */
	sample_attr(r, &a, 0);
	ret = add_event(r, r->evlist, "tracking", "tracking", NULL, &a);
	if (ret)
		return ret;

	for (int i = 0; r->o->events ? i < r->o->nr_events : fol_software_events[i] != NULL; i++) {
		const char *name = r->o->events ? r->o->events[i] : fol_software_events[i];

		if (fol_record_named_attr(name, &a) == 0) {
			a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
			sample_attr(r, &a, 0);
			ret = add_event(r, r->evlist, name, "software", NULL, &a);
		} else if (!strchr(name, ':')) {
			ret = fail(r, -EINVAL,
				   "unknown event '%s': give a tracepoint as system:name or one of "
				   "minor-faults, major-faults, page-faults, cpu-clock",
				   name);
		} else {
			ret = add_tracepoints(r, r->evlist, name, "tracepoint", 1);
		}
		if (ret)
			return ret;
	}
	r->sampled = sampled_method(r);
	if (r->sampled) {
		if (fol_record_named_attr("cpu-clock", &a))
			return -ENOENT;
		a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_PERIOD;
		sample_attr(r, &a, 0);
		a.sample_period = r->o->clock_period_ns ? r->o->clock_period_ns
							 : FOL_CLOCK_PERIOD_DEFAULT;
		a.exclude_callchain_user = 1;
		ret = add_event(r, r->evlist, "cpu-clock", "software", NULL, &a);
		r->nranges = fault_ranges(r->ranges, 8);
		if (!r->nranges)
			fol_msgs_add(&r->res->warnings, "the fault handler's addresses are not in "
				     "/proc/kallsyms (kptr_restrict?): sampled fault time will be 0");
	}
	ret = bpf_setup(r);
	for (int i = 0; tps && tps[i] && !ret; i++) {
		/* Sampled: the fault entry tracepoints are missing, or not wanted. */
		if (r->sampled && !strncmp(tps[i], "exceptions:", 11))
			continue;
		ret = add_tracepoints(r, r->evlist, tps[i], "tracepoint", 0);
	}
	for (int i = 0; i < r->kp.n && !ret; i++)
		ret = add_tracepoints(r, r->evlist, r->kp.names[i], "kprobe", 0);
	return ret;
}

/* The kernel threads (children of kthreadd, pid 2) that are mm threads (comm.h). */
static int find_mm_threads(pid_t *out, int max)
{
	DIR *proc = opendir("/proc");
	struct dirent *p;
	int n = 0;

	while (proc && n < max && (p = readdir(proc))) {
		char path[300], stat[512], *rp;
		int ppid = 0;
		FILE *f;

		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", p->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		stat[0] = '\0';
		if (!fgets(stat, sizeof(stat), f))
			stat[0] = '\0';
		fclose(f);
		/* "pid (comm) state ppid": the comm ends at the last ')'. */
		rp = strrchr(stat, ')');
		if (!rp || sscanf(rp + 1, " %*c %d", &ppid) != 1 || ppid != 2)
			continue;
		*rp = '\0';
		if (strchr(stat, '(') && fol_comm_mm_thread(strchr(stat, '(') + 1))
			out[n++] = (pid_t)atoi(p->d_name);
	}
	if (proc)
		closedir(proc);
	return n;
}

/* Beside a workload or an attached process (not system-wide, which sees them anyway, and
 * not with -e: the user chose the events). */
static int setup_mm_threads(struct fol_recorder *r)
{
	pid_t pids[64];
	int n, ret = 0;

	if (r->o->system_wide || r->o->events || r->o->no_mm_threads)
		return 0;
	n = find_mm_threads(pids, 64);
	if (!n)
		return 0;
	r->kevlist = perf_evlist__new();
	r->kthreads = perf_thread_map__new_array(n, pids);
	r->kcpus = perf_cpu_map__new_any_cpu();
	if (!r->kevlist || !r->kthreads || !r->kcpus)
		return -ENOMEM;
	for (int i = 0; mm_thread_tracepoints[i] && !ret; i++)
		ret = add_tracepoints(r, r->kevlist, mm_thread_tracepoints[i], "tracepoint", 0);
	return ret;
}

/* Their events leave the list too: nothing of them goes into the file. */
static void close_mm_threads(struct fol_recorder *r)
{
	int k = 0;

	if (!r->kevlist)
		return;
	perf_evlist__munmap(r->kevlist);
	perf_evlist__close(r->kevlist);
	perf_evlist__delete(r->kevlist);
	r->kevlist = NULL;
	for (int i = 0; i < r->nr_ev; i++) {
		if (r->ev[i].mm_threads) {
			free(r->ev[i].name);
			free(r->ev[i].format);
			continue;
		}
		r->ev[k++] = r->ev[i];
	}
	r->nr_ev = k;
}

static int open_error(struct fol_recorder *r, int err, const char *what)
{
	int p = paranoid();

	if (err == -EACCES || err == -EPERM)
		return fail(r, err,
			    "cannot open %s: permission denied (perf_event_paranoid is %d): run "
			    "as root or set it to -1 (sysctl kernel.perf_event_paranoid=-1)",
			    what, p);
	if (err == -EMFILE)
		return fail(r, err, "cannot open %s: too many open files: raise ulimit -n", what);
	return fail(r, err, "cannot open %s: %s", what, strerror(-err));
}

/* The workload waits on a pipe until its events are open, so that nothing it does
 * escapes the recording; exec enables them (enable_on_exec). */
/* What the corked child says on its error pipe before exec closes it: UNTRACED when
 * ptrace was refused (it runs untraced: no stop after exec will come), then the errno of
 * a failed exec. */
#define UNTRACED (-1)

static int start_corked(struct fol_recorder *r)
{
	int go[2], err[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(err, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		int e = -errno;

		close(go[0]);
		close(go[1]);
		close(err[0]);
		close(err[1]);
		return e;
	}
	if (pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(err[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		if (r->o->phase_file)
			setenv("FOLIOSTAT_PHASES", r->o->phase_file, 1);
		/* Stopped right after exec and at exit, so that its page tables can be read at
		 * both ends of the recording (record_loop). Without ptrace it runs the same. */
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0) {
			int untraced = UNTRACED;

			if (write(err[1], &untraced, sizeof(untraced)) < 0)
				_exit(127);
		}
		execvp(r->o->argv[0], r->o->argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	r->child = pid;
	r->go_fd = go[1];
	r->err_fd = err[0];
	return 0;
}

/* The workload after exec, stopped by ptrace (SIGTRAP): its folios as they are now go into
 * the file (exec made them before the events could see it: the stack, the zeroed bss),
 * then it is let go, with a stop at exit asked for. */
static uint64_t now_ns(clockid_t clock);
static void add_seed(struct fol_recorder *r, cJSON *synth, pid_t pid);
static void add_mm_thread_comms(const struct fol_recorder *r, cJSON *comms);

static int exec_stop(struct fol_recorder *r)
{
	cJSON *j;
	int st, ret;

	if (waitpid(r->child, &st, 0) != r->child)
		return -errno;
	if (!WIFSTOPPED(st)) {
		/* Not traced (ptrace refused), and already gone. */
		r->res->wait_status = st;
		r->child = 0;
		return 0;
	}
	j = cJSON_CreateObject();
	if (!j)
		return -ENOMEM;
	cJSON_AddNumberToObject(j, "pid", r->child);
	cJSON_AddNumberToObject(j, "time_ns", (double)now_ns(CLOCK_MONOTONIC));
	add_seed(r, j, r->child);
	/* A reader takes one SYNTH chunk: the mm threads are named in this one. */
	add_mm_thread_comms(r, cJSON_AddObjectToObject(j, "comm"));
	ret = fol_writer_chunk_json(r->w, FOL_CHUNK_SYNTH, j);
	cJSON_Delete(j);
	if (ret)
		return ret;
	/* TRACEEXEC too: without it a traced process that execs again (env, a wrapper
	 * script's exec) is sent a SIGTRAP, which passed on would kill it. */
	ptrace(PTRACE_SETOPTIONS, r->child, NULL, (void *)(long)(PTRACE_O_TRACEEXIT | PTRACE_O_TRACEEXEC));
	ptrace(PTRACE_CONT, r->child, NULL, NULL);
	return 0;
}

static int uncork(struct fol_recorder *r)
{
	int msg[2], e = 0, untraced = 0;
	size_t got = 0;
	ssize_t n;

	if (write(r->go_fd, "g", 1) != 1)
		return -errno;
	close(r->go_fd);
	r->go_fd = -1;
	while (got < sizeof(msg)) {
		n = read(r->err_fd, (char *)msg + got, sizeof(msg) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(r->err_fd);
	r->err_fd = -1;
	for (size_t i = 0; i < got / sizeof(int); i++) {
		if (msg[i] == UNTRACED)
			untraced = 1;
		else
			e = msg[i];
	}
	if (e) {
		r->res->exec_errno = e;
		waitpid(r->child, NULL, 0);
		r->child = 0;
		return -e;
	}
	if (untraced) {
		fol_msgs_add(&r->res->warnings, "the workload could not be traced (ptrace refused: "
				 "it is traced already, or kernel.yama.ptrace_scope is 3): no folios "
				 "read from its page tables after exec and at exit");
		return 0;
	}
	return exec_stop(r);
}

/* 'Z' or 'X' in /proc/PID/task/TID/stat: the task has exited. */
static int task_dead(pid_t pid, const char *tid)
{
	char path[64], buf[512], *paren;
	FILE *f;
	int dead = 1;

	snprintf(path, sizeof(path), "/proc/%d/task/%.16s/stat", (int)pid, tid);
	f = fopen(path, "re");
	if (!f)
		return 1;
	if (fgets(buf, sizeof(buf), f) && (paren = strrchr(buf, ')')) && paren[1] == ' ')
		dead = paren[2] == 'Z' || paren[2] == 'X';
	fclose(f);
	return dead;
}

/* The live threads of pid. A zombie cannot be traced (perf_event_open says ESRCH): a main
 * thread that called pthread_exit() while the others run is left out, and a process
 * whose every thread is a zombie is -ESRCH. Grows as needed: a server may have
 * thousands of threads. */
static int threads_of(pid_t pid, struct perf_thread_map **out)
{
	char path[64];
	pid_t *tids = NULL;
	int n = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || task_dead(pid, de->d_name))
			continue;
		if (n == cap) {
			pid_t *g = realloc(tids, sizeof(*g) * (size_t)(cap = cap ? cap * 2 : 64));

			if (!g) {
				free(tids);
				closedir(d);
				return -ENOMEM;
			}
			tids = g;
		}
		tids[n++] = atoi(de->d_name);
	}
	closedir(d);
	*out = n ? perf_thread_map__new_array(n, tids) : NULL;
	free(tids);
	if (!n)
		return -ESRCH;
	return *out ? 0 : -ENOMEM;
}

static int flush_chunk(struct fol_recorder *r)
{
	int ret = 0;

	if (r->chunk_used)
		ret = fol_writer_chunk_buf(r->w, FOL_CHUNK_RECORDS, r->chunk, r->chunk_used);
	r->chunk_used = 0;
	return ret;
}

/* A file mapping in an MMAP2 record: for the page cache's folios at the end, and an
 * executable one for its build-id, remembered once. Out of memory, it is forgotten: its
 * faults' folio orders are then unknown, its code named without a build-id check. */
static void note_code(struct fol_recorder *r, const char *name)
{
	char **el;
	int created;

	if (!r->code.index && fol_indexed_init(&r->code, sizeof(char *)))
		return;
	el = fol_indexed_get(&r->code, fol_hash(FOL_HASH_INIT, name, strlen(name)), &name, fol_indexed_same_str, &created);
	if (el && created && !(*el = strdup(name)))
		fol_indexed_unget(&r->code);
}

static void note_mapping(struct fol_recorder *r, const union perf_event *ev)
{
	const char *name = ev->mmap2.filename, *end = (const char *)ev + ev->header.size;

	if (name >= end || name[0] != '/' || name[1] == '/' || !memchr(name, 0, (size_t)(end - name)))
		return;
	if (r->pc && !(ev->header.misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
		struct fol_file_id id = { ev->mmap2.maj, ev->mmap2.min, ev->mmap2.ino };
		uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

		fol_pc_files_note(r->pc, &id, name, ev->mmap2.pgoff / page,
				  (ev->mmap2.len + page - 1) / page);
	}
	if (ev->mmap2.prot & PROT_EXEC)
		note_code(r, name);
}

static int drain_evlist(struct fol_recorder *r, struct perf_evlist *evlist)
{
	struct perf_mmap *map;
	union perf_event *ev;
	int ret = 0;

	perf_evlist__for_each_mmap(evlist, map, false) {
		if (perf_mmap__read_init(map) < 0)
			continue;
		while ((ev = perf_mmap__read_event(map)) != NULL) {
			size_t sz = ev->header.size;

			if (r->chunk_used + sz > CHUNK_FLUSH && (ret = flush_chunk(r)))
				break;
			memcpy(r->chunk + r->chunk_used, ev, sz);
			r->chunk_used += sz;
			r->res->records++;
			if (ev->header.type == PERF_RECORD_SAMPLE)
				r->res->samples++;
			else if (ev->header.type == PERF_RECORD_MMAP2 && sz > sizeof(ev->mmap2) - PATH_MAX)
				note_mapping(r, ev);
			else if (ev->header.type == PERF_RECORD_LOST)
				r->res->lost += ev->lost.lost;
			perf_mmap__consume(map);
		}
		/* No perf_mmap__read_done(): for a non-overwrite buffer it sets the read position
		 * to the kernel's head as it is now, past any record written since the last
		 * perf_mmap__read_event() returned NULL, and that record would be skipped with
		 * no PERF_RECORD_LOST (seen here: one sample in ~300K missing, about one run in
		 * twenty). perf_mmap__read_event() and perf_mmap__consume() keep the position. */
		if (!ret)
			ret = flush_chunk(r);
		if (ret)
			return ret;
	}
	return 0;
}

static int drain(struct fol_recorder *r)
{
	uint64_t before = r->res->records;
	int ret = drain_evlist(r, r->evlist);

	if (!ret && r->kevlist)
		ret = drain_evlist(r, r->kevlist);
	if (ret)
		return ret;
	/* A pass that found nothing ends no round: an idle target must not grow the file. */
	if (r->res->records == before)
		return 0;
	ret = fol_writer_chunk_buf(r->w, FOL_CHUNK_ROUND, NULL, 0);
	return ret ? ret : fol_writer_flush(r->w);
}

/* The attached process is gone: no task of it left but zombies (its threads exited and
 * nobody reaped it yet). A main thread that called pthread_exit() is a zombie while
 * the others run, so every task is looked at, not the process alone. */
static int target_gone(pid_t pid)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int live = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 1;
	while (!live && (de = readdir(d)))
		live = de->d_name[0] != '.' && !task_dead(pid, de->d_name);
	closedir(d);
	return !live;
}

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A command's argument, cut to what a reader keeps (FOL_META_STR_MAX), saying so: an
 * argument of megabytes was recorded whole and dropped when read back. */
static void add_argument(cJSON *cmd, const char *arg)
{
	size_t n = strlen(arg), keep = FOL_META_STR_MAX - 64;
	char *cut;

	if (n <= FOL_META_STR_MAX) {
		cJSON_AddItemToArray(cmd, cJSON_CreateString(arg));
		return;
	}
	cut = malloc(FOL_META_STR_MAX);
	if (!cut)
		return;
	snprintf(cut, FOL_META_STR_MAX, "%.*s... [%zu bytes cut]", (int)keep, arg, n - keep);
	cJSON_AddItemToArray(cmd, cJSON_CreateString(cut));
	free(cut);
}

static int write_meta(struct fol_recorder *r, uint64_t start_real, uint64_t start_mono)
{
	struct utsname u;
	cJSON *m = cJSON_CreateObject(), *cmd;
	long page = sysconf(_SC_PAGESIZE);
	char bid[129];
	int ret;

	if (!m)
		return -ENOMEM;
	uname(&u);
	cJSON_AddStringToObject(m, "tool", "foliostat");
	cJSON_AddStringToObject(m, "version", FOL_VERSION);
	cmd = cJSON_AddArrayToObject(m, "command");
	for (int i = 0; r->o->argv && r->o->argv[i]; i++)
		add_argument(cmd, r->o->argv[i]);
	cJSON_AddStringToObject(m, "mode", r->o->system_wide ? "system-wide"
						   : r->o->argv	 ? "workload"
								 : "attach");
	cJSON_AddNumberToObject(m, "pid", r->o->argv ? r->child : r->o->pid);
	cJSON_AddStringToObject(m, "kernel", u.release);
	if (fol_kernel_build_id("/sys/kernel/notes", bid, sizeof(bid)) > 0)
		cJSON_AddStringToObject(m, "kernel_build_id", bid);
	cJSON_AddStringToObject(m, "kernel_version", u.version);
	cJSON_AddStringToObject(m, "machine", u.machine);
	cJSON_AddStringToObject(m, "hostname", u.nodename);
	cJSON_AddNumberToObject(m, "page_size", (double)page);
	cJSON_AddNumberToObject(m, "pmd_order", fol_maps_pmd_order("", (unsigned)page));
	cJSON_AddStringToObject(m, "clock", "CLOCK_MONOTONIC");
	cJSON_AddNumberToObject(m, "cpus", (double)sysconf(_SC_NPROCESSORS_ONLN));
	cJSON_AddNumberToObject(m, "started_realtime_ns", (double)start_real);
	cJSON_AddNumberToObject(m, "started_ns", (double)start_mono);
	cJSON_AddNumberToObject(m, "mmap_pages", r->o->mmap_pages);
	cJSON_AddStringToObject(m, "fault_path", r->bpf ? "bpf" : "samples");
	if (!r->bpf && r->path_why[0])
		cJSON_AddStringToObject(m, "fault_path_why", r->path_why);
	if (r->o->mthp_spec)
		cJSON_AddStringToObject(m, "mthp", r->o->mthp_spec);
	cJSON_AddStringToObject(m, "latency_method", r->sampled ? "sampled" : "exact");
	if (r->sampled) {
		cJSON *rg = cJSON_AddArrayToObject(m, "fault_ranges");
		char hex[24];

		cJSON_AddNumberToObject(m, "sample_period_ns",
					(double)(r->o->clock_period_ns ? r->o->clock_period_ns
								       : FOL_CLOCK_PERIOD_DEFAULT));
		/* Kernel addresses need all 64 bits: strings, not JSON numbers. */
		for (int i = 0; i < 2 * r->nranges; i++) {
			snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)r->ranges[i]);
			cJSON_AddItemToArray(rg, cJSON_CreateString(hex));
		}
	}
	if (r->calibration.faults) {
		cJSON *c = cJSON_AddObjectToObject(m, "probe_calibration");

		cJSON_AddNumberToObject(c, "faults", (double)r->calibration.faults);
		cJSON_AddNumberToObject(c, "passes", r->calibration.passes);
		cJSON_AddNumberToObject(c, "untraced_ns", r->calibration.untraced_ns);
		cJSON_AddNumberToObject(c, "traced_ns", r->calibration.traced_ns);
		cJSON_AddNumberToObject(c, "samples", (double)r->calibration.samples);
		cJSON_AddNumberToObject(c, "exits", (double)r->calibration.exits);
		cJSON_AddNumberToObject(c, "sample_bytes", (double)r->calibration.bytes);
	}
	if (r->cg.ids)
		cJSON_AddItemToObject(m, "cgroup", fol_cgroups_json(&r->cg));
	if (r->kevlist) {
		cJSON *k = cJSON_AddArrayToObject(m, "mm_threads");

		for (int i = 0; i < perf_thread_map__nr(r->kthreads); i++)
			cJSON_AddItemToArray(k, cJSON_CreateNumber(perf_thread_map__pid(r->kthreads, i)));
	}
	/* The kernel's mm threads, recorded or not (mm_threads: those whose events are): the
	 * report knows them by tid, not by a name a workload can take. */
	{
		cJSON *k = cJSON_AddArrayToObject(m, "kernel_mm_threads");
		pid_t found[64];
		int n = find_mm_threads(found, 64);

		for (int i = 0; i < n; i++)
			cJSON_AddItemToArray(k, cJSON_CreateNumber(found[i]));
	}
	{
		cJSON *w = cJSON_AddArrayToObject(m, "warnings");
		cJSON *miss = cJSON_AddArrayToObject(m, "missing_events");

		for (int i = 0; i < r->res->warnings.n; i++)
			cJSON_AddItemToArray(w, cJSON_CreateString(r->res->warnings.v[i]));
		for (int i = 0; i < r->missing.n; i++)
			cJSON_AddItemToArray(miss, cJSON_CreateString(r->missing.v[i]));
	}
	ret = fol_writer_chunk_json(r->w, FOL_CHUNK_META, m);
	cJSON_Delete(m);
	return ret;
}

/* The value of an event opened on each of its CPUs and threads, one call per fd. */
static void for_each_fd(struct perf_evsel *evsel, void (*fn)(struct perf_counts_values *, void *),
			void *arg)
{
	int ncpu = perf_cpu_map__nr(perf_evsel__cpus(evsel));
	int nthr = perf_thread_map__nr(perf_evsel__threads(evsel));

	for (int c = 0; c < ncpu; c++)
		for (int t = 0; t < nthr; t++) {
			struct perf_counts_values v = { 0 };

			if (perf_evsel__read(evsel, c, t, &v) == 0)
				fn(&v, arg);
		}
}

/* Sample ids fit a double exactly: the kernel hands them out from a counter. */
static void add_id(struct perf_counts_values *v, void *ids)
{
	cJSON_AddItemToArray(ids, cJSON_CreateNumber((double)v->id));
}

static void add_lost(struct perf_counts_values *v, void *lost)
{
	*(uint64_t *)lost += v->lost;
}

/* The kernel's text symbols, so that the report names kernel addresses on any machine.
 * Unreadable (kptr_restrict shows zeros to this user) they are left out, and the report
 * names what the running kernel's kallsyms gives where its build-id is the same. */
static int write_ksyms(struct fol_recorder *r)
{
	void *buf;
	size_t len;
	int ret;

	if (r->o->no_ksyms || fol_ksyms_pack("/proc/kallsyms", &buf, &len))
		return 0;
	ret = len <= FOL_CHUNK_MAX ? fol_writer_chunk_buf(r->w, FOL_CHUNK_KSYMS, buf, len) : 0;
	free(buf);
	return ret;
}

static int write_events(struct fol_recorder *r)
{
	int ret = 0;

	for (int i = 0; i < r->nr_ev && !ret; i++) {
		struct perf_event_attr *a = perf_evsel__attr(r->ev[i].evsel);
		cJSON *e = cJSON_CreateObject(), *attr, *ids;

		cJSON_AddNumberToObject(e, "index", i);
		cJSON_AddStringToObject(e, "name", r->ev[i].name);
		cJSON_AddStringToObject(e, "kind", r->ev[i].kind);
		if (r->ev[i].mm_threads)
			cJSON_AddStringToObject(e, "scope", "mm-threads");
		attr = cJSON_AddObjectToObject(e, "attr");
		cJSON_AddNumberToObject(attr, "type", a->type);
		cJSON_AddNumberToObject(attr, "config", (double)a->config);
		cJSON_AddNumberToObject(attr, "sample_type", (double)a->sample_type);
		cJSON_AddNumberToObject(attr, "sample_period", (double)a->sample_period);
		cJSON_AddNumberToObject(attr, "read_format", (double)a->read_format);
		cJSON_AddBoolToObject(attr, "sample_id_all", a->sample_id_all);
		cJSON_AddBoolToObject(attr, "inherit", a->inherit);
		if (a->sample_type & PERF_SAMPLE_REGS_USER)
			cJSON_AddNumberToObject(attr, "sample_regs_user", (double)a->sample_regs_user);
		if (a->sample_type & PERF_SAMPLE_STACK_USER)
			cJSON_AddNumberToObject(attr, "sample_stack_user", a->sample_stack_user);
		{
			/* The whole perf_event_attr as opened, for tools that want every bit. */
			char hex[2 * sizeof(*a) + 1];
			const unsigned char *b = (const unsigned char *)a;

			for (size_t k = 0; k < sizeof(*a); k++)
				snprintf(hex + 2 * k, 3, "%02x", b[k]);
			cJSON_AddStringToObject(attr, "raw", hex);
		}
		ids = cJSON_AddArrayToObject(e, "ids");
		for_each_fd(r->ev[i].evsel, add_id, ids);
		if (r->ev[i].format)
			cJSON_AddStringToObject(e, "format", r->ev[i].format);
		ret = fol_writer_chunk_json(r->w, FOL_CHUNK_EVENT, e);
		cJSON_Delete(e);
	}
	return ret;
}

static void open_counters(struct fol_recorder *r)
{
	struct perf_cpu_map *any = perf_cpu_map__new_any_cpu();
	char missing[256] = "";

	for (int i = 0; fol_counting_events[i] && r->nr_counters < 16; i++) {
		struct rec_counter *c = &r->counters[r->nr_counters++];
		struct perf_event_attr a;

		c->name = fol_counting_events[i];
		if (fol_record_named_attr(c->name, &a))
			continue;
		a.inherit = !r->o->system_wide;
		a.disabled = enabled_by_exec(r);
		a.enable_on_exec = enabled_by_exec(r);
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		a.exclude_guest = 1;
		c->evsel = perf_evsel__new(&a);
		if (!c->evsel)
			continue;
		c->err = perf_evsel__open(c->evsel, r->o->system_wide ? r->cpus : any, r->threads);
		if (c->err) {
			perf_evsel__delete(c->evsel);
			c->evsel = NULL;
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing), "%s%s",
				 missing[0] ? ", " : "", c->name);
		}
	}
	if (missing[0])
		fol_msgs_add(&r->res->warnings, "counters not supported here (no PMU?): %s", missing);
	perf_cpu_map__put(any);
}

static int write_counters_pmu(struct fol_recorder *r)
{
	cJSON *arr = cJSON_CreateArray();
	int ret;

	for (int i = 0; i < r->nr_counters; i++) {
		struct rec_counter *c = &r->counters[i];
		cJSON *e = cJSON_CreateObject();
		uint64_t val = 0, ena = 0, run = 0;
		int ok = 0;

		cJSON_AddStringToObject(e, "event", c->name);
		if (c->evsel) {
			int nthr = perf_thread_map__nr(r->threads);
			int ncpu = r->o->system_wide ? perf_cpu_map__nr(r->cpus) : 1;

			for (int cpu = 0; cpu < ncpu; cpu++)
				for (int t = 0; t < nthr; t++) {
					struct perf_counts_values v = { 0 };

					if (perf_evsel__read(c->evsel, cpu, t, &v) == 0) {
						val += v.val;
						ena += v.ena;
						run += v.run;
						ok = 1;
					}
				}
		}
		cJSON_AddBoolToObject(e, "supported", ok);
		if (ok) {
			cJSON_AddNumberToObject(e, "value", (double)val);
			cJSON_AddNumberToObject(e, "time_enabled_ns", (double)ena);
			cJSON_AddNumberToObject(e, "time_running_ns", (double)run);
		}
		cJSON_AddItemToArray(arr, e);
	}
	ret = fol_writer_chunk_json(r->w, FOL_CHUNK_PMU, arr);
	cJSON_Delete(arr);
	return ret;
}

/* Attached to a running process, the kernel reports no MMAP/COMM for what existed before:
 * read them from /proc (as perf synthesizes them), so that faults on file mappings are
 * told from anonymous ones and threads have names. */
/* The folios the attached process holds already, from its page tables: without them
 * every write-protect fault on memory older than the attach would have order "unknown". */
static void add_seed(struct fol_recorder *r, cJSON *synth, pid_t pid)
{
	struct fol_maps *fm;
	uint64_t unaligned;
	/* A signal before the walk (the recording is being stopped as it starts): none; one
	 * during it stops it. */
	int ret = r->o->signals && *r->o->signals ? -EINTR
						   : fol_maps_read(pid, "", 1, r->o->signals, &fm);

	if (ret) {
		char why[160];

		snprintf(why, sizeof(why), "%s",
			 ret == -EPERM ? "page frame numbers and page flags need root"
				       : strerror(-ret));
		cJSON_AddStringToObject(synth, "folios_error", why);
		fol_msgs_add(&r->res->warnings, "folios of pid %d not read from its page tables "
				 "(%s): faults on memory older than the recording have order unknown",
			     (int)pid, why);
		return;
	}
	cJSON_AddItemToObject(synth, "folios", fol_maps_seed_json(fm, &unaligned));
	cJSON_AddNumberToObject(synth, "unaligned_folios", (double)unaligned);
	fol_maps_free(fm);
}

/* A task's name from its comm file, into comms under key. */
static void add_comm(cJSON *comms, const char *key, const char *path)
{
	char comm[64];

	if (!fol_sysfs_read(path, comm, sizeof(comm)))
		cJSON_AddStringToObject(comms, key, comm);
}

/* The mm threads' names (as tid -> comm), for the model to know them. */
static void add_mm_thread_comms(const struct fol_recorder *r, cJSON *comms)
{
	for (int i = 0; r->kevlist && i < perf_thread_map__nr(r->kthreads); i++) {
		int tid = perf_thread_map__pid(r->kthreads, i);
		char path[64], key[16];

		snprintf(path, sizeof(path), "/proc/%d/comm", tid);
		snprintf(key, sizeof(key), "%d", tid);
		add_comm(comms, key, path);
	}
}

/* System-wide: the names of the tasks already running (their COMM events happened before
 * the recording), so that --comm and the thread names work for them too. */
static int write_system_comms(struct fol_recorder *r, uint64_t now)
{
	cJSON *j = cJSON_CreateObject(), *comms = j ? cJSON_AddObjectToObject(j, "comm") : NULL;
	DIR *proc = opendir("/proc");
	struct dirent *p;
	int ret;

	if (!comms) {
		cJSON_Delete(j);
		if (proc)
			closedir(proc);
		return -ENOMEM;
	}
	cJSON_AddNumberToObject(j, "pid", getpid());
	cJSON_AddNumberToObject(j, "time_ns", (double)now);
	while (proc && (p = readdir(proc))) {
		char path[600];
		struct dirent *t;
		DIR *tasks;

		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", p->d_name);
		tasks = opendir(path);
		while (tasks && (t = readdir(tasks))) {
			if (t->d_name[0] < '1' || t->d_name[0] > '9')
				continue;
			snprintf(path, sizeof(path), "/proc/%s/task/%s/comm", p->d_name, t->d_name);
			add_comm(comms, t->d_name, path);
		}
		if (tasks)
			closedir(tasks);
	}
	if (proc)
		closedir(proc);
	ret = fol_writer_chunk_json(r->w, FOL_CHUNK_SYNTH, j);
	cJSON_Delete(j);
	return ret;
}

static int write_synth(struct fol_recorder *r, uint64_t now)
{
	char path[64], line[4352];
	cJSON *j = cJSON_CreateObject(), *maps, *comms;
	FILE *f;
	int ret;

	if (!j)
		return -ENOMEM;
	cJSON_AddNumberToObject(j, "pid", r->o->pid);
	cJSON_AddNumberToObject(j, "time_ns", (double)now);
	comms = cJSON_AddObjectToObject(j, "comm");
	for (int i = 0; i < perf_thread_map__nr(r->threads); i++) {
		int tid = perf_thread_map__pid(r->threads, i);
		char key[16];

		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", r->o->pid, tid);
		snprintf(key, sizeof(key), "%d", tid);
		add_comm(comms, key, path);
	}
	add_mm_thread_comms(r, comms);
	maps = cJSON_AddArrayToObject(j, "maps");
	snprintf(path, sizeof(path), "/proc/%d/maps", r->o->pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off = 0;
		char perms[5] = "", hex[24];
		int name = 0;
		cJSON *m;

		unsigned maj = 0, min = 0;
		unsigned long long ino = 0;

		if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &lo, &hi, perms, &off, &maj, &min,
			   &ino, &name) < 7)
			continue;
		m = cJSON_CreateObject();
		snprintf(hex, sizeof(hex), "0x%llx", lo);
		cJSON_AddStringToObject(m, "start", hex);
		snprintf(hex, sizeof(hex), "0x%llx", hi);
		cJSON_AddStringToObject(m, "end", hex);
		/* The file offset, as an MMAP2 record has it: without it every address of a
		 * library's text was taken for an offset from the file's start (redis's
		 * _sdsnewlen named redis-check-rdb+0x19815). */
		snprintf(hex, sizeof(hex), "0x%llx", off);
		cJSON_AddStringToObject(m, "pgoff", hex);
		cJSON_AddStringToObject(m, "perms", perms);
		line[strcspn(line, "\n")] = '\0';
		/* An anonymous mapping, as perf names one. */
		cJSON_AddStringToObject(m, "file", name && line[name] ? line + name : "//anon");
		if (ino) {
			struct fol_file_id id = { maj, min, ino };
			uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

			cJSON_AddNumberToObject(m, "maj", maj);
			cJSON_AddNumberToObject(m, "min", min);
			cJSON_AddNumberToObject(m, "ino", (double)ino);
			if (line[name] == '/')
				fol_pc_files_note(r->pc, &id, line + name, off / page, (hi - lo) / page);
		}
		/* Code mapped before the attach: its build-id in the END chunk as for code
		 * mapped after (an MMAP2 record), so that a report checks the file it reads. */
		if (perms[2] == 'x' && name && line[name] == '/')
			note_code(r, line + name);
		cJSON_AddItemToArray(maps, m);
	}
	if (f)
		fclose(f);
	add_seed(r, j, r->o->pid);
	ret = fol_writer_chunk_json(r->w, FOL_CHUNK_SYNTH, j);
	cJSON_Delete(j);
	return ret;
}

/* The workload's phases (JSON lines it wrote to the phase file), whole: a file larger
 * than a chunk is cut at its last full line, and the recording says so. */
static int write_phases(struct fol_recorder *r)
{
	char *buf, *nl;
	size_t n;
	FILE *f;
	int ret = 0;

	if (!r->o->phase_file || !(f = fopen(r->o->phase_file, "re")))
		return 0;
	buf = malloc(FOL_CHUNK_MAX);
	n = buf ? fread(buf, 1, FOL_CHUNK_MAX, f) : 0;
	if (n == FOL_CHUNK_MAX && fgetc(f) != EOF && (nl = memrchr(buf, '\n', n))) {
		n = (size_t)(nl - buf) + 1;
		fol_msgs_add(&r->res->warnings, "the workload wrote more phases than a chunk holds "
				 "(%u MB): the rest left out", FOL_CHUNK_MAX >> 20);
	}
	fclose(f);
	if (n)
		ret = fol_writer_chunk_buf(r->w, FOL_CHUNK_WORKLOAD, buf, n);
	free(buf);
	return buf ? ret : -ENOMEM;
}

/* The build-ids of the code the run mapped, read from the files now, as perf record does
 * at its end: "build_ids": {path: hex}. */
static void add_build_ids(const struct fol_recorder *r, cJSON *end)
{
	cJSON *b = cJSON_AddObjectToObject(end, "build_ids");

	for (size_t i = 0; b && i < r->code.n; i++) {
		const char *path = *FOL_INDEXED_AT(&r->code, char *, i);
		uint8_t id[64];
		char hex[129];
		int n = fol_symbols_file_build_id(path, id, sizeof(id));

		for (int k = 0; k < n; k++)
			snprintf(hex + 2 * k, 3, "%02x", id[k]);
		if (n > 0)
			cJSON_AddStringToObject(b, path, hex);
	}
}

static int write_end(struct fol_recorder *r, uint64_t dur)
{
	cJSON *e = cJSON_CreateObject();
	int ret;

	cJSON_AddNumberToObject(e, "duration_ns", (double)dur);
	if (r->o->argv) {
		int st = r->res->wait_status;

		if (WIFEXITED(st))
			cJSON_AddNumberToObject(e, "exit_code", WEXITSTATUS(st));
		else if (WIFSIGNALED(st))
			cJSON_AddNumberToObject(e, "exit_signal", WTERMSIG(st));
	}
	if (r->interrupted_by)
		cJSON_AddNumberToObject(e, "interrupted_by", r->interrupted_by);
	cJSON_AddNumberToObject(e, "records", (double)r->res->records);
	cJSON_AddNumberToObject(e, "samples", (double)r->res->samples);
	cJSON_AddNumberToObject(e, "lost", (double)r->res->lost);
	if (r->bpf) {
		uint64_t threads, records;

		fol_bpf_faults_dropped(r->bpf, &threads, &records);
		cJSON_AddNumberToObject(e, "bpf_threads_not_followed", (double)threads);
		cJSON_AddNumberToObject(e, "bpf_records_not_written", (double)records);
	}
	if (!r->no_format_lost) {
		cJSON *ls = cJSON_AddObjectToObject(e, "lost_samples");

		for (int i = 0; i < r->nr_ev; i++) {
			uint64_t lost = 0;
			cJSON *had = cJSON_GetObjectItemCaseSensitive(ls, r->ev[i].name);

			for_each_fd(r->ev[i].evsel, add_lost, &lost);
			/* An event recorded in the target and the mm threads: one sum. */
			if (had)
				cJSON_SetNumberValue(had, had->valuedouble + (double)lost);
			else
				cJSON_AddNumberToObject(ls, r->ev[i].name, (double)lost);
		}
	}
	add_build_ids(r, e);
	ret = fol_writer_chunk_json(r->w, FOL_CHUNK_END, e);
	cJSON_Delete(e);
	return ret;
}

static void cleanup(struct fol_recorder *r)
{
	if (r->go_fd >= 0)
		close(r->go_fd);
	if (r->err_fd >= 0)
		close(r->err_fd);
	if (r->child > 0) {
		/* Still corked: it never ran the workload. */
		kill(r->child, SIGKILL);
		waitpid(r->child, NULL, 0);
	}
	for (int i = 0; i < r->nr_counters; i++)
		if (r->counters[i].evsel) {
			perf_evsel__close(r->counters[i].evsel);
			perf_evsel__delete(r->counters[i].evsel);
		}
	close_mm_threads(r);
	if (r->evlist) {
		perf_evlist__munmap(r->evlist);
		perf_evlist__close(r->evlist);
		perf_evlist__delete(r->evlist);
	}
	close_bpf(r);
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

/* The folio composition of pid's memory now (maps.h), as a MAPS chunk: what the run left
 * behind. Without the rights to read it, nothing (the warning of the seeding says why). */
static int write_maps(struct fol_recorder *r, pid_t pid)
{
	struct fol_maps *m;
	cJSON *j;
	int ret;

	if (fol_maps_read(pid, "", 0, r->o->signals, &m))
		return 0;
	j = fol_maps_json(m);
	fol_maps_free(m);
	if (!j)
		return -ENOMEM;
	ret = fol_writer_chunk_json(r->w, FOL_CHUNK_MAPS, j);
	cJSON_Delete(j);
	return ret;
}

/* The page cache's folios of the files the recorded processes mapped (pagecache.h). */
static int write_pagecache(struct fol_recorder *r)
{
	cJSON *j = fol_pc_snapshot(r->pc, "", (time_t)(r->start_real / 1000000000), r->o->signals);
	int ret;

	if (!j)
		return -ENOMEM;
	ret = fol_writer_chunk_json(r->w, FOL_CHUNK_PAGECACHE, j);
	cJSON_Delete(j);
	return ret;
}

/* The traced workload stopped: at its exit (its memory still mapped: a last look), at a
 * later exec (let go), for a signal (passed on), or in a group stop (left stopped, as it
 * would be untraced). */
static int traced_stop(struct fol_recorder *r, int st)
{
	siginfo_t si;
	int sig = WSTOPSIG(st), ret = 0;

	if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8))) {
		ret = write_maps(r, r->child);
		sig = 0;
	} else if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXEC << 8))) {
		sig = 0;
	} else if (ptrace(PTRACE_GETSIGINFO, r->child, NULL, &si) < 0) {
		return 0; /* group stop: SIGCONT will resume it */
	}
	ptrace(PTRACE_CONT, r->child, NULL, (void *)(long)sig);
	return ret;
}

int fol_recorder_poll(struct fol_recorder *r, int timeout_ms)
{
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
		return fail(r, ret, "cannot write the recording: %s", strerror(-ret));
	if (!r->o->argv)
		return r->o->system_wide || !target_gone(r->o->pid) ? 1 : 0;
	if (r->child <= 0 || (w = waitpid(r->child, &st, WNOHANG)) != r->child)
		return r->child > 0 && w == 0 ? 1 : 0;
	if (WIFSTOPPED(st)) {
		ret = traced_stop(r, st);
		return ret ? fail(r, ret, "cannot write the recording: %s", strerror(-ret)) : 1;
	}
	r->res->wait_status = st;
	r->child = 0;
	return 0;
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
	r->go_fd = r->err_fd = -1;
	r->fds_left = 1;
	*rp = r;
	if (o->mmap_pages <= 0 || o->mmap_pages > FOL_RECORD_MAX_PAGES ||
	    (o->mmap_pages & (o->mmap_pages - 1)))
		return fail(r, -EINVAL, "mmap pages must be a power of two up to %d, not %d",
			    FOL_RECORD_MAX_PAGES, o->mmap_pages);
	r->evlist = perf_evlist__new();
	r->chunk = malloc(CHUNK_FLUSH + 65536);
	r->cpus = perf_cpu_map__new_online_cpus();
	r->pc = fol_pc_files_new();
	if (!r->evlist || !r->chunk || !r->cpus || !r->pc)
		return fail(r, -ENOMEM, "out of memory");
	if (o->cgroup && !o->system_wide)
		return fail(r, -EINVAL, "-G (a cgroup) needs -a: it scopes a system-wide recording");
	if (o->cgroup) {
		char err[400];

		ret = fol_cgroups_resolve(o->cgroup, &r->cg, err, sizeof(err));
		if (ret)
			return fail(r, ret, "%s", err);
	}
	if (o->kprobes) {
		char err[256];

		if (fol_kprobes_create(&r->kp, err, sizeof(err)))
			fol_msgs_add(&r->res->warnings, "%s: recorded without kprobes", err);
	}
	ret = setup_events(r);
	if (!ret)
		ret = setup_mm_threads(r);
	return ret;
}

/* The workload forked and waiting, or the attach target's threads: the thread map. */
static int open_target(struct fol_recorder *r)
{
	int ret;

	if (r->o->system_wide) {
		r->threads = perf_thread_map__new_dummy();
		if (!r->threads)
			return fail(r, -ENOMEM, "out of memory");
		ret = r->o->argv ? start_corked(r) : 0;
		return ret ? fail(r, ret, "cannot start the workload: %s", strerror(-ret)) : 0;
	}
	if (r->o->argv) {
		ret = start_corked(r);
		if (ret)
			return fail(r, ret, "cannot start the workload: %s", strerror(-ret));
		r->threads = perf_thread_map__new_array(1, &r->child);
		return r->threads ? 0 : fail(r, -ENOMEM, "out of memory");
	}
	if (fol_pid_is_kernel_thread("", r->o->pid))
		return fail(r, -EPERM, "cannot attach to pid %d: a kernel thread has no memory of its "
			    "own to fault on (record -a records every task)", r->o->pid);
	ret = threads_of(r->o->pid, &r->threads);
	if (ret)
		fail(r, ret, "cannot attach to pid %d: %s", r->o->pid,
		     ret == -ENOENT ? "no such process"
		     : ret == -ESRCH ? "it has exited (a zombie: its parent has not reaped it)"
				     : strerror(-ret));
	return ret;
}

/* The mm threads' events are a bonus: a kernel that refuses them leaves the recording of
 * the workload as it was, with a warning. */
static void open_mm_threads(struct fol_recorder *r)
{
	struct perf_evsel *ev;
	int ret;

	if (!r->kevlist)
		return;
	perf_evlist__set_maps(r->kevlist, r->kcpus, r->kthreads);
	if (r->no_format_lost)
		perf_evlist__for_each_evsel(r->kevlist, ev)
			perf_evsel__attr(ev)->read_format &= ~(uint64_t)PERF_FORMAT_LOST;
	ret = perf_evlist__open(r->kevlist);
	if (!ret)
		ret = perf_evlist__mmap(r->kevlist, MM_THREAD_PAGES);
	if (!ret)
		return;
	fol_msgs_add(&r->res->warnings, "the kernel's mm threads (khugepaged, kswapd) could not "
			 "be recorded (%s): their work on the workload's memory is not in the "
			 "recording", strerror(-ret));
	close_mm_threads(r);
}

static int open_events(struct fol_recorder *r)
{
	int ret;

	perf_evlist__set_maps(r->evlist, r->cpus, r->threads);
	ret = perf_evlist__open(r->evlist);
	if (ret == -EINVAL) {
		/* A kernel before 6.0 has no PERF_FORMAT_LOST: open without it. */
		struct perf_evsel *ev;

		r->no_format_lost = 1;
		perf_evlist__for_each_evsel(r->evlist, ev)
			perf_evsel__attr(ev)->read_format &= ~(uint64_t)PERF_FORMAT_LOST;
		ret = perf_evlist__open(r->evlist);
	}
	if (ret == -EINVAL && r->o->cgroup)
		return fail(r, ret, "cannot open the perf events with their task's cgroup "
				    "(PERF_SAMPLE_CGROUP needs Linux 5.7 or later): record without -G");
	if (ret)
		return open_error(r, ret, "the perf events");
	ret = perf_evlist__mmap(r->evlist, r->o->mmap_pages);
	if (ret)
		return fail(r, ret, "cannot map the ring buffers (%d pages per CPU): %s; try a smaller -m "
				    "or raise /proc/sys/kernel/perf_event_mlock_kb",
			    r->o->mmap_pages, strerror(-ret));
	if (r->bpf && (ret = bpf_open_target(r)))
		return ret;
	open_mm_threads(r);
	return 0;
}

int fol_recorder_open(struct fol_recorder *r, struct fol_writer *w)
{
	cJSON *before;
	int ret;

	r->w = w;
	ret = open_target(r);
	if (!ret && r->bpf)
		ret = bpf_open_carriers(r);
	if (ret)
		return ret;
	/* The exact method's cost per fault, measured here before anything runs: every
	 * report can say what its latencies include. */
	{
		struct perf_event_attr stack = { 0 };

		user_stack_attr(r->o, &stack);
		if (!r->sampled && !r->o->events &&
		    fol_calibrate(FOL_CALIBRATE_PAGES, r->bpf, r->o->callchain ? &stack : NULL,
				  &r->calibration))
			memset(&r->calibration, 0, sizeof(r->calibration));
	}
	ret = open_events(r);
	if (ret)
		return ret;
	r->start_real = now_ns(CLOCK_REALTIME);
	r->start_mono = now_ns(CLOCK_MONOTONIC);
	ret = write_meta(r, r->start_real, r->start_mono);
	if (!ret)
		ret = write_events(r);
	if (!ret && r->o->system_wide)
		ret = write_system_comms(r, r->start_mono);
	else if (!ret && !r->o->argv)
		ret = write_synth(r, r->start_mono);
	/* After the metadata: its warnings are about the sampled events; the PMU chunk says
	 * which counters are supported. */
	open_counters(r);
	before = fol_counters_snapshot("");
	if (!ret && before)
		ret = fol_writer_chunk_json(w, FOL_CHUNK_COUNTERS, before);
	cJSON_Delete(before);
	if (!ret)
		ret = fol_writer_flush(w);
	return ret ? fail(r, ret, "cannot write the recording: %s", strerror(-ret)) : 0;
}

int fol_recorder_start(struct fol_recorder *r)
{
	int ret;

	if (r->o->mthp) {
		ret = fol_mthp_apply(r->o->mthp);
		if (ret)
			return fail(r, ret, "cannot set the THP policy (%s): %s",
				    r->o->mthp_spec ? r->o->mthp_spec : "",
				    ret == -EACCES || ret == -EPERM ? "run as root" : strerror(-ret));
		r->mthp_applied = 1;
	}
	if (!enabled_by_exec(r))
		perf_evlist__enable(r->evlist);
	if (r->kevlist)
		perf_evlist__enable(r->kevlist);
	if (r->o->argv) {
		ret = uncork(r);
		if (ret)
			return fail(r, ret, "cannot execute '%s': %s", r->o->argv[0], strerror(-ret));
	}
	/* The workload runs: from here on the file is the recording, and whatever was at
	 * the output path makes way for it. */
	ret = fol_writer_commit(r->w);
	if (ret) {
		perf_evlist__disable(r->evlist);
		if (r->child > 0) {
			kill(r->child, SIGKILL);
			waitpid(r->child, &r->res->wait_status, 0);
			r->child = 0;
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

int fol_recorder_stop(struct fol_recorder *r, int signal)
{
	cJSON *after;
	uint64_t dur;
	int ret = 0;

	r->interrupted_by = signal;
	/* Attached: the process lives on; what the run leaves in its page tables now. */
	if (!r->o->argv && !r->o->system_wide && !target_gone(r->o->pid))
		ret = write_maps(r, r->o->pid);
	perf_evlist__disable(r->evlist);
	if (r->kevlist)
		perf_evlist__disable(r->kevlist);
	if (!ret)
		ret = drain(r);
	dur = now_ns(CLOCK_MONOTONIC) - r->start_mono;
	/* After the events are off: its own faults on the files are not the workload's. */
	if (!ret)
		ret = write_pagecache(r);
	r->res->seconds = (double)dur / 1e9;
	if (!ret)
		ret = write_counters_pmu(r);
	after = fol_counters_snapshot("");
	restore_mthp(r);
	if (!ret && after)
		ret = fol_writer_chunk_json(r->w, FOL_CHUNK_COUNTERS, after);
	cJSON_Delete(after);
	if (!ret)
		ret = write_phases(r);
	/* At the end, not the start: packing them takes 0.2 s here (seconds in an emulated
	 * guest), which would hold up the workload's start or an attach. */
	if (!ret)
		ret = write_ksyms(r);
	if (!ret)
		ret = write_end(r, dur);
	/* A writer shared by several runs stays open: this run is on disk now. */
	if (!ret)
		ret = fol_writer_flush(r->w);
	return ret ? fail(r, ret, "cannot write the recording: %s", strerror(-ret)) : 0;
}

pid_t fol_recorder_pid(const struct fol_recorder *r)
{
	return r->child;
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
	free(r);
	return ret;
}
