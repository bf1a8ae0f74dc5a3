// SPDX-License-Identifier: GPL-2.0-only
/* Pairs each fault's entry and exit in the kernel and writes one record where the plain
 * path writes two samples (issue 16: the second sample was most of the cost of tracing a
 * reuse fault). Attached by lib/record/bpf_faults.c to foliostat's own perf events.
 *
 * Ordering: the model needs a fault's entry before any event of the same thread inside
 * the fault (an allocation). So every other tracepoint foliostat records runs flush()
 * first, which writes the pending entry out before the kernel writes that sample; a
 * fault with nothing inside (a reuse) goes out whole at its exit.
 *
 * Every program of the fault path is here. With kernel decisions (serve, stat -a, top),
 * decide.bpf.c counts at its exit a fault whose class and order it can tell, and nothing
 * goes out; file.bpf.c reads a file fault's page-cache folio. bpftool gen object links
 * them and settings.bpf.c into one object. */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "data/bpf_record.h"
#include "decide.bpf.h"
#include "file.bpf.h"
#include "kernel.bpf.h"
#include "settings.bpf.h"

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

/* Each mm's anonymous and swap counters (kmem:rss_stat's mm_id << 2 | member) as their
 * last change left them: an RSS record says the value before, since the model sees only
 * the changes inside faults it is sent, not those of the faults decided here. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, __u64);
} rss_last SEC(".maps");

/* Set when the recording stops: no fault begins to be followed, so that the ones in
 * flight can end (their exits written) before the events go off. */
__u32 stopping;

static void count(__u32 which)
{
	__u64 *n = bpf_map_lookup_elem(&dropped, &which);

	if (n)
		__sync_fetch_and_add(n, 1);
}

/* A record; with p (what has FOL_BPF_ENTRY), the entry p holds, else the exit alone; with
 * sum (kernel decisions, an exit), what the programs summed up inside the fault. */
static void emit(void *ctx, const struct fol_bpf_pending *p, const struct fol_bpf_pending *sum,
		 __u8 what, __u8 flags, __u64 t1, __u64 addr)
{
	struct fol_bpf_rec r = {
		.what = what,
		.flags = flags,
		.t1 = t1,
		.addr = addr,
	};
	__u64 size = __builtin_offsetof(struct fol_bpf_rec, raw);

	if (sum)
		r.file_folio = sum->file_folio;
	if (sum && kernel_reuse) {
		r.sum = sum->sum | FOL_BPF_SUM;
		r.alloc_order = sum->alloc_order;
		r.last_order = sum->last_order;
	}
	if (p) {
		r.flags |= p->flags;
		/* Not timed: the time it goes out places it among the events inside. */
		r.t0 = p->t0 ? p->t0 : t1 ? t1 : bpf_ktime_get_ns();
		r.raw_size = p->raw_size;
		__builtin_memcpy(r.raw, p->raw, sizeof(r.raw));
		size = sizeof(r);
	}
	if (bpf_perf_event_output(ctx, &out, BPF_F_CURRENT_CPU, &r, size))
		count(1);
}

