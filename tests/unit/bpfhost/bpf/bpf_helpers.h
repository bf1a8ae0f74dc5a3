/* SPDX-License-Identifier: GPL-2.0-only */
/* The host's stand-in for libbpf's bpf/bpf_helpers.h: the fault path's programs
 * (faults.bpf.c, decide.bpf.c, settings.bpf.c) compiled as C for this machine, their maps
 * and helpers bpfhost.c's, so that a unit test feeds them the events it feeds the model
 * and compares what each counted (test_decide.c). The map declarations are libbpf's own macros, which
 * are plain C: a map is a struct whose members' types say its key, value and size. */
#ifndef FOL_BPFHOST_HELPERS_H
#define FOL_BPFHOST_HELPERS_H

#include <linux/types.h>
#include <stddef.h>

#define SEC(name)
#define __uint(name, val) int (*name)[val]
#define __type(name, val) __typeof__(val) *name
#define __hidden
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

struct task_struct;
struct vm_area_struct;

void *bpfhost_lookup(void *map, size_t ks, size_t vs, int type, int max, const void *key);
long bpfhost_update(void *map, size_t ks, size_t vs, int type, int max, const void *key,
		    const void *value, __u64 flags);
long bpfhost_delete(void *map, size_t ks, size_t vs, int type, int max, const void *key);

#define BPFHOST_MAP(m) (void *)(m), sizeof(*(m)->key), sizeof(*(m)->value), \
	(int)(sizeof(*(m)->type) / sizeof(int)), (int)(sizeof(*(m)->max_entries) / sizeof(int))
#define bpf_map_lookup_elem(m, k) bpfhost_lookup(BPFHOST_MAP(m), (k))
#define bpf_map_update_elem(m, k, v, f) bpfhost_update(BPFHOST_MAP(m), (k), (v), (f))
#define bpf_map_delete_elem(m, k) bpfhost_delete(BPFHOST_MAP(m), (k))

__u64 bpf_get_current_pid_tgid(void);
__u64 bpf_ktime_get_ns(void);
__u64 bpf_get_current_cgroup_id(void);
struct task_struct *bpf_get_current_task_btf(void);
__u32 bpf_get_prandom_u32(void);
long bpf_probe_read_kernel(void *dst, __u32 size, const void *src);
long bpf_perf_event_output(void *ctx, void *map, __u64 flags, void *data, __u64 size);
long bpf_find_vma(struct task_struct *task, __u64 addr,
		  long (*cb)(struct task_struct *, struct vm_area_struct *, void *), void *ctx,
		  __u64 flags);

#endif
