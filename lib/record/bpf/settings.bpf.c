// SPDX-License-Identifier: GPL-2.0-only
/* The fault path's settings, which the loader (lib/record/bpf_faults.c) writes before the
 * programs load: one place for all, declared in settings.bpf.h for the three that read
 * them. */
#include <linux/bpf.h>

#include "settings.bpf.h"

/* From the tracepoints' formats, set before loading: fields by name, never by a fixed
 * offset. */
const volatile __u32 entry_size = 32;
const volatile __u32 fork_child_off = 44;
/* A system-wide recording (record -a, top -a, serve): every task's faults, each thread
 * given its slot at its first fault. */
const volatile __u32 every_task = 0;
/* Kernel reuse (bpf_record.h), with the fields it reads: the entry record's error code,
 * kmem:mm_page_alloc's order and gfp flags (4 or 8 bytes). */
const volatile __u32 kernel_reuse = 0;
const volatile __u32 by_cgroup = 0;
const volatile __u32 page_shift = 12;
const volatile __u32 error_code_off = 24;
const volatile __u32 address_off = 8;
const volatile __u32 alloc_order_off = 16;
const volatile __u32 alloc_gfp_off = 24;
const volatile __u32 alloc_gfp_size = 8;
/* kmem:rss_stat's fields and record size. */
const volatile __u32 rss_mm_id_off = 8;
const volatile __u32 rss_member_off = 16;
const volatile __u32 rss_size_off = 24;
const volatile __u32 rss_record_size = 32;
/* File faults' page-cache folios read (file_mapped()). */
const volatile __u32 file_folio = 0;
/* serve --sample N: a fault is timed when a random draw at its entry is below 2^32 / N
 * (0: all). Not every Nth nor by address: a workload's own period would pick one class
 * each time. The others are counted all the same, without their two clock reads. */
const volatile __u32 sample_below = 0;
/* Kernel zero-page reads: where the huge zero page is mapped (bpf_record.h's
 * FOL_BPF_HZ_*), written again when the THP policy changes (serve runs for weeks: not
 * read-only, one load more a zero-page read), and the PMD's order (0: no PMD THP, no huge
 * zero page). */
volatile __u32 huge_zero = 0;
const volatile __u32 pmd_order = 0;
