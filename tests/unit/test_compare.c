// SPDX-License-Identifier: GPL-2.0-only
/* The rule that marks a change: significance, the practical floors, and the direction. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "compare/compare.h"
#include "compare/compare_priv.h"
#include "report/report.h"
#include "stats_reference.h"

static struct fol_figure fig(enum fol_unit unit, int better)
{
	struct fol_figure f = { .unit = unit, .better = better };

	return f;
}

/* Where the sides' values come from. */
enum where { SEPARATE, INTERLEAVED };

/* One cell decided and marked alone (a family of one): its marker. */
static char decide_samples(const struct fol_figure *f, const struct fol_cmp_sample *x,
			   const struct fol_cmp_sample *y, struct fol_cmp_cell *c)
{
	struct fol_cmp_cell *cell = c;

	fol_cmp_decide(f, x, y, 0, c);
	fol_cmp_mark(&cell, 1, FOL_CMP_FDR);
	return c->marker;
}

static char decide_at(enum where w, const struct fol_figure *f, const double *a, int na, const double *b,
		      int nb, struct fol_cmp_cell *c)
{
	static const int one_recording;
	struct fol_cmp_sample x = { .v = a, .n = na, .nrec = 1 }, y = { .v = b, .n = nb, .nrec = 1 };

	if (w == INTERLEAVED)
		x.recording = y.recording = &one_recording;
	return decide_samples(f, &x, &y, c);
}

/* The sides of a sweep: their runs alternate in one recording. */
static char decide(const struct fol_figure *f, const double *a, int na, const double *b, int nb,
		   struct fol_cmp_cell *c)
{
	return decide_at(INTERLEAVED, f, a, na, b, nb, c);
}

static void test_direction(void **state)
{
	const double lo[] = { 100, 101, 99, 100, 100 }, hi[] = { 200, 202, 198, 201, 199 };
	struct fol_figure ns_lower = fig(FOL_UNIT_NS, FOL_BETTER_LOWER);
	struct fol_figure pct_higher = fig(FOL_UNIT_PERCENT, FOL_BETTER_HIGHER);
	struct fol_figure neutral = fig(FOL_UNIT_NS, FOL_BETTER_NONE);
	struct fol_cmp_cell c;

	(void)state;
	assert_int_equal(decide(&ns_lower, lo, 5, hi, 5, &c), 'R');
	assert_int_equal(c.test, FOL_TEST_WELCH);
	assert_int_equal(c.level, FOL_LEVEL_INTERLEAVED);
	assert_true(c.t.p < 0.001);
	assert_true(fabs(c.change - 1.0) < 0.01);
	assert_int_equal(decide(&ns_lower, hi, 5, lo, 5, &c), 'I');
	assert_int_equal(decide(&pct_higher, lo, 5, hi, 5, &c), 'I');
	assert_int_equal(decide(&pct_higher, hi, 5, lo, 5, &c), 'R');
	assert_int_equal(decide(&neutral, lo, 5, hi, 5, &c), '*');
}

/* A kernel counter that doubled between sides: every process on the machine moves it
 * (a sweep marked pgfault and split_deferred), so it is shown, tested, never marked. */
static void test_system_wide(void **state)
{
	const double lo[] = { 100, 101, 99, 100, 100 }, hi[] = { 200, 202, 198, 201, 199 };
	struct fol_figure f = fig(FOL_UNIT_COUNT, FOL_BETTER_NONE);
	struct fol_cmp_cell c;

	(void)state;
	f.system_wide = 1;
	assert_int_equal(decide(&f, lo, 5, hi, 5, &c), 0);
	assert_false(c.significant);
	assert_int_equal(c.untested, FOL_UNTESTED_MACHINE);
	assert_true(c.t.p < 0.001);
	assert_true(fabs(c.change - 1.0) < 0.01);
}

/* Significant by the test, yet under 1%: not marked. */
static void test_one_percent_floor(void **state)
{
	const double a[] = { 1000.0, 1000.1, 999.9, 1000.0 }, b[] = { 1009.0, 1009.1, 1008.9, 1009.0 };
	struct fol_figure f = fig(FOL_UNIT_NS, FOL_BETTER_LOWER);
	struct fol_cmp_cell c;

	(void)state;
	assert_int_equal(decide(&f, a, 4, b, 4, &c), 0);
	assert_true(c.t.p < 1e-6);
	assert_true(c.tested);
	assert_false(c.significant);
}

