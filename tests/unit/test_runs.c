// SPDX-License-Identifier: GPL-2.0-only
/* Recordings of several runs (RUN and BARE chunks): read run by run, runs without a header
 * skipped, a cut file read up to the cut; and their sides compared. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "compare/compare.h"
#include "compare/sides.h"
#include "compare/compare_sites.h"
#include "recbuild.h"
#include "report/runs.h"

static const struct fol_model_opts all = { .order = FOL_ANY, .cls = FOL_ANY };

/* One run: RUN (when idx >= 0), BARE, header, nfaults 4K anon faults of lat ns each. */
static void add_run(struct rb *b, int idx, int runs, const char *config, int nfaults, uint64_t lat,
		    int end)
{
	struct rb_recs recs = { 0 };
	uint64_t t = 10000;
	char j[256];

	if (idx >= 0) {
		/* config "": record -r, no sweep. */
		if (config[0])
			snprintf(j, sizeof(j), "{\"run\":%d,\"runs\":%d,\"sweep\":\"mthp\",\"config\":\"%s\"}",
				 idx, runs, config);
		else
			snprintf(j, sizeof(j), "{\"run\":%d,\"runs\":%d}", idx, runs);
		rb_json(b, FOL_CHUNK_RUN, j);
		snprintf(j, sizeof(j), "{\"run\":%d,\"config\":\"%s\",\"duration_ns\":5000,\"exit_code\":0,"
			 "\"phases\":[{\"phase\":\"touch\",\"start_ns\":100,\"end_ns\":%d}]}", idx, config,
			 100 + nfaults * 500);
		rb_json(b, FOL_CHUNK_BARE, j);
	}
	rb_meta(b, NULL);
	rb_default_events(b);
	for (int i = 0; i < nfaults; i++) {
		uint64_t addr = 0x7f0000000000 + (uint64_t)i * 0x1000;

		rb_fault(&recs, 100, 100, t, addr, 6);
		rb_alloc(&recs, 100, 100, t + 1, 0);
		rb_exit(&recs, 100, 100, t + lat, addr);
		t += lat + 100;
	}
	rb_records(b, &recs);
	snprintf(j, sizeof(j), "{\"phase\":\"touch\",\"start_ns\":10000,\"end_ns\":%llu}\n",
		 (unsigned long long)t);
	rb_json(b, FOL_CHUNK_WORKLOAD, j);
	if (end)
		rb_chunk(b, FOL_CHUNK_END, "{}", 2);
	free(recs.b);
}

/* The last bytes of a file cut off, as a killed recorder leaves it. */
static void cut_end(const char *path, long bytes)
{
	FILE *f = fopen(path, "r+");

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	assert_int_equal(ftruncate(fileno(f), ftell(f) - bytes), 0);
	fclose(f);
}

static void test_load_runs(void **state)
{
	const char *configs[8];
	struct fol_sides sides;
	struct fol_runs rs;
	struct rb b;

	(void)state;
	rb_open(&b);
	add_run(&b, 0, 4, "4K", 10, 1000, 1);
	add_run(&b, 1, 4, "4K", 11, 1000, 1);
	add_run(&b, 2, 4, "64K", 12, 1000, 1);
	add_run(&b, 3, 4, "64K", 13, 1000, 1);
	assert_int_equal(fol_writer_close(b.w), 0);
	assert_int_equal(fol_runs_load(b.path, &all, &rs), 0);
	assert_int_equal(rs.n, 4);
	assert_true(rs.several);
	assert_string_equal(rs.sweep, "mthp");
	for (int i = 0; i < 4; i++) {
		assert_int_equal(rs.v[i].index, i);
		assert_int_equal(rs.v[i].r.s.faults, 10 + i);
		assert_int_equal(rs.v[i].r.s.order[FOL_ORDER_SLOT(0)].cell[FOL_C_ANON_ALLOC].faults, 10 + i);
	}
	assert_string_equal(rs.v[1].config, "4K");
	assert_string_equal(rs.v[2].config, "64K");
	assert_int_equal(fol_runs_configs(&rs, configs, 8), 2);
	assert_string_equal(configs[1], "64K");
	assert_int_equal(rs.nbare, 4);
	assert_true(rs.file.complete);
	/* Each configuration's side has its own untraced runs, not the other's. */
	memset(&sides, 0, sizeof(sides));
	assert_int_equal(fol_sides_add(&sides, &rs, 1, "x.data", "mthp"), 0);
	assert_int_equal(sides.n, 2);
	for (int s = 0; s < 2; s++) {
		assert_int_equal(sides.v[s].nbare, 2);
		for (int i = 0; i < 2; i++)
			assert_string_equal(sides.v[s].bare[i]->config, s ? "64K" : "4K");
	}
	fol_sides_free(&sides);
	fol_runs_free(&rs);
	unlink(b.path);
}

