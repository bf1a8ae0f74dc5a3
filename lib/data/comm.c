// SPDX-License-Identifier: GPL-2.0-only
#include "data/comm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/u64map.h"

struct fol_comms {
	struct fol_u64map *m; /* tid -> char[16] */
};

struct fol_comms *fol_comms_new(void)
{
	struct fol_comms *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->m = fol_u64map_new(16);
	if (!c->m) {
		free(c);
		return NULL;
	}
	return c;
}

void fol_comms_free(struct fol_comms *c)
{
	if (!c)
		return;
	fol_u64map_free(c->m);
	free(c);
}

static int set(struct fol_comms *c, int tid, const char *comm)
{
	char *slot;

	if (tid <= 0)
		return 0;
	slot = fol_u64map_put(c->m, (uint64_t)(unsigned)tid, NULL);
	if (!slot)
		return -ENOMEM;
	snprintf(slot, 16, "%s", comm); /* the kernel's TASK_COMM_LEN: 15 and a NUL */
	return 0;
}

int fol_comms_update(struct fol_comms *c, const struct fol_event *ev)
{
	if (ev->kind == FOL_EV_COMM && ev->comm.comm)
		return set(c, ev->tid, ev->comm.comm);
	if (ev->kind == FOL_EV_FORK && ev->fork.ptid > 0) {
		const char *parent = fol_u64map_get(c->m, (uint64_t)(unsigned)ev->fork.ptid);
		char copy[16];

		if (!parent)
			return 0;
		/* set() may move the map's entries: copy the parent's name first. */
		memcpy(copy, parent, sizeof(copy));
		return set(c, ev->fork.tid, copy);
	}
	return 0;
}

void fol_comms_forget(struct fol_comms *c, int tid)
{
	fol_u64map_del(c->m, (uint64_t)(unsigned)tid, NULL);
}

const char *fol_comms_get(const struct fol_comms *c, int tid)
{
	const char *s = tid > 0 ? fol_u64map_get(c->m, (uint64_t)(unsigned)tid) : NULL;

	return s ? s : ":unknown";
}

int fol_comm_mm_thread(const char *comm)
{
	return !strcmp(comm, "khugepaged") || !strncmp(comm, "kswapd", 6) ||
	       !strncmp(comm, "kcompactd", 9);
}
