// SPDX-License-Identifier: GPL-2.0-only
/* The live tallies (top, serve): latency buckets, rows by process, thread and cgroup,
 * intervals, the pruning of ended tasks and the bound on cgroup rows; and the model's
 * observer on a synthetic stream, against the model's own summary. */
#include "model_events.h"

#include <errno.h>
#include <stdio.h>

#include "data/bpf_record.h"
#include "live/metrics.h"
#include "live/tally.h"
#include "model/sites.h"

static struct fol_fault_seen seen(int pid, int tid, int order, enum fol_class cls, uint64_t lat)
{
	return (struct fol_fault_seen){ .pid = pid, .tid = tid, .comm = "t", .proc_comm = "p",
					.order = order, .cls = cls, .timed = lat > 0, .lat_ns = lat };
}

static void test_lat_buckets(void **state)
{
	uint64_t b[FOL_LAT_BUCKETS] = { 0 };

	(void)state;
	assert_int_equal(fol_lat_bucket(0), 0);
	assert_int_equal(fol_lat_bucket(256), 0);
	assert_int_equal(fol_lat_bucket(320), 1);
	assert_int_equal(fol_lat_bucket(511), 3);
	assert_int_equal(fol_lat_bucket(512), 4);
	assert_int_equal(fol_lat_bucket(1ull << 40), FOL_LAT_BUCKETS - 1);
	/* Every value is at most its bucket's top, and above the bucket before. */
	for (uint64_t v = 256; v < (1ull << 33); v = v * 5 / 4 + 1) {
		int i = fol_lat_bucket(v);

		assert_true(v <= fol_lat_bucket_top(i));
		assert_true(i == 0 || v > fol_lat_bucket_top(i - 1));
	}
	assert_int_equal(fol_lat_quantile(b, 0.99), 0);
	b[fol_lat_bucket(1000)] = 99;
	b[fol_lat_bucket(100000)] = 1;
	assert_int_equal(fol_lat_quantile(b, 0.99), fol_lat_bucket_top(fol_lat_bucket(1000)));
	assert_int_equal(fol_lat_quantile(b, 1.0), fol_lat_bucket_top(fol_lat_bucket(100000)));
}

static const struct fol_tally_row *row(const struct fol_tally *t, uint64_t key)
{
	const struct fol_tally_row *v[64];
	size_t n = fol_tally_list(t, v, 64);

	for (size_t i = 0; i < n && i < 64; i++)
		if (v[i]->key == key)
			return v[i];
	return NULL;
}

static void test_by_process(void **state)
{
	struct fol_tally *t;
	struct fol_fault_seen f;

	(void)state;
	assert_int_equal(fol_tally_new(&t, &(struct fol_tally_opts){ .by = FOL_BY_PROCESS }), 0);
	for (int i = 0; i < 3; i++) {
		f = seen(10, 11, 4, FOL_C_WP_REUSE, 1000);
		f.new_episode = i == 0;
		assert_int_equal(fol_tally_fault(t, &f), 0);
	}
	f = seen(20, 20, 0, FOL_C_ANON_ALLOC, 0); /* untimed: counted, no time */
	assert_int_equal(fol_tally_fault(t, &f), 0);
	assert_int_equal(fol_tally_size(t), 2);
	assert_int_equal(row(t, 10)->total.faults, 3);
	assert_int_equal(row(t, 10)->total.time_ns, 3000);
	assert_int_equal(row(t, 10)->total.cell[FOL_ORDER_SLOT(4)][FOL_C_WP_REUSE].faults, 3);
	assert_string_equal(row(t, 10)->comm, "p");
	assert_true(fol_tally_per_folio(&row(t, 10)->total) == 3.0);
	assert_true(fol_tally_effectiveness(&row(t, 10)->total) * 3 > 0.999);
	assert_int_equal(row(t, 20)->total.time_ns, 0);
	assert_int_equal(row(t, 20)->total.cell[FOL_ORDER_SLOT(0)][FOL_C_ANON_ALLOC].timed, 0);

	/* The interval: its faults; the next one's start from there. */
	fol_tally_interval(t);
	assert_int_equal(row(t, 10)->last.faults, 3);
	f = seen(10, 12, 4, FOL_C_WP_REUSE, 500);
	assert_int_equal(fol_tally_fault(t, &f), 0);
	fol_tally_interval(t);
	assert_int_equal(row(t, 10)->last.faults, 1);
	assert_int_equal(row(t, 10)->last.time_ns, 500);
	assert_int_equal(row(t, 10)->mark.faults, 4);

	/* A thread's end is not its process's; the process's end shows for one interval
	 * more, then its row goes. */
	fol_tally_exit(t, 10, 12);
	assert_int_equal(row(t, 10)->gone, 0);
	fol_tally_exit(t, 10, 10);
	fol_tally_interval(t);
	assert_non_null(row(t, 10));
	assert_int_equal(row(t, 10)->gone, 2);
	fol_tally_interval(t);
	assert_null(row(t, 10));
	assert_int_equal(fol_tally_size(t), 1);
	fol_tally_free(t);
}

