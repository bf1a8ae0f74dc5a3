// SPDX-License-Identifier: GPL-2.0-only
#include "runs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int fol_runs_add(struct fol_runs *rs, struct fol_report *r, const cJSON *run, const cJSON *bare)
{
	struct fol_run *x;
	const char *config = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "config"));
	const char *sweep = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "sweep"));
	const cJSON *b;

	if (!rs->bare && !(rs->bare = cJSON_CreateArray()))
		return -ENOMEM;
	if (rs->n == rs->cap) {
		int cap = rs->cap ? rs->cap * 2 : 8;
		struct fol_run *v = realloc(rs->v, (size_t)cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		rs->v = v;
		rs->cap = cap;
	}
	x = &rs->v[rs->n];
	memset(x, 0, sizeof(*x));
	x->r = *r;
	memset(r, 0, sizeof(*r));
	x->index = rs->n++;
	if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(run, "runs")) &&
	    cJSON_GetObjectItemCaseSensitive(run, "runs")->valueint > rs->planned)
		rs->planned = cJSON_GetObjectItemCaseSensitive(run, "runs")->valueint;
	snprintf(x->config, sizeof(x->config), "%s", config ? config : "");
	if (run)
		rs->several = 1;
	if (sweep && !rs->sweep[0])
		snprintf(rs->sweep, sizeof(rs->sweep), "%s", sweep);
	cJSON_ArrayForEach(b, bare)
	{
		cJSON *copy = cJSON_Duplicate(b, 1);

		if (!copy)
			return -ENOMEM;
		cJSON_AddItemToArray(rs->bare, copy);
	}
	return 0;
}

static int load_run(struct fol_runs *rs, struct fol_session *s, const struct fol_model_opts *o)
{
	struct fol_report r;
	int ret = fol_report_begin(&r, s, o);

	if (!ret)
		ret = fol_report_end(&r, s);
	if (!ret)
		ret = fol_runs_add(rs, &r, fol_session_run(s), fol_session_bare(s));
	fol_report_free(&r);
	return ret;
}

int fol_runs_load(const char *path, const struct fol_model_opts *o, struct fol_runs *rs)
{
	struct fol_session *s, *next;
	int ret;

	memset(rs, 0, sizeof(*rs));
	ret = fol_session_open(&s, path);
	if (ret)
		return ret;
	for (;;) {
		ret = load_run(rs, s, o);
		if (ret)
			break;
		ret = fol_session_open_next(s, &next);
		if (ret <= 0) {
			rs->file = fol_session_stats(s).file;
			break;
		}
		fol_session_close(s);
		s = next;
	}
	fol_session_close(s);
	if (rs->several && rs->n > 1 && !rs->v[rs->n - 1].r.end) {
		fol_report_free(&rs->v[--rs->n].r);
		rs->dropped = 1;
	}
	/* A later run that cannot be read: the ones before it stand, the file status says
	 * what was damaged. */
	if (ret < 0 && rs->n && ret != -ENOMEM)
		ret = 0;
	if (ret < 0)
		fol_runs_free(rs);
	return ret < 0 ? ret : 0;
}

void fol_runs_free(struct fol_runs *rs)
{
	for (int i = 0; i < rs->n; i++)
		fol_report_free(&rs->v[i].r);
	free(rs->v);
	cJSON_Delete(rs->bare);
	memset(rs, 0, sizeof(*rs));
}

int fol_runs_configs(const struct fol_runs *rs, const char **names, int max)
{
	int n = 0;

	for (int i = 0; i < rs->n; i++) {
		int seen = 0;

		for (int j = 0; j < n && !seen; j++)
			seen = !strcmp(names[j], rs->v[i].config);
		if (!seen && n < max)
			names[n++] = rs->v[i].config;
	}
	return n;
}

int fol_runs_write_start(struct fol_writer *w, int run, int runs, const char *sweep,
			 const char *config)
{
	cJSON *j = cJSON_CreateObject();
	int ret;

	if (!j)
		return -ENOMEM;
	cJSON_AddNumberToObject(j, "run", run);
	cJSON_AddNumberToObject(j, "runs", runs);
	if (sweep) {
		cJSON_AddStringToObject(j, "sweep", sweep);
		cJSON_AddStringToObject(j, "config", config);
	}
	ret = fol_writer_chunk_json(w, FOL_CHUNK_RUN, j);
	cJSON_Delete(j);
	return ret;
}

int fol_runs_write_bare(struct fol_writer *w, int run, const char *config, cJSON *bare)
{
	cJSON_AddNumberToObject(bare, "run", run);
	if (config)
		cJSON_AddStringToObject(bare, "config", config);
	return fol_writer_chunk_json(w, FOL_CHUNK_BARE, bare);
}
