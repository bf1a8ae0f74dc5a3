// SPDX-License-Identifier: GPL-2.0-only
#include "sys/pagecache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util/indexed.h"
#include "sys/maps.h"
#include "util/order.h"
#include "util/u64map.h"
#include "util/json.h"

/* linux/magic.h */
#define OVERLAYFS_MAGIC 0x794c7630

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

/* A file's mapped ranges: a few kept apart (text, data, a window of a data file), more
 * than that folded into one. */
#define PC_RANGES 16
/* Pages of a file mapped at a time to read its page cache: 256 MB of 4K pages. */
#define PC_WINDOW (1u << 16)
/* All files together: at most this many pages read (16 GB of 4K pages), so that a
 * recording of a process that mapped a huge file does not end in a walk of it. */
#define PC_MAX_PAGES (1ull << 22)

static uint64_t id_hash(const struct fol_file_id *id)
{
	uint64_t h = fol_hash(FOL_HASH_INIT, &id->maj, sizeof(id->maj));

	h = fol_hash(h, &id->min, sizeof(id->min));
	return fol_hash(h, &id->ino, sizeof(id->ino));
}

static int same_id(const struct fol_file_id *a, const struct fol_file_id *b)
{
	return a->maj == b->maj && a->min == b->min && a->ino == b->ino;
}

/* Recording. */

struct pc_range {
	uint64_t lo, hi; /* page indexes [lo, hi) */
};

struct pc_note {
	struct fol_file_id id; /* first: the key */
	char *path;
	struct pc_range r[PC_RANGES];
	int nr;
};

struct fol_pc_files {
	struct fol_indexed notes;
};

static int note_same(const void *elem, const void *key)
{
	return same_id(&((const struct pc_note *)elem)->id, &((const struct pc_note *)key)->id);
}

struct fol_pc_files *fol_pc_files_new(void)
{
	struct fol_pc_files *f = calloc(1, sizeof(*f));

	if (f && fol_indexed_init(&f->notes, sizeof(struct pc_note))) {
		free(f);
		return NULL;
	}
	return f;
}

void fol_pc_files_free(struct fol_pc_files *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->notes.n; i++)
		free(FOL_INDEXED_AT(&f->notes, struct pc_note, i)->path);
	fol_indexed_free(&f->notes);
	free(f);
}

static void add_range(struct pc_note *n, uint64_t lo, uint64_t hi)
{
	for (int i = 0; i < n->nr; i++) {
		struct pc_range *r = &n->r[i];

		if (lo <= r->hi && hi >= r->lo) {
			r->lo = lo < r->lo ? lo : r->lo;
			r->hi = hi > r->hi ? hi : r->hi;
			return;
		}
	}
	if (n->nr == PC_RANGES) {
		for (int i = 1; i < n->nr; i++) {
			lo = n->r[i].lo < lo ? n->r[i].lo : lo;
			hi = n->r[i].hi > hi ? n->r[i].hi : hi;
		}
		n->nr = 0;
		lo = n->r[0].lo < lo ? n->r[0].lo : lo;
		hi = n->r[0].hi > hi ? n->r[0].hi : hi;
	}
	n->r[n->nr++] = (struct pc_range){ lo, hi };
}

int fol_pc_files_note(struct fol_pc_files *f, const struct fol_file_id *id, const char *path,
		      uint64_t pgoff, uint64_t pages)
{
	struct pc_note key = { .id = *id }, *n;
	int created;

	if (!pages || pgoff + pages < pgoff)
		return 0;
	n = fol_indexed_get(&f->notes, id_hash(id), &key, note_same, &created);
	if (!n)
		return -ENOMEM;
	if (created) {
		if (!(n->path = strdup(path))) {
			fol_indexed_unget(&f->notes);
			return -ENOMEM;
		}
	}
	add_range(n, pgoff, pgoff + pages);
	return 0;
}

/* The walk of one snapshot. */
struct snap {
	struct fol_kpf k;
	int pm;			/* /proc/self/pagemap */
	long page;
	uint64_t budget;	/* pages left to read */
	const volatile sig_atomic_t *signals;
	sig_atomic_t seen;
	cJSON *runs;		/* of the file being read */
	uint64_t run_index, run_n, next; /* the run being built; next: the first index after
					  * the last folio found */
	int run_order;
	uint64_t hidden;	/* pages whose frame was hidden (not root) */
	time_t since;		/* the recording's start */
	cJSON *unread;		/* the first files not read, and why */
};

