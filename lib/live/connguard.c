// SPDX-License-Identifier: GPL-2.0-only
#include "live/connguard.h"

#include <errno.h>
#include <stdlib.h>

/* A few hundred connections at most: a table searched from its start is enough. */
struct conn {
	const void *conn;
	int fd;
	int ended;
	uint64_t peer;
	uint64_t due_ns;
};

struct fol_conn_guard {
	struct conn *v;
	int n, max, per_peer;
	uint64_t deadline_ns, refused, ended;
};

struct fol_conn_guard *fol_conn_guard_new(int max_conns, int per_peer, uint64_t deadline_ns)
{
	struct fol_conn_guard *g = calloc(1, sizeof(*g));

	if (!g || max_conns <= 0 || !(g->v = calloc((size_t)max_conns, sizeof(*g->v)))) {
		free(g);
		return NULL;
	}
	g->max = max_conns;
	g->per_peer = per_peer;
	g->deadline_ns = deadline_ns;
	return g;
}

void fol_conn_guard_free(struct fol_conn_guard *g)
{
	if (g)
		free(g->v);
	free(g);
}

static struct conn *find(const struct fol_conn_guard *g, const void *conn)
{
	for (int i = 0; i < g->n; i++)
		if (g->v[i].conn == conn)
			return &g->v[i];
	return NULL;
}

int fol_conn_guard_add(struct fol_conn_guard *g, const void *conn, int fd, uint64_t peer,
		       uint64_t now_ns)
{
	int same = 0;

	for (int i = 0; i < g->n; i++)
		same += g->v[i].peer == peer;
	if (same >= g->per_peer || g->n >= g->max) {
		g->refused++;
		return -EBUSY;
	}
	g->v[g->n++] = (struct conn){ .conn = conn, .fd = fd, .peer = peer, .due_ns = now_ns + g->deadline_ns };
	return 0;
}

void fol_conn_guard_request(struct fol_conn_guard *g, const void *conn, uint64_t now_ns)
{
	struct conn *c = find(g, conn);

	if (c)
		c->due_ns = now_ns + g->deadline_ns;
}

int fol_conn_guard_remove(struct fol_conn_guard *g, const void *conn)
{
	struct conn *c = find(g, conn);
	int fd;

	if (!c)
		return -1;
	fd = c->fd;
	*c = g->v[--g->n];
	return fd;
}

int fol_conn_guard_expired(struct fol_conn_guard *g, uint64_t now_ns, int *fds, int n)
{
	int k = 0;

	for (int i = 0; i < g->n && k < n; i++)
		if (!g->v[i].ended && now_ns > g->v[i].due_ns) {
			g->v[i].ended = 1;
			g->ended++;
			fds[k++] = g->v[i].fd;
		}
	return k;
}

int fol_conn_guard_count(const struct fol_conn_guard *g)
{
	return g->n;
}

uint64_t fol_conn_guard_refused(const struct fol_conn_guard *g)
{
	return g->refused;
}

uint64_t fol_conn_guard_ended(const struct fol_conn_guard *g)
{
	return g->ended;
}
