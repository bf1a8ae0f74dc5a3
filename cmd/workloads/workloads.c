// SPDX-License-Identifier: GPL-2.0-only
#include "workloads.h"

#include "util/madvise.h"
#include "util/clock.h"
#include "sys/counters.h"
#include "sys/mthp.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PMD_SIZE (2ul << 20)

const struct fol_wl_info fol_workloads[] = {
	{ "fork-reuse", FOL_WL_FORK_REUSE, "populate, fork, the child exits, the parent writes "
					   "again: write-protect reuse faults on exclusive folios" },
	{ "fork-loop", FOL_WL_FORK_LOOP, "populate, then --loops times: fork, the child exits, the "
					 "parent writes again (reuse counted per fork, not summed "
					 "over forks)" },
	{ "cow", FOL_WL_COW, "populate, fork, the parent writes while the child is alive: COW "
			     "copies (then the child writes: --child-writes)" },
	{ "populate", FOL_WL_POPULATE, "first touch only: anonymous allocation faults" },
	{ "pageout", FOL_WL_PAGEOUT, "populate, then MADV_PAGEOUT of the region (needs swap, or "
				     "--swapfile, or --zram); --swapin reads it back (in a forked "
				     "child with --swapin-child)" },
	{ "collapse", FOL_WL_COLLAPSE, "populate with 4K pages, then MADV_COLLAPSE into THP (or "
				       "--khugepaged: wait for khugepaged, woken every 10 ms); "
				       "--readonly collapses a read-only VMA" },
	{ NULL, 0, NULL },
};

const struct fol_wl_info *fol_wl_find(const char *name)
{
	for (int i = 0; fol_workloads[i].name; i++)
		if (!strcmp(fol_workloads[i].name, name))
			return &fol_workloads[i];
	return NULL;
}

static const char *const policy_names[] = {
	[FOL_WL_PTE_THP] = "pte-thp",
	[FOL_WL_THP] = "thp",
	[FOL_WL_MTHP] = "mthp",
	[FOL_WL_SMALL] = "small",
};

int fol_wl_parse_policy(const char *s, enum fol_wl_policy *out)
{
	for (size_t i = 0; i < sizeof(policy_names) / sizeof(policy_names[0]); i++)
		if (!strcmp(s, policy_names[i])) {
			*out = (enum fol_wl_policy)i;
			return 0;
		}
	return -EINVAL;
}

int fol_wl_parse_mode(const char *s, enum fol_wl_mode *out)
{
	static const char *const names[] = { "byte", "random", "memset" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i])) {
			*out = (enum fol_wl_mode)i;
			return 0;
		}
	return -EINVAL;
}


static void phase(FILE *f, const char *name, uint64_t start, uint64_t end)
{
	if (f)
		fprintf(f, "{\"phase\":\"%s\",\"start_ns\":%llu,\"end_ns\":%llu}\n", name,
			(unsigned long long)start, (unsigned long long)end);
}

static void touch(char *p, size_t size, size_t stride)
{
	for (size_t off = 0; off < size; off += stride)
		((volatile char *)p)[off] = (char)(off >> 12 | 1);
}

static void load(const char *p, size_t size, size_t stride)
{
	for (size_t off = 0; off < size; off += stride)
		(void)((const volatile char *)p)[off];
}

/* Keep the workload's own memory (heap, stack, thread stacks) on small pages, so that
 * every large folio of the recording is one of the region's: its geometry is then exact. */
static void small_pages_for_self(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if ((strstr(line, "[heap]") || strstr(line, "[stack]")) &&
		    sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			madvise((void *)lo, hi - lo, MADV_NOHUGEPAGE);
	}
	fclose(f);
}

#define THREAD_STACK (256u << 10)

struct slice {
	char *p;
	size_t size, stride;
};

static void *touch_slice(void *arg)
{
	struct slice *s = arg;

	touch(s->p, s->size, s->stride);
	return NULL;
}

