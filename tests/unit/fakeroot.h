/* SPDX-License-Identifier: GPL-2.0-only */
/* A machine's /proc and /sys as tests write them: files under a temporary root that the
 * code under test is pointed at (counters.c's and mthp.c's root argument). Include after
 * cmocka's header. */
#ifndef FOL_FAKEROOT_H
#define FOL_FAKEROOT_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* root/rel holds text, the folders on its way made first. */
static inline void fake_put(const char *root, const char *rel, const char *text)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		assert_true(!mkdir(path, 0755) || errno == EEXIST);
		*s = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static inline void fake_remove(const char *root)
{
	char cmd[1100];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

#endif
