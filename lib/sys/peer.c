// SPDX-License-Identifier: GPL-2.0-only
#include "sys/peer.h"
#include "util/grow.h"

#include "util/indexed.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
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

static int loopback(const struct addr *a)
{
	static const uint8_t v6[16] = { [15] = 1 };

	return a->family == AF_INET ? a->bytes[0] == 127 : !memcmp(a->bytes, v6, 16);
}

/* TCP_ESTABLISHED. A socket whose process closed it (FIN_WAIT, CLOSE_WAIT...) is kept
 * by the kernel as an orphan owned by uid 0: the user who opened it is no longer known.
 * When an attacker's process exited, its hundred orphans counted as root's connections
 * and left root's scraper none. */
#define ESTABLISHED 1

/* The owner of this machine's TCP socket whose own end is peer and other end is us: 0,
 * -ENOENT (not a socket of this machine), -ESRCH (one, but no longer its process's), or
 * -errno. */
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
		const struct inet_diag_msg *d = NLMSG_DATA(&ans.nh);

		*uid = d->idiag_uid;
		ret = d->idiag_state == ESTABLISHED ? 0 : -ESRCH;
	}
	close(fd);
	return ret;
}

/* An address as /proc/net/tcp{,6} prints it: each 32-bit word of the network-order
 * bytes as a native integer in hex. */
static void proc_hex(const struct addr *a, char *out, size_t len)
{
	size_t n = a->family == AF_INET ? 1 : 4, o = 0;

	for (size_t i = 0; i < n && o < len; i++) {
		uint32_t w;

		memcpy(&w, a->bytes + 4 * i, 4);
		o += (size_t)snprintf(out + o, len - o, "%08X", w);
	}
	snprintf(out + o, o < len ? len - o : 0, ":%04X", ntohs(a->port));
}

/* The lines of /proc/net/tcp{,6} holding local and remote: the uid of the first, or
 * -ENOENT. Read with large reads: each is one pass of the kernel's table, where the
 * small reads of stdio missed sockets while others came and went between them. */
static int scan_proc(const char *path, const char *local, const char *remote, uint32_t *uid)
{
	size_t cap = 1 << 18, len = 0;
	char *buf = malloc(cap), *line, *save = NULL, l[48], r[48];
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = -ENOENT;
	ssize_t n = 0;
	unsigned u, st;

	while (buf && fd >= 0 && (n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (cap - len < 4096 && FOL_GROW(buf, cap, cap + 1, 0))
			break;
	}
	if (fd >= 0)
		close(fd);
	if (!buf || n < 0) {
		free(buf);
		return buf ? -errno : -ENOMEM;
	}
	buf[len] = 0;
	for (line = strtok_r(buf, "\n", &save); line && ret; line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, " %*u: %47s %47s %x %*x:%*x %*x:%*x %*x %u", l, r, &st, &u) == 4 &&
		    !strcmp(l, local) && !strcmp(r, remote)) {
			*uid = u;
			ret = st == ESTABLISHED ? 0 : -ESRCH;
		}
	free(buf);
	return ret;
}

/* The same owner from /proc/net/tcp{,6}, where sock_diag is missing (inet_diag is a
 * module a machine may not have: the emulated guests of check-kernels-live). The whole
 * table scanned per connection: slower, only a fallback; looked at twice before the
 * peer is taken for gone. */
static int owner_proc(const struct addr *peer, const struct addr *us, uint32_t *uid)
{
	const char *path = peer->family == AF_INET ? "/proc/net/tcp" : "/proc/net/tcp6";
	char local[48], remote[48];
	int ret;

	proc_hex(peer, local, sizeof(local));
	proc_hex(us, remote, sizeof(remote));
	ret = scan_proc(path, local, remote, uid);
	return ret == -ENOENT ? scan_proc(path, local, remote, uid) : ret;
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
	/* Not found: a remote peer, unless sock_diag cannot find our own end either (no
	 * inet_diag here: it answers ENOENT for both). */
	ret = owner(&peer, &us, uid);
	if (ret == -ENOENT && owner(&us, &peer, &(uint32_t){ 0 }) == -ENOENT)
		ret = owner_proc(&peer, &us, uid);
	*local = !ret;
	if (*local) {
		*key = fol_hash(fol_hash(FOL_HASH_INIT, "uid", 3), uid, sizeof(*uid));
		return 0;
	}
	/* A loopback peer whose user was not found (a socket gone, or missed by a scan of
	 * /proc/net/tcp while sockets come and go): every such peer is one, not one per
	 * address of 127.0.0.0/8, so that misses cannot add up to every place there is. */
	if (loopback(&peer)) {
		*key = fol_hash(FOL_HASH_INIT, "loopback", 8);
		return 0;
	}
	*key = fol_hash(fol_hash(FOL_HASH_INIT, &peer.family, sizeof(peer.family)), peer.bytes,
			sizeof(peer.bytes));
	return 0;
}
