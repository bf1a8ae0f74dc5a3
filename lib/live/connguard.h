/* SPDX-License-Identifier: GPL-2.0-only */
/* serve's connections, kept to what scrapers need, so that nobody on the machine can
 * take the exporter from them: 64 connections each sending a byte every 5 s held every
 * slot (each byte reset the idle timeout), and 10,000 idle ones failed scrapes for 10 s.
 * Two rules: at most per_peer connections of one peer (sys/peer.h: a local user, or a
 * remote address), and each request whole within deadline_ns of the connection's start or
 * of its previous request (and answered by then), however its bytes come; a connection
 * past that is ended. The HTTP server's own limits (connections in all, idle time) stay. */
#ifndef FOL_CONNGUARD_H
#define FOL_CONNGUARD_H

#include <stdint.h>

struct fol_conn_guard;

struct fol_conn_guard *fol_conn_guard_new(int max_conns, int per_peer, uint64_t deadline_ns);
void fol_conn_guard_free(struct fol_conn_guard *g);

/* A connection came in (conn: the server's handle; fd a descriptor of its socket, the
 * guard's to give back) from peer at now: 0, or -EBUSY when its peer has per_peer
 * connections already (or max_conns are kept): it is to be ended, and is not kept. */
int fol_conn_guard_add(struct fol_conn_guard *g, const void *conn, int fd, uint64_t peer,
		       uint64_t now_ns);
/* A request came whole at now: it is to be answered, and the next one to come, by now +
 * deadline. */
void fol_conn_guard_request(struct fol_conn_guard *g, const void *conn, uint64_t now_ns);
/* It is closed: forgotten. Its descriptor (to close), or -1 when it was not kept. */
int fol_conn_guard_remove(struct fol_conn_guard *g, const void *conn);
/* The sockets of connections past their deadline at now, each given once, at most n into
 * fds: how many. */
int fol_conn_guard_expired(struct fol_conn_guard *g, uint64_t now_ns, int *fds, int n);
/* Connections kept; connections refused and ended since the start. */
int fol_conn_guard_count(const struct fol_conn_guard *g);
uint64_t fol_conn_guard_refused(const struct fol_conn_guard *g);
uint64_t fol_conn_guard_ended(const struct fol_conn_guard *g);

#endif