static int entry(void *ctx, __u8 flags)
{
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
	if (!p || stopping)
		return 1;
	/* The last fault never returned (SIGSEGV): its entry still goes out. */
	if ((p->state == FOL_BPF_OPEN || p->state == FOL_BPF_HELD) && !p->before_exec)
		emit(ctx, p, NULL, FOL_BPF_ENTRY, 0, 0, 0);
	if (size > FOL_BPF_RAW_MAX)
		size = FOL_BPF_RAW_MAX;
	if (kernel_reuse && p->fork_parent)
		fol_decide_fork_known(p, bpf_get_current_pid_tgid());
	p->untimed = sample_below && bpf_get_prandom_u32() >= sample_below;
	p->t0 = p->untimed ? 0 : bpf_ktime_get_ns();
	p->flags = flags;
	p->alloc_order = -1;
	p->last_order = -1;
	p->sum = 0;
	p->anon = 0;
	p->file_folio = 0;
	p->rss_holds = 0;
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

/* The current task's page faults disabled (a futex's word read under its hash bucket's
 * lock, the signal frame's FPU state): the fault's cause when no exit follows. */
static __u8 faults_disabled(void)
{
	return bpf_get_current_task_btf()->pagefault_disabled > 0 ? FOL_BPF_NOFAULT : 0;
}

SEC("tracepoint")
int fault_kernel(void *ctx)
{
	return entry(ctx, FOL_BPF_KERNEL | faults_disabled());
}

/* An RSS counter's change inside a fault, as kmem:rss_stat's record: raw, the words of
 * the tracepoint's record after the common fields; with FOL_BPF_SUM_PREV in sum, before
 * is the value the change started from. */
static void emit_rss(void *ctx, __u64 t1, __u8 sum, __u64 before, const __u64 *raw)
{
	struct fol_bpf_rec r = {
		.what = FOL_BPF_RSS,
		.sum = sum,
		.t1 = t1,
		.addr = before,
		.raw_size = (__u16)rss_record_size,
	};

	for (int i = 1; i < FOL_BPF_RAW_MAX / 8; i++)
		((__u64 *)r.raw)[i] = raw[i - 1];
	if (bpf_perf_event_output(ctx, &out, BPF_F_CURRENT_CPU, &r, sizeof(r)))
		count(1);
}

/* A sample of this thread is about to be written: its fault's entry goes first, and the
 * RSS changes held inside it after (their times place them). */
struct fol_bpf_pending *flush_entry(void *ctx) __hidden;
struct fol_bpf_pending *flush_entry(void *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fol_bpf_pending *p = bpf_map_lookup_elem(&follow, &tid);

	if (p && (p->state == FOL_BPF_OPEN || p->state == FOL_BPF_HELD) && !p->before_exec) {
		if (p->state == FOL_BPF_HELD)
			fol_decide_count(FOL_BPF_K_UNHELD);
		emit(ctx, p, NULL, FOL_BPF_ENTRY, 0, 0, 0);
		p->state = FOL_BPF_OUT;
		if (p->rss_holds & FOL_BPF_SUM_ANON)
			emit_rss(ctx, p->rss_hold[0].t1, FOL_BPF_SUM_PREV, p->rss_hold[0].before, p->rss_hold[0].raw);
		if (p->rss_holds & FOL_BPF_SUM_SWAP)
			emit_rss(ctx, p->rss_hold[1].t1, FOL_BPF_SUM_PREV, p->rss_hold[1].before, p->rss_hold[1].raw);
		p->rss_holds = 0;
	}
	return p;
}

static int exit_(struct bpf_perf_event_data *ctx, __u8 flags)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fol_bpf_pending *p = bpf_map_lookup_elem(&follow, &tid);
	int untimed = p && p->state != FOL_BPF_IDLE && p->untimed;
	__u64 now = untimed ? 0 : bpf_ktime_get_ns();

	/* Stopping: only the faults in flight end; one that began after is not recorded. */
	if (stopping && (!p || p->state == FOL_BPF_IDLE))
		return 0;
	if (kernel_reuse && p && p->state != FOL_BPF_IDLE && fol_decide_exit(p, now, ctx->addr, &flags)) {
		p->before_exec = 0;
		p->state = FOL_BPF_IDLE;
		return 0;
	}
	if (p && p->rss_holds)
		flush_entry(ctx); /* the entry, then the changes held inside, then the exit */
	if (untimed) { /* written out: its time places it among the events */
		now = bpf_ktime_get_ns();
		flags |= FOL_BPF_UNTIMED;
	}
	if (p && (p->state == FOL_BPF_OPEN || p->state == FOL_BPF_HELD))
		emit(ctx, p, p, FOL_BPF_FAULT, flags, now, ctx->addr);
	else
		emit(ctx, NULL, p && p->state == FOL_BPF_OUT ? p : NULL, FOL_BPF_EXIT, flags, now, ctx->addr);
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

/* Any other tracepoint recorded. */
SEC("tracepoint")
int flush(void *ctx)
{
	flush_entry(ctx);
	return 1;
}

/* The words of a tracepoint's record after its common fields (FOL_BPF_RAW_MAX bytes in
 * all), loaded at fixed offsets from ctx, the only loads of it the verifier allows. Made
 * opaque to the compiler, which would otherwise load them from ctx plus a variable offset
 * ("dereference of modified ctx ptr"). */
#define TP_WORDS (FOL_BPF_RAW_MAX / 8 - 1)
_Static_assert(TP_WORDS == 3, "tp_words() loads three words");
static void tp_words(void *ctx, __u64 w[TP_WORDS])
{
	const __u64 *c = ctx;
	__u64 w1 = c[1], w2 = c[2], w3 = c[3];

	asm volatile("" : "+r"(w1), "+r"(w2), "+r"(w3));
	w[0] = w1;
	w[1] = w2;
	w[2] = w3;
}

/* A field of those words: 4 or 8 bytes at off in the record, naturally aligned, past the
 * common fields and in its first FOL_BPF_RAW_MAX bytes (the loader checks the format says
 * so). Where a probe read of ctx + off cost ~20 ns a field. */
static __u64 tp_field(const __u64 w[TP_WORDS], __u32 off, __u32 size)
{
	__u64 v = off < 16 ? w[0] : off < 24 ? w[1] : w[2];

	if (size == 4)
		v = off & 4 ? v >> 32 : v & 0xffffffff;
	return v;
}

/* Inside a followed fault of this thread, its page-cache folio read (file.bpf.c's, once a
 * fault). */
static void file_read(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fol_bpf_pending *p = bpf_map_lookup_elem(&follow, &tid);

	if (p)
		fol_file_read(p);
}

/* An RSS counter of file (0) or shmem (3) pages changed inside a fault: it mapped a page
 * of a file, PTE by PTE (fault-around, or the fault's own page) or a whole folio by its
 * PMD. Each such fault from 6.2; before, a task's RSS changes were batched (and traced
 * every 64 events). */
static int file_member(__u32 member)
{
	return member == 0 || member == 3;
}

/* kmem:rss_stat, recorded (no kernel decisions): a flush, and a file page mapped. */
SEC("tracepoint")
int rss_flush(void *ctx)
{
	__u64 w[TP_WORDS];

	flush_entry(ctx);
	tp_words(ctx, w);
	if (file_member((__u32)tp_field(w, rss_member_off, 4)))
		file_read();
	return 1;
}

/* A change of the anonymous (i 0) or swap (1) counter held inside p's fault: the value
 * before the fault's first change and after its last, the last's time and record. */
static void hold_rss(struct fol_bpf_pending *p, int i, __u64 before, __u64 size, const __u64 *raw)
{
	__u8 bit = i ? FOL_BPF_SUM_SWAP : FOL_BPF_SUM_ANON;
	typeof(&p->rss_hold[0]) h = i ? &p->rss_hold[1] : &p->rss_hold[0];

	if (!(p->rss_holds & bit))
		h->before = before;
	h->after = size;
	h->t1 = bpf_ktime_get_ns();
	/* Not timed (serve --sample): an entry written out goes just before what it held. */
	if (!p->t0)
		p->t0 = h->t1 - 1;
	for (int w = 0; w < FOL_BPF_RAW_MAX / 8 - 1; w++)
		h->raw[w] = raw[w];
	p->rss_holds |= bit;
}

/* kmem:rss_stat, not sampled with kernel decisions: a change of the anonymous (1) or swap
 * (2) counter inside a fault, into its summary; inside one not held, also written out
 * (after its entry) with the value before, for the model's swap-in rule, or held while
 * the fault may be a swap-in the kernel decides. */
SEC("tracepoint")
int rss(void *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), member;
	__u64 raw[TP_WORDS], size, key, before = 0, *last;
	struct fol_bpf_pending *p;

	tp_words(ctx, raw);
	member = (__u32)tp_field(raw, rss_member_off, 4);
	size = tp_field(raw, rss_size_off, 8);
	if (member != 1 && member != 2) {
		if (file_member(member))
			file_read();
		return 1;
	}
	key = tp_field(raw, rss_mm_id_off, 4) << 2 | member;
	last = bpf_map_lookup_elem(&rss_last, &key);
	if (last) {
		before = *last;
		*last = size;
	} else {
		bpf_map_update_elem(&rss_last, &key, &size, BPF_ANY);
	}
	p = bpf_map_lookup_elem(&follow, &tid);
	if (!p || p->state == FOL_BPF_IDLE)
		return 1;
	p->sum |= member == 1 ? FOL_BPF_SUM_ANON : FOL_BPF_SUM_SWAP;
	if (p->state == FOL_BPF_HELD || p->before_exec || rss_record_size > FOL_BPF_RAW_MAX)
		return 1;
	if (last && fol_decide_rss_hold(p)) {
		hold_rss(p, member == 2, before, size, raw);
		return 1;
	}
	flush_entry(ctx);
	emit_rss(ctx, bpf_ktime_get_ns(), last ? FOL_BPF_SUM_PREV : 0, before, raw);
	return 1;
}

