// SPDX-License-Identifier: GPL-2.0-only
/* The events foliostat knows by name: the tracepoints recorded by default, the software
 * and PMU events sampled or counted. */
#include "record/events.h"

#include <errno.h>
#include <perf/event.h>
#include <perf/evsel.h>
#include <string.h>

const char *const fol_default_tracepoints[] = {
	"exceptions:page_fault_user",
	"exceptions:page_fault_kernel",
	"kmem:mm_page_alloc",
	"kmem:mm_page_free",
	"kmem:rss_stat",
	"pagemap:mm_lru_insertion",
	"filemap:mm_filemap_add_to_page_cache",
	"huge_memory:*",
	"migrate:*",
	"tlb:tlb_flush",
	"syscalls:sys_enter_munmap",
	"syscalls:sys_enter_mremap",
	"syscalls:sys_exit_mremap",
	"syscalls:sys_enter_madvise",
	"syscalls:sys_exit_munmap",
	"syscalls:sys_exit_madvise",
	"syscalls:sys_enter_mprotect",
	"syscalls:sys_exit_mprotect",
	/* The calls that populate memory without a fault: mmap(MAP_POPULATE), mlock. */
	"syscalls:sys_enter_mmap",
	"syscalls:sys_exit_mmap",
	"syscalls:sys_enter_mlock",
	"syscalls:sys_exit_mlock",
	"syscalls:sys_enter_mlock2",
	"syscalls:sys_exit_mlock2",
	"syscalls:sys_enter_mlockall",
	"syscalls:sys_exit_mlockall",
	"vmscan:mm_vmscan_write_folio",
	"vmscan:mm_vmscan_direct_reclaim_begin",
	"vmscan:mm_vmscan_direct_reclaim_end",
	"vmscan:mm_vmscan_memcg_reclaim_begin",
	"vmscan:mm_vmscan_memcg_reclaim_end",
	"vmscan:mm_vmscan_kswapd_wake",
	"vmscan:mm_vmscan_kswapd_sleep",
	"mmap_lock:mmap_lock_acquire_returned",
	NULL,
};

/* top and serve: what their model reads (live/tally.h's figures: fault class and order,
 * reuse). Left out: page frees, swap writes, reclaim, collapse, the mmap lock and
 * mprotect (figures only a report shows), migration, LRU insertion and TLB flushes (no
 * figure reads them). Each sample of them cost serve's reader on every task's faults and
 * exits: a process that exits frees its pages one sample each. */
const char *const fol_live_tracepoints[] = {
	"exceptions:page_fault_user",
	"exceptions:page_fault_kernel",
	"kmem:mm_page_alloc",
	"kmem:rss_stat",
	"filemap:mm_filemap_add_to_page_cache",
	"syscalls:sys_enter_munmap",
	"syscalls:sys_enter_mremap",
	"syscalls:sys_exit_mremap",
	"syscalls:sys_enter_madvise",
	NULL,
};

const char *const fol_software_events[] = { "minor-faults", "major-faults", NULL };

const char *const fol_counting_events[] = {
	"dTLB-load-misses", "dTLB-store-misses", "iTLB-load-misses", "cycles", "instructions",
	"page-faults", "minor-faults", "major-faults", NULL,
};

#define HWC(cache, op, res)                                                             \
	((PERF_COUNT_HW_CACHE_##cache) | (PERF_COUNT_HW_CACHE_OP_##op << 8) |           \
	 (PERF_COUNT_HW_CACHE_RESULT_##res << 16))

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} named_events[] = {
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "dTLB-load-misses", PERF_TYPE_HW_CACHE, HWC(DTLB, READ, MISS) },
	{ "dTLB-store-misses", PERF_TYPE_HW_CACHE, HWC(DTLB, WRITE, MISS) },
	{ "iTLB-load-misses", PERF_TYPE_HW_CACHE, HWC(ITLB, READ, MISS) },
};

int fol_record_named_attr(const char *name, struct perf_event_attr *attr)
{
	for (size_t i = 0; i < sizeof(named_events) / sizeof(named_events[0]); i++) {
		if (strcmp(name, named_events[i].name))
			continue;
		memset(attr, 0, sizeof(*attr));
		attr->size = sizeof(*attr);
		attr->type = named_events[i].type;
		attr->config = named_events[i].config;
		return 0;
	}
	return -ENOENT;
}
