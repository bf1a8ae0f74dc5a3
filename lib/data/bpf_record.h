/* SPDX-License-Identifier: GPL-2.0-only */
/* The record foliostat's BPF programs write for a fault (lib/record/bpf/faults.bpf.c), one per
 * fault where two samples would be: shared by the programs and the decoder, so it holds
 * kernel UAPI types only. A recording stores it as the RAW field of a bpf-output sample;
 * the decoder turns it back into the fault entry and exit events of the plain path. */
#ifndef FOL_BPF_RECORD_H
#define FOL_BPF_RECORD_H

#include <linux/types.h>

/* The fault entry tracepoint's own record, copied whole so that its fields are read by
 * name from the stored format, as for a sample: 32 bytes on x86-64 since 3.17 (a kernel
 * whose record is longer takes the plain path). */
#define FOL_BPF_RAW_MAX 32

/* What a record holds: the entry (a fault's entry went out before an event inside the
 * fault, or a fault that never returned), the exit alone (its entry went out earlier, or
 * began before the recording), or both. */
#define FOL_BPF_ENTRY 1
#define FOL_BPF_EXIT 2
#define FOL_BPF_FAULT (FOL_BPF_ENTRY | FOL_BPF_EXIT)
/* Kernel decisions (serve): a kmem:rss_stat event inside a fault the programs did not
 * decide, its record in raw (the tracepoint is not sampled then), t1 its time; with
 * FOL_BPF_SUM_PREV in sum, addr is the counter's value before this change. */
#define FOL_BPF_RSS 4

#define FOL_BPF_KERNEL 1 /* the entry is exceptions:page_fault_kernel */
#define FOL_BPF_MAJOR 2	 /* the exit is major-faults */
/* The kernel-mode entry's task had page faults disabled (pagefault_disable()): the kernel
 * fixes the access up without handling the fault, and no exit comes. */
#define FOL_BPF_NOFAULT 8
/* Kernel reuse (below) counted the reuse episode of the fault's folio: the model counts
 * the fault, not its episode again. */
#define FOL_BPF_EPISODE_KEPT 4
/* serve --sample N: the fault was not one of the 1 in N timed (faults.bpf.c's
 * sample_below), so the record's times only place it among the events: counted, not
 * timed. With the exit. */
#define FOL_BPF_UNTIMED 16

struct fol_bpf_rec {
	__u8 what;	/* FOL_BPF_ENTRY, _EXIT or _FAULT */
	__u8 flags;	/* FOL_BPF_KERNEL, FOL_BPF_MAJOR */
	__u16 raw_size; /* bytes of raw used */
	/* Kernel decisions (serve), where kmem:mm_page_alloc and kmem:rss_stat are not
	 * sampled: with the exit, FOL_BPF_SUM and what the programs summed up of them inside
	 * the fault (what the model reads of them); 0 otherwise. */
	__u8 sum;
	__s8 alloc_order; /* the largest movable folio allocated inside, -1 none */
	__s8 last_order;  /* the last one allocated, -1 none */
	/* With the exit: the order + 1 of the page-cache folio at the faulting address's
	 * file index, as the programs read it inside the fault (file.bpf.c); 0 not read. */
	__u8 file_folio;
	__u64 t0, t1;	/* entry and exit, CLOCK_MONOTONIC ns (bpf_ktime_get_ns) */
	__u64 addr;	/* the exit's faulting address (the software event's) */
	__u8 raw[FOL_BPF_RAW_MAX]; /* not written without FOL_BPF_ENTRY */
};

/* The programs' state of a followed thread (their map "follow", keyed by tid): the fault
 * in progress. Shared so that foliostat can add a thread. */
/* FOL_BPF_HELD: kernel decisions will count the fault; nothing of it is written unless an
 * event recorded comes inside it (its entry goes out then, and it is _OUT). */
enum { FOL_BPF_IDLE, FOL_BPF_OPEN, FOL_BPF_OUT, FOL_BPF_HELD };
#define FOL_BPF_SUM 1	   /* the record has the summary */
#define FOL_BPF_SUM_ANON 2 /* the anonymous RSS changed inside the fault */
#define FOL_BPF_SUM_SWAP 4 /* the swap entries changed inside the fault */
#define FOL_BPF_SUM_PREV 8 /* FOL_BPF_RSS: addr is the counter's previous value */

