// SPDX-License-Identifier: GPL-2.0-only
#include "compare/sides.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fol_sides_free(struct fol_sides *s)
{
	for (int i = 0; i < s->n; i++) {
		free(s->runs[i]);
		free(s->rec[i]);
		free(s->out[i]);
		free(s->names[i]);
		free(s->bare[i]);
	}
	memset(s, 0, sizeof(*s));
}

/* A file's or directory's column name: its last component, without ".data" or a
 * trailing "/". */
static const char *file_column(const char *path)
{
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	while (n > 0 && path[n - 1] != '/')
		n--;
	return path + n;
}

static int file_column_len(const char *path)
{
	const char *b = file_column(path);
	size_t n = strlen(b);

	while (n > 1 && b[n - 1] == '/')
		n--;
	if (n > 5 && !strncmp(b + n - 5, ".data", 5))
		n -= 5;
	return (int)n;
}

/* A configuration's whole runs in each recording, numbering the recordings that have
 * one; and the runs it left out. */
static void side_runs(struct fol_sides *s, const struct fol_runs *rs, int nrs, const char *config)
{
	struct fol_side *side = &s->v[s->n];

	for (int k = 0; k < nrs; k++) {
		int had = side->n;

		for (int i = 0; i < rs[k].n; i++)
			if (!strcmp(rs[k].v[i].config, config) && !rs[k].v[i].why[0]) {
				s->rec[s->n][side->n] = side->nrec;
				s->runs[s->n][side->n++] = &rs[k].v[i].r;
			}
		side->nrec += side->n > had;
		if (side->n > had)
			side->recording = &rs[k];
		for (int i = 0; i < rs[k].nout; i++)
			if (!strcmp(rs[k].out[i].config, config) || !rs[k].sweep[0])
				s->out[s->n][side->nout++] = &rs[k].out[i];
	}
	if (side->nrec > 1)
		side->recording = NULL;
	else
		side->rec = NULL;
}

static void side_bare(struct fol_sides *s, const struct fol_runs *rs, int nrs, const char *config)
{
	struct fol_side *side = &s->v[s->n];

	for (int k = 0; k < nrs; k++)
		for (int i = 0; i < rs[k].nbare; i++) {
			const char *bc = rs[k].bare[i]->config;

			if (!strcmp(bc ? bc : "", config))
				s->bare[s->n][side->nbare++] = rs[k].bare[i];
		}
}

static int side_alloc(struct fol_sides *s, const struct fol_runs *rs, int nrs)
{
	size_t runs = 1, outs = 1, bare = 1;

	for (int k = 0; k < nrs; k++) {
		runs += (size_t)rs[k].n;
		outs += (size_t)rs[k].nout;
		bare += (size_t)rs[k].nbare;
	}
	memset(&s->v[s->n], 0, sizeof(s->v[s->n]));
	s->runs[s->n] = calloc(runs, sizeof(*s->runs[0]));
	s->rec[s->n] = calloc(runs, sizeof(*s->rec[0]));
	s->out[s->n] = calloc(outs, sizeof(*s->out[0]));
	s->bare[s->n] = calloc(bare, sizeof(*s->bare[0]));
	return s->runs[s->n] && s->rec[s->n] && s->out[s->n] && s->bare[s->n] ? 0 : -ENOMEM;
}

static void side_drop(struct fol_sides *s)
{
	free(s->runs[s->n]);
	free(s->rec[s->n]);
	free(s->out[s->n]);
	free(s->bare[s->n]);
}

int fol_sides_add(struct fol_sides *s, const struct fol_runs *rs, int nrs, const char *name, const char *key)
{
	const char *configs[FOL_MAX_SIDES];
	int nconf = fol_runs_configs(&rs[0], configs, FOL_MAX_SIDES);

	for (int k = 0; k < nconf; k++) {
		struct fol_side *side;

		if (s->n == FOL_MAX_SIDES)
			return -E2BIG;
		side = &s->v[s->n];
		if (side_alloc(s, rs, nrs)) {
			s->n++;
			return -ENOMEM;
		}
		side->rec = s->rec[s->n];
		side_runs(s, rs, nrs, configs[k]);
		if (!side->n) {
			side_drop(s);
			continue;
		}
		side_bare(s, rs, nrs, configs[k]);
		if (asprintf(&s->names[s->n], "%.*s%s%s%s%s", name ? file_column_len(name) : 0,
			     name ? file_column(name) : "", name && configs[k][0] ? ":" : "",
			     key && key[0] && configs[k][0] ? key : "",
			     key && key[0] && configs[k][0] ? "=" : "", configs[k]) < 0) {
			s->names[s->n++] = NULL;
			return -ENOMEM;
		}
		side->name = s->names[s->n];
		side->file = name;
		side->runs = s->runs[s->n];
		side->out = s->out[s->n];
		side->bare = s->bare[s->n];
		s->n++;
	}
	return 0;
}