static void test_by_thread(void **state)
{
	struct fol_tally *t;
	struct fol_fault_seen f;

	(void)state;
	assert_int_equal(fol_tally_new(&t, &(struct fol_tally_opts){ .by = FOL_BY_THREAD }), 0);
	f = seen(10, 11, 0, FOL_C_FILE, 100);
	assert_int_equal(fol_tally_fault(t, &f), 0);
	f = seen(10, 12, 0, FOL_C_FILE, 100);
	assert_int_equal(fol_tally_fault(t, &f), 0);
	assert_int_equal(fol_tally_size(t), 2);
	assert_int_equal(row(t, 12)->pid, 10);
	assert_string_equal(row(t, 12)->comm, "t");
	fol_tally_exit(t, 10, 12);
	fol_tally_interval(t);
	fol_tally_interval(t);
	assert_null(row(t, 12));
	assert_non_null(row(t, 11));
	fol_tally_free(t);
}

/* The fake /proc/PID/cgroup: pid 1..9 in /a, 10..19 in /b, 20.. in /cN, 99 unreadable;
 * pid 5 in /b once moved. */
static int moved;

static int fake_cgroup(int pid, char *buf, size_t len)
{
	if (pid == 99)
		return -ENOENT;
	if (pid == 5 && moved)
		return snprintf(buf, len, "/b") < 0;
	snprintf(buf, len, pid < 10 ? "/a" : pid < 20 ? "/b" : "/c%d", pid);
	return 0;
}

static const struct fol_tally_row *cgroup_row(const struct fol_tally *t, const char *path)
{
	const struct fol_tally_row *v[64];
	size_t n = fol_tally_list(t, v, 64);

	for (size_t i = 0; i < n && i < 64; i++)
		if (!strcmp(v[i]->cgroup, path))
			return v[i];
	return NULL;
}

static uint64_t cgroup_faults(const struct fol_tally *t, const char *path)
{
	const struct fol_tally_row *r = cgroup_row(t, path);

	return r ? r->total.faults : 0;
}

static void test_by_cgroup(void **state)
{
	struct fol_tally *t;
	struct fol_fault_seen f;

	(void)state;
	assert_int_equal(fol_tally_new(&t, &(struct fol_tally_opts){ .by = FOL_BY_CGROUP, .cell_hist = 1,
								      .max_rows = 3, .cgroup_of = fake_cgroup }),
			 0);
	for (int pid = 1; pid < 30; pid++) {
		f = seen(pid, pid, 9, FOL_C_ANON_ALLOC, 2000);
		assert_int_equal(fol_tally_fault(t, &f), 0);
	}
	f = seen(99, 99, 9, FOL_C_ANON_ALLOC, 2000);
	assert_int_equal(fol_tally_fault(t, &f), 0);
	assert_int_equal(cgroup_faults(t, "/a"), 9);
	assert_int_equal(cgroup_faults(t, "/b"), 10);
	/* The third row is /c20; the rest, and the unreadable one, are "other". */
	assert_int_equal(cgroup_faults(t, "/c20"), 1);
	assert_int_equal(cgroup_faults(t, "other"), 10);
	assert_int_equal(fol_tally_overflow(t), 10);
	assert_true(fol_tally_size(t) <= 4);
	/* Cell histograms: the one cell's bucket. */
	assert_int_equal(row(t, 0)->hist[FOL_ORDER_SLOT(9)][FOL_C_ANON_ALLOC][fol_lat_bucket(2000)], 10);
	/* A process that moved is counted where it was until it execs. */
	moved = 1;
	f = seen(5, 5, 9, FOL_C_ANON_ALLOC, 2000);
	assert_int_equal(fol_tally_fault(t, &f), 0);
	assert_int_equal(cgroup_faults(t, "/a"), 10);
	fol_tally_exec(t, 5);
	assert_int_equal(fol_tally_fault(t, &f), 0);
	assert_int_equal(cgroup_faults(t, "/b"), 11);
	moved = 0;
	/* A child is counted in its parent's cgroup (pid 25 would be /c25: no row left). */
	fol_tally_fork(t, 10, 25);
	f = seen(25, 25, 9, FOL_C_ANON_ALLOC, 2000);
	assert_int_equal(fol_tally_fault(t, &f), 0);
	assert_int_equal(cgroup_faults(t, "/b"), 12);
	/* A cgroup's row outlives its processes (its counters are Prometheus counters). */
	fol_tally_exit(t, 1, 1);
	fol_tally_interval(t);
	fol_tally_interval(t);
	assert_int_equal(cgroup_faults(t, "/a"), 10);
	fol_tally_free(t);
}

