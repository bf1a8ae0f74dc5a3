// SPDX-License-Identifier: GPL-2.0-only
/* THP policy specs against a fake sysfs: sizes, the top-level switch, khugepaged's
 * numbers; applied and put back as they were. */
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

#include "sys/mthp.h"
#include "util/msgs.h"

#include "fakeroot.h"

static char root[64];

#define THP "sys/kernel/mm/transparent_hugepage/"

static void get(const char *rel, char *out, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/" THP "%s", root, rel);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(out, (int)len, f));
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/fol-mthp-XXXXXX");
	assert_non_null(mkdtemp(root));
	fake_put(root, THP "enabled", "always [madvise] never\n");
	fake_put(root, THP "hugepages-64kB/enabled", "always inherit madvise [never]\n");
	fake_put(root, THP "khugepaged/scan_sleep_millisecs", "10000\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fake_remove(root);
	return 0;
}

/* Written, then put back: the old values are read the way each file holds them. */
static void test_apply_restore(void **state)
{
	struct fol_mthp m;
	char buf[64];

	(void)state;
	assert_int_equal(fol_mthp_parse("64K=always,khugepaged.scan_sleep_millisecs=10,thp=never",
					root, &m, NULL), 0);
	assert_int_equal(m.n, 3);
	assert_int_equal(fol_mthp_apply(&m), 0);
	get("khugepaged/scan_sleep_millisecs", buf, sizeof(buf));
	assert_string_equal(buf, "10");
	get("hugepages-64kB/enabled", buf, sizeof(buf));
	assert_string_equal(buf, "always");
	assert_int_equal(fol_mthp_restore(&m), 0);
	get("khugepaged/scan_sleep_millisecs", buf, sizeof(buf));
	assert_string_equal(buf, "10000");
	get("enabled", buf, sizeof(buf));
	assert_string_equal(buf, "madvise");
	get("hugepages-64kB/enabled", buf, sizeof(buf));
	assert_string_equal(buf, "never");
}

static void test_bad_specs(void **state)
{
	static const struct {
		const char *spec;
		int err;
	} bad[] = {
		{ "khugepaged.scan_sleep_millisecs=fast", -EINVAL },
		{ "khugepaged.scan_sleep_millisecs=-1", -EINVAL },
		{ "khugepaged.../../enabled=1", -EINVAL },
		{ "khugepaged.=1", -EINVAL },
		{ "khugepaged.pages_to_scan=4096", -ENOENT }, /* not in this fake sysfs */
		{ "128K=always", -ENOENT },
		{ "64K=sometimes", -EINVAL },
		{ "thp=inherit", -EINVAL },
		{ "64K", -EINVAL },
	};
	struct fol_mthp m;
	struct fol_msgs why = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(fol_mthp_parse(bad[i].spec, root, &m, &why), bad[i].err);
		assert_int_equal(why.n, 1);
		assert_true(fol_msgs_last(&why)[0] != '\0');
		fol_msgs_free(&why);
	}
}

/* Where the huge zero page is mapped, read from the machine: the PMD size's own policy
 * unless it inherits the top level's; none without use_zero_page; not known where a file
 * is missing or no PMD order is known. */
static void test_huge_zero(void **state)
{
	static const struct {
		const char *top, *pmd, *zero;
		int pmd_order, want;
	} cases[] = {
		{ "always [madvise] never\n", "always [inherit] madvise never\n", "1\n", 9, FOL_HZ_MADVISE },
		{ "always [madvise] never\n", "[always] inherit madvise never\n", "1\n", 9, FOL_HZ_ALWAYS },
		{ "[always] madvise never\n", "always inherit madvise [never]\n", "1\n", 9, FOL_HZ_NONE },
		{ "[always] madvise never\n", NULL, "1\n", 9, FOL_HZ_ALWAYS },
		{ "[always] madvise never\n", "always [inherit] madvise never\n", "0\n", 9, FOL_HZ_NONE },
		{ "[always] madvise never\n", "always [inherit] madvise never\n", NULL, 9, FOL_HZ_UNKNOWN },
		{ "[always] madvise never\n", "always [inherit] madvise never\n", "1\n", 0, FOL_HZ_UNKNOWN },
	};
	char pmd[96], top[128];

	(void)state;
	snprintf(pmd, sizeof(pmd), THP "hugepages-%ldkB/enabled", (sysconf(_SC_PAGESIZE) << 9) >> 10);
	snprintf(top, sizeof(top), "%s/" THP, root);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char path[256];

		fake_put(root, THP "enabled", cases[i].top);
		snprintf(path, sizeof(path), "%s/%s", root, pmd);
		unlink(path);
		if (cases[i].pmd)
			fake_put(root, pmd, cases[i].pmd);
		snprintf(path, sizeof(path), "%suse_zero_page", top);
		unlink(path);
		if (cases[i].zero)
			fake_put(root, THP "use_zero_page", cases[i].zero);
		assert_int_equal(fol_huge_zero_now(root, cases[i].pmd_order), cases[i].want);
	}
	fake_put(root, THP "enabled", "always [madvise] never\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_apply_restore),
		cmocka_unit_test(test_bad_specs),
		cmocka_unit_test(test_huge_zero),
	};

	return cmocka_run_group_tests_name("mthp", tests, setup, teardown);
}
