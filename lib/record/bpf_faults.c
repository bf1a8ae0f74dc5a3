// SPDX-License-Identifier: GPL-2.0-only
#include "record/bpf_faults.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "data/bpf_record.h"
#include "record/tracepoint.h"
#include "util/msgs.h"

/* Whether a field of size at off is one the programs' tp_field() reads: naturally
 * aligned, past the common fields, in the record's first FOL_BPF_RAW_MAX bytes. */
static int tp_word_field(int off, int size)
{
	return off >= 8 && off % size == 0 && off + size <= FOL_BPF_RAW_MAX;
}

/* kmem:rss_stat's fields (the third tracepoint of tp): 0, or -ENOENT. */
static int rss_layout(struct fol_bpf_layout *l, const struct fol_tp *rss)
{
	int off = 0, size = 0, moff = 0, msize = 0, soff = 0, ssize = 0, ioff = 0, isize = 0;

	if (fol_tp_field(rss, NULL, &off, &size) || size > FOL_BPF_RAW_MAX ||
	    fol_tp_field(rss, "member", &moff, &msize) || msize != 4 ||
	    fol_tp_field(rss, "size", &soff, &ssize) || ssize != 8 ||
	    fol_tp_field(rss, "mm_id", &ioff, &isize) || isize != 4 || !tp_word_field(moff, msize) ||
	    !tp_word_field(soff, ssize) || !tp_word_field(ioff, isize))
		return -ENOENT;
	l->rss_record_size = (uint32_t)size;
	l->rss_member_off = (uint32_t)moff;
	l->rss_size_off = (uint32_t)soff;
	l->rss_mm_id_off = (uint32_t)ioff;
	return 0;
}

/* Kernel decisions' fields: the fault's error code, the allocation's order and gfp flags,
 * the RSS counter's. Off (0 in kernel_reuse) where one is missing or not as expected. */
static void reuse_layout(struct fol_bpf_layout *l, const struct fol_tp *fault)
{
	struct fol_tp *tp = NULL;
	int n = 0, eoff = 0, esize = 0, aoff = 0, asize = 0, ooff = 0, osize = 0, goff = 0, gsize = 0;
	int uoff = 0, usize = 0, nrss = 0;
	struct fol_tp *rss = NULL;

	if (fol_tp_field(fault, "error_code", &eoff, &esize) || esize != 8 ||
	    eoff + esize > FOL_BPF_RAW_MAX || fol_tp_field(fault, "address", &aoff, &asize) ||
	    asize != 8 || aoff + asize > FOL_BPF_RAW_MAX ||
	    fol_tp_resolve("kmem:mm_page_alloc", &tp, &n) || n != 1 ||
	    fol_tp_field(&tp[0], "order", &ooff, &osize) || osize != 4 || !tp_word_field(ooff, osize) ||
	    fol_tp_field(&tp[0], "gfp_flags", &goff, &gsize) || (gsize != 4 && gsize != 8) ||
	    !tp_word_field(goff, gsize) ||
	    /* The syscalls' arguments: unsigned longs from offset 16 (decide.bpf.c). */
	    fol_tp_resolve("syscalls:sys_enter_munmap", &tp, &n) || n != 2 ||
	    fol_tp_field(&tp[1], "len", &uoff, &usize) || uoff != 24 || usize != 8 ||
	    fol_tp_resolve("kmem:rss_stat", &tp, &n) || n != 3 || rss_layout(l, &tp[2]))
		l->kernel_reuse = 0;
	fol_tp_free(tp, n);
	l->address_off = (uint32_t)aoff;
	l->error_code_off = (uint32_t)eoff;
	l->alloc_order_off = (uint32_t)ooff;
	l->alloc_gfp_off = (uint32_t)goff;
	l->alloc_gfp_size = (uint32_t)gsize;
	l->page_shift = (uint32_t)__builtin_ctzl((unsigned long)sysconf(_SC_PAGESIZE));
	l->file_folio = asize == 8 && aoff + asize <= FOL_BPF_RAW_MAX &&
			!fol_tp_resolve("kmem:rss_stat", &rss, &nrss) && !rss_layout(l, &rss[0]);
	fol_tp_free(rss, nrss);
}