/* No floor of the run-to-run spread: a 5% change under a CV of 10% that 40 runs a side
 * resolve is marked (a floor of the CV hid it). */
static void test_no_spread_floor(void **state)
{
	double x[40], y[40];
	struct fol_figure f = fig(FOL_UNIT_NS, FOL_BETTER_LOWER);
	struct fol_cmp_cell c;

	(void)state;
	for (int i = 0; i < 40; i++) {
		x[i] = 1000 + (i % 2 ? 100 : -100);
		y[i] = 1050 + (i % 2 ? 100 : -100);
	}
	assert_int_equal(decide(&f, x, 40, y, 40, &c), 'R');
	assert_true(c.t.p < 0.05);
}

/* Counts that vary are tested like any figure: +51 faults of 2,048 (+2.5%, sd ~1) is a
 * change (a floor of 2 sqrt(n) hid it), and so is +1.6 of 35; one that never varies on
 * either side of a sweep is exact, 8 against 16 folios every run a change. */
static void test_counts(void **state)
{
	const double a[] = { 35, 36, 35, 36, 35 }, b[] = { 37, 36, 37, 38, 37 };
	const double k2[] = { 2048, 2049, 2047, 2048, 2048 }, k2p[] = { 2099, 2100, 2098, 2099, 2100 };
	const double e8[] = { 8, 8, 8, 8, 8 }, e16[] = { 16, 16, 16, 16, 16 };
	struct fol_figure f = fig(FOL_UNIT_COUNT, FOL_BETTER_LOWER);
	struct fol_cmp_cell c;

	(void)state;
	assert_int_equal(decide(&f, a, 5, b, 5, &c), 'R');
	assert_int_equal(decide(&f, k2, 5, k2p, 5, &c), 'R');
	assert_true(c.t.p < 5e-8);
	assert_int_equal(decide_at(SEPARATE, &f, k2, 5, k2p, 5, &c), 'R');
	assert_int_equal(decide(&f, e8, 5, e16, 5, &c), 'R');
	assert_true(c.t.p == 0);
	assert_int_equal(decide(&f, e8, 5, e8, 5, &c), 0);
	assert_true(c.t.p == 1);
}

/* Over one recording a side a count must move by more than its drift between recordings,
 * sqrt(n): wp_copy faults 45.2 against 48.6 (p 0.0037) was an A/A pair's, and 45.2
 * against 48.4 here is certain by the runs (p < 1e-4) yet no mark; in a sweep, whose
 * runs alternate, the same is a change. */
static void test_count_drift(void **state)
{
	const double x[] = { 45, 45, 46, 45, 45 }, y[] = { 48, 49, 48, 48, 49 };
	struct fol_figure f = fig(FOL_UNIT_COUNT, FOL_BETTER_LOWER);
	struct fol_cmp_cell c;

	(void)state;
	assert_int_equal(decide_at(SEPARATE, &f, x, 5, y, 5, &c), 0);
	assert_true(c.tested);
	assert_true(c.t.p < 1e-4);
	assert_int_equal(decide_at(INTERLEAVED, &f, x, 5, y, 5, &c), 'R');
}

/* One recording a side: a figure the same in every run of each side but not between them
 * is a difference of state (a page cache folio of 16K in one recording, 4K in the next:
 * 2 faults every run against 1), marked '=' and not tested; the same values over
 * recordings, every recording alike, are a real change, tested. */
static void test_state(void **state)
{
	const double two[] = { 2, 2, 2, 2, 2 }, one[] = { 1, 1, 1, 1, 1 };
	const int rec[] = { 0, 0, 1, 1, 2 };
	struct fol_figure f = fig(FOL_UNIT_COUNT, FOL_BETTER_LOWER);
	struct fol_cmp_sample x = { .v = two, .rec = rec, .n = 5, .nrec = 3 };
	struct fol_cmp_sample y = { .v = one, .rec = rec, .n = 5, .nrec = 3 };
	struct fol_cmp_cell c;

	(void)state;
	assert_int_equal(decide_at(SEPARATE, &f, two, 5, one, 5, &c), '=');
	assert_false(c.tested);
	assert_int_equal(c.untested, FOL_UNTESTED_STATE);
	assert_true(c.change == -0.5);
	decide_samples(&f, &x, &y, &c);
	assert_int_equal(c.level, FOL_LEVEL_RECORDINGS);
	assert_int_equal(c.nb, 3);
	assert_true(c.tested);
	assert_int_equal(c.marker, 'I');
}

