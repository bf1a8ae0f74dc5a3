/* SPDX-License-Identifier: GPL-2.0-only */
/* The kernel's structures as the fault path's programs read them: only the fields they
 * read, found by name in the running kernel's BTF when loaded (CO-RE). One definition
 * for all, as they are linked into one object. Types only. */
#ifndef FOL_KERNEL_BPF_H
#define FOL_KERNEL_BPF_H

struct file;

struct vm_area_struct {
	unsigned long vm_start, vm_end, vm_pgoff;
	unsigned long vm_flags; /* from 6.3 in an anonymous union: found there by name */
	struct file *vm_file;
	const void *vm_ops;
} __attribute__((preserve_access_index));

struct task_struct {
	void *mm;
	int pagefault_disabled;
} __attribute__((preserve_access_index));

#endif