struct fol_bpf_pending {
	__u64 t0;
	__u32 state;	/* FOL_BPF_IDLE, _OPEN (entry held), _OUT (entry written) */
	__u16 raw_size;
	__u8 flags;
	/* A workload's thread before its exec: its events are not on yet. They go on at
	 * the exec, the software events a moment before the tracepoints (and before
	 * sched_process_exec): the first exit seen says so too. */
	__u8 before_exec;
	__u8 raw[FOL_BPF_RAW_MAX];
	/* Kernel decisions (below): the largest and the last movable folio allocated inside
	 * the fault, -1 none; FOL_BPF_SUM_ANON and _SWAP; the process that forked this
	 * thread, 0 once it is known whether the thread is a new process. */
	__s8 alloc_order;
	__u8 anon;	/* the faulting address's VMA, looked at the first allocation or
			 * RSS change: 1 anonymous and private, 2 another, 3 a file's,
			 * private, 4 a special mapping; 0 not looked at (decide.bpf.c's
			 * vma_kind) */
	__s8 last_order;
	__u8 sum;
	__u8 file_folio; /* fol_bpf_rec's, for the fault in progress */
	__u8 untimed;	 /* not sampled (FOL_BPF_UNTIMED): t0 is 0 until an entry goes out */
	__u8 rss_holds;	 /* FOL_BPF_SUM_ANON, _SWAP: the changes in rss_hold[] */
	__u8 pad;
	__u32 fork_parent;
	/* Kernel reuse: where the folio sequence (decide.bpf.c's next_born) stood at the
	 * fork: the parent's folios born since are not the child's. */
	__u64 fork_seq;
	/* Kernel reuse: the folio of this thread's last reuse fault, while its space
	 * (decide.bpf.c's kspace) has put no folio, unmapped nothing and not forked since
	 * (its id, gen, puts, nunmap as they were). A large folio takes its reuse faults
	 * one page at a time, in a row: all but the first are decided here without the
	 * folio map's lookups, and none of them is the first of its episode. */
	struct {
		__u64 space, base, end, born;
		__u32 gen, puts, nunmap, order;
	} last;
	/* Kernel swap-ins: the anonymous ([0]) and swap ([1]) counters' changes inside a fault
	 * that may be a swap-in from the swap cache, held rather than written out
	 * (decide.bpf.c's fol_decide_rss_hold): each counter's value before the fault's first
	 * change and after its last, that change's time and record (the words after the
	 * common fields). They go out as FOL_BPF_RSS records behind the entry when the fault
	 * is not decided. */
	struct {
		__u64 before, after, t1;
		__u64 raw[FOL_BPF_RAW_MAX / 8 - 1];
	} rss_hold[2];
	/* Kernel decisions: the VMA this thread last looked at (decide.bpf.c's vma_cached),
	 * while its space (id) has changed no mapping since (maps as it was): where it lies,
	 * its kind (as anon above), FOL_BPF_VMA_HUGE and _NOHUGE. */
	struct fol_bpf_vma {
		__u64 space, start, end;
		__u32 maps;
		__u8 kind, huge;
		__u16 pad;
	} vma;
};

#define FOL_BPF_VMA_HUGE 1   /* madvise(MADV_HUGEPAGE) */
#define FOL_BPF_VMA_NOHUGE 2 /* madvise(MADV_NOHUGEPAGE) */
/* Where the kernel maps the huge zero page at a read fault (settings.bpf.c's huge_zero,
 * sys/mthp.h's fol_huge_zero_policy() as the loader gives it): not known, never, in
 * MADV_HUGEPAGE ranges, wherever a PMD fits. */
enum { FOL_BPF_HZ_UNKNOWN, FOL_BPF_HZ_NONE, FOL_BPF_HZ_MADVISE, FOL_BPF_HZ_ALWAYS };

/* Kernel decisions (serve): faults decided in the kernel, never written out, counted
 * here by cgroup, class and folio order, with the fault's latency in the buckets of
 * lib/live/tally.h (four to a power of two from 256 ns to 4.3 s). Kernel reuse: a reuse
 * fault (present, write, nothing allocated inside, an anonymous private VMA) whose folio
 * is in the programs' own map of the folios each process allocated. Kernel allocations:
 * a fault that allocated a user folio in an anonymous private VMA, by lib/model's rules
 * (FOL_BPF_CLS_*), with no recorded event inside. Kernel file faults: a fault on a page
 * not present, whose file page already cached it mapped (its page-cache folio read inside
 * it, file.bpf.c), nothing allocated and nothing recorded inside. Kernel swap-ins: a
 * fault on a page not present in an anonymous private VMA, nothing allocated, whose
 * anonymous count rose by as many pages as its swap entries fell, a power of two (the
 * folio the swap cache held). Kernel zero-page reads: a read of a page not present in an
 * anonymous private VMA (or a special mapping), nothing allocated and no count changed,
 * where no huge zero page can be mapped (its order 4K, whatever came before). Any other
 * fault goes out as a record. */