/* A time over the runs of one recording a side moves with the machine between the
 * recordings: shown, not tested. The same values from a sweep's interleaved runs are. */
static void test_times_drift(void **state)
{
	const double lo[] = { 100, 101, 99, 100, 100 }, hi[] = { 200, 202, 198, 201, 199 };
	const double n1[] = { 100, 101, 99, 100, 100 }, n2[] = { 150, 152, 148, 151, 149 };
	struct fol_figure f = fig(FOL_UNIT_NS, FOL_BETTER_LOWER);
	struct fol_figure cnt = fig(FOL_UNIT_COUNT, FOL_BETTER_LOWER);
	struct fol_cmp_cell c;

	(void)state;
	assert_int_equal(decide_at(SEPARATE, &f, lo, 5, hi, 5, &c), 0);
	assert_int_equal(c.untested, FOL_UNTESTED_DRIFT);
	assert_true(c.t.p < 0.001);
	assert_int_equal(decide_at(INTERLEAVED, &f, lo, 5, hi, 5, &c), 'R');
	assert_int_equal(decide_at(SEPARATE, &cnt, n1, 5, n2, 5, &c), 'R');
}

/* Times on a log scale: a fault time 3 to 25 times the base's in every run is a
 * regression (linear Welch: p 0.12, unmarked), and its interval is of the ratio. */
static void test_log_scale(void **state)
{
	const double base[] = { 100, 110, 105, 95, 102 }, slow[] = { 300, 900, 400, 2500, 500 };
	struct fol_figure f = fig(FOL_UNIT_NS, FOL_BETTER_LOWER);
	struct fol_figure cnt = fig(FOL_UNIT_COUNT, FOL_BETTER_LOWER);
	struct fol_test lin;
	struct fol_cmp_cell c;

	(void)state;
	assert_int_equal(fol_welch(slow, 5, base, 5, &lin), 0);
	assert_true(lin.p > 0.05);
	assert_int_equal(decide(&f, base, 5, slow, 5, &c), 'R');
	assert_true(c.log);
	assert_true(c.t.p < 0.01);
	assert_true(fabs(c.ci_lo - expm1(c.t.lo)) < 1e-12 && fabs(c.ci_hi - expm1(c.t.hi)) < 1e-12);
	assert_true(c.ci_lo > 0);
	assert_int_equal(decide(&cnt, base, 5, slow, 5, &c), 0);
	assert_false(c.log);
	/* A time of 0 in a run has no logarithm: the linear scale. */
	{
		const double z[] = { 0, 110, 105, 95, 102 };

		decide(&f, z, 5, slow, 5, &c);
		assert_false(c.log);
	}
}

/* welch-log equals scipy's Welch on the logarithms, its interval the ratio's
 * (stats_reference.py). */
static void test_log_scipy(void **state)
{
	struct fol_figure f = fig(FOL_UNIT_NS, FOL_BETTER_LOWER);
	struct fol_cmp_cell c;

	(void)state;
	for (size_t i = 0; i < sizeof(stats_log_cases) / sizeof(*stats_log_cases); i++) {
		const struct stats_log_case *k = &stats_log_cases[i];

		decide(&f, k->base, k->nb, k->v, k->nv, &c);
		assert_true(c.log);
		assert_true(fabs(c.t.p - k->p) <= 1e-6 * fmax(k->p, 1e-3));
		assert_true(fabs(c.t.stat - k->t) < 1e-9);
		assert_true(fabs(c.ci_lo - k->ci_lo) < 1e-9 && fabs(c.ci_hi - k->ci_hi) < 1e-9);
	}
}

/* Runs nested in recordings: recordings whose means differ by 20% make a +4.5% change of
 * every run no news, though each recording's runs spread by 1%; a doubling still is. */