/* kmem:mm_page_alloc, not sampled with kernel decisions: the order of a user folio
 * (movable) allocated inside a fault, into its summary; decide.bpf.c may hold the fault
 * (fol_decide_alloc). */
SEC("tracepoint")
int alloc(void *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fol_bpf_pending *p = bpf_map_lookup_elem(&follow, &tid);
	__u64 w[TP_WORDS], gfp;
	__u32 order;

	if (!p || p->state == FOL_BPF_IDLE)
		return 1;
	tp_words(ctx, w);
	order = (__u32)tp_field(w, alloc_order_off, 4);
	gfp = tp_field(w, alloc_gfp_off, alloc_gfp_size);
	if (!(gfp & 0x08) || order > FOL_BPF_MAX_ORDER) /* __GFP_MOVABLE: event.h's FOL_GFP_MOVABLE */
		return 1;
	if ((int)order > p->alloc_order)
		p->alloc_order = (__s8)order;
	p->last_order = (__s8)order;
	fol_decide_alloc(p);
	return 1;
}

/* A syscall tracepoint's argument n: its record is the common fields, the syscall's
 * number (an int, padded) and the arguments, unsigned longs (struct syscall_trace_enter;
 * fol_bpf_faults_layout() checks munmap's format says so). */
static __u64 sys_arg(void *ctx, int n)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), (char *)ctx + 16 + 8 * n);
	return v;
}