static int flush_run(struct snap *s)
{
	cJSON *o;

	if (!s->run_n)
		return 0;
	o = cJSON_CreateObject();
	if (!o || !cJSON_AddNumberToObject(o, "index", (double)s->run_index) ||
	    !cJSON_AddNumberToObject(o, "order", s->run_order) ||
	    !cJSON_AddNumberToObject(o, "n", (double)s->run_n)) {
		cJSON_Delete(o);
		return -ENOMEM;
	}
	cJSON_AddItemToArray(s->runs, o);
	s->run_n = 0;
	return 0;
}

/* A folio at file index start: onto the run it continues, or a new one. */
static int add_folio(struct snap *s, uint64_t start, int order)
{
	if (start < s->next)
		return 0; /* a page of the folio found before */
	s->next = start + (1ull << order);
	if (s->run_n && order == s->run_order && start == s->run_index + (s->run_n << order)) {
		s->run_n++;
		return 0;
	}
	if (flush_run(s))
		return -ENOMEM;
	s->run_index = start;
	s->run_order = order;
	s->run_n = 1;
	return 0;
}

/* The resident pages of a window [lo, lo + n) of the file, mapped at p: made present in
 * this process's page tables (they are in the page cache; nothing is read from disk but
 * by a race with eviction), then their frames and folios read. */
static int read_window(struct snap *s, char *p, uint64_t lo, uint64_t n)
{
	unsigned char *vec = malloc(n);
	uint64_t *pm = malloc(n * sizeof(*pm));
	int ret = 0;

	if (!vec || !pm) {
		ret = -ENOMEM;
		goto out;
	}
	if (mincore(p, n * (uint64_t)s->page, vec) < 0) {
		ret = -errno;
		goto out;
	}
	for (uint64_t i = 0; i < n;) {
		uint64_t j = i;

		while (j < n && (vec[j] & 1))
			j++;
		if (j > i && madvise(p + i * s->page, (j - i) * s->page, MADV_POPULATE_READ) < 0)
			for (uint64_t t = i; t < j; t++) /* before 5.14: touched */
				(void)((volatile char *)p)[t * s->page];
		i = j + 1;
	}
	if (pread(s->pm, pm, n * sizeof(*pm), (off_t)((uintptr_t)p / s->page * 8)) != (ssize_t)(n * sizeof(*pm))) {
		ret = -EIO;
		goto out;
	}
	for (uint64_t i = 0; i < n && !ret; i++) {
		uint64_t pfn = pm[i] & FOL_PM_PFN_MASK, head;
		int order;

		if (!(vec[i] & 1) || !(pm[i] & FOL_PM_PRESENT))
			continue;
		if (!pfn) {
			s->hidden++;
			continue;
		}
		head = fol_kpf_folio(&s->k, pfn, &order);
		if (pfn - head <= lo + i)
			ret = add_folio(s, lo + i - (pfn - head), order);
	}
out:
	free(vec);
	free(pm);
	return ret;
}

static int read_range(struct snap *s, int fd, uint64_t lo, uint64_t hi)
{
	int ret = 0;

	while (!ret && lo < hi && s->budget) {
		uint64_t n = hi - lo < PC_WINDOW ? hi - lo : PC_WINDOW;
		char *p;

		if (s->signals && *s->signals != s->seen)
			return -EINTR;
		n = n < s->budget ? n : s->budget;
		p = mmap(NULL, n * s->page, PROT_READ, MAP_SHARED, fd, (off_t)(lo * s->page));
		if (p == MAP_FAILED)
			return -errno;
		ret = read_window(s, p, lo, n);
		munmap(p, n * s->page);
		s->budget -= n;
		lo += n;
	}
	return ret;
}

/* Whether the regular file open at fd (stat st) is n's. A file of an overlayfs (a
 * container's root, the guests of make check-kernels) is mapped as its real upper or
 * lower file, which the MMAP2 record names, while its path stats as the overlay's device
 * and, with xino, another inode number: such a file is taken for n's when it has not
 * changed since the recording began (as symbols.c takes a file without a build-id). */
static int is_noted_file(int fd, const struct stat *st, const struct pc_note *n, time_t since)
{
	struct statfs sf;

	if (!S_ISREG(st->st_mode))
		return 0;
	if (major(st->st_dev) == n->id.maj && minor(st->st_dev) == n->id.min && st->st_ino == n->id.ino)
		return 1;
	return !fstatfs(fd, &sf) && sf.f_type == OVERLAYFS_MAGIC && st->st_mtime < since &&
	       st->st_ctime < since;
}

/* The file at n's path, if it is still n's file (device, inode): opened by that check,
 * not by its name a second time, and only a regular file (a device is never mapped). */
