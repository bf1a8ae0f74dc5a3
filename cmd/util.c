// SPDX-License-Identifier: GPL-2.0-only
#include "util.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "util/errors.h"
#include "util/escape.h"
#include "util/parse.h"
#include "data/session.h"
#include "util/msgs.h"

/* The command as the user typed it (report, tui, diff...), for every message. */
static const char *cmd_name = "foliostat";

void set_cmd_name(const char *name)
{
	cmd_name = name;
}

const char *get_cmd_name(void)
{
	return cmd_name;
}

/* Every message escaped as a whole (escape.h): it may quote an option's value, a path or
 * a name from a recording, any of which can hold terminal escapes. */
static void say(const char *kind, const char *fmt, va_list ap)
{
	char msg[4096], out[4096 * 4];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fflush(stdout);
	fprintf(stderr, "foliostat %s: %s%s\n", fol_escape(cmd_name, out, sizeof(out)), kind,
		fol_escape(msg, out, sizeof(out)));
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("", fmt, ap);
	va_end(ap);
	return 1;
}

int error_why(struct fol_msgs *why)
{
	error("%s", fol_msgs_last(why));
	fol_msgs_free(why);
	return 1;
}

int usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("", fmt, ap);
	va_end(ap);
	return EXIT_USAGE;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("warning: ", fmt, ap);
	va_end(ap);
}

void print_open_error(const char *path, int err)
{
	const char *cmd = get_cmd_name();

	switch (err) {
	case -ENOENT:
		/* compare names its files as arguments; the others read -i FILE. */
		error("%s does not exist: record one with 'foliostat record'%s", path,
		      strcmp(cmd, "compare") && strcmp(cmd, "diff") ? " or name another with -i" : "");
		break;
	case -EACCES:
		error("cannot read %s: permission denied", path);
		break;
	case -FOL_E_NOT_RECORDING:
		error("%s is not a foliostat recording", path);
		break;
	case -FOL_E_DAMAGED_HEADER:
		error("%s has a damaged file header: it cannot be read as a recording", path);
		break;
	case -FOL_E_NO_METADATA:
		error("%s has no usable metadata or event descriptions (damaged at its start?): "
		      "nothing in it can be decoded", path);
		break;
	case -ESPIPE:
		error("%s is not a regular file (a FIFO, device or socket): "
			"give a recording file with -i", path);
		break;
	case -EISDIR:
		error("%s is a directory: give a recording file with -i", path);
		break;
	case -FOL_E_NEWER_FORMAT:
		error("%s was written by a newer foliostat: this one "
			"reads format version 1", path);
		break;
	default:
		error("cannot read %s: %s", path, fol_strerror(err));
	}
}

int print_read_status(const char *path, const struct fol_session *s)
{
	struct fol_session_stats st = fol_session_stats(s);
	int damaged = 0;

	if (st.file.truncated || !st.file.complete)
		warning("%s ends early (recording cut short?): read "
			"up to its last complete chunk", path);
	if (st.file.corrupt_chunks) {
		error("%s is damaged: %" PRIu64 " region(s), %" PRIu64 " bytes skipped", path,
		      st.file.corrupt_chunks, st.file.corrupt_bytes);
		damaged = 1;
	}
	if (st.bad_records) {
		error("%s holds %" PRIu64 " malformed records: skipped", path, st.bad_records);
		damaged = 1;
	}
	if (st.unknown_records)
		warning("%" PRIu64 " records of undescribed events skipped", st.unknown_records);
	if (st.lost)
		warning("the kernel lost %" PRIu64 " events while recording", st.lost);
	return damaged;
}

int parse_int(const char *s, int min, int max, int *out)
{
	uint64_t v;
	int ret;

	if (min < 0)
		return -EINVAL; /* no option takes a negative number */
	ret = fol_parse_u64(s, (uint64_t)min, (uint64_t)max, 0, &v);
	if (!ret)
		*out = (int)v;
	return ret;
}

int print_bad_number(const char *option, const char *what, const char *arg, int err)
{
	error("%s takes %s, not '%s'%s", option, what, arg,
		err == -ERANGE ? " (out of range)" : "");
	return EXIT_USAGE;
}

int print_json(cJSON *j, FILE *f)
{
	char *s = j ? cJSON_Print(j) : NULL;

	cJSON_Delete(j);
	if (!s)
		return error("out of memory");
	fprintf(f, "%s\n", s);
	free(s);
	return 0;
}
