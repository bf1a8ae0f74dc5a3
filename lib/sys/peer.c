// SPDX-License-Identifier: GPL-2.0-only
#include "sys/peer.h"

#include "util/indexed.h"

#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* An address as the family it travels in: an IPv4 peer of an IPv6 socket is mapped
 * (::ffff:0:0/96) there, and its own socket is an IPv4 one. */
struct addr {
	int family;
	uint8_t bytes[16];
	uint16_t port; /* network order */
};

static int addr_of(const struct sockaddr_storage *ss, struct addr *a)
{
	memset(a, 0, sizeof(*a));
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)ss;

		a->family = AF_INET;
		memcpy(a->bytes, &in->sin_addr, 4);
		a->port = in->sin_port;
		return 0;
	}
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)ss;

		a->port = in6->sin6_port;
		if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
			a->family = AF_INET;
			memcpy(a->bytes, in6->sin6_addr.s6_addr + 12, 4);
		} else {
			a->family = AF_INET6;
			memcpy(a->bytes, &in6->sin6_addr, 16);
		}
		return 0;
	}
	return -EAFNOSUPPORT;
}

/* The owner of this machine's TCP socket whose own end is peer and other end is us: 0,
 * -ENOENT (not a socket of this machine), or -errno. */
static int owner(const struct addr *peer, const struct addr *us, uint32_t *uid)
{
	struct {
		struct nlmsghdr nh;
		struct inet_diag_req_v2 r;
	} req = {
		.nh = { .nlmsg_len = sizeof(req), .nlmsg_type = SOCK_DIAG_BY_FAMILY, .nlmsg_flags = NLM_F_REQUEST },
		.r = { .sdiag_family = (uint8_t)peer->family, .sdiag_protocol = IPPROTO_TCP,
		       .idiag_states = ~0u,
		       .id = { .idiag_sport = peer->port, .idiag_dport = us->port,
			       .idiag_cookie = { INET_DIAG_NOCOOKIE, INET_DIAG_NOCOOKIE } } },
	};
	union {
		struct nlmsghdr nh;
		char buf[4096];
	} ans;
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG), ret = -ENOENT;
	ssize_t n;

	if (fd < 0)
		return -errno;
	memcpy(req.r.id.idiag_src, peer->bytes, sizeof(req.r.id.idiag_src));
	memcpy(req.r.id.idiag_dst, us->bytes, sizeof(req.r.id.idiag_dst));
	if (send(fd, &req, sizeof(req), 0) != (ssize_t)sizeof(req))
		ret = -errno;
	else if ((n = recv(fd, &ans, sizeof(ans), 0)) < 0)
		ret = -errno;
	else if (NLMSG_OK(&ans.nh, (size_t)n) && ans.nh.nlmsg_type == SOCK_DIAG_BY_FAMILY &&
		 ans.nh.nlmsg_len >= NLMSG_LENGTH(sizeof(struct inet_diag_msg))) {
		*uid = ((const struct inet_diag_msg *)NLMSG_DATA(&ans.nh))->idiag_uid;
		ret = 0;
	}
	close(fd);
	return ret;
}

int fol_peer_of(int fd, uint64_t *key, int *local, uint32_t *uid)
{
	struct sockaddr_storage p, u;
	socklen_t pl = sizeof(p), ul = sizeof(u);
	struct addr peer, us;
	int ret;

	if (getpeername(fd, (struct sockaddr *)&p, &pl) || getsockname(fd, (struct sockaddr *)&u, &ul))
		return -errno;
	if ((ret = addr_of(&p, &peer)) || (ret = addr_of(&u, &us)))
		return ret;
	*local = !owner(&peer, &us, uid);
	if (*local) {
		*key = fol_hash(fol_hash(FOL_HASH_INIT, "uid", 3), uid, sizeof(*uid));
		return 0;
	}
	*key = fol_hash(fol_hash(FOL_HASH_INIT, &peer.family, sizeof(peer.family)), peer.bytes,
			sizeof(peer.bytes));
	return 0;
}
