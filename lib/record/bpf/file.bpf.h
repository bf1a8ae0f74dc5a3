/* SPDX-License-Identifier: GPL-2.0-only */
/* What faults.bpf.c calls of file.bpf.c: declarations only, the two linked into one
 * object (bpftool gen object). */
#ifndef FOL_FILE_BPF_H
#define FOL_FILE_BPF_H

/* Inside p's fault (not idle): the order + 1 of the page-cache folio at its address's
 * file index into p->file_folio, once a fault. */
void fol_file_read(struct fol_bpf_pending *p) __hidden;

#endif