/* The fake walk of the hierarchy: id 7 is /a/x, id 8 was removed, the rest /idN. */
static int id_lookups;

static int fake_cgroup_id(uint64_t id, char *buf, size_t len)
{
	id_lookups++;
	if (id == 8)
		return -ENOENT;
	snprintf(buf, len, id == 7 ? "/a/x" : "/id%llu", (unsigned long long)id);
	return 0;
}

/* A fault that carries its task's cgroup id (serve --by-cgroup samples it) is counted in
 * that cgroup, whatever /proc says of its process now (the process may have moved, its
 * first fault come late to the model): the kernel's counts, by the same id, agree. Each
 * id's path is found once, and forgotten past 4096 ids. */
static void test_by_cgroup_id(void **state)
{
	struct fol_tally *t;
	struct fol_fault_seen f;

	(void)state;
	id_lookups = 0;
	assert_int_equal(fol_tally_new(&t, &(struct fol_tally_opts){ .by = FOL_BY_CGROUP, .max_rows = 64,
								      .cgroup_of = fake_cgroup,
								      .cgroup_of_id = fake_cgroup_id }),
			 0);
	f = seen(5, 5, 9, FOL_C_ANON_ALLOC, 2000); /* /a by /proc */
	f.cgroup = 7;
	assert_int_equal(fol_tally_fault(t, &f), 0);
	assert_int_equal(fol_tally_fault(t, &f), 0);
	f.cgroup = 8;
	assert_int_equal(fol_tally_fault(t, &f), 0);
	f.cgroup = 0; /* not recorded: /proc's */
	assert_int_equal(fol_tally_fault(t, &f), 0);
	assert_int_equal(cgroup_faults(t, "/a/x"), 2);
	assert_int_equal(cgroup_faults(t, "other"), 1);
	assert_int_equal(cgroup_faults(t, "/a"), 1);
	assert_int_equal(id_lookups, 2);
	for (uint64_t id = 100; id < 100 + 4096; id++) {
		f.cgroup = id;
		assert_int_equal(fol_tally_fault(t, &f), 0);
	}
	f.cgroup = 7;
	assert_int_equal(fol_tally_fault(t, &f), 0);
	assert_int_equal(cgroup_faults(t, "/a/x"), 3);
	assert_int_equal(id_lookups, 2 + 4096 + 1);
	fol_tally_free(t);
}

/* The fake cgroup2 mount: every path there but the one removed ("other" is no path). */
static const char *removed_path;
static int alive_calls;

static int fake_alive(const char *path)
{
	alive_calls++;
	return strcmp(path, "other") && (!removed_path || strcmp(path, removed_path));
}

static void fault_in(struct fol_tally *t, int pid, uint64_t id)
{
	struct fol_fault_seen f = seen(pid, pid, 9, FOL_C_ANON_ALLOC, 2000);

	f.cgroup = id;
	assert_int_equal(fol_tally_fault(t, &f), 0);
}

/* Containers come and go for days: a removed cgroup's row stays linger_ns after it is
 * found removed (its last counts for the scrapes still to come), then goes with the ids
 * and processes that pointed at it, and its room is a new cgroup's; a path made again
 * before then keeps its row; "other" stays. */
