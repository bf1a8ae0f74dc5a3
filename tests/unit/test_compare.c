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

static struct fol_figure fig(enum fol_unit unit, int better)
{
	struct fol_figure f = { .unit = unit, .better = better };

	return f;
}

static char decide(const struct fol_figure *f, const double *a, int na, const double *b, int nb,
		   struct fol_cmp_cell *c)
{
	struct fol_cmp_cell *one = c;

	memset(c, 0, sizeof(*c));
	fol_cmp_decide(f, a, na, b, nb, c);
	fol_cmp_mark(&one, 1, FOL_CMP_FDR);
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

/* Counts: one that varies from run to run must move by more than counting noise (35-36
 * against 36-38 copy faults is not news); one that never varies on either side is exact,
 * and 8 against 16 folios every run is a change whatever a floor on counts would say. */
static void test_counts(void **state)
{
	const double a[] = { 35, 36, 35, 36, 35 }, b[] = { 37, 36, 37, 38, 37 };
	const double e8[] = { 8, 8, 8, 8, 8 }, e16[] = { 16, 16, 16, 16, 16 };
	struct fol_figure f = fig(FOL_UNIT_COUNT, FOL_BETTER_LOWER);
	struct fol_cmp_cell c;

	(void)state;
	assert_int_equal(decide(&f, a, 5, b, 5, &c), 0);
	assert_true(c.t.p < 0.05);
	assert_int_equal(decide(&f, e8, 5, e16, 5, &c), 'R');
	assert_true(c.t.p == 0);
	assert_int_equal(decide(&f, e8, 5, e8, 5, &c), 0);
	assert_true(c.t.p == 1);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_direction),
		cmocka_unit_test(test_system_wide),
		cmocka_unit_test(test_one_percent_floor),
		cmocka_unit_test(test_cv_floor),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_single_runs),
		cmocka_unit_test(test_max_never),
		cmocka_unit_test(test_fdr),
		cmocka_unit_test(test_from_zero),
	};

	return cmocka_run_group_tests_name("compare", tests, NULL, NULL);
}
