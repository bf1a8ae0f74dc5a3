// SPDX-License-Identifier: GPL-2.0-only
#include "record/tracepoint.h"
#include "util/grow.h"
#include "data/decode.h"
#include "util/errors.h"

#include <event-parse.h>

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>
#include <unistd.h>

const char *fol_tp_tracefs_dir(void)
{
	/* libtracefs mounts tracefs when it can (root) and it is not mounted yet. */
	return tracefs_tracing_dir();
}

static int add_one(const char *sys, const char *name, struct fol_tp **tps, int *n)
{
	struct fol_tp *tp;
	size_t cap;
	char *fmt, *id_line;
	int size = 0;

	fmt = tracefs_event_file_read(NULL, sys, name, "format", &size);
	if (!fmt)
		return errno == EACCES || errno == EPERM ? -EACCES : -ENOENT;
	id_line = strstr(fmt, "\nID: ");
	cap = (size_t)*n; /* the array has no room beyond its n */
	if (!id_line || FOL_GROW(*tps, cap, (size_t)*n + 1, 1)) {
		free(fmt);
		return id_line ? -ENOMEM : -FOL_E_BAD_FORMAT;
	}
	tp = &(*tps)[*n];
	tp->id = strtoull(id_line + 5, NULL, 10);
	tp->system = strdup(sys);
	tp->name = strdup(name);
	tp->format = fmt;
	if (!tp->system || !tp->name) {
		free(tp->system);
		free(tp->name);
		free(fmt);
		return -ENOMEM;
	}
	(*n)++;
	return 0;
}

int fol_tp_resolve(const char *spec, struct fol_tp **tps, int *n)
{
	const char *colon = strchr(spec, ':');
	char sys[128];
	char **events;
	int i, ret = -ENOENT, found = 0;

	if (!colon || colon == spec || !colon[1] || (size_t)(colon - spec) >= sizeof(sys))
		return -EINVAL;
	memcpy(sys, spec, (size_t)(colon - spec));
	sys[colon - spec] = '\0';
	if (!fol_tp_tracefs_dir())
		return -ENODEV;
	if (!strpbrk(colon + 1, "*?["))
		return add_one(sys, colon + 1, tps, n);
	events = tracefs_system_events(NULL, sys);
	if (!events)
		return access(fol_tp_tracefs_dir(), R_OK) ? -EACCES : -ENOENT;
	for (i = 0; events[i]; i++) {
		if (fnmatch(colon + 1, events[i], 0))
			continue;
		ret = add_one(sys, events[i], tps, n);
		if (ret && ret != -ENOENT)
			break;
		found += !ret;
	}
	tracefs_list_free(events);
	if (ret && ret != -ENOENT)
		return ret;
	return found ? 0 : -ENOENT;
}

void fol_tp_free(struct fol_tp *tps, int n)
{
	for (int i = 0; i < n; i++) {
		free(tps[i].system);
		free(tps[i].name);
		free(tps[i].format);
	}
	free(tps);
}

int fol_tp_field(const struct fol_tp *tp, const char *field, int *offset, int *size)
{
	struct tep_handle *tep = tep_alloc();
	struct tep_format_field **all;
	struct tep_event *ev = NULL;
	char *clean = malloc(FOL_FORMAT_MAX);
	int n, ret = -ENOENT;

	if (!tep || !clean) {
		ret = -ENOMEM;
		goto out;
	}
	n = fol_decoder_clean_format(tp->format, clean, FOL_FORMAT_MAX);
	if (n < 0 || tep_parse_format(tep, &ev, clean, (unsigned long)n, tp->system))
		goto out;
	*offset = *size = 0;
	all = tep_event_fields(ev);
	for (int i = 0; all && all[i]; i++) {
		if (field && !strcmp(all[i]->name, field)) {
			*offset = all[i]->offset;
			*size = all[i]->size;
			ret = 0;
			break;
		}
		if (!field && all[i]->offset + all[i]->size > *size) {
			*size = all[i]->offset + all[i]->size;
			ret = 0;
		}
	}
	free(all);
out:
	free(clean);
	if (tep)
		tep_free(tep);
	return ret;
}
