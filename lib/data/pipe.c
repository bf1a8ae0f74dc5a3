// SPDX-License-Identifier: GPL-2.0-only
#include "data/pipe.h"
#include "util/grow.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static size_t batch_events = 4096;

void fol_pipe_set_batch(size_t n)
{
	batch_events = n ? n : 1;
}

/* Events copied out of the session, and an arena for what they point to. */
struct batch {
	struct fol_event *ev;
	size_t n;
	size_t *pointing, npointing;	/* the events that point to something */
	char *arena;
	size_t used, cap;
	int ret;	/* the session's last answer: 1 more to come, 0 its end, or -errno */
};

struct pipe {
	struct fol_session *s;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct batch b[2];
	int full[2];	/* handed over, not yet given back */
	int stop;	/* the consumer gave up: read no more */
};

/* What an event points to, one piece at a time: its address in the event and its size. */
static int piece(const struct fol_event *ev, int k, const void **p, size_t *size)
{
	switch (k) {
	case 0:
		*p = ev->regs;
		*size = ev->regs ? 8 * (size_t)__builtin_popcountll(ev->regs_mask) : 0;
		return 1;
	case 1:
		*p = ev->stack;
		*size = ev->stack ? (size_t)ev->stack_size : 0;
		return 1;
	case 2:
		*p = NULL;
		*size = 0;
		if ((ev->kind == FOL_EV_FAULT_USER || ev->kind == FOL_EV_FAULT_KERNEL) && ev->fault.chain) {
			*p = ev->fault.chain;
			*size = 8 * (size_t)ev->fault.nchain;
		} else if (ev->kind == FOL_EV_MMAP && ev->mmap.filename) {
			*p = ev->mmap.filename;
			*size = strlen(ev->mmap.filename) + 1;
		} else if (ev->kind == FOL_EV_COMM && ev->comm.comm) {
			*p = ev->comm.comm;
			*size = strlen(ev->comm.comm) + 1;
		} else if (ev->kind == FOL_EV_CGROUP && ev->cg.path) {
			*p = ev->cg.path;
			*size = strlen(ev->cg.path) + 1;
		}
		return 1;
	default:
		return 0;
	}
}

/* Whether the event points to anything (most do not: a fault, an allocation). */
static int points(const struct fol_event *e)
{
	switch (e->kind) {
	case FOL_EV_FAULT_USER:
	case FOL_EV_FAULT_KERNEL:
		return e->regs || e->stack || e->fault.chain;
	case FOL_EV_MMAP:
		return e->regs || e->stack || e->mmap.filename;
	case FOL_EV_COMM:
		return e->regs || e->stack || e->comm.comm;
	case FOL_EV_CGROUP:
		return e->regs || e->stack || e->cg.path;
	default:
		return e->regs || e->stack;
	}
}

static size_t pieces_size(const struct fol_event *ev)
{
	const void *p;
	size_t size, all = 0;

	for (int k = 0; piece(ev, k, &p, &size); k++)
		all += (size + 7) & ~(size_t)7;
	return all;
}

/* The event e (b's next, decoded there) into b, what it points to into b's arena (room
 * made by the caller). The arena's address may change until the batch is full: pieces are
 * kept as offsets (plus one) and turned into addresses by fix(). */
static void put(struct batch *b, struct fol_event *e)
{
	const struct fol_event *ev = e;
	uintptr_t at[3];
	const void *p;
	size_t size;

	b->n++;
	e->raw = NULL;
	e->raw_size = 0;
	for (int k = 0; piece(ev, k, &p, &size); k++) {
		at[k] = 0;
		if (!p)
			continue;
		memcpy(b->arena + b->used, p, size);
		at[k] = b->used + 1;
		b->used += (size + 7) & ~(size_t)7;
	}
	e->regs = (const void *)at[0];
	e->stack = (const void *)at[1];
	if (e->kind == FOL_EV_FAULT_USER || e->kind == FOL_EV_FAULT_KERNEL)
		e->fault.chain = (const void *)at[2];
	else if (e->kind == FOL_EV_MMAP)
		e->mmap.filename = (const char *)at[2];
	else if (e->kind == FOL_EV_COMM)
		e->comm.comm = (const char *)at[2];
	else if (e->kind == FOL_EV_CGROUP)
		e->cg.path = (const char *)at[2];
}

static const void *address(const struct batch *b, const void *at)
{
	return at ? b->arena + ((uintptr_t)at - 1) : NULL;
}