static void test_prune(void **state)
{
	struct fol_tally *t;

	(void)state;
	removed_path = NULL;
	id_lookups = alive_calls = 0;
	assert_int_equal(fol_tally_new(&t, &(struct fol_tally_opts){ .by = FOL_BY_CGROUP, .cell_hist = 1,
								      .max_rows = 4, .cgroup_of = fake_cgroup,
								      .cgroup_of_id = fake_cgroup_id,
								      .cgroup_alive = fake_alive, .linger_ns = 100 }),
			 0);
	fault_in(t, 1, 0);  /* /a, by /proc */
	fault_in(t, 10, 0); /* /b */
	fault_in(t, 11, 0);
	fault_in(t, 2, 7); /* /a/x, by its id */
	fault_in(t, 99, 0); /* no /proc: "other", the fourth row */
	fault_in(t, 21, 0); /* /c21: no room, "other" */
	assert_int_equal(cgroup_faults(t, "other"), 2);
	fol_tally_prune(t, 1000);
	assert_int_equal(alive_calls, 3); /* "other" is not looked at */
	removed_path = "/b";
	fol_tally_prune(t, 2000);
	fol_tally_prune(t, 2099);
	assert_int_equal(cgroup_faults(t, "/b"), 2); /* still served */
	assert_true(cgroup_row(t, "/b")->removed);
	fol_tally_prune(t, 2100);
	assert_null(cgroup_row(t, "/b"));
	/* Its room is a new cgroup's (pid 21 stays in "other", where it was counted first);
	 * pid 10 is looked up again (its /proc says /b: made again). */
	fault_in(t, 22, 0);
	assert_int_equal(cgroup_faults(t, "/c22"), 1);
	removed_path = NULL;
	fault_in(t, 10, 0);
	assert_int_equal(cgroup_faults(t, "other"), 3); /* no room: the bound holds */
	/* /a/x goes: id 7 is looked up again at its next fault. */
	removed_path = "/a/x";
	fol_tally_prune(t, 3000);
	fol_tally_prune(t, 3100);
	assert_null(cgroup_row(t, "/a/x"));
	assert_int_equal(id_lookups, 1);
	fault_in(t, 2, 7);
	assert_int_equal(id_lookups, 2);
	assert_int_equal(cgroup_faults(t, "/a/x"), 1); /* counted anew */
	/* /a removed, then made again before its linger ends: it keeps its row and counts. */
	removed_path = "/a";
	fol_tally_prune(t, 4000);
	removed_path = NULL;
	fol_tally_prune(t, 4050);
	removed_path = "/a";
	fol_tally_prune(t, 4100);
	assert_int_equal(cgroup_faults(t, "/a"), 1);
	fol_tally_prune(t, 4199);
	assert_int_equal(cgroup_faults(t, "/a"), 1);
	fol_tally_prune(t, 4200);
	assert_null(cgroup_row(t, "/a"));
	assert_int_equal(cgroup_faults(t, "other"), 3);
	fol_tally_free(t);
}

/* The metrics of a tally by cgroup: the fault counter, a histogram whose +Inf bucket and
 * count are the cell's timed faults, the cgroup label. */
