// SPDX-License-Identifier: GPL-2.0-only
/* Sites: interned names, sites keyed by every field, clashing hashes; the model's site of
 * a fault (code mapping and offset, data mapping); report --sort's keys. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "util/indexed.h"
#include "model/model.h"
#include "report/report.h"
#include "report/report_sites.h"
#include "model/sites.h"
#include "util/msgs.h"

/* One user fault of process pid (its only thread) at address addr, from entry t0 to
 * exit t1, its IP and (record -g) user call chain. */
static void fault(struct fol_model *m, int pid, uint64_t t0, uint64_t t1, uint64_t addr, uint64_t ip,
		  const uint64_t *chain, int nchain)
{
	struct fol_event ev = { .time = t0, .pid = pid, .tid = pid, .kind = FOL_EV_FAULT_USER, .evidx = 1,
				.fault = { .address = addr, .ip = ip, .error_code = 6, .chain = chain,
					   .nchain = nchain } };

	assert_int_equal(fol_model_event(m, &ev), 0);
	ev = (struct fol_event){ .time = t1, .pid = pid, .tid = pid, .kind = FOL_EV_FAULT_EXIT, .evidx = 1,
				 .exit = { .addr = addr } };
	assert_int_equal(fol_model_event(m, &ev), 0);
}

static void test_intern(void **state)
{
	struct fol_sites *s = fol_sites_new();
	char name[32];
	int ids[2000];

	(void)state;
	for (int i = 0; i < 2000; i++) {
		snprintf(name, sizeof(name), "/lib/x%d.so", i);
		ids[i] = fol_sites_intern(s, name);
		assert_int_equal(ids[i], i);
	}
	for (int i = 0; i < 2000; i += 97) {
		snprintf(name, sizeof(name), "/lib/x%d.so", i);
		assert_int_equal(fol_sites_intern(s, name), ids[i]);
		assert_string_equal(fol_sites_str(s, ids[i]), name);
	}
	assert_string_equal(fol_sites_str(s, -1), "?");
	assert_string_equal(fol_sites_str(s, 2000), "?");
	fol_sites_free(s);
}

/* Every field of the key tells sites apart; the figures add up per site. */
static void test_keys(void **state)
{
	struct fol_sites *s = fol_sites_new();
	struct fol_site k = { .pid = 1, .comm = 0, .ip_map = 1, .ip = 0x100, .map = 2, .order = 4,
			      .cls = 2 };
	const struct fol_site *v;
	size_t n;

	(void)state;
	assert_int_equal(fol_sites_add(s, &k, 100), 0);
	assert_int_equal(fol_sites_add(s, &k, 300), 0);
	k.pid = 2;
	assert_int_equal(fol_sites_add(s, &k, 5), 0);
	k.pid = 1, k.shared = 1;
	assert_int_equal(fol_sites_add(s, &k, 5), 0);
	k.shared = 0, k.ip = 0x101;
	assert_int_equal(fol_sites_add(s, &k, 5), 0);
	k.ip = 0x100, k.order = -1;
	assert_int_equal(fol_sites_add(s, &k, 5), 0);
	k.order = 4, k.cls = 3;
	assert_int_equal(fol_sites_add(s, &k, 0), 0);
	v = fol_sites_all(s, &n);
	assert_int_equal(n, 6);
	assert_int_equal(v[0].faults, 2);
	assert_int_equal(v[0].time_ns, 400);
	assert_int_equal(v[0].max_ns, 300);
	for (size_t i = 1; i < n; i++)
		assert_int_equal(v[i].faults, 1);
	/* Many sites: the table grows and still finds each. */
	for (int i = 0; i < 5000; i++) {
		k.ip = 0x10000 + (uint64_t)i;
		assert_int_equal(fol_sites_add(s, &k, 1), 0);
		assert_int_equal(fol_sites_add(s, &k, 1), 0);
	}
	v = fol_sites_all(s, &n);
	assert_int_equal(n, 5006);
	for (size_t i = 6; i < n; i++)
		assert_int_equal(v[i].faults, 2);
	fol_sites_free(s);
}

/* A fault's site in the model: its IP's offset in the file mapped there (pgoff counted),
 * its address's mapping; a split mapping keeps its offsets. */
