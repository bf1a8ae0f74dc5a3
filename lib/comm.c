#include "comm.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct slot {
	int tid; /* 0: empty */
	char comm[16];
};

struct fol_comms {
	struct slot *s;
	size_t cap, n;
};

struct fol_comms *fol_comms_new(void)
{
	struct fol_comms *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->cap = 256;
	c->s = calloc(c->cap, sizeof(*c->s));
	if (!c->s) {
		free(c);
		return NULL;
	}
	return c;
}

void fol_comms_free(struct fol_comms *c)
{
	if (!c)
		return;
	free(c->s);
	free(c);
}

static struct slot *find(const struct fol_comms *c, int tid)
{
	size_t i = ((unsigned)tid * 2654435761u) & (c->cap - 1);

	while (c->s[i].tid && c->s[i].tid != tid)
		i = (i + 1) & (c->cap - 1);
	return &c->s[i];
}

static int set(struct fol_comms *c, int tid, const char *comm)
{
	struct slot *sl;

	if (tid <= 0)
		return 0;
	if ((c->n + 1) * 2 > c->cap) {
		struct fol_comms big = { .cap = c->cap * 2 };

		big.s = calloc(big.cap, sizeof(*big.s));
		if (!big.s)
			return -ENOMEM;
		for (size_t i = 0; i < c->cap; i++)
			if (c->s[i].tid)
				*find(&big, c->s[i].tid) = c->s[i];
		free(c->s);
		c->s = big.s;
		c->cap = big.cap;
	}
	sl = find(c, tid);
	if (!sl->tid) {
		sl->tid = tid;
		c->n++;
	}
	strncpy(sl->comm, comm, sizeof(sl->comm) - 1);
	sl->comm[sizeof(sl->comm) - 1] = '\0';
	return 0;
}

int fol_comms_update(struct fol_comms *c, const struct fol_event *ev)
{
	if (ev->kind == FOL_EV_COMM && ev->comm.comm)
		return set(c, ev->tid, ev->comm.comm);
	if (ev->kind == FOL_EV_FORK) {
		const struct slot *parent = find(c, ev->fork.ptid);

		if (parent->tid)
			return set(c, ev->fork.tid, parent->comm);
	}
	return 0;
}

const char *fol_comms_get(const struct fol_comms *c, int tid)
{
	const struct slot *sl = find(c, tid);

	return sl->tid ? sl->comm : ":unknown";
}
