// SPDX-License-Identifier: GPL-2.0-only
#include "report/runs.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "data/session.h"
#include "util/grow.h"

/* Run numbers beyond any experiment's (record -r 1000 over a sweep): a hostile RUN chunk's
 * are not believed. */
#define RUNS_MAX (1 << 20)

/* A RUN chunk's number, when it is one: above the run before it and below RUNS_MAX. */
static int run_number(const cJSON *run, const char *key, int above)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(run, key);

	return cJSON_IsNumber(v) && v->valuedouble > above && v->valuedouble < RUNS_MAX ?
		(int)v->valuedouble : -1;
}

int fol_runs_add(struct fol_runs *rs, struct fol_report *r, const cJSON *run, const cJSON *bare)
{
	struct fol_run *x;
	const char *config = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "config"));
	const char *sweep = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "sweep"));
	const cJSON *b;

	if (!rs->bare && !(rs->bare = cJSON_CreateArray()))
		return -ENOMEM;
	if (FOL_GROW(rs->v, rs->cap, (size_t)rs->n + 1, 8))
		return -ENOMEM;
	x = &rs->v[rs->n];
	memset(x, 0, sizeof(*x));
	x->r = *r;
	memset(r, 0, sizeof(*r));
	/* Numbered by the RUN chunk, so that a run lost before it does not renumber the rest;
	 * without one (lost to damage), the number after the run before. */
	x->index = run_number(run, "run", rs->n ? x[-1].index : -1);
	if (x->index < 0)
		x->index = rs->n ? x[-1].index + 1 : 0;
	x->numbered = run != NULL;
	rs->n++;
	rs->whole++;
	if (run_number(run, "runs", rs->planned) > 0)
		rs->planned = run_number(run, "runs", rs->planned);
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

/* Why the run s has read is not whole, into why ("" when it is); ended: it has its END
 * chunk. */
static void judge(struct fol_session *s, int ended, char *why, size_t len)
{
	struct fol_session_stats st = fol_session_stats(s);

	why[0] = '\0';
	if (st.run_corrupt_chunks)
		snprintf(why, len, "damaged: %" PRIu64 " region%s, %" PRIu64 " bytes skipped inside it",
			 st.run_corrupt_chunks, st.run_corrupt_chunks == 1 ? "" : "s",
			 st.run_corrupt_bytes);
	else if (!ended)
		snprintf(why, len, "%s", st.run_boundary_lost ? "its end was lost to damage, with the next run's RUN chunk" :
			 st.file.truncated ? "cut short: the file ends inside it" :
			 "cut short: it has no END chunk (the recording stopped inside it)");
}

static int load_run(struct fol_runs *rs, struct fol_session *s, const struct fol_model_opts *o)
{
	struct fol_report r;
	int ret = fol_report_begin(&r, s, o);

	if (!ret)
		ret = fol_report_end(&r, s);
	if (!ret)
		ret = fol_runs_add(rs, &r, fol_session_run(s), fol_session_bare(s));
	if (!ret) {
		struct fol_run *x = &rs->v[rs->n - 1];

		judge(s, x->r.rec.ended, x->why, sizeof(x->why));
		rs->whole -= x->why[0] != '\0';
	}
	fol_report_free(&r);
	return ret;
}

static int add_out(struct fol_runs *rs, int index, int last, const char *config, const char *why)
{
	struct fol_run_out *v;

	if (FOL_GROW(rs->out, rs->out_cap, (size_t)rs->nout + 1, 4))
		return -ENOMEM;
	v = &rs->out[rs->nout++];
	v->index = index;
	v->last = last;
	snprintf(v->config, sizeof(v->config), "%s", config);
	snprintf(v->why, sizeof(v->why), "%s", why);
	return 0;
}

/* What is not in the file between runs numbered from and to (both excluded). */
static const char *missing_why(const struct fol_runs *rs, int after_last)
{
	if (!after_last || rs->file.corrupt_chunks)
		return rs->file.corrupt_chunks ? "not in the file: damaged beyond reading" :
						 "not in the file";
	return rs->file.truncated || !rs->file.complete ? "not in the file: it was cut short before them" :
		"not recorded: the experiment stopped before them";
}

/* The runs left out, in order: the ones read that are not whole, and the numbers missing. */
static int list_out(struct fol_runs *rs)
{
	int next = 0, ret = 0;

	for (int i = 0; i < rs->n && !ret; i++) {
		struct fol_run *x = &rs->v[i];

		/* In a sweep, a run without its RUN chunk ran a configuration nobody knows. */
		if (!x->why[0] && rs->several && rs->sweep[0] && !x->numbered) {
			snprintf(x->why, sizeof(x->why), "its RUN chunk was lost to damage: which "
				 "configuration it ran is unknown");
			rs->whole--;
		}
		if (x->index > next)
			ret = add_out(rs, next, x->index - 1, "", missing_why(rs, 0));
		if (!ret && x->why[0])
			ret = add_out(rs, x->index, x->index, x->config, x->why);
		next = x->index + 1;
	}
	if (!ret && rs->planned > next)
		ret = add_out(rs, next, rs->planned - 1, "", missing_why(rs, 1));
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
	if (ret >= 0 || rs->n)
		ret = list_out(rs) == -ENOMEM ? -ENOMEM : ret;
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
	free(rs->out);
	cJSON_Delete(rs->bare);
	memset(rs, 0, sizeof(*rs));
}

struct fol_run *fol_runs_find(struct fol_runs *rs, int index)
{
	for (int i = 0; i < rs->n; i++)
		if (rs->v[i].index == index)
			return &rs->v[i];
	return NULL;
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
