#include "util.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "session.h"

void print_open_error(const char *cmd, const char *path, int err)
{
	switch (err) {
	case -ENOENT:
		/* compare names its files as arguments; the others read -i FILE. */
		fprintf(stderr, "foliostat %s: %s does not exist: record one with 'foliostat record'%s\n",
			cmd, path, strcmp(cmd, "compare") ? " or name another with -i" : "");
		break;
	case -EACCES:
		fprintf(stderr, "foliostat %s: cannot read %s: permission denied\n", cmd, path);
		break;
	case -EPROTO:
		fprintf(stderr, "foliostat %s: %s is not a foliostat recording (or its header is "
				"damaged)\n", cmd, path);
		break;
	case -ESPIPE:
		fprintf(stderr, "foliostat %s: %s is not a regular file (a FIFO, device or socket): "
				"give a recording file with -i\n", cmd, path);
		break;
	case -EISDIR:
		fprintf(stderr, "foliostat %s: %s is a directory: give a recording file with -i\n",
			cmd, path);
		break;
	case -EPROTONOSUPPORT:
		fprintf(stderr, "foliostat %s: %s was written by a newer foliostat: this one "
				"reads format version 1\n", cmd, path);
		break;
	default:
		fprintf(stderr, "foliostat %s: cannot read %s: %s\n", cmd, path, strerror(-err));
	}
}

int print_read_status(const char *cmd, const char *path, const struct fol_session *s)
{
	struct fol_session_stats st = fol_session_stats(s);
	int damaged = 0;

	if (st.file.truncated || !st.file.complete)
		fprintf(stderr, "foliostat %s: warning: %s ends early (recording cut short?): read "
				"up to its last complete chunk\n", cmd, path);
	if (st.file.corrupt_chunks) {
		fprintf(stderr, "foliostat %s: %s is damaged: %" PRIu64 " region(s), %" PRIu64
				" bytes skipped\n", cmd, path, st.file.corrupt_chunks, st.file.corrupt_bytes);
		damaged = 1;
	}
	if (st.bad_records) {
		fprintf(stderr, "foliostat %s: %s holds %" PRIu64 " malformed records: skipped\n", cmd,
			path, st.bad_records);
		damaged = 1;
	}
	if (st.unknown_records)
		fprintf(stderr, "foliostat %s: warning: %" PRIu64 " records of undescribed events "
				"skipped\n", cmd, st.unknown_records);
	if (st.lost)
		fprintf(stderr, "foliostat %s: warning: the kernel lost %" PRIu64 " events while "
				"recording\n", cmd, st.lost);
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

void print_bad_number(const char *cmd, const char *option, const char *what, const char *arg,
		      int err)
{
	fprintf(stderr, "foliostat %s: %s takes %s, not '%s'%s\n", cmd, option, what, arg,
		err == -ERANGE ? " (out of range)" : "");
}

int print_json(cJSON *j, FILE *f, const char *cmd)
{
	char *s = j ? cJSON_Print(j) : NULL;

	cJSON_Delete(j);
	if (!s) {
		fprintf(stderr, "foliostat %s: out of memory\n", cmd);
		return 1;
	}
	fprintf(f, "%s\n", s);
	free(s);
	return 0;
}