/* A random permutation of the region's pages, made before the measured phases in memory
 * of its own (4K pages only), so that its faults and folios stay out of the region's. */
static uint32_t *random_order(size_t n)
{
	size_t bytes = n * sizeof(uint32_t);
	uint32_t *idx = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t x = 0x9e3779b97f4a7c15ull;

	if (idx == MAP_FAILED)
		return NULL;
	madvise(idx, bytes, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	for (size_t i = n; i > 1; i--) { /* Fisher-Yates with xorshift: reproducible */
		size_t j;
		uint32_t t;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		j = (size_t)(x % i);
		t = idx[i - 1], idx[i - 1] = idx[j], idx[j] = t;
	}
	return idx;
}

/* The write pass after fork, in the chosen pattern. */
static int write_pass(const struct fol_wl_opts *o, char *p, size_t page, size_t stride,
		      const uint32_t *order)
{
	if (o->mode == FOL_WL_MEMSET) {
		memset(p, 0x5a, o->size);
	} else if (o->mode == FOL_WL_RANDOM) {
		for (size_t i = 0; i < o->size / page; i++)
			((volatile char *)p)[(size_t)order[i] * page] = 1;
	} else if (o->threads > 1) {
		pthread_t tid[64];
		struct slice sl[64];
		int n = o->threads > 64 ? 64 : o->threads;
		size_t chunk = (o->size / (size_t)n) & ~(page - 1);
		char *stacks = mmap(NULL, (size_t)n * THREAD_STACK, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		pthread_attr_t attr;
		int ret = 0;

		if (stacks == MAP_FAILED)
			return -ENOMEM;
		madvise(stacks, (size_t)n * THREAD_STACK, MADV_NOHUGEPAGE);
		pthread_attr_init(&attr);
		for (int i = 0; i < n; i++) {
			sl[i] = (struct slice){ p + (size_t)i * chunk,
						i == n - 1 ? o->size - (size_t)i * chunk : chunk, stride };
			pthread_attr_setstack(&attr, stacks + (size_t)i * THREAD_STACK, THREAD_STACK);
			if (pthread_create(&tid[i], &attr, touch_slice, &sl[i])) {
				n = i;
				ret = -EAGAIN;
				break;
			}
		}
		for (int i = 0; i < n; i++)
			pthread_join(tid[i], NULL);
		pthread_attr_destroy(&attr);
		munmap(stacks, (size_t)(o->threads > 64 ? 64 : o->threads) * THREAD_STACK);
		return ret;
	} else {
		touch(p, o->size, stride);
	}
	return 0;
}

/* Formatted with mkswap(8) and enabled with flags: 0, -ENOEXEC (mkswap failed), -errno. */
static int make_swap(const char *path, int flags)
{
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		execlp("mkswap", "mkswap", path, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return -ENOEXEC;
	return swapon(path, flags) < 0 ? -errno : 0;
}

/* A swap file of size bytes: created, made swap, enabled. */
static int swap_on(const char *path, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600), ret;

	if (fd < 0)
		return -errno;
	if (posix_fallocate(fd, 0, (off_t)size)) {
		close(fd);
		unlink(path);
		return -ENOSPC;
	}
	close(fd);
	ret = make_swap(path, 0);
	if (ret)
		unlink(path);
	return ret;
}

static void swap_off(const char *path)
{
	swapoff(path);
	unlink(path);
}

#define ZRAM "/sys/block/zram0"

/* Swap on zram0: compressed RAM, a solid-state device to the kernel, so large folios are
 * swapped out whole (on a rotational disk the kernel splits them first). The device must
 * be free (disksize 0); it is reset after. */
static int zram_on(size_t size)
{
	char buf[32];
	int ret = fol_sysfs_read(ZRAM "/disksize", buf, sizeof(buf));

	if (ret)
		return ret == -ENOENT ? -ENODEV : ret;
	if (strtoull(buf, NULL, 10) != 0)
		return -EBUSY;
	snprintf(buf, sizeof(buf), "%zu", size);
	ret = fol_sysfs_write(ZRAM "/disksize", buf);
	/* Ahead of any other swap the machine has. */
	if (!ret && (ret = make_swap("/dev/zram0", SWAP_FLAG_PREFER | (32767 & SWAP_FLAG_PRIO_MASK))))
		fol_sysfs_write(ZRAM "/reset", "1");
	return ret;
}

static void zram_off(void)
{
	swapoff("/dev/zram0");
	fol_sysfs_write(ZRAM "/reset", "1");
}


/* What a run changed on the machine (swap, khugepaged's settings) is undone by the run
 * itself; and, should the workload die first (SIGKILL, an OOM kill in a memory cgroup),
 * by a guardian: a child that waits on a pipe and undoes it when the pipe ends with no
 * word from the workload. It ignores the signals a terminal sends the process group. */
static int guard_fd = -1;
static pid_t guard_pid;
static const char *swap_path; /* the swap file the guardian turns off and removes */

static void undo_swapfile(void)
{
	swap_off(swap_path);
}

static void guard(void (*undo)(void))
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	int p[2];
	char c;
	pid_t pid;

	/* A socket, not a pipe: a word to a guardian already gone must not raise SIGPIPE. */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p) < 0)
		return;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid == 0) {
		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			signal(sigs[i], SIG_IGN);
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			undo();
		_exit(0);
	}
	close(p[0]);
	guard_fd = p[1];
	guard_pid = pid;
}