/* A file without RUN chunks is one run, as before. */
static void test_single_run(void **state)
{
	struct fol_runs rs;
	struct rb b;

	(void)state;
	rb_open(&b);
	add_run(&b, -1, 1, "", 7, 1000, 1);
	assert_int_equal(fol_writer_close(b.w), 0);
	assert_int_equal(fol_runs_load(b.path, &all, &rs), 0);
	assert_int_equal(rs.n, 1);
	assert_false(rs.several);
	assert_int_equal(rs.v[0].r.s.faults, 7);
	assert_string_equal(rs.v[0].config, "");
	fol_runs_free(&rs);
	unlink(b.path);
}

/* A run whose recording failed (RUN chunk, nothing else) is skipped; later runs stand. */
static void test_skip_empty_run(void **state)
{
	struct fol_runs rs;
	struct rb b;

	(void)state;
	rb_open(&b);
	add_run(&b, 0, 3, "a", 5, 1000, 1);
	rb_json(&b, FOL_CHUNK_RUN, "{\"run\":1,\"runs\":3}");
	rb_json(&b, FOL_CHUNK_RECORDS, "garbage, no header before it");
	add_run(&b, 2, 3, "a", 9, 1000, 1);
	assert_int_equal(fol_writer_close(b.w), 0);
	assert_int_equal(fol_runs_load(b.path, &all, &rs), 0);
	assert_int_equal(rs.n, 2);
	assert_int_equal(rs.v[0].r.s.faults, 5);
	assert_int_equal(rs.v[1].r.s.faults, 9);
	/* Numbered by their RUN chunks: the one skipped is said to be missing. */
	assert_int_equal(rs.v[1].index, 2);
	assert_int_equal(rs.whole, 2);
	assert_int_equal(rs.nout, 1);
	assert_int_equal(rs.out[0].index, 1);
	assert_int_equal(rs.out[0].last, 1);
	fol_runs_free(&rs);
	unlink(b.path);
}

/* Cut inside the third run: the runs before it whole, the file says it was cut. */
static void test_truncated(void **state)
{
	struct fol_runs rs;
	struct rb b;

	(void)state;
	rb_open(&b);
	add_run(&b, 0, 3, "a", 5, 1000, 1);
	add_run(&b, 1, 3, "a", 6, 1000, 1);
	add_run(&b, 2, 3, "a", 7, 1000, 0);
	assert_int_equal(fol_writer_close(b.w), 0);
	cut_end(b.path, 300);
	assert_int_equal(fol_runs_load(b.path, &all, &rs), 0);
	assert_int_equal(rs.n, 3);
	assert_int_equal(rs.whole, 2); /* the third, without its END, left out */
	assert_string_equal(rs.v[0].why, "");
	assert_string_equal(rs.v[1].why, "");
	assert_string_equal(rs.v[2].why, "cut short: the file ends inside it");
	assert_int_equal(rs.nout, 1);
	assert_int_equal(rs.out[0].index, 2);
	assert_int_equal(rs.out[0].last, 2);
	assert_int_equal(rs.v[0].r.s.faults, 5);
	assert_int_equal(rs.v[1].r.s.faults, 6);
	assert_true(rs.file.truncated);
	fol_runs_free(&rs);
	unlink(b.path);
}

