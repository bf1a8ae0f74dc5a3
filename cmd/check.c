// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/check.h"
#include "cmd.h"
#include "util/errors.h"
#include "util.h"

int cmd_check(int argc, char **argv)
{
	static const char *const mark[] = {
		[FOL_CHECK_OK] = "ok",
		[FOL_CHECK_WARN] = "warn",
		[FOL_CHECK_MISSING] = "MISSING",
		[FOL_CHECK_INFO] = "info",
	};
	struct fol_check_item *it;
	const char *section = "";
	int n, missing = 0;

	if (argc > 1) {
		if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
			printf("usage: foliostat check\n\nTell what this kernel and machine allow "
			       "foliostat to record, and how to fix what is missing.\nExit status "
			       "1 when recording cannot work as it is.\n");
			return 0;
		}
		return usage_error("unexpected argument '%s'", argv[1]);
	}
	n = fol_check_run(&it);
	if (n < 0)
		return error("cannot examine this machine: %s", fol_strerror(n));
	for (int i = 0; i < n; i++) {
		if (strcmp(section, it[i].section)) {
			section = it[i].section;
			printf("%s%s\n", i ? "\n" : "", section);
		}
		printf("  %-7s %-38s %s\n", mark[it[i].state], it[i].what, it[i].detail);
		if (it[i].fix[0] && it[i].state != FOL_CHECK_OK)
			printf("  %-7s %-38s -> %s\n", "", "", it[i].fix);
		missing += it[i].state == FOL_CHECK_MISSING;
	}
	free(it);
	if (missing)
		printf("\n%d problem(s): recording will fail or be incomplete until fixed.\n", missing);
	return missing ? 1 : 0;
}
