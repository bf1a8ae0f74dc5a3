// SPDX-License-Identifier: GPL-2.0-only
#include "live/tally.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/cgroup.h"
#include "util/grow.h"
#include "util/u64map.h"

#define OTHER_KEY 0
#define DEFAULT_MAX_ROWS 64

struct fol_tally {
	struct fol_tally_opts o;
	struct fol_u64map *rows;	/* key -> struct fol_tally_row */
	struct fol_u64map *pid_row;	/* by cgroup: pid -> its row's key */
	struct fol_u64map *id_row;	/* by cgroup: cgroup id -> its row's key */
	size_t nids;
	uint64_t overflow;
	uint64_t streamed[FOL_NR_CLASSES]; /* faults the model judged, by class */
	char root[1024];		/* by cgroup: the cgroup2 mount ("": none found) */
};

uint64_t fol_lat_bucket_top(int i)
{
	int octave = i / FOL_LAT_SUB, sub = i % FOL_LAT_SUB;
	uint64_t base = 1ull << (FOL_LAT_MIN_SHIFT + octave);

	if (i >= FOL_LAT_BUCKETS - 1)
		return UINT64_MAX;
	return base + (base / FOL_LAT_SUB) * (uint64_t)(sub + 1) - 1;
}

int fol_lat_bucket(uint64_t ns)
{
	int shift, i;

	if (ns < (1ull << FOL_LAT_MIN_SHIFT))
		return 0;
	shift = 63 - __builtin_clzll(ns);
	if (shift >= 32)
		return FOL_LAT_BUCKETS - 1;
	i = (shift - FOL_LAT_MIN_SHIFT) * FOL_LAT_SUB +
	    (int)((ns >> (shift - 2)) & (FOL_LAT_SUB - 1));
	return i;
}

uint64_t fol_lat_quantile(const uint64_t *b, double q)
{
	uint64_t n = 0, cum = 0;

	for (int i = 0; i < FOL_LAT_BUCKETS; i++)
		n += b[i];
	if (!n)
		return 0;
	for (int i = 0; i < FOL_LAT_BUCKETS; i++) {
		cum += b[i];
		if ((double)cum >= q * (double)n)
			return fol_lat_bucket_top(i);
	}
	return UINT64_MAX;
}

static int proc_cgroup(int pid, char *buf, size_t len)
{
	return fol_cgroup_of_pid(pid, buf, len);
}

int fol_tally_new(struct fol_tally **out, const struct fol_tally_opts *o)
{
	struct fol_tally *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (!t)
		return -ENOMEM;
	t->o = *o;
	if (!t->o.max_rows)
		t->o.max_rows = DEFAULT_MAX_ROWS;
	if (!t->o.cgroup_of)
		t->o.cgroup_of = proc_cgroup;
	if (!t->o.cgroup_of_id)
		t->o.cgroup_of_id = fol_cgroup_path_of_id;
	if (t->o.by == FOL_BY_CGROUP && !t->o.cgroup_alive && fol_cgroup_root(t->root, sizeof(t->root)))
		t->root[0] = 0;
	t->rows = fol_u64map_new(sizeof(struct fol_tally_row));
	t->pid_row = fol_u64map_new(sizeof(uint64_t));
	t->id_row = fol_u64map_new(sizeof(uint64_t));
	if (!t->rows || !t->pid_row || !t->id_row) {
		fol_tally_free(t);
		return -ENOMEM;
	}
	*out = t;
	return 0;
}

static void free_rows(struct fol_u64map *rows)
{
	size_t pos = 0;
	struct fol_tally_row *r;

	while ((r = fol_u64map_next(rows, &pos, NULL)))
		free(r->hist);
}

void fol_tally_free(struct fol_tally *t)
{
	if (!t)
		return;
	if (t->rows)
		free_rows(t->rows);
	fol_u64map_free(t->rows);
	fol_u64map_free(t->pid_row);
	fol_u64map_free(t->id_row);
	free(t);
}

/* FNV-1a: a cgroup's row by its path. 0 is the "other" row's, so a path never hashes to
 * it. */
static uint64_t path_key(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h ? h : 1;
}

static size_t nrows(const struct fol_tally *t)
{
	size_t pos = 0, n = 0;

	while (fol_u64map_next(t->rows, &pos, NULL))
		n++;
	return n;
}

/* The row of a cgroup's path, made if new (past max_rows: "other"). */
static struct fol_tally_row *path_row(struct fol_tally *t, const char *path)
{
	uint64_t k = strcmp(path, "other") ? path_key(path) : OTHER_KEY;
	struct fol_tally_row *r;
	int created;