/* The workload undid it itself: the guardian leaves. */
static void unguard(void)
{
	if (guard_fd < 0)
		return;
	send(guard_fd, "", 1, MSG_NOSIGNAL);
	close(guard_fd);
	guard_fd = -1;
	waitpid(guard_pid, NULL, 0);
}

/* The region a workload works on, and what it measures with. */
struct region {
	const struct fol_wl_opts *o;
	FILE *ph;		/* phase lines, or NULL */
	char *raw, *p;		/* the mapping, and its 2M-aligned start */
	size_t page, stride;
	uint32_t *order;	/* random mode: the pages in the order written */
};

/* fork-loop: every fork makes the region's folios shared again, and after the child's
 * exit the parent's writes find them exclusive once more: one reuse episode per folio
 * and fork. */
static int fork_loop(struct region *g)
{
	uint64_t forks = 0, writes = 0, t0, start = fol_mono_ns();
	int loops = g->o->loops ? g->o->loops : 50, ret = 0, st;
	char name[64];

	for (int i = 0; i < loops && !ret; i++) {
		pid_t pid;

		t0 = fol_mono_ns();
		pid = fork();
		if (pid < 0)
			return -errno;
		if (pid == 0)
			_exit(0);
		waitpid(pid, &st, 0);
		forks += fol_mono_ns() - t0;
		t0 = fol_mono_ns();
		ret = write_pass(g->o, g->p, g->page, g->stride, g->order);
		writes += fol_mono_ns() - t0;
	}
	/* Totals, laid end to end from the start of the loop: one line each, whatever the
	 * number of loops. */
	snprintf(name, sizeof(name), "fork+child-exit x%d", loops);
	phase(g->ph, name, start, start + forks);
	snprintf(name, sizeof(name), "reuse x%d", loops);
	phase(g->ph, name, start + forks, start + forks + writes);
	return ret;
}

/* cow --child-writes: the child, let go once the parent has copied the region, writes
 * it: it alone maps those folios now (reuse, of folios it inherited). Timed by the
 * parent, from the word to the child's exit. */
static int child_pass(struct region *g, pid_t pid, int go)
{
	uint64_t t0 = fol_mono_ns();
	int st;

	if (write(go, "", 1) != 1)
		return -errno;
	if (waitpid(pid, &st, 0) < 0)
		return -errno;
	phase(g->ph, "child-reuse", t0, fol_mono_ns());
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -EIO;
}

/* The child of cow: waits (killed after the parent's pass), or with --child-writes
 * writes the region when the parent says. _exit: the parent's stdio is not its own. */