static void test_nested(void **state)
{
	const double b[] = { 100, 101, 99, 120, 121, 119, 110, 111, 109 };
	const double n[] = { 105, 106, 104, 125, 126, 124, 115, 116, 114 };
	const double d[] = { 200, 201, 199, 240, 241, 239, 220, 221, 219 };
	const int rec[] = { 0, 0, 0, 1, 1, 1, 2, 2, 2 };
	struct fol_figure f = fig(FOL_UNIT_COUNT, FOL_BETTER_LOWER);
	struct fol_cmp_sample x = { .v = b, .rec = rec, .n = 9, .nrec = 3 };
	struct fol_cmp_sample y = { .v = n, .rec = rec, .n = 9, .nrec = 3 };
	struct fol_cmp_cell c;

	(void)state;
	decide_samples(&f, &x, &y, &c);
	assert_int_equal(c.level, FOL_LEVEL_RECORDINGS);
	assert_int_equal(c.nb, 3);
	assert_int_equal(c.nv, 3);
	assert_true(c.t.p > 0.4);
	assert_int_equal(c.marker, 0);
	y.v = d;
	decide_samples(&f, &x, &y, &c);
	assert_int_equal(c.marker, 'R');
	/* A side of one recording against one of three: over runs. */
	x.nrec = 1;
	x.rec = NULL;
	fol_cmp_decide(&f, &x, &y, 0, &c);
	assert_int_equal(c.level, FOL_LEVEL_RUNS);
}

/* Times nested in recordings are averaged on logs: live 13's base had one run of 217 ms
 * among runs of 10, which made its recording's mean 51 ms and hid the hog's +277% (p
 * 0.09); its mean of logs does not. */
static void test_nested_logs(void **state)
{
	const double b[] = { 217, 10, 9, 10, 9, 10, 9, 10, 9, 9, 11, 9, 10, 10, 13 };
	const double n[] = { 86, 114, 113, 116, 84, 72, 84, 72, 117, 76, 84, 83, 76, 76, 85 };
	const int rec[] = { 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2 };
	struct fol_figure f = fig(FOL_UNIT_NS, FOL_BETTER_LOWER);
	struct fol_cmp_sample x = { .v = b, .rec = rec, .n = 15, .nrec = 3 };
	struct fol_cmp_sample y = { .v = n, .rec = rec, .n = 15, .nrec = 3 };
	struct fol_cmp_cell c;

	(void)state;
	decide_samples(&f, &x, &y, &c);
	assert_true(c.log);
	assert_int_equal(c.nb, 3);
	assert_true(c.t.p < 0.01);
	assert_int_equal(c.marker, 'R');
}

/* A percentile is a histogram bucket's bound: five runs of one side may share one bound.
 * Welch on logs still tests it at 5 runs a side, and marks a change past two steps of
 * its resolution (a p50 one bucket lower moved 9% in an A/A test). */
static void test_percentile(void **state)
{
	const double one[] = { 1000, 1000, 1000, 1000, 1000 }, up[] = { 1500, 1500, 1562, 1500, 1500 };
	struct fol_figure f = fig(FOL_UNIT_NS, FOL_BETTER_LOWER);
	struct fol_cmp_cell c;

	(void)state;
	f.resolution = 1.0 / 16;
	assert_int_equal(decide(&f, one, 5, up, 5, &c), 'R');
	assert_int_equal(c.test, FOL_TEST_WELCH);
	assert_true(c.t.p < 0.001);
	/* +6%, within two steps of the resolution (12.5%): certain by the test, no mark. */
	{
		const double near[] = { 1060, 1062, 1058, 1060, 1061 };

		assert_int_equal(decide(&f, one, 5, near, 5, &c), 0);
		assert_true(c.t.p < 0.001);
	}
}

/* One run a side: nothing is tested or marked, however far the values are apart (the
 * faults of one run are not independent samples). */
static void test_single_runs(void **state)
{
	const double one = 10, two = 20;
	struct fol_figure counts = fig(FOL_UNIT_COUNT, FOL_BETTER_LOWER);
	struct fol_figure lat = fig(FOL_UNIT_NS, FOL_BETTER_LOWER);
	struct fol_cmp_cell c;

	(void)state;
	assert_int_equal(decide(&counts, &one, 1, &two, 1, &c), 0);
	assert_int_equal(c.test, FOL_TEST_NONE);
	assert_int_equal(c.untested, FOL_UNTESTED_FEW_RUNS);
	assert_int_equal(decide(&lat, &one, 1, &two, 1, &c), 0);
	assert_int_equal(c.test, FOL_TEST_NONE);
	assert_false(c.tested);
}

/* A maximum is one fault: its p is shown, it is not in the family, never marked. */
static void test_max_never(void **state)
{
	const double lo[] = { 100, 101, 99, 100, 100 }, hi[] = { 200, 202, 198, 201, 199 };
	struct fol_figure f = fig(FOL_UNIT_NS, FOL_BETTER_LOWER);
	struct fol_cmp_cell c;

	(void)state;
	f.single = 1;
	assert_int_equal(decide(&f, lo, 5, hi, 5, &c), 0);
	assert_true(c.t.p < 0.001);
	assert_false(c.tested);
	assert_int_equal(c.untested, FOL_UNTESTED_SINGLE);
}

