// SPDX-License-Identifier: GPL-2.0-only
/* record -G's scope: the ids kept in the file, cgroups made during the recording, and the
 * model leaving out the samples of other tasks (but not the mm threads'). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "sys/cgroup.h"
#include "model/model.h"
#include "util/msgs.h"

static struct fol_cgroups scope(const char *json)
{
	struct fol_cgroups c;
	cJSON *j = cJSON_Parse(json);

	assert_non_null(j);
	assert_int_equal(fol_cgroups_from_json(j, &c), 0);
	cJSON_Delete(j);
	return c;
}

static void test_json(void **state)
{
	struct fol_cgroups c = scope("{\"path\": \"/a\", \"ids\": [\"0x10\", \"0xffffffffffffffff\", "
				     "\"17\", \"0x\", \"0x1g\", 7, null]}"), d;
	cJSON *j;

	(void)state;
	assert_true(fol_cgroups_has(&c, 0x10));
	assert_true(fol_cgroups_has(&c, UINT64_MAX));
	assert_false(fol_cgroups_has(&c, 17)); /* "17" is not hex: skipped */
	assert_false(fol_cgroups_has(&c, 7));
	j = fol_cgroups_json(&c);
	assert_non_null(j);
	assert_int_equal(fol_cgroups_from_json(j, &d), 0);
	assert_true(fol_cgroups_has(&d, UINT64_MAX));
	assert_string_equal(d.path, "/a");
	cJSON_Delete(j);
	fol_cgroups_free(&c);
	fol_cgroups_free(&d);
	j = cJSON_Parse("{\"path\": 3, \"ids\": []}");
	assert_int_equal(fol_cgroups_from_json(j, &c), -EINVAL);
	cJSON_Delete(j);
	j = cJSON_Parse("[1]");
	assert_int_equal(fol_cgroups_from_json(j, &c), -EINVAL);
	cJSON_Delete(j);
}

/* A cgroup made during the recording is in scope when it is below the scope's path. */
static void test_made(void **state)
{
	struct fol_cgroups c = scope("{\"path\": \"/a\", \"ids\": [\"0x10\"]}");
	struct fol_cgroups root = scope("{\"path\": \"/\", \"ids\": [\"0x1\"]}");

	(void)state;
	assert_int_equal(fol_cgroups_made(&c, 0x20, "/a/b"), 0);
	assert_int_equal(fol_cgroups_made(&c, 0x21, "/ab"), 0);
	assert_int_equal(fol_cgroups_made(&c, 0x22, "/b/a"), 0);
	assert_int_equal(fol_cgroups_made(&c, 0x23, "/a"), 0);
	assert_true(fol_cgroups_has(&c, 0x20));
	assert_false(fol_cgroups_has(&c, 0x21));
	assert_false(fol_cgroups_has(&c, 0x22));
	assert_true(fol_cgroups_has(&c, 0x23));
	assert_int_equal(fol_cgroups_made(&root, 0x30, "/anything"), 0);
	assert_true(fol_cgroups_has(&root, 0x30));
	fol_cgroups_free(&c);
	fol_cgroups_free(&root);
}

static void feed(struct fol_model *m, struct fol_event ev)
{
	ev.evidx = ev.kind == FOL_EV_COMM || ev.kind == FOL_EV_CGROUP || ev.kind == FOL_EV_MMAP ? -1 : 1;
	assert_int_equal(fol_model_event(m, &ev), 0);
}

static void fault(struct fol_model *m, int pid, uint64_t cg, uint64_t t)
{
	feed(m, (struct fol_event){ .time = t, .pid = pid, .tid = pid, .cgroup = cg,
				    .kind = FOL_EV_FAULT_USER, .fault = { .address = 0x1000, .error_code = 6 } });
	feed(m, (struct fol_event){ .time = t + 10, .pid = pid, .tid = pid, .cgroup = cg,
				    .kind = FOL_EV_FAULT_EXIT, .exit = { .addr = 0x1000 } });
}

static void test_model_scope(void **state)
{
	struct fol_cgroups c = scope("{\"path\": \"/a\", \"ids\": [\"0x10\"]}");
	struct fol_model_opts o = { .page_size = 4096, .order = FOL_ANY, .cls = FOL_ANY,
				    .cgroups = &c };
	struct fol_model *m = fol_model_new(&o);
	struct fol_summary s;

	(void)state;
	assert_non_null(m);
	feed(m, (struct fol_event){ .time = 10, .pid = 9, .tid = 9, .kind = FOL_EV_COMM,
				    .comm = { .comm = "khugepaged" } });
	fault(m, 100, 0x10, 100);	/* in the cgroup */
	fault(m, 200, 0x99, 200);	/* outside: 2 samples left out */
	feed(m, (struct fol_event){ .time = 300, .kind = FOL_EV_CGROUP,
				    .cg = { .id = 0x40, .path = "/a/new" } });
	fault(m, 300, 0x40, 400);	/* a cgroup made below it meanwhile */
	fault(m, 400, 0, 500);		/* no cgroup recorded: kept */
	feed(m, (struct fol_event){ .time = 600, .pid = 9, .tid = 9, .cgroup = 0x1,
				    .kind = FOL_EV_SCAN_PMD, .huge = { .status = 1 } });
	assert_int_equal(fol_model_finish(m, &s), 0);
	assert_int_equal(s.faults, 3);
	assert_int_equal(s.outside_cgroup, 2);
	/* khugepaged, outside the cgroup, is judged by whose mm it scanned: not left out. */
	assert_int_equal(s.collapse.unattributed_scans, 1);
	fol_summary_free(&s);
	fol_model_free(m);
	fol_cgroups_free(&c);
}