static void cow_child(struct region *g, int go)
{
	char c;

	if (go < 0)
		pause();
	else if (read(go, &c, 1) != 1 || write_pass(g->o, g->p, g->page, g->stride, g->order))
		_exit(1);
	_exit(0);
}

/* fork-reuse (the child exits first: the parent's writes reuse) and cow (the child lives
 * on: the parent's writes copy). */
static int fork_and_write(struct region *g)
{
	int cow = g->o->kind == FOL_WL_COW, ret, st, go[2] = { -1, -1 };
	uint64_t t0 = fol_mono_ns();
	pid_t pid;

	if (cow && g->o->child_writes && pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0)
		ret = -errno;
	if (pid == 0) {
		if (cow)
			cow_child(g, go[0]);
		_exit(0);
	}
	if (pid < 0)
		goto out;
	if (!cow)
		waitpid(pid, &st, 0);
	phase(g->ph, cow ? "fork" : "fork+child-exit", t0, fol_mono_ns());
	t0 = fol_mono_ns();
	ret = write_pass(g->o, g->p, g->page, g->stride, g->order);
	phase(g->ph, cow ? "cow" : "reuse", t0, fol_mono_ns());
	if (cow && go[1] >= 0 && !ret) {
		ret = child_pass(g, pid, go[1]);
	} else if (cow) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
out:
	if (go[0] >= 0) {
		close(go[0]);
		close(go[1]);
	}
	return ret;
}

/* All but the first page of each block unmapped: the folios left partly mapped, which
 * reclaim splits before writing (their unmapped pages freed, not written). */
static int keep_one(struct region *g)
{
	size_t b = g->o->keep_one;
	uint64_t t0 = fol_mono_ns();

	for (size_t off = 0; off + b <= g->o->size; off += b)
		if (madvise((char *)g->p + off + g->page, b - g->page, MADV_DONTNEED) < 0)
			return -errno;
	phase(g->ph, "keep-one", t0, fol_mono_ns());
	return 0;
}

static int page_out(struct region *g)
{
	int ret = g->o->keep_one ? keep_one(g) : 0;
	uint64_t t0 = fol_mono_ns();

	if (!ret && madvise(g->p, g->o->size, FOL_MADV_PAGEOUT) < 0)
		ret = -errno;
	phase(g->ph, "pageout", t0, fol_mono_ns());
	if (!ret && g->o->swapin) {
		pid_t child = g->o->swapin == 2 ? fork() : 0;
		volatile char sum = 0;
		int st;

		t0 = fol_mono_ns();
		if (child < 0)
			ret = -errno;
		else if (child > 0)
			waitpid(child, &st, 0);
		else
			for (size_t off = 0; off < g->o->size; off += g->page)
				sum += ((volatile char *)g->p)[off];
		if (g->o->swapin == 2 && child == 0)
			_exit(0);
		phase(g->ph, "swapin", t0, fol_mono_ns());
	}
	if (g->o->swapfile)
		swap_off(g->o->swapfile);
	if (g->o->zram)
		zram_off();
	unguard();
	return ret;
}

/* The tuning of a khugepaged run, put back on every way out: a signal that ends the
 * workload restores it first. */
static struct fol_mthp khugepaged_tuning;

static void undo_tuning(void)
{
	fol_mthp_restore(&khugepaged_tuning);
}

static void restore_tuning(int sig)
{
	fol_mthp_restore(&khugepaged_tuning);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* PMD-mapped THP in the process now (smaps_rollup's AnonHugePages), bytes. */
static size_t anon_huge_bytes(void)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "re");
	char line[256];
	unsigned long kb = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %lu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return (size_t)kb << 10;
}

/* khugepaged's collapse, not MADV_COLLAPSE: the region offered with MADV_HUGEPAGE and
 * waited for. khugepaged sleeps 10 s between passes by default; for the run it wakes
 * every 10 ms (and PMD THP is allowed on MADV_HUGEPAGE regions if it was off). */
