// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "util/errors.h"
#include "util/parse.h"
#include "record/start.h"
#include "util.h"
#include "workloads/workloads.h"

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
		"      --zram             pageout: swap on zram0 for the run (large folios swap out\n"
		"                         whole; a rotational disk makes the kernel split them)\n"
		"      --swapin           pageout: read the region back after paging it out\n"
		"      --swapin-child     pageout: a forked child reads it back\n"
		"      --keep-one SIZE    pageout: first unmap all but the first page of each\n"
		"                         SIZE block (partly mapped folios: the kernel splits them)\n"
		"      --readonly         collapse: mprotect the region read-only first\n"
		"      --khugepaged       collapse: leave it to khugepaged, woken every 10 ms for\n"
		"                         the run (its settings put back after, signals included)\n"
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

static const struct option wl_opts[] = {
	{ "size", required_argument, NULL, 's' },
	{ "policy", required_argument, NULL, 'P' },
	{ "stride", required_argument, NULL, 'S' },
	{ "mode", required_argument, NULL, 'M' },
	{ "threads", required_argument, NULL, 't' },
	{ "swapfile", required_argument, NULL, 'W' },
	{ "swapin", no_argument, NULL, 'I' },
	{ "swapin-child", no_argument, NULL, 'F' },
	{ "readonly", no_argument, NULL, 'R' },
	{ "khugepaged", no_argument, NULL, 'K' },
	{ "zram", no_argument, NULL, 'Z' },
	{ "keep-one", required_argument, NULL, 'O' },
	{ "loops", required_argument, NULL, 'L' },
	{ "hold", required_argument, NULL, 'H' },
	{ "delay", required_argument, NULL, 'D' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* --hold and --delay: seconds, kept as milliseconds. */
static int parse_ms(const char *option, const char *arg, unsigned *ms)
{
	double secs;
	int ret = fol_parse_seconds(arg, 0, 3600, &secs);

	if (ret)
		return print_bad_number(option, "seconds (up to 3600)", arg, ret);
	*ms = (unsigned)(secs * 1000);
	return 0;
}

/* One option: 0 to go on, else the exit status (-1 after --help, for 0). */
static int wl_option(struct fol_wl_opts *o, int c, const char *arg)
{
	int ret;

	switch (c) {
	case 's':
		ret = parse_size(arg, 4096, &o->size);
		return ret ? print_bad_number("--size", "a size from 4K to 1T (64M, 1G)", arg, ret) : 0;
	case 'P':
		if (fol_wl_parse_policy(arg, &o->policy))
			return usage_error("--policy is pte-thp, thp, mthp or small, not '%s'", arg);
		return 0;
	case 'S':
		ret = parse_size(arg, 1, &o->stride);
		return ret ? print_bad_number("--stride", "a byte count up to 1T (64K)", arg, ret) : 0;
	case 'M':
		if (fol_wl_parse_mode(arg, &o->mode))
			return usage_error("--mode is byte, random or memset, not '%s'", arg);
		return 0;
	case 't':
		ret = parse_int(arg, 1, 64, &o->threads);
		return ret ? print_bad_number("--threads", "1 to 64", arg, ret) : 0;
	case 'W':
		o->swapfile = arg;
		return 0;
	case 'I':
		o->swapin = 1;
		return 0;
	case 'F':
		o->swapin = 2;
		return 0;
	case 'R':
		o->readonly = 1;
		return 0;
	case 'K':
		o->khugepaged = 1;
		return 0;
	case 'Z':
		o->zram = 1;
		return 0;
	case 'O':
		ret = parse_size(arg, 8192, &o->keep_one);
		if (!ret && (o->keep_one & (o->keep_one - 1)))
			ret = -EINVAL;
		return ret ? print_bad_number("--keep-one", "a power of two from 8K to 1T (64K)", arg, ret) : 0;
	case 'H':
		return parse_ms("--hold", arg, &o->hold_ms);
	case 'D':
		return parse_ms("--delay", arg, &o->delay_ms);
	case 'L':
		ret = parse_int(arg, 1, 100000, &o->loops);
		return ret ? print_bad_number("--loops", "1 to 100000", arg, ret) : 0;
	default:
		ret = usage_exit(c, usage);
		return ret ? ret : -1;
	}
}

int cmd_workload(int argc, char **argv)
{
	struct fol_wl_opts o = { .size = 256ul << 20, .policy = FOL_WL_PTE_THP };
	const struct fol_wl_info *wl;
	int c, ret;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return usage_exit(argc < 2 ? '?' : 'h', usage);
	wl = fol_wl_find(argv[1]);
	if (!wl)
		return usage_error("unknown workload '%s' (foliostat workloads lists them)", argv[1]);
	o.kind = wl->kind;
	while ((c = getopt_long(argc - 1, argv + 1, "s:P:S:M:t:h", wl_opts, NULL)) != -1)
		if ((ret = wl_option(&o, c, optarg)))
			return ret < 0 ? 0 : ret;
	o.phase_file = getenv(FOL_PHASES_ENV);
	ret = fol_wl_run(&o);
	if (ret == -ENOSPC && o.kind == FOL_WL_PAGEOUT)
		return error("pageout needs swap and there is none: swapon a device, or give "
			     "--swapfile PATH (made and removed by the workload) or --zram");
	if (o.zram && ret == -ENODEV)
		return error("--zram: there is no /sys/block/zram0: load the module (modprobe zram)");
	if (o.zram && ret == -EBUSY)
		return error("--zram: zram0 is in use (its disksize is set): swapoff and reset it "
			     "(echo 1 > /sys/block/zram0/reset), or use --swapfile");
	if (o.khugepaged && ret == -ETIMEDOUT)
		return error("--khugepaged: khugepaged did not collapse the region within 30 s "
			     "(is THP enabled? see /sys/kernel/mm/transparent_hugepage)");
	if (ret)
		return error("%s failed: %s", wl->name, fol_strerror(ret));
	return 0;
}