/* Twenty figures tested at once, one real change (p 1e-4) and nineteen unchanged, their
 * p spread from 0.02 to 0.92 as nulls are: a lone 5% test would mark the 0.02 one too;
 * Benjamini-Hochberg at 5% keeps the real one only (k q / m: 0.0025, then 0.005 for the
 * 0.02). Ten real ones among twenty are all kept. */
static void test_fdr(void **state)
{
	struct fol_cmp_cell cells[20], *ptr[20];
	double kept;

	(void)state;
	for (int i = 0; i < 20; i++) {
		cells[i] = (struct fol_cmp_cell){ .tested = 1, .candidate = 1, .marker = 'R' };
		cells[i].t.p = i ? 0.02 + 0.05 * (i - 1) : 1e-4;
		ptr[i] = &cells[i];
	}
	kept = fol_cmp_mark(ptr, 20, 0.05);
	assert_true(kept == 1e-4);
	assert_int_equal(cells[0].marker, 'R');
	for (int i = 1; i < 20; i++)
		assert_int_equal(cells[i].marker, 0);
	/* q: BH's adjusted p, marked where at most the rate (20 x 1e-4; the 0.02 one, 0.2). */
	assert_true(fabs(cells[0].q - 20 * 1e-4) < 1e-12);
	assert_true(fabs(cells[1].q - 0.02 * 20 / 2) < 1e-12);
	for (int i = 0; i < 20; i++)
		assert_int_equal(cells[i].marker != 0, cells[i].q <= 0.05);
	for (int i = 0; i < 20; i++) {
		cells[i] = (struct fol_cmp_cell){ .tested = 1, .candidate = 1, .marker = 'I' };
		cells[i].t.p = i < 10 ? 1e-6 * (i + 1) : 0.2 + 0.01 * i;
	}
	assert_true(fabs(fol_cmp_mark(ptr, 20, 0.05) - 1e-5) < 1e-12);
	for (int i = 0; i < 20; i++)
		assert_int_equal(cells[i].marker, i < 10 ? 'I' : 0);
	/* Past the floors or not, a cell tested counts in m; one not tested does not. */
	for (int i = 0; i < 20; i++) {
		cells[i] = (struct fol_cmp_cell){ .tested = i < 2, .candidate = i < 2, .marker = 'R' };
		cells[i].t.p = i ? 0.04 : 0.02;
	}
	assert_true(fol_cmp_mark(ptr, 20, 0.05) == 0.04);
	assert_int_equal(cells[1].marker, 'R');
}

/* A base of 0: the change is not a ratio; a side without the figure is not compared. */
static void test_from_zero(void **state)
{
	const double z[] = { 0, 0, 0 }, v[] = { 5000, 5100, 4900 };
	struct fol_figure f = fig(FOL_UNIT_NS, FOL_BETTER_LOWER);
	struct fol_cmp_cell c;

	(void)state;
	assert_int_equal(decide(&f, z, 3, v, 3, &c), 'R');
	assert_true(isnan(c.change));
	assert_int_equal(decide(&f, z, 3, z, 3, &c), 0);
	assert_true(c.change == 0);
}

/* mmtests' star against its rule as Compare.pm states it, on per-run numbers: a change
 * with spread (13 against 10, sd 1: past 1.96 sd of each side), one within it, one
 * within the new side's spread only, and exact values. */
static void test_mmtests_star(void **state)
{
	const double base[] = { 9, 10, 11, 10, 10 }, far[] = { 12, 13, 14, 13, 13 };
	const double near[] = { 10, 11, 12, 11, 11 }, wide[] = { 8, 18, 13, 12, 14 };
	const double e8[] = { 8, 8, 8 }, e9[] = { 9, 9, 9 };
	const double *sides[] = { far, near, wide };
	struct fol_desc b, v, x, y;

	(void)state;
	fol_desc_of(base, 5, &b);
	for (int i = 0; i < 3; i++) {
		double diff;

		fol_desc_of(sides[i], 5, &v);
		diff = fabs(v.mean - b.mean);
		assert_int_equal(fol_mmtests_star(&b, &v), diff > 1.959963984540054 * b.sd &&
								diff > 1.959963984540054 * v.sd);
	}
	fol_desc_of(far, 5, &v);
	assert_true(fol_mmtests_star(&b, &v));
	fol_desc_of(wide, 5, &v);
	assert_false(fol_mmtests_star(&b, &v));
	fol_desc_of(e8, 3, &x);
	fol_desc_of(e9, 3, &y);
	assert_true(fol_mmtests_star(&x, &y));
	assert_false(fol_mmtests_star(&x, &x));
	fol_desc_of(e8, 1, &x);
	assert_false(fol_mmtests_star(&x, &y)); /* one run: no spread to speak of */
}