/* Cut inside the header of the next run (its RUN chunk whole, its META not): the runs
 * before stand, and the file still says it was cut. */
static void test_cut_in_next_header(void **state)
{
	struct fol_runs rs;
	struct rb b;

	(void)state;
	rb_open(&b);
	add_run(&b, 0, 3, "a", 5, 1000, 1);
	add_run(&b, 1, 3, "a", 6, 1000, 1);
	rb_json(&b, FOL_CHUNK_RUN, "{\"run\":2,\"runs\":3}");
	rb_meta(&b, NULL);
	assert_int_equal(fol_writer_close(b.w), 0);
	cut_end(b.path, 40);
	assert_int_equal(fol_runs_load(b.path, &all, &rs), 0);
	assert_int_equal(rs.n, 2);
	assert_int_equal(rs.whole, 2);
	assert_int_equal(rs.planned, 3);
	assert_int_equal(rs.nout, 1);
	assert_int_equal(rs.out[0].index, 2);
	assert_string_equal(rs.out[0].why, "not in the file: it was cut short before them");
	assert_true(rs.file.truncated);
	fol_runs_free(&rs);
	unlink(b.path);
}

/* Bytes of the file at off overwritten with 0xff: a chunk's magic, or its payload. */
static void smash(const char *path, long off, size_t n)
{
	FILE *f = fopen(path, "r+");
	char buf[8192];

	assert_non_null(f);
	assert_true(n <= sizeof(buf));
	memset(buf, 0xff, n);
	assert_int_equal(fseek(f, off, SEEK_SET), 0);
	assert_int_equal(fwrite(buf, 1, n, f), n);
	fclose(f);
}

/* The RUN chunk between two runs lost: the first run ends where the second's metadata
 * begins, never merged with it. Outside a sweep the second stands (numbered after the
 * first); in a sweep its configuration is unknown and it is left out. */
static void test_lost_run_chunk(void **state)
{
	for (int sweep = 0; sweep < 2; sweep++) {
		const char *config = sweep ? "4K" : "";
		struct fol_runs rs;
		struct rb b;
		long at;

		(void)state;
		rb_open(&b);
		add_run(&b, 0, 3, config, 5, 1000, 1);
		at = (long)fol_writer_bytes(b.w);
		add_run(&b, 1, 3, config, 6, 1000, 1);
		add_run(&b, 2, 3, config, 7, 1000, 1);
		assert_int_equal(fol_writer_close(b.w), 0);
		smash(b.path, at, 4);
		assert_int_equal(fol_runs_load(b.path, &all, &rs), 0);
		assert_int_equal(rs.n, 3);
		assert_int_equal(rs.v[0].r.s.faults, 5);
		assert_string_equal(rs.v[0].why, "");
		assert_int_equal(rs.v[1].r.s.faults, 6);
		assert_int_equal(rs.v[1].index, 1);
		assert_false(rs.v[1].numbered);
		assert_int_equal(rs.v[2].index, 2);
		assert_int_equal(rs.whole, sweep ? 2 : 3);
		assert_int_equal(rs.nout, sweep);
		if (sweep)
			assert_non_null(strstr(rs.v[1].why, "RUN chunk was lost"));
		fol_runs_free(&rs);
		unlink(b.path);
	}
}