	if (k != OTHER_KEY && !fol_u64map_get(t->rows, k) && nrows(t) >= (size_t)t->o.max_rows)
		k = OTHER_KEY;
	r = fol_u64map_put(t->rows, k, &created);
	if (r && created) {
		r->key = k;
		snprintf(r->cgroup, sizeof(r->cgroup), "%s", k == OTHER_KEY ? "other" : path);
	}
	return r;
}

/* The row of the cgroup at path ("other" where its look-up failed), remembered in map
 * under k. */
static struct fol_tally_row *remembered_row(struct fol_tally *t, struct fol_u64map *map, uint64_t k,
					    int failed, const char *path)
{
	struct fol_tally_row *r = path_row(t, failed ? "other" : path);
	uint64_t *key, row;

	if (!r)
		return NULL;
	row = r->key;
	if (!(key = fol_u64map_put(map, k, NULL)))
		return NULL;
	*key = row;
	return fol_u64map_get(t->rows, row); /* the put above may have moved the rows */
}

/* By cgroup: the row of pid's cgroup, looked up at the process's first fault seen and
 * again after each exec (a process is counted in the cgroup it was in then). */
static struct fol_tally_row *cgroup_row(struct fol_tally *t, int pid)
{
	uint64_t *key = fol_u64map_get(t->pid_row, (uint64_t)(unsigned)pid);
	char path[256];

	if (key)
		return fol_u64map_get(t->rows, *key);
	return remembered_row(t, t->pid_row, (uint64_t)(unsigned)pid,
			      t->o.cgroup_of(pid, path, sizeof(path)), path);
}

/* Cgroup ids whose rows are remembered, at most: containers come and go for days. */
#define MAX_IDS 4096

/* By cgroup, for a fault that carries its cgroup's id (the kernel's, at the fault: exact
 * where a look in /proc after it may find the task moved since): that cgroup's row, its
 * path found by the id once (a cgroup removed since is "other"). */
static struct fol_tally_row *id_row(struct fol_tally *t, uint64_t id)
{
	uint64_t *key = fol_u64map_get(t->id_row, id);
	char path[256];

	if (key)
		return fol_u64map_get(t->rows, *key);
	if (t->nids >= MAX_IDS) {
		struct fol_u64map *fresh = fol_u64map_new(sizeof(uint64_t));

		if (!fresh)
			return NULL;
		fol_u64map_free(t->id_row);
		t->id_row = fresh;
		t->nids = 0;
	}
	t->nids++;
	return remembered_row(t, t->id_row, id, t->o.cgroup_of_id(id, path, sizeof(path)), path);
}

static struct fol_tally_row *row_of(struct fol_tally *t, const struct fol_fault_seen *f)
{
	uint64_t k = t->o.by == FOL_BY_PROCESS ? (uint64_t)(unsigned)f->pid
		   : t->o.by == FOL_BY_THREAD  ? (uint64_t)(unsigned)f->tid
					       : 0;
	struct fol_tally_row *r;
	int created;

	if (t->o.by == FOL_BY_CGROUP)
		return f->cgroup ? id_row(t, f->cgroup) : cgroup_row(t, f->pid);
	r = fol_u64map_put(t->rows, k, &created);
	if (r && created) {
		r->key = k;
		r->pid = f->pid;
		r->tid = f->tid;
	}
	/* A name changes at exec: the row shows the last. Compared before it is copied: this
	 * runs for every fault. */
	if (r && t->o.by != FOL_BY_ALL) {
		const char *name = t->o.by == FOL_BY_PROCESS ? f->proc_comm : f->comm;

		if (strncmp(r->comm, name, sizeof(r->comm) - 1))
			snprintf(r->comm, sizeof(r->comm), "%s", name);
	}
	return r;
}

int fol_tally_fault(struct fol_tally *t, const struct fol_fault_seen *f)
{
	struct fol_tally_row *r = row_of(t, f);
	int slot = FOL_ORDER_SLOT(f->order), b;
	struct fol_tally_counts *c;
	struct fol_tally_cell *cell;

	if (!r)
		return -ENOMEM;
	if (r->key == OTHER_KEY && t->o.by == FOL_BY_CGROUP)
		t->overflow++;
	if (t->o.cell_hist && !r->hist && !(r->hist = calloc(FOL_NR_ORDER_SLOTS, sizeof(*r->hist))))
		return -ENOMEM;
	t->streamed[f->cls]++;
	c = &r->total;
	cell = &c->cell[slot][f->cls];
	cell->faults++;
	c->faults++;
	if (f->cls == FOL_C_WP_REUSE) {
		c->reuse[slot]++;
		c->episodes[slot] += f->new_episode;
	}
	if (!f->timed)
		return 0;
	b = fol_lat_bucket(f->lat_ns);
	cell->timed++;
	cell->time_ns += f->lat_ns;
	c->time_ns += f->lat_ns;
	c->lat[b]++;
	if (r->hist)
		r->hist[slot][f->cls][b]++;
	return 0;
}