int fol_bpf_faults_layout(struct fol_bpf_layout *l, struct fol_msgs *why)
{
	struct fol_tp *tp = NULL;
	int n = 0, off = 0, size = 0, coff = 0, csize = 0;
	int ret = fol_tp_resolve("exceptions:page_fault_user", &tp, &n);

	if (!ret)
		ret = fol_tp_resolve("sched:sched_process_fork", &tp, &n);
	if (!ret && (n != 2 || fol_tp_field(&tp[0], NULL, &off, &size) || size > FOL_BPF_RAW_MAX ||
		     fol_tp_field(&tp[1], "child_pid", &coff, &csize) || csize != 4))
		ret = -ENOENT;
	if (!ret)
		reuse_layout(l, &tp[0]);
	fol_tp_free(tp, n);
	if (ret)
		fol_msgs_add(why, "the tracepoints it needs (exceptions:page_fault_user, "
				   "sched:sched_process_fork) are missing or not as expected");
	l->entry_size = (uint32_t)size;
	l->fork_child_off = (uint32_t)coff;
	return ret;
}

#ifdef FOL_NO_BPF

int fol_bpf_faults_new(struct fol_bpf_faults **out, const struct fol_bpf_layout *l, struct fol_msgs *why)
{
	(void)l;
	*out = NULL;
	fol_msgs_add(why, "this foliostat was built without BPF (NO_BPF=1)");
	return -ENOSYS;
}

void fol_bpf_faults_free(struct fol_bpf_faults *b)
{
	(void)b;
}

int fol_bpf_faults_attach(struct fol_bpf_faults *b, enum fol_bpf_prog p, struct perf_evsel *e)
{
	(void)b;
	(void)p;
	(void)e;
	return -ENOSYS;
}


int fol_bpf_faults_output(struct fol_bpf_faults *b, struct perf_evsel *e, struct perf_evsel *into)
{
	(void)b;
	(void)e;
	(void)into;
	return -ENOSYS;
}

int fol_bpf_faults_follow(struct fol_bpf_faults *b, int tid, int at_exec)
{
	(void)b;
	(void)tid;
	(void)at_exec;
	return -ENOSYS;
}

void fol_bpf_faults_unfollow(struct fol_bpf_faults *b, int tid)
{
	(void)b;
	(void)tid;
}

void fol_bpf_faults_dropped(const struct fol_bpf_faults *b, uint64_t *threads, uint64_t *records)
{
	(void)b;
	*threads = *records = 0;
}

void fol_bpf_faults_huge_zero(struct fol_bpf_faults *b, int policy)
{
	(void)b;
	(void)policy;
}

void fol_bpf_faults_stopping(struct fol_bpf_faults *b)
{
	(void)b;
}

int fol_bpf_faults_in_flight(struct fol_bpf_faults *b)
{
	(void)b;
	return 0;
}

int fol_bpf_faults_reuse(struct fol_bpf_faults *b,
			 int (*each)(void *ctx, const struct fol_bpf_reuse_key *k, const struct fol_bpf_reuse *v),
			 void *ctx)
{
	(void)b;
	(void)each;
	(void)ctx;
	return -ENOSYS;
}

void fol_bpf_faults_kstat(const struct fol_bpf_faults *b, uint64_t *out, int n)
{
	(void)b;
	memset(out, 0, sizeof(*out) * (size_t)n);
}

int fol_bpf_faults_time_on(struct fol_bpf_faults *b)
{
	(void)b;
	return -ENOSYS;
}

int fol_bpf_faults_time(const struct fol_bpf_faults *b, uint64_t *ns, uint64_t *runs)
{
	(void)b;
	*ns = *runs = 0;
	return -ENOSYS;
}

#else

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <linux/perf_event.h>
#include <perf/cpumap.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "sys/mthp.h"
#include "util/grow.h"
#include "util/u64map.h"

#include "faults.skel.h"