static int collapse_by_khugepaged(struct region *g)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	char spec[160], thp[16] = "";
	uint64_t t0, deadline;
	int ret;

	fol_mthp_read_policy("/sys/kernel/mm/transparent_hugepage/enabled", thp, sizeof(thp));
	snprintf(spec, sizeof(spec), "khugepaged.scan_sleep_millisecs=10,"
		 "khugepaged.alloc_sleep_millisecs=10%s", strcmp(thp, "never") ? "" : ",thp=madvise");
	ret = fol_mthp_parse(spec, "", &khugepaged_tuning, NULL);
	if (ret)
		return ret;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], restore_tuning);
	ret = fol_mthp_apply(&khugepaged_tuning);
	/* Not in the guardian: pages it shared would keep khugepaged from collapsing them. */
	madvise(g->p, g->o->size, MADV_DONTFORK);
	if (!ret)
		guard(undo_tuning);
	t0 = fol_mono_ns();
	deadline = t0 + 30ull * 1000000000ull;
	if (!ret)
		madvise(g->p, g->o->size, MADV_HUGEPAGE);
	while (!ret && anon_huge_bytes() < (g->o->size & ~(PMD_SIZE - 1)) && fol_mono_ns() < deadline)
		usleep(5000);
	if (!ret && anon_huge_bytes() < (g->o->size & ~(PMD_SIZE - 1)))
		ret = -ETIMEDOUT;
	phase(g->ph, g->o->readonly ? "khugepaged-readonly" : "khugepaged", t0, fol_mono_ns());
	fol_mthp_restore(&khugepaged_tuning);
	unguard();
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	return ret;
}

/* One PMD at a time, each asked again on EAGAIN: its pages were busy for a moment
 * (locked, off the LRU, an extra reference: "trying again might succeed", says the
 * kernel; 7 of 8 collapsed once in make check here). Asking again for the whole range
 * would scan the collapsed ones twice, and the tests count one scan a PMD and a scan
 * more for each busy one. */
static int collapse_each_pmd(struct region *g)
{
	int ret = 0;

	for (size_t off = 0; off < g->o->size; off += PMD_SIZE) {
		size_t len = g->o->size - off < PMD_SIZE ? g->o->size - off : PMD_SIZE;
		int r = 0;

		for (int tries = 0; tries < 3; tries++) {
			r = madvise((char *)g->p + off, len, FOL_MADV_COLLAPSE) < 0 ? -errno : 0;
			if (r != -EAGAIN)
				break;
		}
		if (r && !ret)
			ret = r;
	}
	return ret;
}

static int collapse(struct region *g)
{
	uint64_t t0;
	int ret;

	if (g->o->readonly && mprotect(g->p, g->o->size, PROT_READ) < 0)
		return -errno;
	if (g->o->khugepaged)
		return collapse_by_khugepaged(g);
	madvise(g->p, g->o->size, MADV_HUGEPAGE);
	t0 = fol_mono_ns();
	ret = collapse_each_pmd(g);
	phase(g->ph, g->o->readonly ? "collapse-readonly" : "collapse", t0, fol_mono_ns());
	return ret;
}

/* The policy's madvise of the region. */
static void prepare_policy(struct region *g)
{
	const struct fol_wl_opts *o = g->o;

	if (o->kind == FOL_WL_COLLAPSE)
		madvise(g->p, o->size, MADV_NOHUGEPAGE); /* populate with 4K pages, then collapse */
	else if (o->policy == FOL_WL_PTE_THP || o->policy == FOL_WL_THP)
		madvise(g->p, o->size, MADV_HUGEPAGE);
	else if (o->policy == FOL_WL_SMALL)
		madvise(g->p, o->size, MADV_NOHUGEPAGE);
}