static void test_metrics(void **state)
{
	struct fol_tally *t;
	struct fol_fault_seen f;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(fol_tally_new(&t, &(struct fol_tally_opts){ .by = FOL_BY_CGROUP, .cell_hist = 1,
								      .cgroup_of = fake_cgroup }),
			 0);
	f = seen(1, 1, 4, FOL_C_WP_REUSE, 700);
	f.new_episode = 1;
	assert_int_equal(fol_tally_fault(t, &f), 0);
	f = seen(1, 1, 4, FOL_C_WP_REUSE, 0);
	assert_int_equal(fol_tally_fault(t, &f), 0);
	assert_int_equal(fol_scrape_write(&(struct fol_scrape){ .tally = t, .by_cgroup = 1, .page_size = 4096 },
					  FOL_METRICS_OPENMETRICS, out),
			 0);
	fclose(out);
	assert_non_null(strstr(buf, "foliostat_faults_total{cgroup=\"/a\",order=\"4\",size=\"64K\",class=\"wp_reuse\"} 2\n"));
	assert_non_null(strstr(buf, "foliostat_fault_seconds_bucket{cgroup=\"/a\",order=\"4\",size=\"64K\","
				    "class=\"wp_reuse\",le=\"1.024e-06\"} 1\n"));
	assert_non_null(strstr(buf, "foliostat_fault_seconds_bucket{cgroup=\"/a\",order=\"4\",size=\"64K\","
				    "class=\"wp_reuse\",le=\"5.12e-07\"} 0\n"));
	assert_non_null(strstr(buf, "class=\"wp_reuse\",le=\"+Inf\"} 1\n"));
	assert_non_null(strstr(buf, "foliostat_reuse_faults_total{cgroup=\"/a\",order=\"4\",size=\"64K\"} 2\n"));
	assert_non_null(strstr(buf, "foliostat_reuse_episodes_total{cgroup=\"/a\",order=\"4\",size=\"64K\"} 1\n"));
	assert_non_null(strstr(buf, "# TYPE foliostat_faults counter\n"));
	assert_non_null(strstr(buf, "\n# EOF\n"));
	assert_null(strstr(buf, "sample="));
	free(buf);
	/* One fault in 8 timed: the histogram's counts and sum stand for 8 faults each, and
	 * say so; the fault counter does not change. */
	out = open_memstream(&buf, &len);
	assert_int_equal(fol_scrape_write(&(struct fol_scrape){ .tally = t, .by_cgroup = 1, .sample = 8,
								.page_size = 4096 },
					  FOL_METRICS_PROMETHEUS, out),
			 0);
	fclose(out);
	assert_non_null(strstr(buf, "foliostat_faults_total{cgroup=\"/a\",order=\"4\",size=\"64K\",class=\"wp_reuse\"} 2\n"));
	assert_non_null(strstr(buf, "foliostat_fault_seconds_bucket{cgroup=\"/a\",order=\"4\",size=\"64K\","
				    "class=\"wp_reuse\",sample=\"1/8\",le=\"1.024e-06\"} 8\n"));
	assert_non_null(strstr(buf, "class=\"wp_reuse\",sample=\"1/8\",le=\"+Inf\"} 8\n"));
	assert_non_null(strstr(buf, "foliostat_fault_seconds_count{cgroup=\"/a\",order=\"4\",size=\"64K\","
				    "class=\"wp_reuse\",sample=\"1/8\"} 8\n"));
	assert_non_null(strstr(buf, "foliostat_fault_seconds_sum{cgroup=\"/a\",order=\"4\",size=\"64K\","
				    "class=\"wp_reuse\",sample=\"1/8\"} 0.000005600\n"));
	assert_non_null(strstr(buf, ",sample=\"1/8\"} 1\n")); /* foliostat_exporter_info */
	assert_null(strstr(buf, "process_resident_memory_bytes"));
	free(buf);
	/* serve's own memory, as read: in both formats, OpenMetrics' with its units. */
	out = open_memstream(&buf, &len);
	assert_int_equal(fol_scrape_write(&(struct fol_scrape){ .tally = t, .page_size = 4096,
								.self = &(struct fol_self){
									.resident_bytes = 12345678,
									.heap_in_use_bytes = 3000000,
									.heap_free_bytes = 70000,
									.bpf_map_bytes = 46000000,
									.cpu_seconds = 1.5 } },
					  FOL_METRICS_OPENMETRICS, out),
			 0);
	fclose(out);
	assert_non_null(strstr(buf, "# UNIT process_resident_memory_bytes bytes\n"
				    "# HELP process_resident_memory_bytes "));
	assert_non_null(strstr(buf, "\nprocess_resident_memory_bytes 12345678\n"));
	assert_non_null(strstr(buf, "# TYPE process_cpu_seconds counter\n# UNIT process_cpu_seconds seconds\n"));
	assert_non_null(strstr(buf, "\nprocess_cpu_seconds_total 1.500\n"));
	assert_non_null(strstr(buf, "\nfoliostat_heap_bytes{state=\"in_use\"} 3000000\n"
				    "foliostat_heap_bytes{state=\"free\"} 70000\n"));
	assert_non_null(strstr(buf, "\nfoliostat_bpf_map_bytes 46000000\n"));
	free(buf);
	fol_tally_free(t);
}

/* The BPF programs' latency bucket (serve's kernel reuse) is the tally's, for every
 * value: at each bucket's edges and between them. */
static void test_bpf_buckets(void **state)
{
	(void)state;
	for (int i = 0; i < FOL_LAT_BUCKETS - 1; i++) {
		uint64_t top = fol_lat_bucket_top(i);

		assert_int_equal(fol_bpf_lat_bucket(top), fol_lat_bucket(top));
		assert_int_equal(fol_bpf_lat_bucket(top + 1), fol_lat_bucket(top + 1));
		assert_int_equal(fol_bpf_lat_bucket(top - top / 7), fol_lat_bucket(top - top / 7));
	}
	for (uint64_t v = 0; v < 4096; v++)
		assert_int_equal(fol_bpf_lat_bucket(v), fol_lat_bucket(v));
	assert_int_equal(fol_bpf_lat_bucket(UINT64_MAX), FOL_LAT_BUCKETS - 1);
	assert_int_equal(FOL_BPF_LAT_BUCKETS, FOL_LAT_BUCKETS);
}

/* Faults counted elsewhere (kernel reuse) join the rows as the model's do: by cgroup
 * path (bounded: the rest are "other", counted), or the one row; never a task's. */