/* syscalls:sys_enter_munmap, recorded: a flush, and the range is unmapped. */
SEC("tracepoint")
int munmap_enter(void *ctx)
{
	flush_entry(ctx);
	fol_decide_unmapped(sys_arg(ctx, 0), sys_arg(ctx, 1));
	return 1;
}

/* syscalls:sys_enter_mremap, recorded: the old range goes (moved or shrunk), and the new
 * one with MREMAP_FIXED (what was there is unmapped). */
SEC("tracepoint")
int mremap_enter(void *ctx)
{
	flush_entry(ctx);
	fol_decide_unmapped(sys_arg(ctx, 0), sys_arg(ctx, 1));
	if (sys_arg(ctx, 3) & 2) /* MREMAP_FIXED */
		fol_decide_unmapped(sys_arg(ctx, 4), sys_arg(ctx, 2));
	return 1;
}

/* syscalls:sys_enter_mmap, not recorded: MAP_FIXED replaces what was mapped there. */
SEC("tracepoint")
int mmap_enter(void *ctx)
{
	if (sys_arg(ctx, 3) & 0x10) /* MAP_FIXED */
		fol_decide_unmapped(sys_arg(ctx, 0), sys_arg(ctx, 1));
	return 1;
}

/* The exits of the calls that change a process's mappings (record_bpf.c lists them), not
 * recorded: the VMA each of its threads holds (decide.bpf.c's vma_cached) is out of date. */
SEC("tracepoint")
int maps_changed(void *ctx)
{
	fol_decide_maps_changed();
	return 1;
}

/* mmap_lock:mmap_lock_acquire_returned: a fault that takes its mm's lock (every fault
 * before 6.4's per-VMA locks) reads the folio before it maps the page, for the kernels
 * whose RSS changes say nothing (before 6.2). A page not cached yet is added inside the
 * fault (filemap:mm_filemap_add_to_page_cache says its order) or read at its mapping. */
SEC("tracepoint")
int lock_read(void *ctx)
{
	file_read();
	return 1;
}

/* The same, recorded. */
SEC("tracepoint")
int lock_flush(void *ctx)
{
	flush_entry(ctx);
	file_read();
	return 1;
}

/* sched:sched_process_fork, in the parent: a followed thread's children are followed. */
SEC("tracepoint")
int fork(void *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid;
	struct fol_bpf_pending *parent = bpf_map_lookup_elem(&follow, &tid);
	struct fol_bpf_pending idle = {};
	__u32 parent_tgid = (__u32)(pid_tgid >> 32);
	__s32 child = 0;

	if (!parent && kernel_reuse && every_task) {
		bpf_map_update_elem(&follow, &tid, &idle, BPF_NOEXIST);
		parent = bpf_map_lookup_elem(&follow, &tid);
	}
	if (!parent)
		return 1;
	idle.before_exec = parent->before_exec;
	if (kernel_reuse) {
		idle.fork_parent = parent_tgid;
		idle.fork_seq = fol_decide_fork(parent_tgid);
	}
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

	if (kernel_reuse)
		fol_decide_exec(p);
	if (p)
		p->before_exec = 0;
	return 1;
}

/* sched:sched_process_exit: the thread's slot is free for others. */
SEC("tracepoint")
int exit_thread(void *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid;

	if (kernel_reuse)
		fol_decide_exit_thread(bpf_map_lookup_elem(&follow, &tid), pid_tgid);
	bpf_map_delete_elem(&follow, &tid);
	return 1;
}

char LICENSE[] SEC("license") = "GPL";
