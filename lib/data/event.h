/* SPDX-License-Identifier: GPL-2.0-only */
/* The internal event: what the decoder makes of a perf record and the model consumes.
 * The model never sees perf records, so it is tested on synthetic streams of these. */
#ifndef FOL_EVENT_H
#define FOL_EVENT_H

#include <stdint.h>

enum fol_kind {
	FOL_EV_OTHER,		/* a sample of an event the model does not use */
	FOL_EV_FAULT_USER,	/* exceptions:page_fault_user */
	FOL_EV_FAULT_KERNEL,	/* exceptions:page_fault_kernel */
	FOL_EV_FAULT_EXIT,	/* minor-faults sample: the end of handle_mm_fault() */
	FOL_EV_FAULT_EXIT_MAJ,	/* major-faults sample */
	FOL_EV_PAGE_ALLOC,	/* kmem:mm_page_alloc */
	FOL_EV_PAGE_FREE,	/* kmem:mm_page_free */
	FOL_EV_RSS_STAT,	/* kmem:rss_stat */
	FOL_EV_LRU_INSERT,	/* pagemap:mm_lru_insertion */
	FOL_EV_FILEMAP_ADD,	/* filemap:mm_filemap_add_to_page_cache */
	FOL_EV_MUNMAP,		/* syscalls:sys_enter_munmap */
	FOL_EV_MREMAP,		/* syscalls:sys_enter_mremap */
	FOL_EV_MREMAP_EXIT,	/* syscalls:sys_exit_mremap: where the range went */
	FOL_EV_MADVISE,		/* syscalls:sys_enter_madvise */
	FOL_EV_MPROTECT,	/* syscalls:sys_enter_mprotect */
	FOL_EV_MMAP_CALL,	/* syscalls:sys_enter_mmap */
	FOL_EV_MLOCK,		/* syscalls:sys_enter_mlock, _mlock2, _mlockall (len 0) */
	FOL_EV_SYSCALL_EXIT,	/* syscalls:sys_exit_munmap, _madvise, _mprotect, _mmap,
				 * _mlock, _mlock2, _mlockall: ret */
	FOL_EV_HUGE,		/* huge_memory:* (khugepaged, collapse) */
	FOL_EV_SCAN_PMD,	/* huge_memory:mm_khugepaged_scan_pmd: a PMD looked at */
	FOL_EV_COLLAPSE_ISOLATE, /* huge_memory:mm_collapse_huge_page_isolate */
	FOL_EV_COLLAPSE,	/* huge_memory:mm_collapse_huge_page: the collapse's result */
	FOL_EV_MIGRATE,		/* migrate:* */
	FOL_EV_TLB_FLUSH,	/* tlb:tlb_flush */
	FOL_EV_MMAP,		/* PERF_RECORD_MMAP/MMAP2 */
	FOL_EV_COMM,		/* PERF_RECORD_COMM */
	FOL_EV_FORK,		/* PERF_RECORD_FORK: a process or a thread */
	FOL_EV_EXIT,		/* PERF_RECORD_EXIT */
	FOL_EV_LOST,		/* PERF_RECORD_LOST / LOST_SAMPLES */
	FOL_EV_CLOCK,		/* cpu-clock sample (the sampled latency method) */
	FOL_EV_FOLIOS,		/* folios found in the page tables at attach (synthesized) */
	FOL_EV_WRITE_FOLIO,	/* vmscan:mm_vmscan_write_folio: a folio written to swap */
	FOL_EV_RECLAIM_BEGIN,	/* vmscan:mm_vmscan_direct_reclaim_begin */
	FOL_EV_RECLAIM_END,	/* vmscan:mm_vmscan_direct_reclaim_end */
	FOL_EV_KSWAPD_WAKE,	/* vmscan:mm_vmscan_kswapd_wake */
	FOL_EV_KSWAPD_SLEEP,	/* vmscan:mm_vmscan_kswapd_sleep */
	FOL_EV_MMAP_LOCK,	/* mmap_lock:mmap_lock_acquire_returned: a task and its mm */
	FOL_EV_CGROUP,		/* PERF_RECORD_CGROUP: a cgroup made during the recording */
	FOL_EV_PAIRED,		/* foliostat:faults, the BPF path's record: decoded into the
				 * fault entry and exit events it stands for, never itself */
	FOL_EV_NR_KINDS,
};

/* x86 page fault error code bits */
#define FOL_PF_PROT 0x1
#define FOL_PF_WRITE 0x2
#define FOL_PF_USER 0x4
#define FOL_PF_INSTR 0x10