static int open_same(const struct pc_note *n, time_t since, int *overlay)
{
	char self[64];
	struct stat st;
	int fd = open(n->path, O_PATH | O_CLOEXEC), rfd = -1;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		st.st_mode = 0; /* not a regular file: refused below */
	*overlay = major(st.st_dev) != n->id.maj || minor(st.st_dev) != n->id.min;
	if (is_noted_file(fd, &st, n, since)) {
		snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
		rfd = open(self, O_RDONLY | O_CLOEXEC);
		rfd = rfd < 0 ? -errno : rfd;
	} else {
		rfd = -ESTALE;
	}
	close(fd);
	return rfd;
}

/* A file not read, and why, kept for the first few: a reader of the chunk sees which. */
static void unread_one(cJSON *unread, const char *path, int err)
{
	cJSON *o;

	if (cJSON_GetArraySize(unread) >= 16 || !(o = cJSON_CreateObject()))
		return;
	cJSON_AddStringToObject(o, "path", path);
	cJSON_AddStringToObject(o, "why", err == -ESTALE ? "not the recorded file (device, inode, or changed since)"
					 : err == -ENODATA ? "on an overlayfs, no page of it resident through the overlay (a FUSE lower drops its page cache at open)"
							 : strerror(-err));
	cJSON_AddItemToArray(unread, o);
}

static int read_file(struct snap *s, const struct pc_note *n, cJSON *files, uint64_t *unread)
{
	int overlay = 0, fd = open_same(n, s->since, &overlay), ret = 0;
	struct stat st;
	cJSON *o;

	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		unread_one(s->unread, n->path, fd < 0 ? fd : -errno);
		(*unread)++;
		return 0;
	}
	o = cJSON_CreateObject();
	s->runs = cJSON_CreateArray();
	if (!o || !s->runs || !cJSON_AddStringToObject(o, "path", n->path) ||
	    !cJSON_AddNumberToObject(o, "maj", n->id.maj) ||
	    !cJSON_AddNumberToObject(o, "min", n->id.min) ||
	    !cJSON_AddNumberToObject(o, "ino", (double)n->id.ino)) {
		ret = -ENOMEM;
		goto out;
	}
	s->run_n = 0;
	s->next = 0;
	for (int i = 0; i < n->nr && !ret; i++) {
		uint64_t size = ((uint64_t)st.st_size + (uint64_t)s->page - 1) / (uint64_t)s->page;
		uint64_t hi = n->r[i].hi < size ? n->r[i].hi : size;

		if (n->r[i].lo < hi)
			ret = read_range(s, fd, n->r[i].lo, hi);
	}
	if (!ret || ret == -EINTR)
		ret = flush_run(s) ?: ret;
	/* Through an overlay, nothing resident is no evidence of eviction: a virtiofs lower
	 * (FUSE) invalidates its page cache when the file is opened, as this read does. Not
	 * read, then, rather than "evicted". */
	if (!ret && overlay && !cJSON_GetArraySize(s->runs)) {
		unread_one(s->unread, n->path, -ENODATA);
		(*unread)++;
		cJSON_Delete(s->runs);
		s->runs = NULL;
		cJSON_Delete(o);
		close(fd);
		return 0;
	}
	if (ret != -ENOMEM) {
		cJSON_AddItemToObject(o, "runs", s->runs);
		s->runs = NULL;
		cJSON_AddItemToArray(files, o);
		o = NULL;
	}
out:
	cJSON_Delete(s->runs);
	s->runs = NULL;
	cJSON_Delete(o);
	close(fd);
	return ret == -ENOMEM || ret == -EINTR ? ret : 0;
}