static void test_add(void **state)
{
	struct fol_tally_bulk b = { .faults = 5, .episodes = 2, .timed = 4, .time_ns = 4000 };
	const struct fol_tally_row *r;
	struct fol_tally *t;
	struct fol_fault_seen f = seen(1, 1, 4, FOL_C_WP_REUSE, 700);

	(void)state;
	b.lat[fol_lat_bucket(1000)] = 4;
	assert_int_equal(fol_tally_new(&t, &(struct fol_tally_opts){ .by = FOL_BY_CGROUP, .cell_hist = 1,
								      .max_rows = 2, .cgroup_of = fake_cgroup }),
			 0);
	f.new_episode = 1;
	assert_int_equal(fol_tally_fault(t, &f), 0); /* pid 1: /a */
	assert_int_equal(fol_tally_add(t, "/a", 4, FOL_C_WP_REUSE, &b), 0);
	assert_int_equal(cgroup_faults(t, "/a"), 6);
	r = cgroup_row(t, "/a");
	assert_int_equal(r->total.reuse[FOL_ORDER_SLOT(4)], 6);
	assert_int_equal(r->total.episodes[FOL_ORDER_SLOT(4)], 3);
	assert_int_equal(r->total.cell[FOL_ORDER_SLOT(4)][FOL_C_WP_REUSE].timed, 5);
	assert_int_equal(r->hist[FOL_ORDER_SLOT(4)][FOL_C_WP_REUSE][fol_lat_bucket(1000)], 4);
	assert_int_equal(fol_tally_add(t, "/new", 0, FOL_C_WP_REUSE, &b), 0);
	assert_int_equal(cgroup_faults(t, "/new"), 5);
	assert_int_equal(fol_tally_add(t, "/third", 0, FOL_C_WP_REUSE, &b), 0);
	assert_int_equal(fol_tally_add(t, NULL, 0, FOL_C_WP_REUSE, &b), 0);
	assert_int_equal(cgroup_faults(t, "other"), 10);
	assert_int_equal(fol_tally_overflow(t), 10);
	fol_tally_free(t);
	assert_int_equal(fol_tally_new(&t, &(struct fol_tally_opts){ .by = FOL_BY_ALL }), 0);
	assert_int_equal(fol_tally_add(t, "/a", 9, FOL_C_WP_REUSE, &b), 0);
	assert_int_equal(fol_tally_fault(t, &f), 0);
	assert_int_equal(row(t, 0)->total.faults, 6);
	fol_tally_free(t);
	assert_int_equal(fol_tally_new(&t, &(struct fol_tally_opts){ .by = FOL_BY_PROCESS }), 0);
	assert_int_equal(fol_tally_add(t, "/a", 9, FOL_C_WP_REUSE, &b), -EINVAL);
	fol_tally_free(t);
}

/* What the model tells its observer is what it counts: the same faults by order and
 * class, and the task's end. */
struct told {
	struct fol_tally *t;
	int exits;
};

static void told_fault(void *ctx, const struct fol_fault_seen *f)
{
	struct told *x = ctx;

	assert_int_equal(fol_tally_fault(x->t, f), 0);
}

static void told_exit(void *ctx, int pid, int tid)
{
	struct told *x = ctx;

	x->exits++;
	fol_tally_exit(x->t, pid, tid);
}

/* A live model telling x's tally (by process) each fault and exit; obs must outlive it. */
static struct fol_model *told_model(struct told *x, struct fol_model_observer *obs)
{
	struct fol_model_opts o = { .page_size = 4096, .order = FOL_ANY, .cls = FOL_ANY, .pmd_order = 9,
				    .observer = obs, .live = 1 };

	*obs = (struct fol_model_observer){ .fault = told_fault, .exit = told_exit, .ctx = x };
	assert_int_equal(fol_tally_new(&x->t, &(struct fol_tally_opts){ .by = FOL_BY_PROCESS }), 0);
	now = 1000000;
	return fol_model_new(&o);
}

static void test_observer(void **state)
{
	struct told x = { 0 };
	struct fol_model_observer obs;
	struct fol_model *m = told_model(&x, &obs);
	const struct fol_tally_row *r;
	struct fol_summary s;

	(void)state;
	anon_vma(m, PID, BASE, 1 << 20);
	fault(m, PID, PID, BASE, 0x6, 4, 5000);
	fork_write_rounds(m, 2);
	s = finish(m);
	r = row(x.t, PID);
	assert_non_null(r);
	assert_int_equal(r->total.cell[FOL_ORDER_SLOT(4)][FOL_C_ANON_ALLOC].faults,
			 CELL(s, 4, FOL_C_ANON_ALLOC).faults);
	assert_int_equal(r->total.cell[FOL_ORDER_SLOT(4)][FOL_C_WP_REUSE].faults,
			 CELL(s, 4, FOL_C_WP_REUSE).faults);
	assert_int_equal(r->total.cell[FOL_ORDER_SLOT(4)][FOL_C_WP_REUSE].time_ns,
			 CELL(s, 4, FOL_C_WP_REUSE).lat.sum);
	/* Two episodes of 16, as the model's own reuse figures. */
	assert_int_equal(r->total.episodes[FOL_ORDER_SLOT(4)], s.order[FOL_ORDER_SLOT(4)].reuse.episodes);
	assert_int_equal(r->total.reuse[FOL_ORDER_SLOT(4)], 32);
	assert_int_equal(x.exits, 2);
	fol_summary_free(&s);
	fol_model_free(m);
	fol_tally_free(x.t);
}