static void test_model_site(void **state)
{
	struct fol_model_opts o = { .page_size = 4096, .order = FOL_ANY, .cls = FOL_ANY };
	struct fol_model *m = fol_model_new(&o);
	struct fol_summary s;
	const struct fol_site *v;
	size_t n;
	struct fol_event ev;

	(void)state;
	ev = (struct fol_event){ .time = 1, .pid = 7, .tid = 7, .kind = FOL_EV_MMAP, .evidx = -1,
				 .mmap = { .start = 0x400000, .len = 0x10000, .pgoff = 0x2000,
					   .filename = "/usr/bin/app" } };
	assert_int_equal(fol_model_event(m, &ev), 0);
	ev.mmap = (struct fol_event){ 0 }.mmap;
	ev.mmap.start = 0x7f0000000000;
	ev.mmap.len = 0x100000;
	ev.mmap.filename = "//anon";
	assert_int_equal(fol_model_event(m, &ev), 0);
	/* munmap of the app's first page: the rest keeps its file offsets. */
	ev = (struct fol_event){ .time = 2, .pid = 7, .tid = 7, .kind = FOL_EV_MUNMAP, .evidx = 1,
				 .vm = { .start = 0x400000, .len = 0x1000 } };
	assert_int_equal(fol_model_event(m, &ev), 0);
	fault(m, 7, 3, 10, 0x7f0000001000, 0x401234, NULL, 0);
	assert_int_equal(fol_model_finish(m, &s), 0);
	v = fol_sites_all(s.sites, &n);
	assert_int_equal(n, 1);
	assert_string_equal(fol_sites_str(s.sites, v[0].ip_map), "/usr/bin/app");
	assert_int_equal(v[0].ip, 0x401234 - 0x400000 + 0x2000);
	assert_string_equal(fol_sites_str(s.sites, v[0].map), "//anon");
	assert_int_equal(v[0].time_ns, 7);
	assert_int_equal(v[0].pid, 7);
	fol_summary_free(&s);
	fol_model_free(m);
}

/* record -g: a fault's chain (innermost first, a return address one past its call) kept
 * as frames in their mappings; folded lines callers first, equal stacks merged. */
static void test_stacks(void **state)
{
	struct fol_model_opts o = { .page_size = 4096, .order = FOL_ANY, .cls = FOL_ANY };
	struct fol_model *m = fol_model_new(&o);
	struct fol_report r;
	const struct fol_stack *st;
	uint64_t chain[3] = { 0x401010, 0x402020, 0x403030 };
	char buf[512] = "";
	struct fol_event ev;
	FILE *f;
	size_t n;

	(void)state;
	ev = (struct fol_event){ .time = 1, .pid = 7, .tid = 7, .kind = FOL_EV_MMAP, .evidx = -1,
				 .mmap = { .start = 0x400000, .len = 0x10000, .filename = "/no/app" } };
	assert_int_equal(fol_model_event(m, &ev), 0);
	for (int i = 0; i < 2; i++)
		fault(m, 7, 10 + 10 * (uint64_t)i, 15 + 10 * (uint64_t)i, 0x9000, chain[0], chain, 3);
	/* Another process's fault, with a stack of its own. */
	fault(m, 8, 40, 47, 0x9000, 0x77, chain + 1, 1);
	memset(&r, 0, sizeof(r));
	assert_int_equal(fol_model_finish(m, &r.s), 0);
	st = fol_sites_stacks(r.s.sites, &n);
	assert_int_equal(n, 2);
	if (st[0].site.pid != 7)
		st++;
	assert_int_equal(st[0].n, 3);
	assert_int_equal(st[0].f[0].off, 0x1010);
	assert_int_equal(st[0].f[1].off, 0x201f); /* the call before the return address */
	assert_int_equal(st[0].faults, 2);
	assert_int_equal(st[0].time_ns, 10);
	r.symfs = "/nonexistent";
	f = fmemopen(buf, sizeof(buf), "w");
	assert_int_equal(fol_report_folded(&r, 1, f), 0);
	fclose(f);
	assert_string_equal(buf, ":unknown;[app+0x302f];[app+0x201f];[app+0x1010] 2\n:unknown;[unknown] 1\n");
	/* A group's stacks: those of its sites only (by pid: 7's two faults, 8's one). */
	{
		int by_pid[] = { FOL_SORT_PID };
		struct fol_grouping g;
		struct fol_folded_set fs;

		assert_int_equal(fol_report_group(&r, by_pid, 1, &g), 0);
		assert_int_equal(g.n, 2);
		for (size_t i = 0; i < g.n; i++) {
			assert_int_equal(fol_report_stacks(&r, &g, i, &fs), 0);
			assert_int_equal(fs.n, 1);
			assert_int_equal(fs.v[0].faults, g.v[i].faults);
			assert_int_equal(fs.v[0].time_ns, g.v[i].time_ns);
			assert_int_equal(strchr(fs.v[0].line, '+') != NULL, !strcmp(g.v[i].part[FOL_SORT_PID], "7"));
			fol_folded_free(&fs);
		}
		assert_int_equal(fol_report_stacks(&r, &g, 2, &fs), -EINVAL);
		fol_grouping_free(&g);
	}
	fol_summary_free(&r.s);
	fol_model_free(m);
}

/* report --format: a counter family is named as its samples in the Prometheus text
 * format (what promtool reads), without _total in OpenMetrics, which ends with EOF. */