#define FOL_BPF_LAT_MIN_SHIFT 8
#define FOL_BPF_LAT_SUB 4
#define FOL_BPF_LAT_BUCKETS ((32 - FOL_BPF_LAT_MIN_SHIFT) * FOL_BPF_LAT_SUB + 1)
#define FOL_BPF_MAX_ORDER 10 /* of the folios kept: 4M on 4K pages */
#define FOL_BPF_MAX_FILE_ORDER 12 /* of a page-cache folio read: util/order.h's FOL_MAX_ORDER */
#define FOL_BPF_LATENCY_MAX (1ull << 40) /* longer: not timed (model.h's bound) */

/* tally.h's fol_lat_bucket() (a unit test holds them equal), without the count of leading
 * zeros the BPF instruction set lacks. */
static inline __u32 fol_bpf_lat_bucket(__u64 ns)
{
	__u32 shift = 0;
	__u64 v = ns;

	if (ns < (1ull << FOL_BPF_LAT_MIN_SHIFT))
		return 0;
	for (__u32 step = 32; step; step >>= 1)
		if (v >> step) {
			v >>= step;
			shift += step;
		}
	if (shift >= 32)
		return FOL_BPF_LAT_BUCKETS - 1;
	return (shift - FOL_BPF_LAT_MIN_SHIFT) * FOL_BPF_LAT_SUB +
	       (__u32)((ns >> (shift - 2)) & (FOL_BPF_LAT_SUB - 1));
}

enum {
	FOL_BPF_CLS_REUSE, /* wp_reuse */
	FOL_BPF_CLS_ALLOC, /* anon_alloc: not present, a folio allocated */
	FOL_BPF_CLS_COPY,  /* wp_copy: a write to a present page, a folio allocated */
	FOL_BPF_CLS_SWAP,  /* swap_in: not present, major or the swap entries changed */
	FOL_BPF_CLS_FILE,  /* file: not present, a file's page already cached mapped */
	FOL_BPF_CLS_ZERO,  /* anon_zero: a read of a page not present mapped the zero page */
	FOL_BPF_CLS_SPECIAL, /* special: the same read in a special mapping (the vDSO's) */
	FOL_BPF_CLASSES
};

struct fol_bpf_reuse_key {
	__u64 cgroup; /* cgroup2 id, 0 unless by cgroup */
	__u32 order;
	__u32 cls;    /* FOL_BPF_CLS_* */
};

/* A reader of the counts (bpf_faults.h's fol_bpf_faults_reuse) done with a key: deleted. */
#define FOL_BPF_FORGET 1

struct fol_bpf_reuse {
	__u64 faults, timed, time_ns;
	__u64 episodes; /* reuse: faults that were their folio's first since it was last shared */
	__u64 lat[FOL_BPF_LAT_BUCKETS];
};

/* What kernel reuse did with the faults it looked at (map "kstat", per CPU). */
enum {
	FOL_BPF_K_DECIDED,  /* a reuse fault counted in the kernel */
	FOL_BPF_K_NO_FOLIO, /* a reuse fault whose folio the map does not hold: written out */
	FOL_BPF_K_UNMAPPED, /* the folio kept there was unmapped since: written out */
	FOL_BPF_K_FULL,	    /* no room for its counts: written out */
	FOL_BPF_K_INSIDE,   /* events inside it (a lock taken): written out, its folio's
			     * episode under way for the programs too */
	FOL_BPF_K_INSERTED, /* folios put in the map */
	FOL_BPF_K_LAST,	    /* decided (and counted in _DECIDED) from the thread's last
			     * folio (fol_bpf_pending.last), without the map */
	FOL_BPF_K_ALLOC,    /* an allocation fault counted in the kernel */
	FOL_BPF_K_UNHELD,   /* one held, then written out: a recorded event came inside */
	FOL_BPF_K_INHERITED, /* folios a forked child took from its parent's kept ones */
	FOL_BPF_K_FILE,	    /* a file fault counted in the kernel */
	FOL_BPF_K_SWAP,	    /* a swap-in from the swap cache counted in the kernel */
	FOL_BPF_K_ZERO,	    /* a zero-page read (or a special mapping's) counted in the kernel */
	FOL_BPF_K_VMA,	    /* VMAs looked up (the faults' others were the thread's last) */
	FOL_BPF_K_NR
};

#endif