/* A reuse fault whose episode serve's BPF programs counted already (its exit says so:
 * FOL_BPF_EPISODE_KEPT) is told as a fault, not as a new episode; the next one of the
 * same folio is not the episode's first either. */
static void test_episode_kept(void **state)
{
	struct told x = { 0 };
	struct fol_model_observer obs;
	struct fol_model *m = told_model(&x, &obs);
	const struct fol_tally_row *r;
	struct fol_summary s;
	uint64_t t;

	(void)state;
	anon_vma(m, PID, BASE, 1 << 20);
	fault(m, PID, PID, BASE, 0x6, 4, 5000);
	fork_proc(m, PID, 200);
	feed(m, (struct fol_event){ .kind = FOL_EV_EXIT, .fork = { .pid = 200, .tid = 200, .ppid = PID, .ptid = PID } });
	t = now;
	entry(m, PID, PID, BASE, 0x7, t);
	feed(m, (struct fol_event){ .time = t + 1000, .pid = PID, .tid = PID, .kind = FOL_EV_FAULT_EXIT,
				    .exit = { .addr = BASE, .episode_kept = 1 } });
	now = t + 2000;
	fault(m, PID, PID, BASE + 4096, 0x7, -1, 1000);
	s = finish(m);
	r = row(x.t, PID);
	assert_non_null(r);
	assert_int_equal(r->total.reuse[FOL_ORDER_SLOT(4)], 2);
	assert_int_equal(r->total.episodes[FOL_ORDER_SLOT(4)], 0);
	fol_summary_free(&s);
	fol_model_free(m);
	fol_tally_free(x.t);
}

/* serve --sample N: a fault whose exit says it was not timed (FOL_BPF_UNTIMED) is counted
 * and left out of the latencies; the timed one beside it is in them. */
static void test_untimed(void **state)
{
	struct told x = { 0 };
	struct fol_model_observer obs;
	struct fol_model *m = told_model(&x, &obs);
	const struct fol_tally_row *r;
	struct fol_summary s;
	uint64_t t = now;

	(void)state;
	anon_vma(m, PID, BASE, 1 << 20);
	entry(m, PID, PID, BASE, 0x6, t);
	now = t + 1;
	alloc(m, PID, PID, 0, 0x140cca);
	feed(m, (struct fol_event){ .time = t + 3000, .pid = PID, .tid = PID, .kind = FOL_EV_FAULT_EXIT,
				    .exit = { .addr = BASE, .untimed = 1 } });
	now = t + 4000;
	fault(m, PID, PID, BASE + 4096, 0x6, 0, 1000);
	s = finish(m);
	r = row(x.t, PID);
	assert_non_null(r);
	assert_int_equal(r->total.cell[FOL_ORDER_SLOT(0)][FOL_C_ANON_ALLOC].faults, 2);
	assert_int_equal(r->total.cell[FOL_ORDER_SLOT(0)][FOL_C_ANON_ALLOC].timed, 1);
	assert_int_equal(r->total.cell[FOL_ORDER_SLOT(0)][FOL_C_ANON_ALLOC].time_ns, 1000);
	assert_int_equal(s.untimed, 1);
	fol_summary_free(&s);
	fol_model_free(m);
	fol_tally_free(x.t);
}

/* A live model (top's and serve's) without an observer, the clock at its start. */
static struct fol_model *live_model(void)
{
	struct fol_model_opts o = { .page_size = 4096, .order = FOL_ANY, .cls = FOL_ANY, .live = 1 };

	now = 1000000;
	return fol_model_new(&o);
}

/* Live: the kernel's teardown of a process's memory after its exit record (page frees,
 * rss_stat of the exited tid) does not make it anew, for days of fork/exit: a process
 * counted twice is one the model holds again. */
