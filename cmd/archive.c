// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/archive.h"
#include "cmd.h"
#include "util/escape.h"
#include "util/files.h"
#include "data/file.h"
#include "util.h"
#include "util/msgs.h"
#include "options.h"

static const struct usage archive_usage = {
	"usage: foliostat archive [-i FILE] [-o ARCHIVE]\n"
	"\n"
	"Pack the code files a recording names (the workload's binaries and libraries,\n"
	"by the build-id recorded for each, with their separate debug info where installed)\n"
	"into one file, for a report on another machine (as perf archive):\n"
	"  foliostat report -i FILE --archive ARCHIVE\n"
	"The kernel's symbols are in the recording already.\n"
	"\n",
	NULL,
};

/* What the archive holds and what it misses, one line a recorded file. */
static unsigned print_plan(const struct fol_archive_plan *p)
{
	unsigned missing = 0;

	char pe[1024], fe[1024];

	for (size_t i = 0; i < fol_archive_plan_count(p); i++) {
		const char *hex, *file, *debug;
		const char *path = fol_archive_plan_file(p, i, &hex, &file, &debug);
		int from = file && strcmp(file, path);

		if (!file && !debug)
			missing++;
		/* Recorded paths are the recording's: escaped (an ESC or BEL in one reached the
		 * terminal). */
		printf("  %-8s %s  %s%s%s%s%s\n", file ? "packed" : debug ? "debug" : "missing", hex,
		       fol_escape(path, pe, sizeof(pe)), from ? " (from " : "",
		       from ? fol_escape(file, fe, sizeof(fe)) : "", from ? ")" : "",
		       !file && !debug ? ": no file of this build-id here (rebuilt or removed since?)"
		       : debug ? " + debug info" : "");
	}
	if (fol_archive_plan_bad(p))
		warning("%zu recorded build-ids are not hex digits (a damaged or forged recording): "
			"passed over", fol_archive_plan_bad(p));
	return missing;
}

int cmd_archive(int argc, char **argv)
{
	const char *input = "foliostat.data", *output = NULL;
	struct fol_archive_plan *p;
	struct fol_archive_stats st;
	char def[4096];
	const struct opt opts[] = {
		OPT_STRING('i', "input", &input, "FILE", "the recording (default foliostat.data)"),
		OPT_STRING('o', "output", &output, "ARCHIVE", "write ARCHIVE (default FILE.archive)"),
		OPT_END(),
	};
	unsigned missing;
	int ret = parse_options(argc, argv, opts, &archive_usage, 0);

	if (ret)
		return ret < 0 ? 0 : ret;
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (!output) {
		snprintf(def, sizeof(def), "%s.archive", input);
		output = def;
	}
	/* archive -i X -o X replaced the recording by its archive, keeping it as X.old. */
	if (fol_same_file(input, output))
		return usage_error("-o %s is the recording itself: give the archive another name "
				   "(default %s.archive)", output, input);
	ret = fol_archive_plan(input, &p);
	if (ret == -ENODATA)
		return error("%s names no code file with a build-id: nothing to pack", input);
	if (ret == -ENOMEM)
		return error("out of memory");
	if (ret) {
		print_open_error(input, ret);
		return 1;
	}
	missing = print_plan(p);
	ret = fol_archive_pack(p, output, &st);
	fol_archive_plan_free(p);
	if (ret == -ENODATA)
		return error("none of the code files %s names is here with its recorded build-id: "
			     "archive on the machine that recorded it", input);
	if (ret) {
		struct fol_msgs why = { 0 };

		fol_writer_why(ret, output, &why);
		return error_why(&why);
	}
	printf("%s: %u files, %.1f MB%s\n", output, st.files, (double)st.bytes / 1e6,
	       missing ? " (some recorded files missing: their code stays unnamed)" : "");
	printf("On another machine: foliostat report -i %s --archive %s\n", input, output);
	return 0;
}