struct fol_bpf_faults {
	struct fol_faults_bpf *skel;
	struct fol_u64map *fd_of_id; /* perf event id -> this process's descriptor */
	int stats_fd;		     /* BPF statistics on while open; -1 */
};

/* libbpf prints to stderr by default; lib/ never prints. */
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/* sys/mthp.h's huge zero page policy in the programs' words (bpf_record.h). */
static uint32_t hz_of(int policy)
{
	switch (policy) {
	case FOL_HZ_NONE:
		return FOL_BPF_HZ_NONE;
	case FOL_HZ_MADVISE:
		return FOL_BPF_HZ_MADVISE;
	case FOL_HZ_ALWAYS:
		return FOL_BPF_HZ_ALWAYS;
	}
	return FOL_BPF_HZ_UNKNOWN;
}

int fol_bpf_faults_new(struct fol_bpf_faults **out, const struct fol_bpf_layout *l, struct fol_msgs *why)
{
	struct fol_bpf_faults *b = calloc(1, sizeof(*b));
	int ret;

	*out = NULL;
	if (!b)
		return -ENOMEM;
	b->stats_fd = -1;
	libbpf_set_print(quiet);
	b->skel = fol_faults_bpf__open();
	if (!b->skel) {
		ret = -errno;
		fol_msgs_add(why, "cannot open the BPF programs: %s", strerror(errno));
		free(b);
		return ret;
	}
	b->skel->rodata->entry_size = l->entry_size;
	b->skel->rodata->fork_child_off = l->fork_child_off;
	b->skel->rodata->every_task = !!l->every_task;
	b->skel->rodata->kernel_reuse = !!l->kernel_reuse;
	b->skel->rodata->by_cgroup = !!l->by_cgroup;
	b->skel->rodata->page_shift = l->page_shift;
	b->skel->rodata->error_code_off = l->error_code_off;
	b->skel->rodata->address_off = l->address_off;
	b->skel->rodata->alloc_order_off = l->alloc_order_off;
	b->skel->rodata->alloc_gfp_off = l->alloc_gfp_off;
	b->skel->rodata->alloc_gfp_size = l->alloc_gfp_size;
	b->skel->rodata->rss_mm_id_off = l->rss_mm_id_off;
	b->skel->rodata->rss_member_off = l->rss_member_off;
	b->skel->rodata->rss_size_off = l->rss_size_off;
	b->skel->rodata->rss_record_size = l->rss_record_size;
	/* Without kernel reuse its tables stay empty: one entry each, not 20 MB locked. */
	if (!l->kernel_reuse) {
		bpf_map__set_max_entries(b->skel->maps.kfolios, 1);
		bpf_map__set_max_entries(b->skel->maps.spaces, 1);
		bpf_map__set_max_entries(b->skel->maps.rss_last, 1);
	}
	if (!l->kernel_reuse || !l->by_cgroup)
		bpf_map__set_max_entries(b->skel->maps.reuse, 1);
	if (!l->kernel_reuse || l->by_cgroup)
		bpf_map__set_max_entries(b->skel->maps.reuse_by_order, 1);
	bpf_program__set_autoload(b->skel->progs.alloc, !!l->kernel_reuse);
	bpf_program__set_autoload(b->skel->progs.rss, !!l->kernel_reuse);
	bpf_program__set_autoload(b->skel->progs.munmap_enter, !!l->kernel_reuse);
	bpf_program__set_autoload(b->skel->progs.mremap_enter, !!l->kernel_reuse);
	bpf_program__set_autoload(b->skel->progs.mmap_enter, !!l->kernel_reuse);
	bpf_program__set_autoload(b->skel->progs.maps_changed, !!l->kernel_reuse);
	b->skel->rodata->file_folio = !!l->file_folio;
	b->skel->bss->huge_zero = hz_of(l->huge_zero);
	b->skel->rodata->pmd_order = l->pmd_order > 0 ? (uint32_t)l->pmd_order : 0;
	b->skel->rodata->sample_below = l->sample > 1 ? (uint32_t)((1ull << 32) / l->sample) : 0;
	ret = fol_faults_bpf__load(b->skel);
	if (ret) {
		fol_msgs_add(why, "the kernel refused the BPF programs (%s)%s", strerror(-ret),
			 geteuid() ? ": run as root (CAP_BPF and CAP_PERFMON)" : "");
		fol_faults_bpf__destroy(b->skel);
		free(b);
		return ret;
	}
	*out = b;
	return 0;
}

