// SPDX-License-Identifier: GPL-2.0-only
/* Pairs each fault's entry and exit in the kernel and writes one record where the plain
 * path writes two samples (issue 16: the second sample was most of the cost of tracing a
 * reuse fault). Attached by lib/record/bpf_faults.c to foliostat's own perf events.
 *
 * Ordering: the model needs a fault's entry before any event of the same thread inside
 * the fault (an allocation). So every other tracepoint foliostat records runs flush()
 * first, which writes the pending entry out before the kernel writes that sample; a
 * fault with nothing inside (a reuse) goes out whole at its exit. */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <bpf/bpf_helpers.h>

#include "data/bpf_record.h"


/* The threads recorded (the workload's, given by foliostat and then at each fork), and
 * each one's fault in progress. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, struct fol_bpf_pending);
} follow SEC(".maps");

/* One bpf-output event per CPU: the record goes into that CPU's ring buffer. */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} out SEC(".maps");

/* [0] threads not followed because follow was full, [1] records the kernel refused. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} dropped SEC(".maps");

/* From the tracepoints' formats, set before loading: fields by name, never by a fixed
 * offset. */
const volatile __u32 entry_size = 32;
const volatile __u32 fork_child_off = 44;
/* A system-wide recording (record -a, top -a, serve): every task's faults, each thread
 * given its slot at its first fault. */
const volatile __u32 every_task = 0;

static void count(__u32 which)
{
	__u64 *n = bpf_map_lookup_elem(&dropped, &which);

	if (n)
		__sync_fetch_and_add(n, 1);
}

/* A record; with p (what has FOL_BPF_ENTRY), the entry p holds, else the exit alone. */
static void emit(void *ctx, const struct fol_bpf_pending *p, __u8 what, __u8 flags, __u64 t1,
		 __u64 addr)
{
	struct fol_bpf_rec r = {
		.what = what,
		.flags = flags,
		.t1 = t1,
		.addr = addr,
	};
	__u64 size = __builtin_offsetof(struct fol_bpf_rec, raw);

	if (p) {
		r.flags |= p->flags;
		r.t0 = p->t0;
		r.raw_size = p->raw_size;
		__builtin_memcpy(r.raw, p->raw, sizeof(r.raw));
		size = sizeof(r);
	}
	if (bpf_perf_event_output(ctx, &out, BPF_F_CURRENT_CPU, &r, size))
		count(1);
}

static int entry(void *ctx, __u8 flags)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fol_bpf_pending *p = bpf_map_lookup_elem(&follow, &tid);
	__u32 size = entry_size;

	if (!p && every_task) {
		struct fol_bpf_pending idle = {};

		bpf_map_update_elem(&follow, &tid, &idle, BPF_NOEXIST);
		p = bpf_map_lookup_elem(&follow, &tid);
		if (!p)
			count(0); /* follow is full */
	}
	if (!p)
		return 1;
	/* The last fault never returned (SIGSEGV): its entry still goes out. */
	if (p->state == FOL_BPF_OPEN && !p->before_exec)
		emit(ctx, p, FOL_BPF_ENTRY, 0, 0, 0);
	if (size > FOL_BPF_RAW_MAX)
		size = FOL_BPF_RAW_MAX;
	p->t0 = now;
	p->flags = flags;
	p->raw_size = (__u16)size;
	/* Whole words straight from the record (cheaper than a probe read; raw_size says
	 * where it ends). Its first word, the common fields, is where perf put the
	 * registers for the program: zero in the copy. */
	((__u64 *)p->raw)[0] = 0;
	for (int i = 1; i < FOL_BPF_RAW_MAX / 8; i++)
		((__u64 *)p->raw)[i] = ((__u64 *)ctx)[i];
	p->state = FOL_BPF_OPEN;
	/* Carrier events are never enabled: 1 leaves other tools' samples of this
	 * tracepoint as they are and writes none of ours. (A raw tracepoint instead of
	 * the perf event's program was measured slower: 131.6 against 124.8 ms for the
	 * write pass of 65,536 reuse faults, 9 runs each.) */
	return 1;
}

SEC("tracepoint")
int fault_user(void *ctx)
{
	return entry(ctx, 0);
}

SEC("tracepoint")
int fault_kernel(void *ctx)
{
	return entry(ctx, FOL_BPF_KERNEL);
}

static int exit_(struct bpf_perf_event_data *ctx, __u8 flags)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fol_bpf_pending *p = bpf_map_lookup_elem(&follow, &tid);

	if (p && p->state == FOL_BPF_OPEN)
		emit(ctx, p, FOL_BPF_FAULT, flags, now, ctx->addr);
	else
		emit(ctx, NULL, FOL_BPF_EXIT, flags, now, ctx->addr);
	if (p) {
		p->before_exec = 0;
		p->state = FOL_BPF_IDLE;
	}
	/* No sample of this event: the record above is it. */
	return 0;
}

SEC("perf_event")
int fault_exit(struct bpf_perf_event_data *ctx)
{
	return exit_(ctx, 0);
}

SEC("perf_event")
int fault_exit_major(struct bpf_perf_event_data *ctx)
{
	return exit_(ctx, FOL_BPF_MAJOR);
}

/* Any other tracepoint recorded: a sample of this thread is about to be written. */
SEC("tracepoint")
int flush(void *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fol_bpf_pending *p = bpf_map_lookup_elem(&follow, &tid);

	if (p && p->state == FOL_BPF_OPEN && !p->before_exec) {
		emit(ctx, p, FOL_BPF_ENTRY, 0, 0, 0);
		p->state = FOL_BPF_OUT;
	}
	return 1;
}

/* sched:sched_process_fork, in the parent: a followed thread's children are followed. */
SEC("tracepoint")
int fork(void *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fol_bpf_pending *parent = bpf_map_lookup_elem(&follow, &tid);
	struct fol_bpf_pending idle = {};
	__s32 child = 0;

	if (!parent)
		return 1;
	idle.before_exec = parent->before_exec;
	bpf_probe_read_kernel(&child, sizeof(child), (char *)ctx + fork_child_off);
	tid = (__u32)child;
	if (bpf_map_update_elem(&follow, &tid, &idle, BPF_ANY))
		count(0);
	return 1;
}

/* sched:sched_process_exec: a workload's thread starts being recorded. */
SEC("tracepoint")
int exec(void *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fol_bpf_pending *p = bpf_map_lookup_elem(&follow, &tid);

	if (p)
		p->before_exec = 0;
	return 1;
}

/* sched:sched_process_exit: the thread's slot is free for others. */
SEC("tracepoint")
int exit_thread(void *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	bpf_map_delete_elem(&follow, &tid);
	return 1;
}

char LICENSE[] SEC("license") = "GPL";