/* Damage inside a run (its records): that run left out, named, the others whole. */
static void test_damage_inside_run(void **state)
{
	struct fol_runs rs;
	struct rb b;
	long from, to;

	(void)state;
	rb_open(&b);
	add_run(&b, 0, 3, "", 5, 1000, 1);
	from = (long)fol_writer_bytes(b.w);
	add_run(&b, 1, 3, "", 60, 1000, 1);
	to = (long)fol_writer_bytes(b.w);
	add_run(&b, 2, 3, "", 7, 1000, 1);
	assert_int_equal(fol_writer_close(b.w), 0);
	/* In the middle of the second run: its records chunk, by far its largest. */
	smash(b.path, from + (to - from) / 2, 64);
	assert_int_equal(fol_runs_load(b.path, &all, &rs), 0);
	assert_int_equal(rs.n, 3);
	assert_int_equal(rs.whole, 2);
	assert_string_equal(rs.v[0].why, "");
	assert_non_null(strstr(rs.v[1].why, "damaged: 1 region"));
	assert_string_equal(rs.v[2].why, "");
	assert_int_equal(rs.v[2].r.s.faults, 7);
	assert_int_equal(rs.nout, 1);
	assert_int_equal(rs.out[0].index, 1);
	fol_runs_free(&rs);
	unlink(b.path);
}

/* A recording of one run cut short: no whole run in it. */
static void test_single_run_cut(void **state)
{
	struct fol_runs rs;
	struct rb b;

	(void)state;
	rb_open(&b);
	add_run(&b, -1, 1, "", 50, 1000, 1);
	assert_int_equal(fol_writer_close(b.w), 0);
	cut_end(b.path, 300);
	assert_int_equal(fol_runs_load(b.path, &all, &rs), 0);
	assert_int_equal(rs.n, 1);
	assert_int_equal(rs.whole, 0);
	assert_string_equal(rs.v[0].why, "cut short: the file ends inside it");
	fol_runs_free(&rs);
	unlink(b.path);
}

static const struct fol_cmp_row *row(const struct fol_cmp *c, const char *key)
{
	for (int i = 0; i < c->nrows; i++)
		if (!strcmp(c->rows[i].fig.key, key))
			return &c->rows[i];
	fail_msg("no figure %s", key);
	return NULL;
}

/* Two configurations of a sweep as sides: fault counts and latencies, and the probe
 * effect from the BARE chunks. */