void fol_bpf_faults_free(struct fol_bpf_faults *b)
{
	if (!b)
		return;
	if (b->stats_fd >= 0)
		close(b->stats_fd);
	fol_faults_bpf__destroy(b->skel);
	fol_u64map_free(b->fd_of_id);
	free(b);
}

int fol_bpf_faults_time_on(struct fol_bpf_faults *b)
{
	if (b->stats_fd < 0)
		b->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	return b->stats_fd < 0 ? -errno : 0;
}

int fol_bpf_faults_time(const struct fol_bpf_faults *b, uint64_t *ns, uint64_t *runs)
{
	struct bpf_program *p;

	*ns = *runs = 0;
	bpf_object__for_each_program(p, b->skel->obj) {
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(p);

		if (fd < 0)
			continue; /* not loaded (autoload off) */
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			return -errno;
		*ns += info.run_time_ns;
		*runs += info.run_cnt;
	}
	return 0;
}

static struct bpf_program *prog(struct fol_bpf_faults *b, enum fol_bpf_prog p)
{
	switch (p) {
	case FOL_BPF_PROG_FAULT_USER:
		return b->skel->progs.fault_user;
	case FOL_BPF_PROG_FAULT_KERNEL:
		return b->skel->progs.fault_kernel;
	case FOL_BPF_PROG_EXIT:
		return b->skel->progs.fault_exit;
	case FOL_BPF_PROG_EXIT_MAJOR:
		return b->skel->progs.fault_exit_major;
	case FOL_BPF_PROG_FLUSH:
		return b->skel->progs.flush;
	case FOL_BPF_PROG_FORK:
		return b->skel->progs.fork;
	case FOL_BPF_PROG_EXEC:
		return b->skel->progs.exec;
	case FOL_BPF_PROG_THREAD_EXIT:
		return b->skel->progs.exit_thread;
	case FOL_BPF_PROG_ALLOC:
		return b->skel->progs.alloc;
	case FOL_BPF_PROG_RSS:
		return b->skel->progs.rss;
	case FOL_BPF_PROG_MUNMAP:
		return b->skel->progs.munmap_enter;
	case FOL_BPF_PROG_MREMAP:
		return b->skel->progs.mremap_enter;
	case FOL_BPF_PROG_MMAP:
		return b->skel->progs.mmap_enter;
	case FOL_BPF_PROG_RSS_FLUSH:
		return b->skel->progs.rss_flush;
	case FOL_BPF_PROG_LOCK_FLUSH:
		return b->skel->progs.lock_flush;
	case FOL_BPF_PROG_LOCK_READ:
		return b->skel->progs.lock_read;
	case FOL_BPF_PROG_MAPS:
		return b->skel->progs.maps_changed;
	}
	return NULL;
}

/* libperf keeps the file descriptors of the events it opened to itself (its public API
 * has no accessor, its internal headers need the kernel tree's). An event's id is public
 * (read with PERF_FORMAT_ID), and each perf descriptor of this process tells its own: the
 * ids of all of them, looked at again when an id is new. */
static int scan_fds(struct fol_bpf_faults *b)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;

	if (!d)
		return -errno;
	fol_u64map_free(b->fd_of_id);
	b->fd_of_id = fol_u64map_new(sizeof(int));
	while (b->fd_of_id && (de = readdir(d))) {
		char target[64];
		int fd = atoi(de->d_name), *slot;
		ssize_t n = readlinkat(dirfd(d), de->d_name, target, sizeof(target) - 1);
		uint64_t id;

		if (n <= 0 || de->d_name[0] == '.')
			continue;
		target[n] = '\0';
		if (strcmp(target, "anon_inode:[perf_event]") || ioctl(fd, PERF_EVENT_IOC_ID, &id))
			continue;
		slot = fol_u64map_put(b->fd_of_id, id, NULL);
		if (slot)
			*slot = fd;
	}
	closedir(d);
	return b->fd_of_id ? 0 : -ENOMEM;
}