/* The sides' order over recordings: a side wholly before or after the base is "one after
 * the other", sides whose runs' starts overlap alternate; not over recordings, or a run
 * without its start (an old recording), not known. */
static void test_order(void **state)
{
	struct fol_report r[7];
	const struct fol_report *blk[2][3] = { { &r[1], &r[2], &r[3] }, { &r[4], &r[5], &r[6] } };
	const struct fol_report *alt[2][3] = { { &r[1], &r[3], &r[5] }, { &r[2], &r[4], &r[6] } };
	const struct fol_report *touch[3] = { &r[3], &r[4], &r[5] }, *unknown[3] = { &r[0], &r[4], &r[5] };
	struct fol_side sides[3] = { { .n = 3 }, { .n = 3 }, { .n = 3 } };

	(void)state;
	memset(r, 0, sizeof(r));
	for (int i = 1; i < 7; i++)
		r[i].rec.started_realtime_ns = 1.8e18 + i * 1e9;
	sides[0].runs = blk[0];
	sides[1].runs = blk[1];
	assert_int_equal(fol_cmp_sides_order(sides, 2, FOL_LEVEL_RECORDINGS), FOL_ORDER_IN_TURN);
	assert_int_equal(fol_cmp_sides_order(&sides[0], 1, FOL_LEVEL_RECORDINGS), FOL_ORDER_ALTERNATE);
	sides[0].runs = blk[1];
	sides[1].runs = blk[0];
	assert_int_equal(fol_cmp_sides_order(sides, 2, FOL_LEVEL_RECORDINGS), FOL_ORDER_IN_TURN);
	sides[0].runs = alt[0];
	sides[1].runs = alt[1];
	assert_int_equal(fol_cmp_sides_order(sides, 2, FOL_LEVEL_RECORDINGS), FOL_ORDER_ALTERNATE);
	assert_int_equal(fol_cmp_sides_order(sides, 2, FOL_LEVEL_RUNS), FOL_ORDER_UNKNOWN);
	assert_int_equal(fol_cmp_sides_order(sides, 2, FOL_LEVEL_INTERLEAVED), FOL_ORDER_UNKNOWN);
	/* One new side alternates, another was made after: said. */
	sides[0].runs = blk[0];
	sides[1].runs = touch;
	sides[2].runs = blk[1];
	assert_int_equal(fol_cmp_sides_order(sides, 2, FOL_LEVEL_RECORDINGS), FOL_ORDER_ALTERNATE);
	assert_int_equal(fol_cmp_sides_order(sides, 3, FOL_LEVEL_RECORDINGS), FOL_ORDER_IN_TURN);
	sides[1].runs = unknown;
	assert_int_equal(fol_cmp_sides_order(sides, 3, FOL_LEVEL_RECORDINGS), FOL_ORDER_UNKNOWN);
	sides[1].n = 0;
	assert_int_equal(fol_cmp_sides_order(sides, 2, FOL_LEVEL_RECORDINGS), FOL_ORDER_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_direction),
		cmocka_unit_test(test_system_wide),
		cmocka_unit_test(test_one_percent_floor),
		cmocka_unit_test(test_no_spread_floor),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_count_drift),
		cmocka_unit_test(test_state),
		cmocka_unit_test(test_times_drift),
		cmocka_unit_test(test_log_scale),
		cmocka_unit_test(test_log_scipy),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_nested_logs),
		cmocka_unit_test(test_percentile),
		cmocka_unit_test(test_single_runs),
		cmocka_unit_test(test_max_never),
		cmocka_unit_test(test_fdr),
		cmocka_unit_test(test_from_zero),
		cmocka_unit_test(test_mmtests_star),
		cmocka_unit_test(test_order),
	};

	return cmocka_run_group_tests_name("compare", tests, NULL, NULL);
}
