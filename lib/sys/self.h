/* SPDX-License-Identifier: GPL-2.0-only */
/* What this process holds, read of itself: serve runs for weeks and says its own memory
 * at every scrape (resident, malloc's in use and free, the BPF maps it keeps open), so
 * that a slow growth is seen by the one who scrapes it, and told apart: a leak grows
 * what is in use, fragmentation what is free, a kernel table the maps. */
#ifndef FOL_SELF_H
#define FOL_SELF_H

#include <stdint.h>

struct fol_self {
	uint64_t resident_bytes;	/* /proc/self/statm's resident pages */
	uint64_t heap_in_use_bytes;	/* malloc's chunks in use, all arenas and mmapped */
	uint64_t heap_free_bytes;	/* malloc's free chunks it holds (not given back) */
	uint64_t bpf_map_bytes;		/* the kernel's memory of each BPF map open here */
	uint64_t bpf_maps;		/* ... how many (one map open twice counted once) */
	double cpu_seconds;		/* user and system time, all threads */
};

/* 0, or -errno (/proc not readable): what was read is filled, the rest 0. */
int fol_self_read(struct fol_self *s);

#endif