static int evsel_fd(struct fol_bpf_faults *b, struct perf_evsel *e, int cpu_idx, int thread)
{
	struct perf_counts_values v = { 0 };
	const int *fd;

	if (perf_evsel__read(e, cpu_idx, thread, &v) || !v.id)
		return -EINVAL;
	fd = b->fd_of_id ? fol_u64map_get(b->fd_of_id, v.id) : NULL;
	if (!fd && !scan_fds(b))
		fd = fol_u64map_get(b->fd_of_id, v.id);
	return fd ? *fd : -ENOENT;
}

int fol_bpf_faults_attach(struct fol_bpf_faults *b, enum fol_bpf_prog p, struct perf_evsel *e)
{
	struct bpf_program *pr = prog(b, p);
	int ncpu = perf_cpu_map__nr(perf_evsel__cpus(e));
	int nthr = perf_thread_map__nr(perf_evsel__threads(e));

	if (!pr)
		return -EINVAL;
	for (int c = 0; c < ncpu; c++)
		for (int t = 0; t < nthr; t++) {
			int fd = evsel_fd(b, e, c, t);

			if (fd < 0)
				return fd;
			/* Through the perf event's ioctl rather than a bpf_link: the program then
			 * lives exactly as long as the event, libperf's to close. */
			if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, bpf_program__fd(pr)))
				return -errno;
		}
	return 0;
}

int fol_bpf_faults_output(struct fol_bpf_faults *b, struct perf_evsel *e, struct perf_evsel *into)
{
	struct perf_cpu_map *cpus = perf_evsel__cpus(e);

	for (int c = 0; c < perf_cpu_map__nr(cpus); c++) {
		uint32_t key = (uint32_t)perf_cpu_map__cpu(cpus, c).cpu;
		int fd = evsel_fd(b, e, c, 0), to = into ? evsel_fd(b, into, c, 0) : 0;

		if (fd < 0 || to < 0)
			return fd < 0 ? fd : to;
		if (into && ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, to))
			return -errno;
		if (bpf_map_update_elem(bpf_map__fd(b->skel->maps.out), &key, &fd, BPF_ANY))
			return -errno;
	}
	return 0;
}

int fol_bpf_faults_follow(struct fol_bpf_faults *b, int tid, int at_exec)
{
	uint32_t key = (uint32_t)tid;
	struct fol_bpf_pending p = { .before_exec = !!at_exec };

	return bpf_map_update_elem(bpf_map__fd(b->skel->maps.follow), &key, &p, BPF_ANY) ? -errno : 0;
}

void fol_bpf_faults_unfollow(struct fol_bpf_faults *b, int tid)
{
	uint32_t key = (uint32_t)tid;

	bpf_map_delete_elem(bpf_map__fd(b->skel->maps.follow), &key);
}

/* A per-CPU map's value at key: one copy per possible CPU, added into *sum. */
static int reuse_sum(int fd, const void *key, struct fol_bpf_reuse *per, int ncpu,
		     struct fol_bpf_reuse *sum)
{
	if (bpf_map_lookup_elem(fd, key, per))
		return -errno;
	memset(sum, 0, sizeof(*sum));
	for (int c = 0; c < ncpu; c++) {
		sum->faults += per[c].faults;
		sum->timed += per[c].timed;
		sum->time_ns += per[c].time_ns;
		sum->episodes += per[c].episodes;
		for (int i = 0; i < FOL_BPF_LAT_BUCKETS; i++)
			sum->lat[i] += per[c].lat[i];
	}
	return 0;
}

/* The counts by class and order alone (no cgroups): an array, whose cells without a fault
 * are left out as the hash leaves them (and none is forgotten). */
