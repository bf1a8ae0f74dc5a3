// SPDX-License-Identifier: GPL-2.0-only
/* The rule that marks a change: significance, the practical floors, and the direction. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "compare.h"

static struct fol_figure fig(enum fol_unit unit, int better)
{
	struct fol_figure f = { .unit = unit, .better = better };

	return f;
}

static char decide(const struct fol_figure *f, const double *a, int na, const double *b, int nb,
		   struct fol_cmp_cell *c)
{
	memset(c, 0, sizeof(*c));
	fol_cmp_decide(f, a, na, NULL, b, nb, NULL, c);
	return c->marker;
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
	assert_false(c.significant);
}

/* Under the figure's own run-to-run spread (CV 10%): a 5% change is not news. */
static void test_cv_floor(void **state)
{
	double x[40], y[40];
	struct fol_figure f = fig(FOL_UNIT_NS, FOL_BETTER_LOWER);
	struct fol_cmp_cell c;

	(void)state;
	for (int i = 0; i < 40; i++) {
		x[i] = 1000 + (i % 2 ? 100 : -100);
		y[i] = 1050 + (i % 2 ? 100 : -100);
	}
	assert_int_equal(decide(&f, x, 40, y, 40, &c), 0);
	assert_true(c.t.p < 0.05); /* significant by Welch alone */
}

/* Counts without variance: 35 against 37 faults is counting noise; 8192 against 16384 is
 * not. */
static void test_count_floor(void **state)
{
	const double a[] = { 35, 35, 35, 35, 35 }, b[] = { 37, 37, 37, 37, 37 };
	const double c1[] = { 8192, 8192, 8192 }, c2[] = { 16384, 16384, 16384 };
	struct fol_figure f = fig(FOL_UNIT_COUNT, FOL_BETTER_LOWER);
	struct fol_cmp_cell c;

	(void)state;
	assert_int_equal(decide(&f, a, 5, b, 5, &c), 0);
	assert_true(c.t.p == 0);
	assert_int_equal(decide(&f, c1, 3, c2, 3, &c), 'R');
	assert_int_equal(decide(&f, c1, 3, c1, 3, &c), 0);
	assert_true(c.t.p == 1);
}

/* One run a side: only figures with per-fault latencies are tested. */
static void test_single_runs(void **state)
{
	static uint32_t bb[4][FOL_HIST_BUCKETS];
	static struct fol_hist base = { .b = bb[0] }, same = { .b = bb[1] },
			       shifted = { .b = bb[2] }, tiny = { .b = bb[3] };
	const double one = 10, two = 20;
	struct fol_figure counts = fig(FOL_UNIT_COUNT, FOL_BETTER_LOWER);
	struct fol_figure lat = fig(FOL_UNIT_NS, FOL_BETTER_LOWER);
	struct fol_cmp_cell c;

	(void)state;
	assert_int_equal(decide(&counts, &one, 1, &two, 1, &c), 0);
	assert_int_equal(c.test, FOL_TEST_NONE);
	/* 100,000 faults each over 10 buckets (~50% wide), every one 2 buckets slower. */
	for (int i = 0; i < 10; i++) {
		base.b[400 + i] = 10000;
		same.b[400 + i] = 10000;
		shifted.b[402 + i] = 10000;
		tiny.b[400 + i] = 10000;
	}
	/* A fifth of the faults one bucket (6%) up: certain over 100,000 faults (p tiny),
	 * but P(new > base) moves by less than the effect floor. */
	for (int i = 9; i >= 0; i--) {
		tiny.b[400 + i] -= 2000;
		tiny.b[401 + i] += 2000;
	}
	memset(&c, 0, sizeof(c));
	fol_cmp_decide(&lat, &one, 1, &base, &two, 1, &shifted, &c);
	assert_int_equal(c.test, FOL_TEST_MWU_FAULTS);
	assert_int_equal(c.marker, 'R');
	assert_true(c.t.effect > 0.5);
	fol_cmp_decide(&lat, &one, 1, &base, &one, 1, &same, &c);
	assert_int_equal(c.marker, 0);
	/* The mean moved (10 to 20 here), the sliver does not pass the effect floor. */
	fol_cmp_decide(&lat, &one, 1, &base, &two, 1, &tiny, &c);
	assert_true(c.t.p < 1e-6);
	assert_true(c.t.effect > 0.5 && c.t.effect < 0.5 + FOL_CMP_EFFECT_FLOOR);
	assert_int_equal(c.marker, 0);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_direction),
		cmocka_unit_test(test_system_wide),
		cmocka_unit_test(test_one_percent_floor),
		cmocka_unit_test(test_cv_floor),
		cmocka_unit_test(test_count_floor),
		cmocka_unit_test(test_single_runs),
		cmocka_unit_test(test_from_zero),
	};

	return cmocka_run_group_tests_name("compare", tests, NULL, NULL);
}
