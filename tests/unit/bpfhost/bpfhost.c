// SPDX-License-Identifier: GPL-2.0-only
/* The maps and helpers of the programs compiled for the host (bpf/bpf_helpers.h). Maps
 * are lists searched from the start: a test's few thousand entries, and a value's address
 * stays what it was until it is deleted, as a BPF map's does for the program that looked
 * it up. Per-CPU maps have one CPU; an LRU map is a hash that never fills here. */
#include "bpfhost.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/bpf.h>

#include "bpf/bpf_helpers.h"
#include "data/bpf_record.h"
#include "kernel.bpf.h"

struct entry {
	struct entry *next;
	unsigned char *key;
	_Alignas(8) unsigned char value[];
};

struct map {
	struct map *next;
	void *id;
	struct entry *head;
	int n;
};

#define VMAS 16

static struct map *maps;
static struct vm_area_struct vmas[VMAS];
static int nvmas;
static struct task_struct task;
static __u64 pid_tgid, clock_ns = 1000;
static unsigned long records[8], all_records;
static __u32 random_value;
/* The first records written since the reset, for the order they came in. */
#define KEPT 64
static struct fol_bpf_rec kept[KEPT];

static struct map *map_of(void *id)
{
	struct map *m;

	for (m = maps; m; m = m->next)
		if (m->id == id)
			return m;
	m = calloc(1, sizeof(*m));
	if (!m)
		abort();
	m->id = id;
	m->next = maps;
	maps = m;
	return m;
}

static int is_array(int type)
{
	return type == BPF_MAP_TYPE_ARRAY || type == BPF_MAP_TYPE_PERCPU_ARRAY;
}

static struct entry *find(struct map *m, size_t ks, const void *key)
{
	for (struct entry *e = m->head; e; e = e->next)
		if (!memcmp(e->key, key, ks))
			return e;
	return NULL;
}

static struct entry *add(struct map *m, size_t ks, size_t vs, const void *key)
{
	struct entry *e = calloc(1, sizeof(*e) + vs);

	if (!e || !(e->key = malloc(ks)))
		abort();
	memcpy(e->key, key, ks);
	e->next = m->head;
	m->head = e;
	m->n++;
	return e;
}

void *bpfhost_lookup(void *id, size_t ks, size_t vs, int type, int max, const void *key)
{
	struct map *m = map_of(id);
	struct entry *e = find(m, ks, key);

	/* An array holds every index from the start, zeroed. */
	if (!e && is_array(type) && *(const __u32 *)key < (__u32)max)
		e = add(m, ks, vs, key);
	return e ? e->value : NULL;
}

long bpfhost_update(void *id, size_t ks, size_t vs, int type, int max, const void *key,
		    const void *value, __u64 flags)
{
	struct map *m = map_of(id);
	struct entry *e = find(m, ks, key);

	if (is_array(type) && *(const __u32 *)key >= (__u32)max)
		return -E2BIG;
	if (e && flags == BPF_NOEXIST)
		return -EEXIST;
	if (!e && flags == BPF_EXIST)
		return -ENOENT;
	if (!e && m->n >= max)
		return -E2BIG;
	if (!e)
		e = add(m, ks, vs, key);
	memcpy(e->value, value, vs);
	return 0;
}

long bpfhost_delete(void *id, size_t ks, size_t vs, int type, int max, const void *key)
{
	struct map *m = map_of(id);

	(void)vs;
	(void)max;
	if (is_array(type))
		return -EINVAL;
	for (struct entry **p = &m->head; *p; p = &(*p)->next)
		if (!memcmp((*p)->key, key, ks)) {
			struct entry *e = *p;

			*p = e->next;
			free(e->key);
			free(e);
			m->n--;
			return 0;
		}
	return -ENOENT;
}

void bpfhost_reset(void)
{
	while (maps) {
		struct map *m = maps;

		maps = m->next;
		while (m->head) {
			struct entry *e = m->head;

			m->head = e->next;
			free(e->key);
			free(e);
		}
		free(m);
	}
	nvmas = 0;
	memset(records, 0, sizeof(records));
	all_records = 0;
	random_value = 0;
}

void bpfhost_current(__u32 tgid, __u32 tid, __u64 mm)
{
	pid_tgid = (__u64)tgid << 32 | tid;
	task.mm = (void *)(uintptr_t)(mm ? mm : tgid);
}

int bpfhost_vma(__u64 start, __u64 end, enum bpfhost_vma kind)
{
	static const int ops, file;

	if (nvmas == VMAS)
		return -ENOSPC;
	vmas[nvmas++] = (struct vm_area_struct){
		.vm_start = start,
		.vm_end = end,
		.vm_flags = kind == BPFHOST_FILE_SHARED ? 0x88 : 0, /* VM_SHARED | VM_MAYSHARE */
		.vm_file = kind == BPFHOST_FILE_PRIVATE || kind == BPFHOST_FILE_SHARED ? (void *)&file : NULL,
		.vm_ops = kind == BPFHOST_ANON ? NULL : &ops,
	};
	return 0;
}

static int vma_at(__u64 start)
{
	for (int i = 0; i < nvmas; i++)
		if (vmas[i].vm_start == start)
			return i;
	return -1;
}

int bpfhost_vma_flags(__u64 start, unsigned long flags)
{
	int i = vma_at(start);

	if (i < 0)
		return -ENOENT;
	vmas[i].vm_flags |= flags;
	return 0;
}

int bpfhost_vma_drop(__u64 start)
{
	int i = vma_at(start);

	if (i < 0)
		return -ENOENT;
	vmas[i] = vmas[--nvmas];
	return 0;
}

unsigned long bpfhost_records(int what)
{
	return what < 0 ? all_records : what < 8 ? records[what] : 0;
}

const struct fol_bpf_rec *bpfhost_record(unsigned long i)
{
	return i < all_records && i < KEPT ? &kept[i] : NULL;
}

void bpfhost_random(__u32 v)
{
	random_value = v;
}

__u64 bpf_get_current_pid_tgid(void)
{
	return pid_tgid;
}

__u64 bpf_ktime_get_ns(void)
{
	return clock_ns += 100;
}

__u64 bpf_get_current_cgroup_id(void)
{
	return 1;
}

struct task_struct *bpf_get_current_task_btf(void)
{
	return &task;
}

__u32 bpf_get_prandom_u32(void)
{
	return random_value;
}

long bpf_probe_read_kernel(void *dst, __u32 size, const void *src)
{
	memcpy(dst, src, size);
	return 0;
}

long bpf_perf_event_output(void *ctx, void *map, __u64 flags, void *data, __u64 size)
{
	const struct fol_bpf_rec *r = data;

	(void)ctx;
	(void)map;
	(void)flags;
	if (all_records < KEPT)
		memcpy(&kept[all_records], r, size < sizeof(*r) ? size : sizeof(*r));
	all_records++;
	if (r->what < 8)
		records[r->what]++;
	return 0;
}

long bpf_find_vma(struct task_struct *t, __u64 addr,
		  long (*cb)(struct task_struct *, struct vm_area_struct *, void *), void *ctx,
		  __u64 flags)
{
	(void)flags;
	for (int i = 0; i < nvmas; i++)
		if (addr >= vmas[i].vm_start && addr < vmas[i].vm_end) {
			cb(t, &vmas[i], ctx);
			return 0;
		}
	return -ENOENT;
}

/* file.bpf.c's, not built here: the streams map no file. */
void fol_file_read(struct fol_bpf_pending *p);
void fol_file_read(struct fol_bpf_pending *p)
{
	(void)p;
}