static int reuse_by_order(struct fol_bpf_faults *b, struct fol_bpf_reuse *per, int ncpu,
			  int (*each)(void *ctx, const struct fol_bpf_reuse_key *k, const struct fol_bpf_reuse *v),
			  void *ctx)
{
	int fd = bpf_map__fd(b->skel->maps.reuse_by_order), ret = 0;
	uint32_t n = bpf_map__max_entries(b->skel->maps.reuse_by_order);
	struct fol_bpf_reuse_key k = { 0 };
	struct fol_bpf_reuse sum;

	for (uint32_t o = 0; ret >= 0 && o < n; o++) {
		k.order = o % (FOL_BPF_MAX_ORDER + 1);
		k.cls = o / (FOL_BPF_MAX_ORDER + 1);
		if (!reuse_sum(fd, &o, per, ncpu, &sum) && sum.faults)
			ret = each(ctx, &k, &sum);
	}
	return ret;
}

int fol_bpf_faults_reuse(struct fol_bpf_faults *b,
			 int (*each)(void *ctx, const struct fol_bpf_reuse_key *k, const struct fol_bpf_reuse *v),
			 void *ctx)
{
	int fd = bpf_map__fd(b->skel->maps.reuse), ncpu = libbpf_num_possible_cpus(), ret = 0;
	struct fol_bpf_reuse_key k, next, *prev = NULL, *forget = NULL;
	struct fol_bpf_reuse *per, sum;
	size_t n = 0, cap = 0;

	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	if (!(per = calloc((size_t)ncpu, sizeof(*per))))
		return -ENOMEM;
	while (ret >= 0 && !bpf_map_get_next_key(fd, prev, &next)) {
		k = next;
		prev = &k;
		ret = reuse_sum(fd, &k, per, ncpu, &sum) ? 0 : each(ctx, &k, &sum);
		/* Out of memory: forgotten at a later walk. */
		if (ret == FOL_BPF_FORGET && !FOL_GROW(forget, cap, n + 1, 16))
			forget[n++] = k;
	}
	/* Deleted after the walk: a walk whose key was deleted starts again from the first. */
	for (size_t i = 0; i < n; i++)
		bpf_map_delete_elem(fd, &forget[i]);
	free(forget);
	ret = ret < 0 ? ret : reuse_by_order(b, per, ncpu, each, ctx);
	free(per);
	return ret < 0 ? ret : 0;
}

void fol_bpf_faults_kstat(const struct fol_bpf_faults *b, uint64_t *out, int n)
{
	int fd = bpf_map__fd(b->skel->maps.kstat), ncpu = libbpf_num_possible_cpus();
	uint64_t *per = ncpu > 0 ? calloc((size_t)ncpu, sizeof(*per)) : NULL;

	memset(out, 0, sizeof(*out) * (size_t)n);
	for (uint32_t k = 0; per && k < (uint32_t)n && k < FOL_BPF_K_NR; k++) {
		if (bpf_map_lookup_elem(fd, &k, per))
			continue;
		for (int c = 0; c < ncpu; c++)
			out[k] += per[c];
	}
	free(per);
}

void fol_bpf_faults_huge_zero(struct fol_bpf_faults *b, int policy)
{
	b->skel->bss->huge_zero = hz_of(policy);
}

void fol_bpf_faults_stopping(struct fol_bpf_faults *b)
{
	b->skel->bss->stopping = 1;
}

int fol_bpf_faults_in_flight(struct fol_bpf_faults *b)
{
	int fd = bpf_map__fd(b->skel->maps.follow), n = 0;
	uint32_t key, next, *prev = NULL;
	struct fol_bpf_pending p;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (!bpf_map_lookup_elem(fd, &key, &p) && p.state != FOL_BPF_IDLE)
			n++;
	}
	return n;
}

void fol_bpf_faults_dropped(const struct fol_bpf_faults *b, uint64_t *threads, uint64_t *records)
{
	int fd = bpf_map__fd(b->skel->maps.dropped);
	uint32_t k0 = 0, k1 = 1;

	*threads = *records = 0;
	bpf_map_lookup_elem(fd, &k0, threads);
	bpf_map_lookup_elem(fd, &k1, records);
}

#endif
