// SPDX-License-Identifier: GPL-2.0-only
/* Kernel reuse's unmapped ranges (faults.bpf.c's kspace): included there, after what it
 * uses (kspace, space_of, may_hold_kept, next_born). */
#ifndef FOL_BPF_UNMAPPED_H
#define FOL_BPF_UNMAPPED_H

/* How far apart [s1, e1) and [s2, e2) are: 0 when they touch. */
static __u64 range_gap(__u64 s1, __u64 e1, __u64 s2, __u64 e2)
{
	if (e1 < s2)
		return s2 - e1;
	if (e2 < s1)
		return s1 - e2;
	return 0;
}

/* Slot i takes [start, end), gone since seq, too: the box around both, gone since the
 * later (a folio kept between the two in the older one's part is taken for gone). */
static void unmap_merge(struct kspace *s, __u32 i, __u64 start, __u64 end, __u64 seq)
{
	i &= KSPACE_UNMAPS - 1;
	if (start < s->unmapped[i].start)
		s->unmapped[i].start = start;
	if (end > s->unmapped[i].end)
		s->unmapped[i].end = end;
	if (seq > s->unmapped[i].seq)
		s->unmapped[i].seq = seq;
}

/* The process unmapped [start, start + len): kept folios there are gone. A free slot
 * takes it; else the two nearest of the slots' ranges and this one are merged (a
 * process's startup unmaps dozens of ranges, its libraries' mmap MAP_FIXED: they become
 * one box there, and its stack and heap keep their folios: one limit for the whole
 * space would leave a forked child's reuse of its first stack pages to the model). */
static void unmapped(__u64 start, __u64 len)
{
	__u32 tgid = (__u32)(bpf_get_current_pid_tgid() >> 32), ba = 0, bb = KSPACE_UNMAPS;
	struct kspace *s = space_of(tgid, 0);
	__u64 seq, end = start + len, best = ~0ull, g;

	if (!s || !len || !may_hold_kept(start, end))
		return;
	seq = __sync_fetch_and_add(&next_born, 1) + 1;
	__sync_fetch_and_add(&s->nunmap, 1);
	for (__u32 i = 0; i < KSPACE_UNMAPS; i++) {
		if (!s->unmapped[i].seq) {
			s->unmapped[i].start = start;
			s->unmapped[i].end = end;
			s->unmapped[i].seq = seq;
			return;
		}
		g = range_gap(start, end, s->unmapped[i].start, s->unmapped[i].end);
		if (g < best) {
			best = g;
			ba = i;
		}
	}
	for (__u32 i = 0; i < KSPACE_UNMAPS; i++)
		for (__u32 j = i + 1; j < KSPACE_UNMAPS; j++) {
			g = range_gap(s->unmapped[i].start, s->unmapped[i].end,
				      s->unmapped[j].start, s->unmapped[j].end);
			if (g < best) {
				best = g;
				ba = i;
				bb = j;
			}
		}
	if (bb >= KSPACE_UNMAPS) {
		unmap_merge(s, ba, start, end, seq);
		return;
	}
	bb &= KSPACE_UNMAPS - 1;
	unmap_merge(s, ba, s->unmapped[bb].start, s->unmapped[bb].end, s->unmapped[bb].seq);
	s->unmapped[bb].start = start;
	s->unmapped[bb].end = end;
	s->unmapped[bb].seq = seq;
}

#endif