static void test_compare_sides(void **state)
{
	const struct fol_report *a[3], *bb[3];
	struct fol_side sides[2] = { { .name = "4K", .runs = a, .n = 3 }, { .name = "64K", .runs = bb, .n = 3 } };
	struct fol_runs rs;
	struct fol_cmp c;
	struct rb b;
	const struct fol_cmp_row *rw;

	(void)state;
	rb_open(&b);
	for (int i = 0; i < 3; i++)
		add_run(&b, i, 6, "4K", 100 + i, 2000, 1);
	for (int i = 0; i < 3; i++)
		add_run(&b, 3 + i, 6, "64K", 50 + i, 1000, 1);
	assert_int_equal(fol_writer_close(b.w), 0);
	assert_int_equal(fol_runs_load(b.path, &all, &rs), 0);
	for (int i = 0; i < 3; i++) {
		a[i] = &rs.v[i].r;
		bb[i] = &rs.v[3 + i].r;
	}
	sides[0].bare = rs.bare;
	sides[0].nbare = rs.nbare;
	sides[0].recording = sides[1].recording = &rs; /* a sweep: its runs alternate */
	assert_int_equal(fol_compare(sides, 2, FOL_CMP_FDR, &c), 0);
	assert_int_equal(c.level, FOL_LEVEL_INTERLEAVED);
	rw = row(&c, "faults");
	assert_int_equal(rw->cell[0].have, 3);
	assert_true(rw->cell[0].d.mean == 101);
	assert_true(rw->cell[1].d.mean == 51);
	assert_true(fabs(rw->cell[1].change - (51.0 - 101) / 101) < 1e-12);
	assert_int_equal(rw->cell[1].test, FOL_TEST_WELCH);
	assert_int_equal(rw->cell[1].marker, 'I');
	rw = row(&c, "latency.mean_ns");
	assert_int_equal(rw->cell[1].marker, 'I'); /* 2000 ns to 1000 ns */
	assert_true(rw->cell[1].log);
	/* Every fault is a 4K allocation: that row repeats the latency's, tested once. */
	rw = row(&c, "order.4K.anon_alloc.mean_ns");
	assert_true(rw->restates >= 0);
	assert_string_equal(c.rows[rw->restates].fig.key, "latency.mean_ns");
	assert_int_equal(rw->cell[1].untested, FOL_UNTESTED_RESTATES);
	assert_int_equal(rw->cell[1].marker, 0);
	rw = row(&c, "unclosed");
	assert_int_equal(rw->cell[1].marker, 0);
	/* The BARE phase "touch" of 4K: 100 + n*500 ns untraced against the recorded span. */
	assert_true(c.nprobe[0] == 1);
	assert_string_equal(c.probe[0][0].phase, "touch");
	assert_int_equal(c.probe[0][0].bare.n, 6); /* every BARE chunk was given to side 0 */
	assert_true(c.probe[0][0].traced.n == 3);
	assert_true(fabs(c.probe[0][0].traced.mean - 101 * 2100.0) < 1e-6);
	/* The interval of the change: Welch's for the difference, over the base mean. */
	rw = row(&c, "faults");
	assert_true(fabs(rw->cell[1].ci_lo - rw->cell[1].t.lo / 101) < 1e-12);
	assert_true(rw->cell[1].ci_lo < rw->cell[1].change && rw->cell[1].change < rw->cell[1].ci_hi);
	assert_true(isnan(rw->cell[0].ci_lo));
	/* The Gmean: every per-fault latency both sides have above 0, but maxima. */
	{
		double lg[2] = { 0, 0 };
		int n = 0;

		for (int k = 0; k < c.nrows; k++) {
			const struct fol_cmp_row *x = &c.rows[k];

			if (!x->fig.latency || x->fig.single || x->fig.system_wide ||
			    !x->cell[0].have || !x->cell[1].have || !(x->cell[0].d.mean > 0) ||
			    !(x->cell[1].d.mean > 0))
				continue;
			lg[0] += log(x->cell[0].d.mean);
			lg[1] += log(x->cell[1].d.mean);
			n++;
		}
		assert_true(n > 3);
		assert_int_equal(c.gmean_n, n);
		assert_true(fabs(c.gmean[0] / exp(lg[0] / n) - 1) < 1e-12);
		assert_true(fabs(c.gmean[1] / exp(lg[1] / n) - 1) < 1e-12);
		assert_true(c.gmean[1] < c.gmean[0]); /* 1000 ns faults against 2000 */
	}
	/* --figures: the rows chosen, the family and Gmean as they were. */
	{
		int tested = c.tested, gn = c.gmean_n;

		assert_int_equal(fol_cmp_select(&c, "faults,order.*.mean_ns"), 2);
		assert_string_equal(c.rows[0].fig.key, "faults");
		assert_string_equal(c.rows[1].fig.key, "order.4K.anon_alloc.mean_ns");
		assert_int_equal(c.tested, tested);
		assert_int_equal(c.gmean_n, gn);
		assert_int_equal(fol_cmp_select(&c, "nothing"), 0);
	}
	/* Site by site: every fault is in some site; the sides' sites tested and marked. */
	{
		struct fol_cmp_sites cs;
		int keys[] = { FOL_SORT_ORDER, FOL_SORT_CLASS }, found = 0;

		assert_int_equal(fol_compare_sites(sides, 2, keys, 2, FOL_CMP_FDR, &cs), 0);
		assert_true(cs.n >= 1);
		for (size_t i = 0; i < cs.n; i++) {
			if (strcmp(cs.v[i].part[FOL_SORT_ORDER], "4K") ||
			    strcmp(cs.v[i].part[FOL_SORT_CLASS], "anon_alloc"))
				continue;
			found = 1;
			assert_true(cs.v[i].faults[0].d.mean == 101 && cs.v[i].faults[1].d.mean == 51);
			assert_int_equal(cs.v[i].faults[1].marker, 'I');
			assert_int_equal(cs.v[i].time[1].marker, 'I'); /* 2000 ns faults to 1000 */
			assert_true(cs.v[i].weight == cs.v[i].time[0].d.mean);
		}
		assert_true(found);
		assert_true(cs.head.tested >= 2 && cs.head.p_kept >= 0);
		fol_cmp_sites_free(&cs);
	}
	fol_cmp_free(&c);
	fol_runs_free(&rs);
	unlink(b.path);
}

