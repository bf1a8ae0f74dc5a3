// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/check.h"
#include "cmd.h"
#include "util/errors.h"
#include "options.h"
#include "util.h"

static const struct usage check_usage = {
	"usage: foliostat check\n"
	"\n"
	"Tell what this kernel and machine allow foliostat to record, and how to fix what is\n"
	"missing. Exit status 1 when recording cannot work as it is.\n"
	"\n",
	NULL,
};

int cmd_check(int argc, char **argv)
{
	const struct opt opts[] = { OPT_END() };
	static const char *const mark[] = {
		[FOL_CHECK_OK] = "ok",
		[FOL_CHECK_WARN] = "warn",
		[FOL_CHECK_MISSING] = "MISSING",
		[FOL_CHECK_INFO] = "info",
	};
	struct fol_check_item *it;
	const char *section = "";
	int n, missing = 0, ret = parse_options(argc, argv, opts, &check_usage, 0);

	if (ret)
		return ret < 0 ? 0 : ret;
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
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
