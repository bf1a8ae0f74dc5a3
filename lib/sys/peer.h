/* SPDX-License-Identifier: GPL-2.0-only */
/* Who is at the other end of a TCP connection: for serve's per-peer limits. A connection
 * from this machine (loopback, or any of its addresses) is told apart by the user that
 * owns the other socket, found with sock_diag (NETLINK_SOCK_DIAG, as ss does): every
 * 127.x.y.z is loopback, so an address alone would let one local user take any number of
 * peers. Another machine's connection is its address. */
#ifndef FOL_PEER_H
#define FOL_PEER_H

#include <stdint.h>

/* The peer of the connected TCP socket fd, as a key: the same for two connections of one
 * local user (whatever their addresses), of one remote address, or of loopback whose
 * user was not found. 0, or -errno (fd not a
 * connected TCP socket). *local says whether the peer is a socket of this machine, and
 * *uid its owner then. */
int fol_peer_of(int fd, uint64_t *key, int *local, uint32_t *uid);

#endif