/* GFP zone bit set for every user folio (GFP_HIGHUSER_MOVABLE, GFP_TRANSHUGE*) and never
 * for page tables (GFP_KERNEL_ACCOUNT): it has been bit 3 on every kernel with mTHP and
 * before, while the composite flag values change from release to release. */
#define FOL_GFP_MOVABLE 0x08

struct fol_event {
	uint64_t time;	/* ns, CLOCK_MONOTONIC */
	int cpu;
	int pid, tid;
	enum fol_kind kind;
	int evidx;	/* index of the recorded event; -1 for side-band records */
	/* The record's own time was out of place in its ring buffer (another tool's sampler
	 * on the same task shares the kernel's sample data, clock included): time is where
	 * its position puts it, and it measures nothing. */
	int retimed;
	/* Made from a record of the BPF path (bpf_record.h): time is the fault's own, from
	 * the record, not when the record was written (its place in the stream). */
	int paired;
	/* The sampled task's cgroup (v2) id, PERF_SAMPLE_CGROUP; 0 when not recorded. */
	uint64_t cgroup;
	/* --call-graph dwarf: the user registers (regs_mask's bits, PERF_REG_X86_*, in
	 * ascending order) and the stack_size bytes copied from the stack pointer up; NULL
	 * without. They point into the record, maybe unaligned: read them with memcpy. */
	const void *regs, *stack;
	uint64_t regs_mask, stack_size;
	union {
		struct {
			uint64_t address, ip, error_code;
			/* record -g: the user call chain, innermost first, nchain u64s (the
			 * context marker left out); NULL and 0 without. Points into the record,
			 * maybe unaligned: read it with memcpy. */
			const void *chain;
			int nchain;
			/* The BPF path's: its task had page faults disabled (bpf_record.h's
			 * FOL_BPF_NOFAULT); 0 not, or not known. */
			int faults_disabled;
		} fault;
		struct {
			uint64_t addr; /* faulting address of a minor/major-faults sample */
			/* serve's kernel reuse counted the reuse episode of this fault's
			 * folio already (bpf_record.h's FOL_BPF_EPISODE_KEPT). */
			int episode_kept;
			/* serve's kernel decisions: the allocations and RSS changes inside
			 * the fault were not sampled; summed: what they said (the largest
			 * and the last movable folio allocated, -1 none; the anonymous and
			 * swap counters changed). */
			int summed, alloc_order, last_order, anon_rss, swap_rss;
			/* The BPF path read the page-cache folio at the faulting address's
			 * file index inside the fault (file_read), of file_order; 0: not
			 * read, or none was cached there. */
			int file_read, file_order;
			/* serve --sample N: not one of the faults timed (bpf_record.h's
			 * FOL_BPF_UNTIMED); its time only places it. */
			int untimed;
		} exit;
		struct {
			uint64_t pfn;
			int order;
			uint64_t gfp;
			int in_irq; /* in an interrupt or softirq (an RCU callback) */
		} page;
		struct {
			int member;
			int64_t size;
			uint32_t mm_id;
			/* The counter's value before this change, where the recording says
			 * (serve's RSS records: it saw the changes the model was not sent). */
			int prev_known;
			int64_t prev;
		} rss;
		struct {
			uint64_t start, len, new_len, new_addr, flags;
			int64_t behavior;
			int64_t ret;	/* sys_exit_*: the new address, or -errno */
		} vm;
		struct {
			uint64_t pfn;
			int order;
			uint32_t dev;	/* the kernel's dev_t: major << 20 | minor */
			uint64_t ino, index;
		} filemap;
		struct {
			uint64_t mm;	/* the mm_struct's address: whose memory */
			int status;	/* enum scan_result, named by the format (symbolic.h) */
		} huge;
		struct {
			uint64_t mm;	/* mmap_lock: the mm_struct locked */
		} lock;
		struct {
			uint64_t nr_reclaimed; /* direct_reclaim_end */
		} reclaim;
		struct {
			uint64_t start, len, pgoff;
			uint32_t prot, flags;
			uint32_t maj, min;	/* the file's device and inode: 0 unknown */
			uint64_t ino;
			const char *filename;
		} mmap;
		struct {
			int pid, tid, ppid, ptid;
		} fork;
		struct {
			const char *comm;
			int exec;
		} comm;
		struct {
			uint64_t lost;
		} lost;
		struct {
			uint64_t id;
			const char *path; /* from the cgroup2 root, "/a/b" */
		} cg;
		struct {
			uint64_t start, n; /* n naturally aligned folios laid end to end */
			int order;
		} folios;
		struct {
			uint64_t period;	/* ns of CPU time the sample stands for */
			int in_fault;		/* its kernel call chain is in the fault handler */
		} clock;
	};
	const void *raw; /* tracepoint payload, for printing */
	uint32_t raw_size;
};

#endif
