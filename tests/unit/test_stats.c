// SPDX-License-Identifier: GPL-2.0-only
/* The statistics against scipy's values (stats_reference.h, generated and checked by
 * stats_reference.py): descriptive figures, Welch's t, Mann-Whitney exact and asymptotic,
 * with ties, n=1 and zero variance. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/stats.h"
#include "stats_reference.h"

#define NCASES ((int)(sizeof(stats_cases) / sizeof(stats_cases[0])))

/* Relative agreement; values that are exactly 0 or infinite must match exactly. */
static void near(double got, double want, double rel, const char *what, const char *name)
{
	int ok = isinf(want) || want == 0 ? got == want : fabs(got - want) <= rel * fabs(want);

	if (!ok)
		fail_msg("%s %s: got %.17g, scipy %.17g", name, what, got, want);
}

static void test_descriptive(void **state)
{
	(void)state;
	for (int i = 0; i < NCASES; i++) {
		const struct stats_case *c = &stats_cases[i];
		struct fol_desc a, b;

		fol_desc_of(c->a, c->na, &a);
		fol_desc_of(c->b, c->nb, &b);
		assert_int_equal(a.n, c->na);
		near(a.mean, c->mean_a, 1e-12, "mean a", c->name);
		near(a.sd, c->sd_a, 1e-9, "sd a", c->name);
		near(a.median, c->median_a, 1e-12, "median a", c->name);
		near(b.mean, c->mean_b, 1e-12, "mean b", c->name);
		near(b.sd, c->sd_b, 1e-9, "sd b", c->name);
		near(b.median, c->median_b, 1e-12, "median b", c->name);
	}
}

static void test_desc_edges(void **state)
{
	struct fol_desc d;
	const double one = 42, even[] = { 4, 1, 3, 2 };

	(void)state;
	fol_desc_of(NULL, 0, &d);
	assert_int_equal(d.n, 0);
	assert_true(d.mean == 0 && d.sd == 0 && d.cv == 0);
	fol_desc_of(&one, 1, &d);
	assert_true(d.mean == 42 && d.sd == 0 && d.min == 42 && d.max == 42 && d.median == 42);
	fol_desc_of(even, 4, &d);
	assert_true(d.min == 1 && d.max == 4 && d.median == 2.5);
	near(d.cv, sqrt(5.0 / 3) / 2.5, 1e-12, "cv", "even");
}

static void test_welch(void **state)
{
	(void)state;
	for (int i = 0; i < NCASES; i++) {
		const struct stats_case *c = &stats_cases[i];
		struct fol_test t;
		int ret = fol_welch(c->a, c->na, c->b, c->nb, &t);

		if (!c->welch_valid) {
			assert_int_equal(ret, -EDOM);
			continue;
		}
		assert_int_equal(ret, 0);
		near(t.stat, c->welch_t, 1e-9, "welch t", c->name);
		near(t.p, c->welch_p, 1e-6, "welch p", c->name);
		near(t.lo, c->welch_lo, 1e-9, "welch 95% interval, low end", c->name);
		near(t.hi, c->welch_hi, 1e-9, "welch 95% interval, high end", c->name);
	}
}

static void test_mann_whitney(void **state)
{
	(void)state;
	for (int i = 0; i < NCASES; i++) {
		const struct stats_case *c = &stats_cases[i];
		struct fol_test t;

		assert_int_equal(fol_mann_whitney(c->a, c->na, c->b, c->nb, &t), 0);
		near(t.stat, c->mwu_u, 1e-12, "U", c->name);
		near(t.p, c->mwu_p, 1e-9, "mwu p", c->name);
	}
	assert_int_equal(fol_mann_whitney(stats_cases[0].a, 0, stats_cases[0].b, 3, &(struct fol_test){ 0 }),
			 -EDOM);
}

/* Which branch scipy took, so a change of the rule shows. */
static void test_mann_whitney_method(void **state)
{
	struct fol_test t;

	(void)state;
	fol_mann_whitney(stats_cases[0].a, stats_cases[0].na, stats_cases[0].b, stats_cases[0].nb, &t);
	assert_true(t.exact);
	assert_true(t.effect == 0); /* every a below every b */
	fol_mann_whitney(stats_cases[2].a, stats_cases[2].na, stats_cases[2].b, stats_cases[2].nb, &t);
	assert_false(t.exact); /* ties */
	fol_mann_whitney(stats_cases[3].a, stats_cases[3].na, stats_cases[3].b, stats_cases[3].nb, &t);
	assert_false(t.exact); /* both sides above 8 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_descriptive),
		cmocka_unit_test(test_desc_edges),
		cmocka_unit_test(test_welch),
		cmocka_unit_test(test_mann_whitney),
		cmocka_unit_test(test_mann_whitney_method),
	};

	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
