// SPDX-License-Identifier: GPL-2.0-only
/* The recorder's event set: the tracepoints, software events and counters of a recording
 * put into libperf evlists and opened, the kernel's mm threads' own events beside. */
#include "record/record_priv.h"
#include "record/events.h"

#include <dirent.h>
#include <errno.h>
#include <perf/cpumap.h>
#include <perf/event.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>
#include <stdlib.h>
#include <string.h>

#include "data/comm.h"
#include "sys/pagecache.h"
#include "record/tracepoint.h"
#include "symbols/unwind.h"
#include "util/grow.h"

/* What the kernel's mm threads do to the workload's memory: khugepaged's scans and
 * collapses, kswapd's reclaim and swap-out. Only these, and only in those threads. */
static const char *const mm_thread_tracepoints[] = {
	"huge_memory:*",
	"vmscan:mm_vmscan_write_folio",
	"vmscan:mm_vmscan_kswapd_wake",
	"vmscan:mm_vmscan_kswapd_sleep",
	NULL,
};

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

int rec_add_event(struct fol_recorder *r, struct perf_evlist *to, const char *name,
		  const char *kind, char *format, struct perf_event_attr *attr)
{
	struct perf_evsel *evsel;

	if (FOL_GROW(r->ev, r->ev_cap, (size_t)r->nr_ev + 1, 16))
		return -ENOMEM;
	evsel = perf_evsel__new(attr);
	if (!evsel)
		return -ENOMEM;
	r->ev[r->nr_ev].name = strdup(name);
	r->ev[r->nr_ev].kind = kind;
	r->ev[r->nr_ev].format = format;
	r->ev[r->nr_ev].evsel = evsel;
	r->ev[r->nr_ev].mm_threads = to == r->kevlist;
	r->nr_ev++;
	perf_evlist__add(to, evsel);
	return 0;
}

int rec_enabled_by_exec(const struct fol_recorder *r)
{
	return r->o->argv && !r->o->system_wide;
}

