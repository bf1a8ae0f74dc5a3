// SPDX-License-Identifier: GPL-2.0-only
/* Kernel reuse's spaces (faults.bpf.c's kspace): which one a process's folios are kept
 * under, across exec and fork. Included there, after what it uses (kspace, spaces,
 * next_space, task_struct). */
#ifndef FOL_BPF_SPACE_H
#define FOL_BPF_SPACE_H

/* The current task's address space, to tell one from the next (never dereferenced). */
static __u64 current_mm(void)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	__u64 mm = 0;

	bpf_probe_read_kernel(&mm, sizeof(mm), &t->mm);
	return mm;
}

/* The current process's space (tgid's). With create (a folio to put), one of the address
 * space exec has since replaced gives way to a fresh one. A look-up takes it as it is:
 * exec's own faults, the only ones between the two, reuse nothing, and the mm's read
 * would add 26 ns to every reuse fault (bench.sh's kernel figure, 584 against 558). */
static struct kspace *space_of(__u32 tgid, int create)
{
	struct kspace *s = bpf_map_lookup_elem(&spaces, &tgid), fresh = {};
	__u64 mm;

	if (!create)
		return s;
	mm = current_mm();
	if (s && s->mm == mm)
		return s;
	fresh.id = __sync_fetch_and_add(&next_space, 1) + 1;
	fresh.mm = mm;
	if (s) {
		bpf_map_update_elem(&spaces, &tgid, &fresh, BPF_ANY);
		return bpf_map_lookup_elem(&spaces, &tgid);
	}
	bpf_map_update_elem(&spaces, &tgid, &fresh, BPF_NOEXIST);
	return bpf_map_lookup_elem(&spaces, &tgid);
}

/* A forked child's space: the parent's as it was at the fork (its unmapped ranges; the
 * ones since are the parent's alone), with its folios by reference. The parent's value
 * is copied as it is (a kspace on the stack would take a third of it). */
static void space_inherit(const struct kspace *parent, __u32 tgid, __u64 until)
{
	struct kspace *c;

	if (bpf_map_update_elem(&spaces, &tgid, parent, BPF_ANY))
		return;
	c = bpf_map_lookup_elem(&spaces, &tgid);
	if (!c)
		return;
	c->id = __sync_fetch_and_add(&next_space, 1) + 1;
	c->mm = current_mm(); /* inherit runs in the child */
	c->gen = 0;
	c->puts = 0;
	c->forked = 0; /* the parent's: the child keeps no previous folio until it forks */
	c->parent = parent->id;
	c->parent_until = until;
	for (int i = 0; i < KSPACE_UNMAPS; i++)
		if (c->unmapped[i].seq > until)
			c->unmapped[i].seq = 0;
}

/* A forked child whose first fault was exec's inherited its parent's space in exec's
 * new address space, which holds none of the parent's folios: only exec's own stay. */
static void space_disown(struct kspace *s)
{
	for (int i = 0; i < KSPACE_UNMAPS; i++)
		if (s->unmapped[i].seq <= s->parent_until)
			s->unmapped[i].seq = 0;
	s->parent = 0;
	s->parent_until = 0;
	__sync_fetch_and_add(&s->nunmap, 1); /* no thread's last folio holds across it */
}

/* A thread's first event since its fork: a new process (its own tgid) shares its
 * parent's folios, which ends the parent's episodes. Only then: no folio can be reused
 * while the child still maps it, and the child maps it until it runs. */
static void fork_known(struct fol_bpf_pending *p, __u64 pid_tgid)
{
	__u32 parent = p->fork_parent;
	struct kspace *s;

	p->fork_parent = 0;
	if ((__u32)pid_tgid != (__u32)(pid_tgid >> 32))
		return; /* a thread */
	s = bpf_map_lookup_elem(&spaces, &parent);
	if (!s)
		return;
	space_inherit(s, (__u32)(pid_tgid >> 32), p->fork_seq);
	__sync_fetch_and_add(&s->gen, 1);
}

#endif
