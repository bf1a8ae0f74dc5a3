// SPDX-License-Identifier: GPL-2.0-only
/* File faults: the order of the page-cache folio a fault maps, read inside the fault.
 * A fault on a page already cached allocates nothing, so no event says its folio's
 * order; the page cache does, at the fault's file index: read where a fault takes its
 * mm's lock or maps a file page, with interrupts on (faults.bpf.c's programs there call
 * fol_file_read). bpftool gen object links this with faults.bpf.c, decide.bpf.c and
 * settings.bpf.c into one object. */
#include <linux/bpf.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "data/bpf_record.h"
#include "file.bpf.h"
#include "kernel.bpf.h"
#include "settings.bpf.h"

/* The programs walk the file's xarray (include/linux/xarray.h's encoding) under the RCU
 * read lock every program runs in. Only what the walk reads, found by name in the running
 * kernel's BTF (CO-RE). */
struct file {
	struct address_space *f_mapping;
} __attribute__((preserve_access_index));

struct xarray {
	void *xa_head;
} __attribute__((preserve_access_index));

struct address_space {
	struct xarray i_pages;
} __attribute__((preserve_access_index));

struct xa_node {
	unsigned char shift;
	void *slots[64];
} __attribute__((preserve_access_index));

struct folio {
	struct address_space *mapping;
	unsigned long index;
	unsigned long _flags_1; /* from 6.6: the order in its low byte */
} __attribute__((preserve_access_index));

struct folio___v61 {
	unsigned char _folio_order; /* before 6.6 */
} __attribute__((preserve_access_index));

enum pageflags {
	PG_head,
};

/* An xarray's entries: pointers, values (bit 0: a shadow of an evicted folio) and
 * internal entries (bits 1:0 = 2): a node above 4096, a sibling (the slot of a
 * multi-index entry that holds it) below 64 << 2. */
#define XA_INTERNAL(e) (((e) & 3) == 2)
#define XA_LEVELS 11 /* 64-bit indices, 6 bits a level */

struct file_at {
	__u64 mapping, index;
	__u32 page_shift;
};

static long file_index(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct file_at *f = data;
	struct file *file = vma->vm_file;

	f->mapping = 0;
	if (file && f->index >= vma->vm_start) {
		bpf_probe_read_kernel(&f->mapping, sizeof(f->mapping), &file->f_mapping);
		f->index = vma->vm_pgoff + ((f->index - vma->vm_start) >> f->page_shift);
	}
	return 0;
}

/* The entry of the xarray at index: a folio's address, or 0. */
static __u64 xa_entry(__u64 mapping, __u64 index)
{
	__u64 slots = bpf_core_field_offset(struct xa_node, slots), e = 0;
	__u64 nslots = bpf_core_field_size(struct xa_node, slots) / 8;
	struct address_space *as = (struct address_space *)mapping;

	bpf_probe_read_kernel(&e, sizeof(e), &as->i_pages.xa_head);
	for (int i = 0; i < XA_LEVELS && XA_INTERNAL(e) && e > 4096; i++) {
		__u64 node = e - 2, off;
		__u8 shift = 0;

		bpf_probe_read_kernel(&shift, sizeof(shift), &((struct xa_node *)node)->shift);
		off = (index >> (shift & 63)) & (nslots - 1);
		e = 0;
		bpf_probe_read_kernel(&e, sizeof(e), (void *)(node + slots + off * 8));
		if (XA_INTERNAL(e) && e < (nslots << 2)) {
			off = (e >> 2) & (nslots - 1);
			e = 0;
			bpf_probe_read_kernel(&e, sizeof(e), (void *)(node + slots + off * 8));
		}
	}
	return e & 3 ? 0 : e;
}

/* The order + 1 of the folio of mapping at index, 0 when none is cached there (or the
 * entry is not a folio of that mapping that holds index: a race, taken for none). */
static __u8 folio_at(__u64 mapping, __u64 index)
{
	struct folio *f = (struct folio *)xa_entry(mapping, index);
	__u64 flags = 0, fmapping = 0, findex = 0, order = 0;

	if (!f)
		return 0;
	bpf_probe_read_kernel(&flags, sizeof(flags), f); /* the page flags come first */
	bpf_probe_read_kernel(&fmapping, sizeof(fmapping), &f->mapping);
	bpf_probe_read_kernel(&findex, sizeof(findex), &f->index);
	if (flags & (1ull << bpf_core_enum_value(enum pageflags, PG_head))) {
		/* 6.1 has both: _flags_1 is then the first tail page's own flags. */
		if (bpf_core_field_exists(struct folio___v61, _folio_order)) {
			__u8 o = 0;

			bpf_probe_read_kernel(&o, sizeof(o), &((struct folio___v61 *)f)->_folio_order);
			order = o;
		} else if (bpf_core_field_exists(f->_flags_1)) {
			bpf_probe_read_kernel(&order, sizeof(order), &f->_flags_1);
			order &= 0xff;
		} else {
			return 0;
		}
	}
	if (fmapping != mapping || order > FOL_BPF_MAX_FILE_ORDER || index < findex ||
	    index - findex >= 1ull << order)
		return 0;
	return (__u8)(order + 1);
}

/* The order + 1 of the page-cache folio at addr's file index, for the current task: 0
 * when addr is in no file's mapping or none is cached there. */
static __u8 file_folio_at(__u64 addr)
{
	struct file_at f = { .index = addr, .page_shift = page_shift };

	if (bpf_find_vma(bpf_get_current_task_btf(), addr, file_index, &f, 0) || !f.mapping)
		return 0;
	return folio_at(f.mapping, f.index);
}

/* Inside a followed fault, the order of the page-cache folio at its address's file index,
 * unless read already (called where interrupts are on: bpf_find_vma costs a look-up, not
 * the irq_work it takes at a fault's exit). */
void fol_file_read(struct fol_bpf_pending *p)
{
	__u64 addr;

	if (!file_folio || address_off > FOL_BPF_RAW_MAX - 8 || p->state == FOL_BPF_IDLE || p->file_folio)
		return;
	__builtin_memcpy(&addr, p->raw + address_off, sizeof(addr));
	p->file_folio = file_folio_at(addr);
}

