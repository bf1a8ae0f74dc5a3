// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "util/errors.h"
#include "util/parse.h"
#include "record/start.h"
#include "options.h"
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

static const struct usage wl_usage = {
	"usage: foliostat record [record options] -w NAME [-- options]\n"
	"       foliostat workload NAME [options]\n"
	"\n",
	NULL,
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

static struct fol_wl_opts wl = { .size = 256ul << 20, .policy = FOL_WL_PTE_THP };

static int opt_size(const struct opt *o, const char *arg)
{
	int ret = parse_size(arg, 4096, o->value);

	return ret ? print_bad_number("--size", "a size from 4K to 1T (64M, 1G)", arg, ret) : 0;
}

static int opt_policy(const struct opt *o, const char *arg)
{
	if (fol_wl_parse_policy(arg, o->value))
		return usage_error("--policy is pte-thp, thp, mthp or small, not '%s'", arg);
	return 0;
}

static int opt_stride(const struct opt *o, const char *arg)
{
	int ret = parse_size(arg, 1, o->value);

	return ret ? print_bad_number("--stride", "a byte count up to 1T (64K)", arg, ret) : 0;
}

static int opt_mode(const struct opt *o, const char *arg)
{
	if (fol_wl_parse_mode(arg, o->value))
		return usage_error("--mode is byte, random or memset, not '%s'", arg);
	return 0;
}

static int opt_keep_one(const struct opt *o, const char *arg)
{
	size_t *keep = o->value;
	int ret = parse_size(arg, 8192, keep);

	if (!ret && (*keep & (*keep - 1)))
		ret = -EINVAL;
	return ret ? print_bad_number("--keep-one", "a power of two from 8K to 1T (64K)", arg, ret) : 0;
}

static int opt_ms(const struct opt *o, const char *arg)
{
	char name[64];

	return parse_ms(opt_name(o, name, sizeof(name)), arg, o->value);
}

static const struct opt wl_opts[] = {
	OPT_CALLBACK('s', "size", &wl.size, "SIZE", opt_size, "region size (default 256M)"),
	OPT_CALLBACK('P', "policy", &wl.policy, "POLICY", opt_policy,
		     "pte-thp (default: 2M THP mapped by PTEs), thp (PMD-mapped),\n"
		     "mthp (the mTHP sizes set to always), small (4K only)"),
	OPT_CALLBACK('S', "stride", &wl.stride, "BYTES", opt_stride,
		     "one store per BYTES in the write pass (default a page)"),
	OPT_CALLBACK('M', "mode", &wl.mode, "MODE", opt_mode,
		     "write pass: byte (default), random, memset"),
	OPT_INTEGER('t', "threads", &wl.threads, "N", 1, 64, "1 to 64",
		    "split the write pass over N threads (byte mode)"),
	OPT_STRING(0, "swapfile", &wl.swapfile, "PATH",
		   "pageout: make PATH a swap file for the run, remove it after"),
	OPT_SET_INT(0, "zram", &wl.zram, 1,
		    "pageout: swap on zram0 for the run (large folios swap out\n"
		    "whole; a rotational disk makes the kernel split them)"),
	OPT_SET_INT(0, "swapin", &wl.swapin, 1, "pageout: read the region back after paging it out"),
	OPT_SET_INT(0, "swapin-child", &wl.swapin, 2, "pageout: a forked child reads it back"),
	OPT_CALLBACK(0, "keep-one", &wl.keep_one, "SIZE", opt_keep_one,
		     "pageout: first unmap all but the first page of each\n"
		     "SIZE block (partly mapped folios: the kernel splits them)"),
	OPT_SET_INT(0, "readonly", &wl.readonly, 1, "collapse: mprotect the region read-only first"),
	OPT_SET_INT(0, "populate-madvise", &wl.populate_by, FOL_WL_BY_MADVISE,
		    "populate with madvise(MADV_POPULATE_WRITE): the kernel\n"
		    "allocates the folios without a fault (5.14 and later)"),
	OPT_SET_INT(0, "populate-mmap", &wl.populate_by, FOL_WL_BY_MMAP,
		    "populate by mapping the region again with MAP_POPULATE\n"
		    "(MAP_FIXED; the policy's madvise comes after)"),
	OPT_SET_INT(0, "populate-mlock", &wl.populate_by, FOL_WL_BY_MLOCK,
		    "populate with mlock (munlock after)"),
	OPT_SET_INT(0, "populate-procmem", &wl.populate_by, FOL_WL_BY_PROCMEM,
		    "populate by writing the region through /proc/self/mem:\n"
		    "get_user_pages() faults it in for a call foliostat\n"
		    "does not record (as O_DIRECT I/O or io_uring buffers)"),
	OPT_STRING(0, "populate-dio", &wl.dio_file, "PATH",
		   "populate by reading PATH into the region with O_DIRECT,\n"
		   "over again until it is full (its size a multiple of 4K):\n"
		   "the kernel pins the pages, no fault"),
	OPT_SET_INT(0, "populate-read", &wl.populate_by, FOL_WL_BY_READ,
		    "populate by a load from each page: read faults (the\n"
		    "zero page mapped, where the kernel does that)"),
	OPT_STRING(0, "populate-file", &wl.map_file, "PATH",
		   "the region is PATH (at least --size long) mapped private,\n"
		   "populated by a load from each page: file faults (on\n"
		   "cached pages if PATH was read before)"),
	OPT_SET_INT(0, "khugepaged", &wl.khugepaged, 1,
		    "collapse: leave it to khugepaged, woken every 10 ms for\n"
		    "the run (its settings put back after, signals included)"),
	OPT_SET_INT(0, "child-writes", &wl.child_writes, 1,
		    "cow: then the child writes the region, which it alone\n"
		    "maps once the parent copied it (reuse of inherited folios)"),
	OPT_INTEGER(0, "loops", &wl.loops, "N", 1, 100000, "1 to 100000",
		    "fork-loop: forks and write passes (default 50)"),
	OPT_CALLBACK(0, "hold", &wl.hold_ms, "S", opt_ms,
		     "keep the region mapped S seconds at the end (for\n"
		     "foliostat maps -p)"),
	OPT_CALLBACK(0, "delay", &wl.delay_ms, "S", opt_ms,
		     "wait S seconds after populating, before forking (for\n"
		     "foliostat record -p)"),
	OPT_END(),
};

int cmd_workloads(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("Built-in workloads (foliostat record runs fork-reuse by default):\n\n");
	for (int i = 0; fol_workloads[i].name; i++)
		printf("  %-12s %s\n", fol_workloads[i].name, fol_workloads[i].help);
	printf("\nOptions of each: ");
	fflush(stdout);
	usage_with_options(stdout, &wl_usage, wl_opts);
	return 0;
}

int cmd_workload(int argc, char **argv)
{
	struct fol_wl_opts *o = &wl;
	const struct fol_wl_info *info;
	int ret;

	if (argc < 2) {
		usage_with_options(stderr, &wl_usage, wl_opts);
		return EXIT_USAGE;
	}
	/* No workload named: --help or --list-options, or an error. */
	if (argv[1][0] == '-') {
		ret = parse_options(argc, argv, wl_opts, &wl_usage, 0);
		return ret < 0 ? 0 : ret ? ret : usage_error("name a workload first (foliostat workloads lists them)");
	}
	info = fol_wl_find(argv[1]);
	if (!info)
		return usage_error("unknown workload '%s' (foliostat workloads lists them)", argv[1]);
	o->kind = info->kind;
	ret = parse_options(argc - 1, argv + 1, wl_opts, &wl_usage, 0);
	if (ret)
		return ret < 0 ? 0 : ret;
	o->phase_file = getenv(FOL_PHASES_ENV);
	if (o->dio_file)
		o->populate_by = FOL_WL_BY_DIO;
	if (o->map_file)
		o->populate_by = FOL_WL_BY_FILE;
	ret = fol_wl_run(o);
	if (ret == -ENOSPC && o->kind == FOL_WL_PAGEOUT)
		return error("pageout needs swap and there is none: swapon a device, or give "
			     "--swapfile PATH (made and removed by the workload) or --zram");
	if (o->zram && ret == -ENODEV)
		return error("--zram: there is no /sys/block/zram0: load the module (modprobe zram)");
	if (o->zram && ret == -EBUSY)
		return error("--zram: zram0 is in use (its disksize is set): swapoff and reset it "
			     "(echo 1 > /sys/block/zram0/reset), or use --swapfile");
	if (o->map_file && ret == -EFBIG)
		return error("--populate-file: %s is shorter than the region (--size)", o->map_file);
	if (o->khugepaged && ret == -ETIMEDOUT)
		return error("--khugepaged: khugepaged did not collapse the region within 30 s "
			     "(is THP enabled? see /sys/kernel/mm/transparent_hugepage)");
	if (ret)
		return error("%s failed: %s", info->name, fol_strerror(ret));
	return 0;
}