static void test_metrics(void **state)
{
	struct fol_model_opts o = { .page_size = 4096, .order = FOL_ANY, .cls = FOL_ANY };
	struct fol_model *m = fol_model_new(&o);
	struct fol_report r;
	char buf[8192];
	FILE *f;

	(void)state;
	fault(m, 7, 10, 15, 0x9000, 0x77, NULL, 0);
	memset(&r, 0, sizeof(r));
	assert_int_equal(fol_model_finish(m, &r.s), 0);
	r.method = "exact";
	r.page_size = 4096;
	f = fmemopen(buf, sizeof(buf), "w");
	fol_report_metrics(&r, FOL_METRICS_PROMETHEUS, f);
	fclose(f);
	assert_non_null(strstr(buf, "# TYPE foliostat_faults_total counter\nfoliostat_faults_total{"));
	assert_non_null(strstr(buf, "# TYPE foliostat_recording_info gauge\n"));
	assert_null(strstr(buf, "# EOF"));
	assert_null(strstr(buf, "# UNIT"));
	f = fmemopen(buf, sizeof(buf), "w");
	fol_report_metrics(&r, FOL_METRICS_OPENMETRICS, f);
	fclose(f);
	assert_non_null(strstr(buf, "# TYPE foliostat_faults counter\n# HELP foliostat_faults "));
	assert_non_null(strstr(buf, "# UNIT foliostat_fault_time_seconds seconds\n"));
	assert_non_null(strstr(buf, "\n# EOF\n"));
	fol_summary_free(&r.s);
	fol_model_free(m);
}

static int same_int(const void *a, const void *b)
{
	return *(const int *)a == *(const int *)b;
}

/* Every element on one hash: the caller's equality alone tells them apart. */
static void test_indexed_clashes(void **state)
{
	struct fol_indexed a;
	int created;

	(void)state;
	assert_int_equal(fol_indexed_init(&a, sizeof(int)), 0);
	for (int i = 0; i < 100; i++) {
		int *el = fol_indexed_get(&a, 42, &i, same_int, &created);

		assert_non_null(el);
		assert_true(created);
		assert_int_equal(*el, i);
	}
	for (int i = 99; i >= 0; i--) {
		int *el = fol_indexed_get(&a, 42, &i, same_int, &created);

		assert_false(created);
		assert_int_equal(el - (int *)a.v, i);
	}
	fol_indexed_unget(&a);
	assert_int_equal(a.n, 99);
	fol_indexed_free(&a);
}

/* A thread renamed between two faults: each fault's site has the name it had then. */
static void test_renamed_thread(void **state)
{
	struct fol_model_opts o = { .page_size = 4096, .order = FOL_ANY, .cls = FOL_ANY };
	struct fol_model *m = fol_model_new(&o);
	struct fol_summary s;
	const struct fol_site *v;
	const char *names[2] = { "before", "after" };
	size_t n;

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct fol_event ev = { .time = 10 + 100 * (uint64_t)i, .pid = 7, .tid = 7,
					.kind = FOL_EV_COMM, .evidx = -1, .comm = { .comm = names[i] } };

		assert_int_equal(fol_model_event(m, &ev), 0);
		fault(m, 7, 20 + 100 * (uint64_t)i, 30 + 100 * (uint64_t)i, 0x9000, 0x401000, NULL, 0);
	}
	assert_int_equal(fol_model_finish(m, &s), 0);
	v = fol_sites_all(s.sites, &n);
	assert_int_equal(n, 2);
	assert_string_equal(fol_sites_str(s.sites, v[0].comm), "before");
	assert_string_equal(fol_sites_str(s.sites, v[1].comm), "after");
	fol_summary_free(&s);
	fol_model_free(m);
}

static void test_sort_parse(void **state)
{
	int keys[FOL_SORT_NR], n;
	struct fol_msgs why = { 0 };

	(void)state;
	assert_int_equal(fol_sort_parse("sym,map", keys, &n, &why), 0);
	assert_int_equal(n, 2);
	assert_int_equal(keys[0], FOL_SORT_SYM);
	assert_int_equal(keys[1], FOL_SORT_MAP);
	assert_int_equal(fol_sort_parse("pid,comm,map,dso,sym,class,order", keys, &n, &why), 0);
	assert_int_equal(n, 7);
	assert_int_equal(fol_sort_parse("sym,sym", keys, &n, &why), -EINVAL);
	assert_non_null(strstr(fol_msgs_last(&why), "twice"));
	assert_int_equal(fol_sort_parse("sym,", keys, &n, &why), -EINVAL);
	assert_int_equal(fol_sort_parse("", keys, &n, &why), -EINVAL);
	assert_int_equal(fol_sort_parse("symbol", keys, &n, &why), -EINVAL);
	assert_int_equal(fol_sort_parse("sy", keys, &n, &why), -EINVAL);
	assert_int_equal(fol_sort_parse(",sym", keys, &n, &why), -EINVAL);
	assert_int_equal(why.n, 6);
	fol_msgs_free(&why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intern),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_model_site),
		cmocka_unit_test(test_stacks),
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_indexed_clashes),
		cmocka_unit_test(test_renamed_thread),
		cmocka_unit_test(test_sort_parse),
	};

	return cmocka_run_group_tests_name("sites", tests, NULL, NULL);
}