int fol_tally_add(struct fol_tally *t, const char *cgroup, int order, enum fol_class cls,
		  const struct fol_tally_bulk *b)
{
	struct fol_tally_row *r;
	struct fol_tally_counts *c;
	struct fol_tally_cell *cell;
	int slot = FOL_ORDER_SLOT(order);

	if (t->o.by == FOL_BY_CGROUP) {
		r = path_row(t, cgroup && *cgroup ? cgroup : "other");
		if (r && r->key == OTHER_KEY)
			t->overflow += b->faults;
	} else if (t->o.by == FOL_BY_ALL) {
		r = fol_u64map_put(t->rows, 0, NULL);
	} else {
		return -EINVAL;
	}
	if (!r)
		return -ENOMEM;
	if (t->o.cell_hist && !r->hist && !(r->hist = calloc(FOL_NR_ORDER_SLOTS, sizeof(*r->hist))))
		return -ENOMEM;
	c = &r->total;
	cell = &c->cell[slot][cls];
	cell->faults += b->faults;
	cell->timed += b->timed;
	cell->time_ns += b->time_ns;
	c->faults += b->faults;
	c->time_ns += b->time_ns;
	if (cls == FOL_C_WP_REUSE) {
		c->reuse[slot] += b->faults;
		c->episodes[slot] += b->episodes;
	}
	for (int i = 0; i < FOL_LAT_BUCKETS; i++) {
		c->lat[i] += b->lat[i];
		if (r->hist)
			r->hist[slot][cls][i] += b->lat[i];
	}
	return 0;
}

void fol_tally_exit(struct fol_tally *t, int pid, int tid)
{
	struct fol_tally_row *r = NULL;

	if (t->o.by == FOL_BY_CGROUP) {
		if (pid == tid)
			fol_u64map_del(t->pid_row, (uint64_t)(unsigned)pid, NULL);
		return;
	}
	if (t->o.by == FOL_BY_PROCESS && pid == tid)
		r = fol_u64map_get(t->rows, (uint64_t)(unsigned)pid);
	else if (t->o.by == FOL_BY_THREAD)
		r = fol_u64map_get(t->rows, (uint64_t)(unsigned)tid);
	if (r && !r->gone)
		r->gone = 1;
}

void fol_tally_exec(struct fol_tally *t, int pid)
{
	if (t->o.by == FOL_BY_CGROUP)
		fol_u64map_del(t->pid_row, (uint64_t)(unsigned)pid, NULL);
}

void fol_tally_fork(struct fol_tally *t, int ppid, int pid)
{
	uint64_t *parent, *child, key;

	if (t->o.by != FOL_BY_CGROUP)
		return;
	parent = fol_u64map_get(t->pid_row, (uint64_t)(unsigned)ppid);
	if (!parent) {
		fol_u64map_del(t->pid_row, (uint64_t)(unsigned)pid, NULL);
		return;
	}
	key = *parent;
	child = fol_u64map_put(t->pid_row, (uint64_t)(unsigned)pid, NULL);
	if (child)
		*child = key; /* else it is looked up at its first fault */
}

static void counts_sub(struct fol_tally_counts *out, const struct fol_tally_counts *a,
		       const struct fol_tally_counts *b)
{
	const uint64_t *x = (const uint64_t *)a, *y = (const uint64_t *)b;
	uint64_t *o = (uint64_t *)out;

	/* Every field is a uint64_t count that only grows. */
	for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
		o[i] = x[i] - y[i];
}

void fol_tally_interval(struct fol_tally *t)
{
	size_t pos = 0, n = 0, cap = 0;
	uint64_t key, *drop = NULL;
	struct fol_tally_row *r;

	while ((r = fol_u64map_next(t->rows, &pos, &key))) {
		if (r->gone == 2) {
			if (FOL_GROW(drop, cap, n + 1, 16))
				break; /* kept until the next interval */
			drop[n++] = key;
			continue;
		}
		counts_sub(&r->last, &r->total, &r->mark);
		r->mark = r->total;
		if (r->gone)
			r->gone = 2;
	}
	for (size_t i = 0; i < n; i++) {
		struct fol_tally_row gone;

		if (fol_u64map_del(t->rows, drop[i], &gone))
			free(gone.hist);
	}
	free(drop);
}