/* Ranges are read in file order, so that a file's runs come out sorted by index. */
static int range_cmp(const void *a, const void *b)
{
	const struct pc_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

cJSON *fol_pc_snapshot(struct fol_pc_files *f, const char *root, time_t since,
		       const volatile sig_atomic_t *signals)
{
	struct snap s = { .page = sysconf(_SC_PAGESIZE), .budget = PC_MAX_PAGES, .since = since,
			  .signals = signals, .seen = signals ? *signals : 0 };
	cJSON *j = cJSON_CreateObject(), *files = cJSON_AddArrayToObject(j, "files");
	uint64_t unread = 0;
	int ret = 0;

	s.unread = cJSON_AddArrayToObject(j, "unread");
	if (!j || !files || !s.unread) {
		cJSON_Delete(j);
		return NULL;
	}
	s.pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (s.pm < 0 || fol_kpf_open(&s.k, root)) {
		cJSON_AddStringToObject(j, "error", "page frames or flags not readable (not root)");
		goto out;
	}
	/* Page-cache pages lie scattered: 512 frames read for each cost 0.35 s for a
	 * compiler's 11,000 pages; 16 (a 64K folio's) cost 0.05 s. */
	s.k.block = 16;
	for (size_t i = 0; i < f->notes.n && !ret; i++) {
		struct pc_note *n = FOL_INDEXED_AT(&f->notes, struct pc_note, i);

		qsort(n->r, (size_t)n->nr, sizeof(n->r[0]), range_cmp);
		ret = read_file(&s, n, files, &unread);
	}
	if (ret == -ENOMEM) {
		cJSON_Delete(j);
		j = NULL;
		goto out;
	}
	cJSON_AddNumberToObject(j, "unreadable_files", (double)unread);
	if (ret == -EINTR || !s.budget)
		cJSON_AddStringToObject(j, "error", ret == -EINTR ? "interrupted" : "too many pages");
	if (s.hidden)
		cJSON_AddNumberToObject(j, "hidden_pages", (double)s.hidden);
out:
	if (s.pm >= 0)
		close(s.pm);
	fol_kpf_close(&s.k);
	return j;
}

/* Report. */

struct pc_run {
	uint64_t index, n;
	int order;
};

struct pc_file {
	struct fol_file_id id; /* first: the key */
	struct fol_u64map *added; /* index of the first page -> order, while mapped */
	struct pc_run *runs;	  /* at the end, sorted by index */
	size_t nruns;
	int snapshot;		  /* 1: in the snapshot; 0: the recording has none; -1:
				   * the snapshot could not read it */
};

struct fol_pagecache {
	struct fol_indexed files;
	int have_snapshot;
};

static int file_same(const void *elem, const void *key)
{
	return same_id(&((const struct pc_file *)elem)->id, &((const struct pc_file *)key)->id);
}

static struct pc_file *file_get(const struct fol_pagecache *pc, const struct fol_file_id *id)
{
	struct pc_file key = { .id = *id };

	return fol_indexed_find(&pc->files, id_hash(id), &key, file_same);
}

static struct pc_file *file_make(struct fol_pagecache *pc, const struct fol_file_id *id)
{
	struct pc_file key = { .id = *id, .snapshot = pc->have_snapshot ? -1 : 0 };
	int created;

	return fol_indexed_get(&pc->files, id_hash(id), &key, file_same, &created);
}

static int run_cmp(const void *a, const void *b)
{
	const struct pc_run *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

static double member(const cJSON *o, const char *k, double lo, double hi)
{
	double v = fol_json_num(o, k, -1);

	return v >= lo && v <= hi ? v : -1;
}

/* One file of the snapshot: its runs, sorted, those that overlap another left out. */
static int load_file(struct fol_pagecache *pc, const cJSON *o)
{
	double maj = member(o, "maj", 0, UINT32_MAX), min = member(o, "min", 0, UINT32_MAX);
	double ino = member(o, "ino", 0, 1.8e19);
	const cJSON *runs = cJSON_GetObjectItemCaseSensitive(o, "runs"), *r;
	struct fol_file_id id;
	struct pc_file *f;
	size_t n = 0, kept = 0;

	if (maj < 0 || min < 0 || ino < 0 || !cJSON_IsArray(runs))
		return 0;
	id = (struct fol_file_id){ (uint32_t)maj, (uint32_t)min, (uint64_t)ino };
	f = file_make(pc, &id);
	if (!f)
		return -ENOMEM;
	if (f->snapshot == 1)
		return 0; /* named twice: the first stands */
	f->snapshot = 1;
	f->runs = calloc((size_t)cJSON_GetArraySize(runs) + 1, sizeof(*f->runs));
	if (!f->runs)
		return -ENOMEM;
	cJSON_ArrayForEach(r, runs)
	{
		double index = member(r, "index", 0, 4.5e15), order = member(r, "order", 0, FOL_MAX_ORDER);
		double cnt = member(r, "n", 1, 4.5e15);

		/* Within 2^53 pages, every sum below stays exact. */
		if (index >= 0 && order >= 0 && cnt >= 1 && (uint64_t)index % (1ull << (int)order) == 0 &&
		    cnt <= (double)(1ull << (53 - (int)order)))
			f->runs[n++] = (struct pc_run){ (uint64_t)index, (uint64_t)cnt, (int)order };
	}
	qsort(f->runs, n, sizeof(*f->runs), run_cmp);
	for (size_t i = 0; i < n; i++) {
		const struct pc_run *last = kept ? &f->runs[kept - 1] : NULL;

		if (last && f->runs[i].index < last->index + (last->n << last->order))
			continue;
		f->runs[kept++] = f->runs[i];
	}
	f->nruns = kept;
	return 0;
}

struct fol_pagecache *fol_pagecache_new(const cJSON *snapshot)
{
	struct fol_pagecache *pc = calloc(1, sizeof(*pc));
	const cJSON *files = cJSON_GetObjectItemCaseSensitive(snapshot, "files"), *o;

	if (!pc || fol_indexed_init(&pc->files, sizeof(struct pc_file))) {
		free(pc);
		return NULL;
	}
	pc->have_snapshot = cJSON_IsArray(files);
	cJSON_ArrayForEach(o, files)
	{
		if (load_file(pc, o)) {
			fol_pagecache_free(pc);
			return NULL;
		}
	}
	return pc;
}

static void file_free(struct pc_file *f)
{
	fol_u64map_free(f->added);
	free(f->runs);
}

void fol_pagecache_free(struct fol_pagecache *pc)
{
	if (!pc)
		return;
	for (size_t i = 0; i < pc->files.n; i++)
		file_free(FOL_INDEXED_AT(&pc->files, struct pc_file, i));
	fol_indexed_free(&pc->files);
	free(pc);
}

int fol_pagecache_mapped(struct fol_pagecache *pc, const struct fol_file_id *id)
{
	struct pc_file *f = file_make(pc, id);

	if (!f)
		return -ENOMEM;
	if (!f->added && !(f->added = fol_u64map_new(sizeof(signed char))))
		return -ENOMEM;
	return 0;
}

int fol_pagecache_sweep(struct fol_pagecache *pc, int (*mapped)(const struct fol_file_id *id, void *ctx),
			void *ctx)
{
	struct fol_indexed kept;
	size_t n = pc->files.n;
	char *keep = calloc(n ? n : 1, 1);
	int created;

	/* The kept files copied into a new index first: out of memory, nothing has changed. */
	if (!keep || fol_indexed_init(&kept, sizeof(struct pc_file))) {
		free(keep);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct pc_file *f = FOL_INDEXED_AT(&pc->files, struct pc_file, i);

		if (!(keep[i] = mapped(&f->id, ctx) == 1))
			continue;
		if (!fol_indexed_get(&kept, id_hash(&f->id), f, file_same, &created)) {
			fol_indexed_free(&kept);
			free(keep);
			return -ENOMEM;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (!keep[i])
			file_free(FOL_INDEXED_AT(&pc->files, struct pc_file, i));
	fol_indexed_free(&pc->files);
	pc->files = kept;
	free(keep);
	return 0;
}

int fol_pagecache_add(struct fol_pagecache *pc, const struct fol_file_id *id, uint64_t index,
		      int order)
{
	struct pc_file *f = file_get(pc, id);
	signed char *o;

	if (!f || !f->added || order < 0 || order > FOL_MAX_ORDER)
		return 0;
	o = fol_u64map_put(f->added, index & ~((1ull << order) - 1), NULL);
	if (!o)
		return -ENOMEM;
	*o = (signed char)order;
	return 0;
}

static int order_at_end(const struct pc_file *f, uint64_t index)
{
	size_t lo = 0, hi = f->nruns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct pc_run *r = &f->runs[mid];

		if (index < r->index)
			hi = mid;
		else if (index - r->index >= r->n << r->order)
			lo = mid + 1;
		else
			return r->order;
	}
	return -1;
}

int fol_pagecache_order(const struct fol_pagecache *pc, const struct fol_file_id *id,
			uint64_t index, enum fol_pc_source *src)
{
	const struct pc_file *f = file_get(pc, id);
	int order;

	*src = pc->have_snapshot ? FOL_PC_UNREAD : FOL_PC_NO_SNAPSHOT;
	if (!f)
		return -1;
	for (int k = 0; f->added && k <= FOL_MAX_ORDER; k++) {
		const signed char *o = fol_u64map_get(f->added, index & ~((1ull << k) - 1));

		if (o && *o >= k) {
			*src = FOL_PC_ADDED;
			return *o;
		}
	}
	if (f->snapshot <= 0) {
		*src = f->snapshot < 0 ? FOL_PC_UNREAD : FOL_PC_NO_SNAPSHOT;
		return -1;
	}
	order = order_at_end(f, index);
	*src = order >= 0 ? FOL_PC_AT_END : FOL_PC_EVICTED;
	return order;
}
