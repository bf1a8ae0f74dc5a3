// SPDX-License-Identifier: GPL-2.0-only
#include "record/check.h"
#include "record/bpf_faults.h"

#include "sys/maps.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <perf/cpumap.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/counters.h"
#include "record/kprobe.h"
#include "record/events.h"
#include "record/record.h"
#include "record/tracepoint.h"
#include "util/grow.h"
#include "util/msgs.h"

struct list {
	struct fol_check_item *v;
	int n;
	size_t cap;
};

__attribute__((format(printf, 6, 7))) static void add(struct list *l, const char *section,
						     const char *what, enum fol_check_state st,
						     const char *fix, const char *fmt, ...)
{
	struct fol_check_item *it;
	va_list ap;

	if (FOL_GROW(l->v, l->cap, (size_t)l->n + 1, 16))
		return;
	it = &l->v[l->n++];
	memset(it, 0, sizeof(*it));
	snprintf(it->section, sizeof(it->section), "%s", section);
	snprintf(it->what, sizeof(it->what), "%s", what);
	it->state = st;
	snprintf(it->fix, sizeof(it->fix), "%s", fix ? fix : "");
	va_start(ap, fmt);
	vsnprintf(it->detail, sizeof(it->detail), fmt, ap);
	va_end(ap);
}

static int read_int(const char *path, int *v)
{
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%d", v) == 1;
	fclose(f);
	return ok ? 0 : -EINVAL;
}

/* Open the event on this process alone: whether the kernel and PMU have it. */
static int try_event(const char *name)
{
	struct perf_event_attr a;
	struct perf_evsel *e;
	struct perf_thread_map *t;
	struct perf_cpu_map *any;
	int ret;

	if (fol_record_named_attr(name, &a))
		return -ENOENT;
	a.exclude_kernel = geteuid() != 0;
	t = perf_thread_map__new_dummy();
	any = perf_cpu_map__new_any_cpu();
	e = perf_evsel__new(&a);
	if (!t || !any || !e) {
		ret = -ENOMEM;
		goto out;
	}
	perf_thread_map__set_pid(t, 0, 0);
	ret = perf_evsel__open(e, any, t);
	if (!ret)
		perf_evsel__close(e);
out:
	if (e)
		perf_evsel__delete(e);
	perf_thread_map__put(t);
	perf_cpu_map__put(any);
	return ret;
}

static void check_perf(struct list *l)
{
	int p;

	if (read_int("/proc/sys/kernel/perf_event_paranoid", &p)) {
		add(l, "perf", "perf_event_open", FOL_CHECK_MISSING,
		    "build the kernel with CONFIG_PERF_EVENTS=y",
		    "/proc/sys/kernel/perf_event_paranoid is missing");
		return;
	}
	if (geteuid() == 0 || p <= -1)
		add(l, "perf", "perf_event_paranoid", FOL_CHECK_OK, NULL, "%d%s", p,
		    geteuid() == 0 ? " (running as root)" : "");
	else
		add(l, "perf", "perf_event_paranoid", FOL_CHECK_MISSING,
		    "run as root or set it to -1: sysctl kernel.perf_event_paranoid=-1",
		    "%d: tracepoints of other processes and kernel addresses are refused", p);
	for (int i = 0; fol_software_events[i]; i++) {
		int ret = try_event(fol_software_events[i]);

		add(l, "perf", fol_software_events[i], ret ? FOL_CHECK_MISSING : FOL_CHECK_OK,
		    ret ? "exact fault latency needs this software event" : NULL, "%s",
		    ret ? strerror(-ret) : "sampled at period 1: where each fault ends");
	}
}

static void check_tracepoints(struct list *l)
{
	const char *dir = fol_tp_tracefs_dir();
	char kp[4200];

	if (!dir) {
		add(l, "tracefs", "tracefs", FOL_CHECK_MISSING,
		    "mount it: mount -t tracefs nodev /sys/kernel/tracing (as root)",
		    "not mounted and could not be mounted");
		return;
	}
	if (access(dir, R_OK | X_OK)) {
		add(l, "tracefs", "tracefs", FOL_CHECK_MISSING,
		    "run as root, or give your user read access to the tracefs directory",
		    "%s is not readable", dir);
		return;
	}
	add(l, "tracefs", "tracefs", FOL_CHECK_OK, NULL, "%s", dir);
	for (int i = 0; fol_default_tracepoints[i]; i++) {
		struct fol_tp *tp = NULL;
		int n = 0, ret = fol_tp_resolve(fol_default_tracepoints[i], &tp, &n);

		if (ret && !strncmp(fol_default_tracepoints[i], "exceptions:page_fault_", 22))
			add(l, "tracepoints", fol_default_tracepoints[i], FOL_CHECK_WARN,
			    "no fault entry event (arm64 has none): the sampled latency method is "
			    "used, fault time from cpu-clock samples in the handler, no per-fault latency",
			    "not available: %s", strerror(-ret));
		else if (ret)
			add(l, "tracepoints", fol_default_tracepoints[i], FOL_CHECK_WARN,
			    "recorded without it; a kernel with this tracepoint gives more detail",
			    "not available: %s", strerror(-ret));
		else if (n > 1)
			add(l, "tracepoints", fol_default_tracepoints[i], FOL_CHECK_OK, NULL,
			    "%d events", n);
		else
			add(l, "tracepoints", fol_default_tracepoints[i], FOL_CHECK_OK, NULL,
			    "available (id %llu)", (unsigned long long)tp[0].id);
		fol_tp_free(tp, n);
	}
	snprintf(kp, sizeof(kp), "%s/kprobe_events", dir);
	if (access(kp, F_OK) == 0 && fol_kprobes_count())
		add(l, "kprobes", "kprobe events", FOL_CHECK_WARN,
		    "a run killed with SIGKILL left them: echo '-:" FOL_KPROBE_SYSTEM
		    "/EVENT' >> kprobe_events for each",
		    "%d foliostat kprobe events left behind", fol_kprobes_count());
	else if (access(kp, F_OK) == 0)
		add(l, "kprobes", "kprobe events", FOL_CHECK_OK, NULL,
		    "available: record --kprobes adds do_wp_page entry/return");
	else
		add(l, "kprobes", "kprobe events", FOL_CHECK_INFO,
		    "not needed: exact latency uses tracepoints and software events",
		    "not available (CONFIG_KPROBE_EVENTS off)");
}

