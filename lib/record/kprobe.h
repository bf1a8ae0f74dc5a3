/* SPDX-License-Identifier: GPL-2.0-only */
/* foliostat's own kprobe events (libtracefs), where the kernel has kprobe events: extra
 * detail for a recording, never required. Each run names its events after its pid and
 * removes them when it ends, so runs do not collide and nothing is left behind. */
#ifndef FOL_KPROBE_H
#define FOL_KPROBE_H

#include <stddef.h>

#define FOL_KPROBE_SYSTEM "foliostat"

struct fol_msgs;
struct tracefs_dynevent;

struct fol_kprobes {
	struct tracefs_dynevent *ev[4];
	char names[4][64];	/* "foliostat:wp_1234", ready for fol_tp_resolve() */
	int n;
};

/* A kprobe on do_wp_page (the write-protect fault handler) and a kretprobe with its return
 * value. -ENODEV when the kernel has no kprobe events; why says what failed. */
int fol_kprobes_create(struct fol_kprobes *k, struct fol_msgs *why);
/* Remove what create made; 0, or the first error (-EBUSY while a perf event still uses
 * one). Safe to call twice. */
int fol_kprobes_destroy(struct fol_kprobes *k);
/* How many dynamic events of FOL_KPROBE_SYSTEM exist now (0 when none or unsupported). */
int fol_kprobes_count(void);

#endif