/* Before the first touch: the policy's madvise, and swap for pageout. */
static int prepare(struct region *g)
{
	const struct fol_wl_opts *o = g->o;

	prepare_policy(g);
	if (o->kind != FOL_WL_PAGEOUT)
		return 0;
	if (o->swapfile) {
		int ret = swap_on(o->swapfile, o->size + (64u << 20));

		swap_path = o->swapfile;
		if (!ret)
			guard(undo_swapfile);
		return ret;
	}
	if (o->zram) {
		int ret = zram_on(o->size + (64u << 20));

		if (!ret)
			guard(zram_off);
		return ret;
	}
	return fol_swap_devices() ? 0 : -ENOSPC;
}

/* Writes of 1s through /proc/self/mem, 64K at a time from a buffer populated apart: the
 * kernel's get_user_pages() faults the region in, no exception taken on it. */
static int write_procmem(struct region *g)
{
	static char ones[64 << 10];
	int fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	memset(ones, 1, sizeof(ones));
	for (size_t off = 0; off < g->o->size && !ret; off += sizeof(ones)) {
		size_t n = g->o->size - off < sizeof(ones) ? g->o->size - off : sizeof(ones);

		if (pwrite(fd, ones, n, (off_t)(uintptr_t)((char *)g->p + off)) != (ssize_t)n)
			ret = -EIO;
	}
	close(fd);
	return ret;
}

/* Reads of a file with O_DIRECT into the region, 1M at a time, the file over again until
 * the region is full: the block layer pins the pages (get_user_pages), no exception. A
 * read of a length not a multiple of the page leaves the next one unaligned: refused. */
static int read_direct(struct region *g)
{
	int fd = open(g->o->dio_file, O_RDONLY | O_DIRECT | O_CLOEXEC);
	size_t off = 0;
	off_t at = 0;
	int ret = 0;

	if (fd < 0)
		return -errno;
	while (off < g->o->size && !ret) {
		size_t want = g->o->size - off < (1u << 20) ? g->o->size - off : (1u << 20);
		ssize_t n = pread(fd, (char *)g->p + off, want, at);

		if (n < 0)
			ret = -errno;
		else if (n == 0 && at == 0)
			ret = -ENODATA;
		else if (n % (ssize_t)g->page)
			ret = -EINVAL;
		off += n > 0 ? (size_t)n : 0;
		at = n > 0 ? at + n : 0;
	}
	close(fd);
	return ret;
}

/* The region becomes the start of a file (as long as the region, or longer), mapped
 * private over it, and each page is read: file faults, on pages the page cache holds
 * when the file was read before (the caller's part: the workload does no I/O of its own
 * beyond the faults). Fault-around maps up to 16 pages a fault (fault_around_bytes; a
 * whole large folio where the kernel maps one at once: 79 faults for 64M of 1M folios
 * here, 1,028 for 4K ones). */