static void test_after_exit(void **state)
{
	struct fol_model *m = live_model();
	struct fol_summary s;

	(void)state;
	anon_vma(m, PID, BASE, 1 << 20);
	fault(m, PID, PID, BASE, 0x6, 0, 1000);
	for (int child = 200; child < 203; child++) {
		fork_proc(m, PID, child);
		anon_vma(m, child, BASE, 1 << 20);
		feed(m, (struct fol_event){ .kind = FOL_EV_EXIT,
					    .fork = { .pid = child, .tid = child, .ppid = PID, .ptid = PID } });
		rss_of(m, child, 7, 1, 0);
		feed(m, (struct fol_event){ .pid = child, .tid = child, .kind = FOL_EV_PAGE_FREE,
					    .page = { .pfn = 0x2000, .order = 0 } });
	}
	s = finish(m);
	assert_int_equal(s.processes, 4);
	fol_summary_free(&s);
	fol_model_free(m);
}

/* Live: nothing reads a mapping's name (no sites, no stacks), so none is kept: a build
 * server's processes map a new temporary file each, for days. */
static void test_live_names(void **state)
{
	struct fol_model *m = live_model();
	struct fol_summary s;
	char name[64];

	(void)state;
	for (int i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "/tmp/cc%06d.o", i);
		feed(m, (struct fol_event){ .pid = PID, .tid = PID, .kind = FOL_EV_MMAP,
					    .mmap = { .start = BASE + ((uint64_t)i << 20), .len = 4096, .maj = 8,
						      .min = 1, .ino = 100 + (uint64_t)i, .filename = name } });
	}
	fault(m, PID, PID, BASE, 0x4, -1, 1000);
	s = finish(m);
	assert_int_equal(CELL(s, 0, FOL_C_FILE).faults + CELL(s, -1, FOL_C_FILE).faults, 1);
	assert_string_equal(fol_sites_str(s.sites, 0), "[kernel]");
	assert_string_equal(fol_sites_str(s.sites, 1), "?"); /* none interned after it */
	fol_summary_free(&s);
	fol_model_free(m);
}

static void map_file(struct fol_model *m, int pid, uint64_t ino)
{
	feed(m, (struct fol_event){ .pid = pid, .tid = pid, .kind = FOL_EV_MMAP,
				    .mmap = { .start = BASE, .len = 1 << 20, .maj = 8, .min = 1, .ino = ino,
					      .filename = "/data/db" } });
}

static void page_added(struct fol_model *m, uint64_t ino, uint64_t index, int order)
{
	feed(m, (struct fol_event){ .pid = 1, .tid = 1, .kind = FOL_EV_FILEMAP_ADD,
				    .filemap = { .dev = 8 << 20 | 1, .ino = ino, .index = index, .order = order } });
}

/* Live: the page cache of a file no process maps any more is forgotten (top and serve
 * ask once a minute); while one maps it, the orders of its folios added before a fault
 * stay known. */
static void test_live_files(void **state)
{
	struct fol_model *m = live_model();
	struct fol_summary s;

	(void)state;
	map_file(m, PID, 77);
	page_added(m, 77, 0, 4); /* readahead, before the faults */
	page_added(m, 77, 16, 4);
	assert_int_equal(fol_model_forget_files(m), 0);
	fault(m, PID, PID, BASE, 0x4, -1, 1000);
	feed(m, (struct fol_event){ .kind = FOL_EV_EXIT, .fork = { .pid = PID, .tid = PID } });
	assert_int_equal(fol_model_forget_files(m), 0);
	map_file(m, 400, 77);
	fault(m, 400, 400, BASE + (16 << 12), 0x4, -1, 1000);
	s = finish(m);
	assert_int_equal(CELL(s, 4, FOL_C_FILE).faults, 1);  /* mapped: known */
	assert_int_equal(CELL(s, -1, FOL_C_FILE).faults, 1); /* forgotten, then mapped anew */
	fol_summary_free(&s);
	fol_model_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lat_buckets), cmocka_unit_test(test_by_process),
		cmocka_unit_test(test_by_thread),   cmocka_unit_test(test_by_cgroup),
		cmocka_unit_test(test_metrics),	    cmocka_unit_test(test_observer),
		cmocka_unit_test(test_after_exit),  cmocka_unit_test(test_bpf_buckets),
		cmocka_unit_test(test_add),	    cmocka_unit_test(test_episode_kept),
		cmocka_unit_test(test_untimed),
		cmocka_unit_test(test_by_cgroup_id), cmocka_unit_test(test_prune),
		cmocka_unit_test(test_live_names),  cmocka_unit_test(test_live_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
