// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "errors.h"
#include "parse.h"
#include "util.h"
#include "workload.h"

/* A byte count with K/M/G/T suffixes, up to 1T: a larger one cannot be mapped here. */
static int parse_size(const char *arg, uint64_t min, size_t *out)
{
	uint64_t v;
	int ret = fol_parse_u64(arg, min, 1ull << 40, 1, &v);

	if (!ret)
		*out = (size_t)v;
	return ret;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: foliostat record [record options] -w NAME [-- options]\n"
		"       foliostat workload NAME [options]\n"
		"\n"
		"  -s, --size SIZE        region size (default 256M)\n"
		"  -P, --policy POLICY    pte-thp (default: 2M THP mapped by PTEs), thp (PMD-mapped),\n"
		"                         mthp (the mTHP sizes set to always), small (4K only)\n"
		"  -S, --stride BYTES     one store per BYTES in the write pass (default a page)\n"
		"  -M, --mode MODE        write pass: byte (default), random, memset\n"
		"  -t, --threads N        split the write pass over N threads (byte mode)\n"
		"      --swapfile PATH    pageout: make PATH a swap file for the run, remove it after\n"
		"      --swapin           pageout: read the region back after paging it out\n"
		"      --readonly         collapse: mprotect the region read-only first\n"
		"      --loops N          fork-loop: forks and write passes (default 50)\n"
		"      --hold S           keep the region mapped S seconds at the end (for\n"
		"                         foliostat maps -p)\n"
		"      --delay S          wait S seconds after populating, before forking (for\n"
		"                         foliostat record -p)\n"
		"  -h, --help             this text\n");
}

int cmd_workloads(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("Built-in workloads (foliostat record runs fork-reuse by default):\n\n");
	for (int i = 0; fol_workloads[i].name; i++)
		printf("  %-12s %s\n", fol_workloads[i].name, fol_workloads[i].help);
	printf("\nOptions of each: ");
	fflush(stdout);
	usage(stdout);
	return 0;
}

int cmd_workload(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "policy", required_argument, NULL, 'P' },
		{ "stride", required_argument, NULL, 'S' },
		{ "mode", required_argument, NULL, 'M' },
		{ "threads", required_argument, NULL, 't' },
		{ "swapfile", required_argument, NULL, 'W' },
		{ "swapin", no_argument, NULL, 'I' },
		{ "readonly", no_argument, NULL, 'R' },
		{ "loops", required_argument, NULL, 'L' },
		{ "hold", required_argument, NULL, 'H' },
		{ "delay", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fol_wl_opts o = { .size = 256ul << 20, .policy = FOL_WL_PTE_THP };
	const struct fol_wl_info *wl;
	int c, ret;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	wl = fol_wl_find(argv[1]);
	if (!wl)
		return usage_error("unknown workload '%s' (foliostat workloads lists them)", argv[1]);
	o.kind = wl->kind;
	argc--;
	argv++;
	while ((c = getopt_long(argc, argv, "s:P:S:M:t:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if ((ret = parse_size(optarg, 4096, &o.size))) {
				print_bad_number("--size", "a size from 4K to 1T (64M, 1G)", optarg, ret);
				return EXIT_USAGE;
			}
			break;
		case 'P':
			if (fol_wl_parse_policy(optarg, &o.policy))
				return usage_error("--policy is pte-thp, thp, mthp or small, not '%s'", optarg);
			break;
		case 'S':
			if ((ret = parse_size(optarg, 1, &o.stride))) {
				print_bad_number("--stride", "a byte count up to 1T (64K)", optarg, ret);
				return EXIT_USAGE;
			}
			break;
		case 'M':
			if (fol_wl_parse_mode(optarg, &o.mode))
				return usage_error("--mode is byte, random or memset, not '%s'", optarg);
			break;
		case 't':
			if ((ret = parse_int(optarg, 1, 64, &o.threads))) {
				print_bad_number("--threads", "1 to 64", optarg, ret);
				return EXIT_USAGE;
			}
			break;
		case 'W':
			o.swapfile = optarg;
			break;
		case 'I':
			o.swapin = 1;
			break;
		case 'R':
			o.readonly = 1;
			break;
		case 'H':
		case 'D': {
			double secs;

			if ((ret = fol_parse_seconds(optarg, 0, 3600, &secs))) {
				print_bad_number(c == 'H' ? "--hold" : "--delay",
						 "seconds (up to 3600)", optarg, ret);
				return EXIT_USAGE;
			}
			*(c == 'H' ? &o.hold_ms : &o.delay_ms) = (unsigned)(secs * 1000);
			break;
		}
		case 'L':
			if ((ret = parse_int(optarg, 1, 100000, &o.loops))) {
				print_bad_number("--loops", "1 to 100000", optarg, ret);
				return EXIT_USAGE;
			}
			break;
		default:
			return usage_exit(c, usage);
		}
	}
	o.phase_file = getenv("FOLIOSTAT_PHASES");
	ret = fol_wl_run(&o);
	if (ret == -ENOSPC && o.kind == FOL_WL_PAGEOUT)
		return error("pageout needs swap and there is none: swapon a device, or give "
			     "--swapfile PATH (made and removed by the workload)");
	if (ret)
		return error("%s failed: %s", wl->name, fol_strerror(ret));
	return 0;
}