static int map_file(struct region *g)
{
	int fd = open(g->o->map_file, O_RDONLY | O_CLOEXEC);
	off_t end;
	void *p;

	if (fd < 0)
		return -errno;
	end = lseek(fd, 0, SEEK_END);
	if (end < 0 || (size_t)end < g->o->size) {
		close(fd);
		return end < 0 ? -errno : -EFBIG;
	}
	p = mmap(g->p, g->o->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	load(g->p, g->o->size, g->page);
	return 0;
}

/* The kernel populates the region, asked as o->populate_by says: its folios come
 * without a fault. Or loads do (a read, a file), for faults of other classes. */
static int populate_by_kernel(struct region *g)
{
	switch (g->o->populate_by) {
	case FOL_WL_BY_MADVISE:
		return madvise(g->p, g->o->size, FOL_MADV_POPULATE_WRITE) ? -errno : 0; /* EINVAL before 5.14 */
	case FOL_WL_BY_MMAP:
		if (mmap(g->p, g->o->size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_POPULATE, -1, 0) == MAP_FAILED)
			return -errno;
		prepare_policy(g);
		return 0;
	case FOL_WL_BY_MLOCK:
		if (mlock(g->p, g->o->size))
			return -errno;
		return munlock(g->p, g->o->size) ? -errno : 0;
	case FOL_WL_BY_PROCMEM:
		return write_procmem(g);
	case FOL_WL_BY_DIO:
		return read_direct(g);
	case FOL_WL_BY_READ:
		load(g->p, g->o->size, g->page);
		return 0;
	case FOL_WL_BY_FILE:
		return map_file(g);
	default:
		touch(g->p, g->o->size, g->page);
		return 0;
	}
}

/* The first touch of every page (or the kernel's), and for pte-thp the PMD mappings
 * split. */
static int populate(struct region *g)
{
	uint64_t t0 = fol_mono_ns();
	int ret = populate_by_kernel(g);

	if (ret)
		return ret;
	phase(g->ph, "populate", t0, fol_mono_ns());
	if (g->o->policy != FOL_WL_PTE_THP || g->o->kind == FOL_WL_COLLAPSE)
		return 0;
	/* Keep khugepaged off the region before any PMD mapping is split: a new
	 * MADV_HUGEPAGE process wakes it at once, and it copies PTE-mapped folios into new
	 * PMD-mapped ones, whose write after fork is then one fault, not 512 (seen: 8 of 8
	 * collapsed with the flag set after the split; still 1 of 30 runs, in the moment
	 * between the two, with khugepaged scanning without a pause). The flag changes no
	 * folio and no mapping. */
	madvise(g->p, g->o->size, MADV_NOHUGEPAGE);
	/* Changing the protection of one page splits the PMD mapping, not the folio: the 2M
	 * folio stays whole but is mapped by 512 PTEs. */
	t0 = fol_mono_ns();
	for (size_t off = 0; off + PMD_SIZE <= g->o->size; off += PMD_SIZE) {
		mprotect(g->p + off, g->page, PROT_READ);
		mprotect(g->p + off, g->page, PROT_READ | PROT_WRITE);
	}
	phase(g->ph, "pte-map", t0, fol_mono_ns());
	return 0;
}

/* What each workload does once the region is populated. */
static int (*const after_populate[])(struct region *) = {
	[FOL_WL_FORK_REUSE] = fork_and_write,
	[FOL_WL_FORK_LOOP] = fork_loop,
	[FOL_WL_COW] = fork_and_write,
	[FOL_WL_POPULATE] = NULL,
	[FOL_WL_PAGEOUT] = page_out,
	[FOL_WL_COLLAPSE] = collapse,
};

int fol_wl_run(const struct fol_wl_opts *o)
{
	struct region g = { .o = o, .page = (size_t)sysconf(_SC_PAGESIZE) };
	int ret;

	g.stride = o->stride ? o->stride : g.page;
	small_pages_for_self();
	g.ph = o->phase_file ? fopen(o->phase_file, "we") : NULL;
	/* Natural 2M alignment so that every folio size can be used. */
	g.raw = mmap(NULL, o->size + PMD_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		     -1, 0);
	if (g.raw == MAP_FAILED) {
		ret = -errno;
		goto out;
	}
	g.p = (char *)(((uintptr_t)g.raw + PMD_SIZE - 1) & ~(PMD_SIZE - 1));
	ret = o->mode == FOL_WL_RANDOM && !(g.order = random_order(o->size / g.page)) ? -ENOMEM : 0;
	if (!ret)
		ret = prepare(&g);
	if (!ret)
		ret = populate(&g);
	if (!ret) {
		if (o->delay_ms && after_populate[o->kind])
			usleep((useconds_t)o->delay_ms * 1000); /* time for record -p to attach */
		if (after_populate[o->kind])
			ret = after_populate[o->kind](&g);
	}
	if (o->hold_ms)
		usleep((useconds_t)o->hold_ms * 1000); /* for foliostat maps -p to look at it */
	if (g.order)
		munmap(g.order, o->size / g.page * sizeof(*g.order));
	munmap(g.raw, o->size + PMD_SIZE);
out:
	if (g.ph)
		fclose(g.ph);
	return ret;
}
