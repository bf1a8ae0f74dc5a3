/* SPDX-License-Identifier: GPL-2.0-only */
/* The fault path's settings (settings.bpf.c says what each is): declared here for the
 * programs linked with them into one object (bpftool gen object). */
#ifndef FOL_SETTINGS_BPF_H
#define FOL_SETTINGS_BPF_H

extern const volatile __u32 entry_size, fork_child_off, every_task, kernel_reuse, by_cgroup,
	page_shift, error_code_off, address_off, alloc_order_off, alloc_gfp_off, alloc_gfp_size,
	rss_mm_id_off, rss_member_off, rss_size_off, rss_record_size, file_folio, sample_below,
	pmd_order;
extern volatile __u32 huge_zero;

#endif
