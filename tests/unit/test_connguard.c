// SPDX-License-Identifier: GPL-2.0-only
/* serve's connection rules (connguard.h) on a clock of the test's own, and who a peer is
 * (peer.h) over real loopback connections. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "live/connguard.h"
#include "sys/peer.h"

#define S 1000000000ull

static int expired(struct fol_conn_guard *g, uint64_t now, int *first)
{
	int fds[16], n = fol_conn_guard_expired(g, now, fds, 16);

	if (first)
		*first = n ? fds[0] : -1;
	return n;
}

/* At most per_peer of one peer; another peer still comes in; a closed one frees its place. */
static void test_per_peer(void **state)
{
	struct fol_conn_guard *g = fol_conn_guard_new(8, 2, 5 * S);
	int a, b, c, d, e;

	(void)state;
	assert_int_equal(fol_conn_guard_add(g, &a, 10, 1, 0), 0);
	assert_int_equal(fol_conn_guard_add(g, &b, 11, 1, 0), 0);
	assert_int_equal(fol_conn_guard_add(g, &c, 12, 1, 0), -EBUSY);
	assert_int_equal(fol_conn_guard_add(g, &d, 13, 2, 0), 0);
	assert_int_equal(fol_conn_guard_count(g), 3);
	assert_int_equal(fol_conn_guard_remove(g, &c), -1); /* refused: never kept */
	assert_int_equal(fol_conn_guard_remove(g, &a), 10);
	assert_int_equal(fol_conn_guard_add(g, &e, 14, 1, 0), 0);
	assert_int_equal(fol_conn_guard_refused(g), 1);
	fol_conn_guard_free(g);
}

/* In all, at most max_conns, whatever the peers. */
static void test_max(void **state)
{
	struct fol_conn_guard *g = fol_conn_guard_new(3, 8, 5 * S);
	int k[4];

	(void)state;
	for (int i = 0; i < 3; i++)
		assert_int_equal(fol_conn_guard_add(g, &k[i], i, (uint64_t)i, 0), 0);
	assert_int_equal(fol_conn_guard_add(g, &k[3], 3, 3, 0), -EBUSY);
	fol_conn_guard_free(g);
}

/* The deadline runs from the start, not from the last byte: nothing extends it but a
 * whole request; past it, the socket is given once. */
static void test_deadline(void **state)
{
	struct fol_conn_guard *g = fol_conn_guard_new(8, 8, 5 * S);
	int a, b, fd;

	(void)state;
	assert_int_equal(fol_conn_guard_add(g, &a, 20, 1, 1 * S), 0);
	assert_int_equal(fol_conn_guard_add(g, &b, 21, 2, 1 * S), 0);
	assert_int_equal(expired(g, 6 * S, NULL), 0); /* exactly at the deadline: still in time */
	fol_conn_guard_request(g, &b, 4 * S);
	assert_int_equal(expired(g, 6 * S + 1, &fd), 1);
	assert_int_equal(fd, 20);
	assert_int_equal(expired(g, 7 * S, NULL), 0); /* given once */
	assert_int_equal(expired(g, 9 * S + 1, &fd), 1);
	assert_int_equal(fd, 21);
	assert_int_equal(fol_conn_guard_ended(g), 2);
	fol_conn_guard_free(g);
}

/* A loopback connection from 127.0.0.1 and one from 127.3.4.5, both ours: one peer, this
 * process's user; the listening side's view of it is the same. */
static void test_peer_local_user(void **state)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0), c1 = socket(AF_INET, SOCK_STREAM, 0);
	int c2 = socket(AF_INET, SOCK_STREAM, 0), s1, s2, local = 0;
	struct sockaddr_in src = { .sin_family = AF_INET };
	uint64_t k1 = 0, k2 = 1;
	uint32_t uid = 12345;

	(void)state;
	assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(l, 4), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&a, &len), 0);
	assert_int_equal(connect(c1, (struct sockaddr *)&a, sizeof(a)), 0);
	inet_pton(AF_INET, "127.3.4.5", &src.sin_addr);
	assert_int_equal(bind(c2, (struct sockaddr *)&src, sizeof(src)), 0);
	assert_int_equal(connect(c2, (struct sockaddr *)&a, sizeof(a)), 0);
	s1 = accept(l, NULL, NULL);
	s2 = accept(l, NULL, NULL);
	assert_int_equal(fol_peer_of(s1, &k1, &local, &uid), 0);
	assert_true(local);
	assert_int_equal(uid, geteuid());
	assert_int_equal(fol_peer_of(s2, &k2, &local, &uid), 0);
	assert_true(local);
	assert_true(k1 == k2);
	assert_true(fol_peer_of(l, &k1, &local, &uid) < 0); /* not connected */
	close(s2);
	close(s1);
	close(c2);
	close(c1);
	close(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_per_peer),
		cmocka_unit_test(test_max),
		cmocka_unit_test(test_deadline),
		cmocka_unit_test(test_peer_local_user),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
