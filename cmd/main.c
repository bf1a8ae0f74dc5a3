// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "report/format.h"
#include "report/report.h"

#include "cmd.h"
#include "commit.h"
#include "util.h"

struct cmd {
	const char *name;
	int (*fn)(int, char **);
	const char *help;
};

static const struct cmd cmds[] = {
	{ "record", cmd_record, "run a workload (or attach to a process) and record it" },
	{ "report", cmd_report, "analyse a recording: fault time per folio order, reuse batching" },
	{ "stat", cmd_stat, "record and report in one go, no file kept (like perf stat)" },
	{ "top", cmd_top, "page faults live by process, order and class (like perf top)" },
	{ "serve", cmd_serve, "a Prometheus exporter: per-order fault metrics over HTTP" },
	{ "compare", cmd_compare, "compare recordings: kernels, folio sizes, runs, with significance" },
	{ "diff", cmd_compare, NULL },
	{ "tui", cmd_tui, "the report, interactive (same as report --tui)" },
	{ "script", cmd_script, "print every recorded event, one line each" },
	{ "archive", cmd_archive, "pack the recorded binaries, for a report on another machine" },
	{ "maps", cmd_maps, "folio composition of a live process (pagemap, kpageflags)" },
	{ "check", cmd_check, "what this kernel and machine allow, and how to fix what is missing" },
	{ "workloads", cmd_workloads, "list the built-in workloads" },
	{ "workload", cmd_workload, "run a built-in workload alone (record -w NAME records one)" },
	/* The spelling of recordings made before "workload" was public. */
	{ "__workload", cmd_workload, NULL },
};

/* As git's run_builtin(): a command that printed its output but could not write it
 * (a full disk, a closed pipe) has failed, whatever it returned. */
static int run_builtin(const struct cmd *c, int argc, char **argv)
{
	int status;

	set_cmd_name(argv[0]);
	status = c->fn(argc, argv);
	if (fflush(stdout) || ferror(stdout)) {
		error("cannot write the output: %s", strerror(errno ? errno : EIO));
		return status ? status : 1;
	}
	return status;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: foliostat <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (cmds[i].help)
			fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\n'foliostat <command> --help' for a command's options; man foliostat-<command>.\n");
}

int main(int argc, char **argv)
{
	/* Only the character set: numbers stay in the C locale's format for scripts. */
	setlocale(LC_CTYPE, "");
	fol_fmt_set_ascii(strcmp(nl_langinfo(CODESET), "UTF-8") != 0);
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("foliostat %s (commit %s)\n", FOL_VERSION, FOL_COMMIT);
		return 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return run_builtin(&cmds[i], argc - 1, argv + 1);
	fprintf(stderr, "foliostat: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
