/* SPDX-License-Identifier: GPL-2.0-only */
/* What the programs linked with faults.bpf.c (decide.bpf.c, file.bpf.c: bpftool gen object
 * makes one object of them) use of it: declarations only. Not included by faults.bpf.c
 * itself, whose definition of the map, a struct of its own, would conflict. */
#ifndef FOL_FAULTS_BPF_H
#define FOL_FAULTS_BPF_H

/* The threads followed, and each one's fault in progress. */
extern struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, struct fol_bpf_pending);
} follow SEC(".maps");

/* A sample of this thread is about to be written: its fault's entry goes first. */
struct fol_bpf_pending *flush_entry(void *ctx) __hidden;

#endif