/* The keys of map whose values are one of the n row keys in rows (n small: the rows of
 * cgroups removed at once), into *out: how many, or -ENOMEM. */
static ssize_t keys_to(const struct fol_u64map *map, const uint64_t *rows, size_t n, uint64_t **out)
{
	size_t pos = 0, got = 0, cap = 0;
	uint64_t k, *v;

	*out = NULL;
	while ((v = fol_u64map_next(map, &pos, &k)))
		for (size_t i = 0; i < n; i++) {
			if (*v != rows[i])
				continue;
			if (FOL_GROW(*out, cap, got + 1, 64)) {
				free(*out);
				*out = NULL;
				return -ENOMEM;
			}
			(*out)[got++] = k;
			break;
		}
	return (ssize_t)got;
}

/* Drops the rows of keys, and the ids and processes that pointed at them (looked up
 * anew if they fault again). 0, or -ENOMEM with every row kept. */
static int drop_rows(struct fol_tally *t, const uint64_t *keys, size_t n)
{
	uint64_t *ids = NULL, *pids = NULL;
	ssize_t nid = keys_to(t->id_row, keys, n, &ids), npid = keys_to(t->pid_row, keys, n, &pids);

	if (nid < 0 || npid < 0) {
		free(ids);
		free(pids);
		return -ENOMEM;
	}
	for (ssize_t i = 0; i < nid; i++)
		t->nids -= fol_u64map_del(t->id_row, ids[i], NULL);
	for (ssize_t i = 0; i < npid; i++)
		fol_u64map_del(t->pid_row, pids[i], NULL);
	for (size_t i = 0; i < n; i++) {
		struct fol_tally_row gone;

		if (fol_u64map_del(t->rows, keys[i], &gone))
			free(gone.hist);
	}
	free(ids);
	free(pids);
	return 0;
}

static int row_alive(const struct fol_tally *t, const char *path)
{
	if (t->o.cgroup_alive)
		return t->o.cgroup_alive(path);
	return t->root[0] ? fol_cgroup_alive(t->root, path, 0) : -ENOENT;
}

void fol_tally_prune(struct fol_tally *t, uint64_t now_ns)
{
	size_t pos = 0, n = 0, cap = 0;
	uint64_t key, *drop = NULL;
	struct fol_tally_row *r;

	if (t->o.by != FOL_BY_CGROUP)
		return;
	while ((r = fol_u64map_next(t->rows, &pos, &key))) {
		if (key == OTHER_KEY)
			continue;
		if (row_alive(t, r->cgroup)) {
			r->removed = 0; /* made again, or cannot be told */
			continue;
		}
		if (!r->removed) {
			r->removed = 1;
			r->removed_ns = now_ns;
		}
		if (now_ns - r->removed_ns >= t->o.linger_ns && !FOL_GROW(drop, cap, n + 1, 16))
			drop[n++] = key;
	}
	if (n)
		drop_rows(t, drop, n); /* out of memory: kept until the next call */
	free(drop);
}

size_t fol_tally_list(const struct fol_tally *t, const struct fol_tally_row **v, size_t max)
{
	size_t pos = 0, n = 0;
	const struct fol_tally_row *r;

	while ((r = fol_u64map_next(t->rows, &pos, NULL))) {
		if (n < max)
			v[n] = r;
		n++;
	}
	return n;
}

size_t fol_tally_size(const struct fol_tally *t)
{
	return nrows(t);
}

uint64_t fol_tally_streamed(const struct fol_tally *t, int cls)
{
	return cls >= 0 && cls < FOL_NR_CLASSES ? t->streamed[cls] : 0;
}

uint64_t fol_tally_overflow(const struct fol_tally *t)
{
	return t->overflow;
}

static void reuse_sums(const struct fol_tally_counts *c, uint64_t *faults, uint64_t *episodes)
{
	*faults = *episodes = 0;
	for (int s = 0; s < FOL_NR_ORDER_SLOTS; s++) {
		*faults += c->reuse[s];
		*episodes += c->episodes[s];
	}
}

double fol_tally_per_folio(const struct fol_tally_counts *c)
{
	uint64_t f, e;

	reuse_sums(c, &f, &e);
	return e ? (double)f / (double)e : 0;
}

double fol_tally_effectiveness(const struct fol_tally_counts *c)
{
	uint64_t f, e;

	reuse_sums(c, &f, &e);
	return f ? (double)e / (double)f : 0;
}
