// SPDX-License-Identifier: GPL-2.0-only
/* What the recorder refuses before it opens anything, and how a command is started
 * (start.c): no perf events needed. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "record/record.h"
#include "record/start.h"

static int refused(const struct fol_record_opts *o, const char *words)
{
	struct fol_recorder *r;
	int ret = fol_recorder_new(&r, o);
	const struct fol_record_result *res = fol_recorder_result(r);

	assert_int_equal(res->errors.n, 1);
	assert_non_null(strstr(fol_msgs_last(&res->errors), words));
	fol_recorder_delete(r);
	return ret;
}

static void test_mmap_pages(void **state)
{
	struct fol_record_opts o = { 0 };

	(void)state;
	o.mmap_pages = 3;
	assert_int_equal(refused(&o, "power of two"), -EINVAL);
	o.mmap_pages = 0;
	assert_int_equal(refused(&o, "power of two"), -EINVAL);
	o.mmap_pages = -64;
	assert_int_equal(refused(&o, "power of two"), -EINVAL);
	o.mmap_pages = FOL_RECORD_MAX_PAGES * 2;
	assert_int_equal(refused(&o, "power of two"), -EINVAL);
}

static void test_cgroup_needs_all_cpus(void **state)
{
	struct fol_record_opts o = { .mmap_pages = 64, .cgroup = "/" };

	(void)state;
	assert_int_equal(refused(&o, "needs -a"), -EINVAL);
}

/* A command that ran: its exit status, and the phase file it was told of. */
static void test_start_runs(void **state)
{
	char *argv[] = { "sh", "-c", "test \"$" FOL_PHASES_ENV "\" = /the/phases", NULL };
	struct fol_start_opts o = { .phase_file = "/the/phases", .corked = 1 };
	struct fol_child c;
	int untraced, st;

	(void)state;
	assert_int_equal(fol_start(argv, &o, &c), 0);
	assert_true(c.pid > 0);
	assert_true(c.go_fd >= 0);
	assert_int_equal(fol_start_exec(&c, &untraced), 0);
	assert_int_equal(untraced, 0);
	assert_int_equal(c.go_fd, -1);
	assert_int_equal(c.err_fd, -1);
	assert_int_equal(waitpid(c.pid, &st, 0), c.pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* A command that cannot run: exec's errno, and the child reaped. */
static void test_start_exec_fails(void **state)
{
	char *argv[] = { "/nonexistent/foliostat-test", NULL };
	struct fol_start_opts o = { 0 };
	struct fol_child c;
	int untraced;

	(void)state;
	assert_int_equal(fol_start(argv, &o, &c), 0);
	assert_int_equal(fol_start_exec(&c, &untraced), -ENOENT);
	assert_int_equal(c.pid, 0);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

/* A corked child never let go: it ends when its pipes close. */
static void test_start_never_uncorked(void **state)
{
	char *argv[] = { "true", NULL };
	struct fol_start_opts o = { .corked = 1 };
	struct fol_child c;
	int st;

	(void)state;
	assert_int_equal(fol_start(argv, &o, &c), 0);
	fol_start_close(&c);
	assert_int_equal(waitpid(c.pid, &st, 0), c.pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 127);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mmap_pages),
		cmocka_unit_test(test_cgroup_needs_all_cpus),
		cmocka_unit_test(test_start_runs),
		cmocka_unit_test(test_start_exec_fails),
		cmocka_unit_test(test_start_never_uncorked),
	};

	return cmocka_run_group_tests_name("record", tests, NULL, NULL);
}