/* serve's pruning asks whether a cgroup is still there: a directory under the mount (a
 * temporary one stands for it), and the same one (its handle) when an id is given. */
static void test_alive(void **state)
{
	char root[] = "/tmp/foliostat-cgroup-XXXXXX", dir[64];
	int ret;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/c", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	ret = fol_cgroup_alive(root, "/c", 0);
	if (ret == -EOPNOTSUPP) {
		rmdir(dir);
		rmdir(root);
		skip(); /* no file handles on /tmp's file system */
	}
	assert_int_equal(ret, 1);
	assert_int_equal(fol_cgroup_alive(root, "/c", 1), 0); /* another cgroup at its path */
	assert_int_equal(fol_cgroup_alive(root, "/c/../c", 0), -EINVAL);
	assert_int_equal(rmdir(dir), 0);
	assert_int_equal(fol_cgroup_alive(root, "/c", 0), 0);
	assert_int_equal(fol_cgroup_alive(root, "/c/d", 0), 0);
	assert_int_equal(rmdir(root), 0);
}

/* Whether samples will name the scope's cgroups: the texts a 6.12 guest's bare cgroup2
 * showed (its cgroup had no perf_event state; here two states among three cgroups), a hybrid host's perf_event on v1,
 * and what a kernel before 6.10 says (no counts: cannot tell, so go on). */
static void test_perf_rule(void **state)
{
	const char *dfl = "#subsys_name\thierarchy\tnum_cgroups\tenabled\ncpu\t0\t3\t1\n"
			  "perf_event\t0\t3\t1\n";
	const char *v1 = "#subsys_name\thierarchy\tnum_cgroups\tenabled\n"
			 "perf_event\t7\t1\t1\n";
	const char *bare = "nr_descendants 2\nnr_subsys_cpu 1\nnr_subsys_perf_event 2\n"
			   "nr_dying_descendants 0\n";
	const char *whole = "nr_descendants 2\nnr_subsys_perf_event 3\nnr_dying_descendants 0\n";
	struct fol_msgs why = { 0 };

	(void)state;
	assert_int_equal(fol_cgroup_perf_rule(dfl, bare, "/sys/fs/cgroup", "/a", "pids", &why),
			 -EOPNOTSUPP);
	assert_non_null(strstr(fol_msgs_last(&why), "2 of the 3 cgroups at /a"));
	assert_non_null(strstr(fol_msgs_last(&why), "/sys/fs/cgroup/a/cgroup.stat"));
	assert_non_null(strstr(fol_msgs_last(&why), "echo +pids >/sys/fs/cgroup/cgroup.subtree_control; "
						    "echo -pids >/sys/fs/cgroup/cgroup.subtree_control"));
	assert_int_equal(fol_cgroup_perf_rule(dfl, bare, "/sys/fs/cgroup", "/", "cpu", &why), -EOPNOTSUPP);
	assert_non_null(strstr(fol_msgs_last(&why), "(/sys/fs/cgroup/cgroup.stat)"));
	assert_int_equal(fol_cgroup_perf_rule(dfl, whole, "/sys/fs/cgroup", "/a", "pids", &why), 0);
	assert_int_equal(fol_cgroup_perf_rule(dfl, "nr_descendants 2\n", "/r", "/a", "pids", &why), 0);
	assert_int_equal(fol_cgroup_perf_rule(dfl, "", "/r", "/a", "pids", &why), 0);
	assert_int_equal(fol_cgroup_perf_rule(v1, whole, "/r", "/a", "pids", &why), -EOPNOTSUPP);
	assert_non_null(strstr(fol_msgs_last(&why), "hierarchy 7"));
	assert_int_equal(fol_cgroup_perf_rule("", "", "/r", "/a", "pids", &why), 0);
	fol_msgs_free(&why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_made),
		cmocka_unit_test(test_model_scope),
		cmocka_unit_test(test_alive),
		cmocka_unit_test(test_perf_rule),
	};

	return cmocka_run_group_tests_name("cgroup", tests, NULL, NULL);
}