static void check_counters(struct list *l)
{
	for (int i = 0; fol_counting_events[i]; i++) {
		int ret = try_event(fol_counting_events[i]);

		add(l, "counters", fol_counting_events[i], ret ? FOL_CHECK_INFO : FOL_CHECK_OK,
		    ret ? "no hardware PMU here (a VM?): reported as not supported" : NULL, "%s",
		    ret ? "not supported" : "supported");
	}
}

static void check_thp(struct list *l)
{
	cJSON *snap = fol_counters_snapshot("");
	const cJSON *thp = cJSON_GetObjectItemCaseSensitive(snap, "thp");
	const cJSON *mthp = cJSON_GetObjectItemCaseSensitive(snap, "mthp");
	const cJSON *en = cJSON_GetObjectItemCaseSensitive(thp, "enabled"), *sz;
	int swaps;

	if (!cJSON_IsString(en))
		add(l, "thp", "transparent hugepages", FOL_CHECK_WARN,
		    "build the kernel with CONFIG_TRANSPARENT_HUGEPAGE=y", "not available");
	else
		add(l, "thp", "PMD THP (2M)", FOL_CHECK_OK, NULL, "enabled=%s", en->valuestring);
	if (!cJSON_GetArraySize(mthp))
		add(l, "thp", "mTHP sizes", FOL_CHECK_WARN,
		    "a 6.8+ kernel has per-size policies under "
		    "/sys/kernel/mm/transparent_hugepage/hugepages-*kB",
		    "none: this kernel has no multi-size THP");
	cJSON_ArrayForEach(sz, mthp)
	{
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(sz, "enabled");
		char what[64];

		if (!cJSON_IsString(p))
			continue; /* a size the kernel lists but offers no policy for */
		snprintf(what, sizeof(what), "mTHP %s", sz->string);
		add(l, "thp", what, FOL_CHECK_INFO, NULL, "enabled=%s", p->valuestring);
	}
	cJSON_Delete(snap);
	swaps = fol_swap_devices();
	add(l, "thp", "swap", swaps ? FOL_CHECK_OK : FOL_CHECK_INFO,
	    swaps ? NULL : "the pageout workload needs swap: mkswap + swapon a file",
	    swaps ? "%d device(s)" : "none", swaps);
}

/* What the folio map is seeded from at exec/attach and what "Left behind" reads: the
 * page tables (root for PFNs and page flags), through ptrace stops for a recorded command. */
static void check_page_tables(struct list *l)
{
	struct fol_maps *m;
	int ret = fol_maps_read(getpid(), "", 0, NULL, &m), scope = 0;

	if (!ret) {
		fol_maps_free(m);
		add(l, "page tables", "pagemap + kpageflags", FOL_CHECK_OK, NULL,
		    "readable: folios seeded at exec/attach, left behind at the end, maps");
	} else {
		add(l, "page tables", "pagemap + kpageflags", FOL_CHECK_WARN,
		    "run as root (page frame numbers and page flags need CAP_SYS_ADMIN)",
		    "not readable (%s): no seeding, no 'Left behind', no foliostat maps",
		    strerror(-ret));
	}
	if (read_int("/proc/sys/kernel/yama/ptrace_scope", &scope) == 0 && scope >= 3)
		add(l, "page tables", "ptrace", FOL_CHECK_WARN,
		    "kernel.yama.ptrace_scope 3 cannot be lowered without a reboot",
		    "refused (yama ptrace_scope=3): a recorded command is not stopped after exec "
		    "and at exit");
	else
		add(l, "page tables", "ptrace", FOL_CHECK_OK, NULL,
		    "a recorded command is stopped after exec and at exit to read them");
}

/* Whether record can take the BPF fault path here: the programs loaded, then freed. */
static void check_bpf(struct list *l)
{
	struct fol_bpf_layout lay = { 0 };
	struct fol_bpf_faults *b = NULL;
	struct fol_msgs why = { 0 };
	int ret = fol_bpf_faults_layout(&lay, &why);

	if (!ret)
		ret = fol_bpf_faults_new(&b, &lay, &why);
	fol_bpf_faults_free(b);
	if (ret)
		add(l, "perf", "BPF fault path", FOL_CHECK_WARN,
		    "record takes the samples path (each fault's two samples): it costs more a fault",
		    "%s", fol_msgs_last(&why));
	else
		add(l, "perf", "BPF fault path", FOL_CHECK_OK, NULL,
		    "the programs load: record pairs each fault in the kernel (--fault-path)");
	fol_msgs_free(&why);
}

int fol_check_run(struct fol_check_item **items)
{
	struct list l = { 0 };

	check_perf(&l);
	check_bpf(&l);
	check_tracepoints(&l);
	check_counters(&l);
	check_thp(&l);
	check_page_tables(&l);
	*items = l.v;
	return l.n;
}