/* Faults in a time window from the timeline: whole bins, and bins shared by overlap. */
static void test_faults_between(void **state)
{
	uint64_t bins[4 * FOL_NR_CLASSES] = { 0 };
	struct fol_summary s = { .bin_ns = 1000, .bins_t0 = 50000, .nbins = 4, .bins = bins };

	(void)state;
	bins[0 * FOL_NR_CLASSES + FOL_C_ANON_ALLOC] = 10;
	bins[1 * FOL_NR_CLASSES + FOL_C_WP_REUSE] = 20;
	bins[1 * FOL_NR_CLASSES + FOL_C_FILE] = 20;
	bins[3 * FOL_NR_CLASSES + FOL_C_ANON_ALLOC] = 8;
	assert_true(fol_faults_between(&s, 0, 100000) == 58);
	assert_true(fol_faults_between(&s, 50000, 51000) == 10);
	/* Half of bin 1 and a quarter of bin 3. */
	assert_true(fol_faults_between(&s, 51500, 53250) == 20 + 2);
	assert_true(fol_faults_between(&s, 60000, 70000) == 0);
	assert_true(fol_faults_between(&s, 52000, 51000) == 0);
}

/* A figure some runs lack: a count is 0 there, a latency statistic is not a value. */
static void test_absent_in_a_run(void **state)
{
	const struct fol_report *runs[2];
	struct fol_side side = { .name = "a", .runs = runs, .n = 2 };
	struct fol_runs rs;
	struct fol_cmp c;
	struct rb b;
	const struct fol_cmp_row *rw;

	(void)state;
	rb_open(&b);
	add_run(&b, 0, 2, "a", 4, 1000, 1);
	add_run(&b, 1, 2, "a", 0, 1000, 1);
	assert_int_equal(fol_writer_close(b.w), 0);
	assert_int_equal(fol_runs_load(b.path, &all, &rs), 0);
	runs[0] = &rs.v[0].r;
	runs[1] = &rs.v[1].r;
	assert_int_equal(fol_compare(&side, 1, FOL_CMP_FDR, &c), 0);
	rw = row(&c, "order.4K.anon_alloc.faults");
	assert_int_equal(rw->cell[0].have, 2);
	assert_true(rw->cell[0].d.mean == 2 && rw->cell[0].d.min == 0);
	rw = row(&c, "order.4K.anon_alloc.mean_ns");
	assert_int_equal(rw->cell[0].have, 1);
	assert_true(rw->cell[0].d.mean == 1000);
	fol_cmp_free(&c);
	fol_runs_free(&rs);
	unlink(b.path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_runs),
		cmocka_unit_test(test_single_run),
		cmocka_unit_test(test_skip_empty_run),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_cut_in_next_header),
		cmocka_unit_test(test_lost_run_chunk),
		cmocka_unit_test(test_damage_inside_run),
		cmocka_unit_test(test_single_run_cut),
		cmocka_unit_test(test_compare_sides),
		cmocka_unit_test(test_faults_between),
		cmocka_unit_test(test_absent_in_a_run),
	};

	return cmocka_run_group_tests_name("runs", tests, NULL, NULL);
}