static void fix(struct batch *b)
{
	for (size_t i = 0; i < b->npointing; i++) {
		struct fol_event *e = &b->ev[b->pointing[i]];

		e->regs = address(b, e->regs);
		e->stack = address(b, e->stack);
		if (e->kind == FOL_EV_FAULT_USER || e->kind == FOL_EV_FAULT_KERNEL)
			e->fault.chain = address(b, e->fault.chain);
		else if (e->kind == FOL_EV_MMAP)
			e->mmap.filename = address(b, e->mmap.filename);
		else if (e->kind == FOL_EV_COMM)
			e->comm.comm = address(b, e->comm.comm);
		else if (e->kind == FOL_EV_CGROUP)
			e->cg.path = address(b, e->cg.path);
	}
}

static int room(struct batch *b, size_t more)
{
	return FOL_GROW(b->arena, b->cap, b->used + more, 1 << 16);
}

/* A batch from the session: up to batch_events events, ended early at the session's end
 * or error (b->ret). */
static void fill(struct fol_session *s, struct batch *b)
{
	b->n = b->used = b->npointing = 0;
	b->ret = 1;
	while (b->n < batch_events) {
		struct fol_event *e = &b->ev[b->n]; /* decoded in place: one copy less */

		b->ret = fol_session_next(s, e);
		if (b->ret != 1)
			break;
		if (!points(e)) {
			e->raw = NULL;
			e->raw_size = 0;
			b->n++;
			continue;
		}
		if (room(b, pieces_size(e))) {
			b->ret = -ENOMEM;
			break;
		}
		b->pointing[b->npointing++] = b->n;
		put(b, e);
	}
	fix(b);
}

static void *reader(void *arg)
{
	struct pipe *p = arg;

	for (int i = 0;; i ^= 1) {
		int done;

		pthread_mutex_lock(&p->mu);
		while (p->full[i] && !p->stop)
			pthread_cond_wait(&p->cv, &p->mu);
		done = p->stop;
		pthread_mutex_unlock(&p->mu);
		if (done)
			break;
		fill(p->s, &p->b[i]);
		pthread_mutex_lock(&p->mu);
		p->full[i] = 1;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		if (p->b[i].ret != 1)
			break;
	}
	return NULL;
}

/* The events of the reading thread's batches, in turn, to consume. */
static int consume_all(struct pipe *p, int (*consume)(void *, const struct fol_event *), void *arg)
{
	for (int i = 0;; i ^= 1) {
		struct batch *b = &p->b[i];
		int ret = 0;

		pthread_mutex_lock(&p->mu);
		while (!p->full[i])
			pthread_cond_wait(&p->cv, &p->mu);
		pthread_mutex_unlock(&p->mu);
		for (size_t k = 0; k < b->n && !ret; k++)
			ret = consume(arg, &b->ev[k]);
		if (!ret && b->ret != 1)
			return b->ret;
		pthread_mutex_lock(&p->mu);
		p->full[i] = 0;
		p->stop |= ret != 0;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		if (ret)
			return ret;
	}
}

static int drain_here(struct fol_session *s, int (*consume)(void *, const struct fol_event *), void *arg)
{
	struct fol_event ev;
	int ret;

	while ((ret = fol_session_next(s, &ev)) == 1) {
		ret = consume(arg, &ev);
		if (ret)
			return ret;
	}
	return ret;
}

int fol_pipe_drain(struct fol_session *s, int (*consume)(void *arg, const struct fol_event *ev),
		   void *arg)
{
	struct pipe p = { .s = s };
	pthread_t t;
	int ret;

	for (int i = 0; i < 2; i++) {
		p.b[i].ev = malloc(sizeof(struct fol_event) * batch_events);
		p.b[i].pointing = malloc(sizeof(size_t) * batch_events);
	}
	if (!p.b[0].ev || !p.b[1].ev || !p.b[0].pointing || !p.b[1].pointing ||
	    pthread_mutex_init(&p.mu, NULL)) {
		for (int i = 0; i < 2; i++) {
			free(p.b[i].ev);
			free(p.b[i].pointing);
		}
		return drain_here(s, consume, arg);
	}
	pthread_cond_init(&p.cv, NULL);
	if (pthread_create(&t, NULL, reader, &p)) {
		ret = drain_here(s, consume, arg);
	} else {
		ret = consume_all(&p, consume, arg);
		pthread_mutex_lock(&p.mu);
		p.stop = 1;
		pthread_cond_broadcast(&p.cv);
		pthread_mutex_unlock(&p.mu);
		pthread_join(t, NULL);
	}
	pthread_cond_destroy(&p.cv);
	pthread_mutex_destroy(&p.mu);
	for (int i = 0; i < 2; i++) {
		free(p.b[i].ev);
		free(p.b[i].pointing);
		free(p.b[i].arena);
	}
	return ret;
}