void rec_sample_attr(struct fol_recorder *r, struct perf_event_attr *a, int mm_threads)
{
	size_t bytes = (size_t)r->o->mmap_pages * (size_t)sysconf(_SC_PAGESIZE);

	a->size = sizeof(*a);
	/* IDENTIFIER first in samples and last in other records: one rule finds the event
	 * of any record. */
	a->sample_type |= PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			  PERF_SAMPLE_CPU;
	if ((r->o->cgroup || r->o->by_cgroup) && !mm_threads) {
		a->sample_type |= PERF_SAMPLE_CGROUP;
		a->cgroup = a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_DUMMY;
	}
	a->sample_period = 1;
	a->sample_id_all = 1;
	/* LOST: samples the kernel dropped for this event, which PERF_RECORD_LOST alone
	 * does not always tell (kernel 6.0+; older ones refuse it, see rec_open_events). */
	a->read_format = PERF_FORMAT_ID | (r->no_format_lost ? 0 : PERF_FORMAT_LOST);
	/* Per CPU (system-wide), an event sees every task already: inheriting is for tasks. */
	a->inherit = !r->o->system_wide;
	a->disabled = rec_enabled_by_exec(r);
	a->enable_on_exec = rec_enabled_by_exec(r);
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

void rec_user_stack_attr(const struct fol_record_opts *o, struct perf_event_attr *a)
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
		return rec_fail(r, ret,
				"tracefs is not mounted and could not be mounted: run as root or mount "
				"it (mount -t tracefs nodev /sys/kernel/tracing)");
	if (ret == -EACCES)
		return rec_fail(r, ret,
				"tracefs is not readable: run as root, or give your user access to "
				"/sys/kernel/tracing");
	if (ret && required)
		return rec_fail(r, ret, "tracepoint '%s' does not exist on this kernel (see "
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

		memset(&a, 0, sizeof(a));
		a.type = PERF_TYPE_TRACEPOINT;
		a.config = tp[k].id;
		a.sample_type = PERF_SAMPLE_RAW;
		rec_sample_attr(r, &a, to == r->kevlist);
		snprintf(full, sizeof(full), "%s:%s", tp[k].system, tp[k].name);
		if (!strncmp(full, "exceptions:page_fault_", 22))
			rec_user_stack_attr(r->o, &a);
		ret = to == r->evlist ? rec_add_unsampled(r, full, tp[k].format, &a) : 0;
		if (!ret)
			ret = rec_add_event(r, to, full, kind, tp[k].format, &a);
		else if (ret > 0)
			ret = 0;
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

int rec_setup_events(struct fol_recorder *r)
{
	const char *const *tps = r->o->events ? NULL
				 : r->o->live ? fol_live_tracepoints : fol_default_tracepoints;
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
	 * instead (record_chunks.c, read_build_ids), as perf record does by default. */
	rec_sample_attr(r, &a, 0);
	ret = rec_add_event(r, r->evlist, "tracking", "tracking", NULL, &a);
	if (ret)
		return ret;

	for (int i = 0; r->o->events ? i < r->o->nr_events : fol_software_events[i] != NULL; i++) {
		const char *name = r->o->events ? r->o->events[i] : fol_software_events[i];

		if (fol_record_named_attr(name, &a) == 0) {
			a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
			rec_sample_attr(r, &a, 0);
			ret = rec_add_event(r, r->evlist, name, "software", NULL, &a);
		} else if (!strchr(name, ':')) {
			ret = rec_fail(r, -EINVAL,
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
		rec_sample_attr(r, &a, 0);
		a.sample_period = r->o->clock_period_ns ? r->o->clock_period_ns
							 : FOL_CLOCK_PERIOD_DEFAULT;
		a.exclude_callchain_user = 1;
		ret = rec_add_event(r, r->evlist, "cpu-clock", "software", NULL, &a);
		r->nranges = fault_ranges(r->ranges, 8);
		if (!r->nranges)
			fol_msgs_add(&r->res->warnings, "the fault handler's addresses are not in "
				     "/proc/kallsyms (kptr_restrict?): sampled fault time will be 0");
	}
	ret = rec_bpf_setup(r);
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

int rec_find_mm_threads(pid_t *out, int max)
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

int rec_setup_mm_threads(struct fol_recorder *r)
{
	pid_t pids[64];
	int n, ret = 0;

	if (r->o->system_wide || r->o->events || r->o->no_mm_threads || r->o->live)
		return 0;
	n = rec_find_mm_threads(pids, 64);
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

void rec_close_mm_threads(struct fol_recorder *r)
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
		return rec_fail(r, err,
				"cannot open %s: permission denied (perf_event_paranoid is %d): run "
				"as root or set it to -1 (sysctl kernel.perf_event_paranoid=-1)",
				what, p);
	if (err == -EMFILE)
		return rec_fail(r, err, "cannot open %s: too many open files: raise ulimit -n", what);
	return rec_fail(r, err, "cannot open %s: %s", what, strerror(-err));
}

void rec_open_counters(struct fol_recorder *r)
{
	struct perf_cpu_map *any = perf_cpu_map__new_any_cpu();
	char missing[256] = "";

	for (int i = 0; !r->o->no_counters && fol_counting_events[i] && r->nr_counters < 16; i++) {
		struct rec_counter *c = &r->counters[r->nr_counters++];
		struct perf_event_attr a;

		c->name = fol_counting_events[i];
		if (fol_record_named_attr(c->name, &a))
			continue;
		a.inherit = !r->o->system_wide;
		a.disabled = rec_enabled_by_exec(r);
		a.enable_on_exec = rec_enabled_by_exec(r);
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
	rec_close_mm_threads(r);
}

int rec_open_events(struct fol_recorder *r)
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
	if (ret == -EINVAL && (r->o->cgroup || r->o->by_cgroup))
		return rec_fail(r, ret, "cannot open the perf events with their task's cgroup "
				    "(PERF_SAMPLE_CGROUP needs Linux 5.7 or later): %s",
				r->o->cgroup ? "record without -G" : "serve without --by-cgroup");
	if (ret)
		return open_error(r, ret, "the perf events");
	ret = perf_evlist__mmap(r->evlist, r->o->mmap_pages);
	if (ret)
		return rec_fail(r, ret, "cannot map the ring buffers (%d pages per CPU): %s; try a smaller -m "
				    "or raise /proc/sys/kernel/perf_event_mlock_kb",
			    r->o->mmap_pages, strerror(-ret));
	if (r->bpf && (ret = rec_bpf_open_target(r)))
		return ret;
	open_mm_threads(r);
	return 0;
}
