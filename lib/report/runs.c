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
static int run_number(double v, int above)
{
	return v > above && v < RUNS_MAX ? (int)v : -1;
}

/* The untraced runs recorded with x, listed with the others'. */
static int add_bare(struct fol_runs *rs, const struct fol_run *x)
{
	const struct fol_bares *b = &x->r.rec.bare;

	if (FOL_GROW(rs->bare, rs->bare_cap, (size_t)(rs->nbare + b->n) + 1, 8))
		return -ENOMEM;
	for (int i = 0; i < b->n; i++)
		rs->bare[rs->nbare++] = &b->v[i];
	return 0;
}

int fol_runs_add(struct fol_runs *rs, struct fol_report *r)
{
	const struct fol_run_place *place;
	struct fol_run *x;

	if (FOL_GROW(rs->v, rs->cap, (size_t)rs->n + 1, 8))
		return -ENOMEM;
	x = &rs->v[rs->n];
	memset(x, 0, sizeof(*x));
	x->r = *r;
	memset(r, 0, sizeof(*r));
	place = &x->r.rec.place;
	/* Numbered by the RUN chunk, so that a run lost before it does not renumber the rest;
	 * without one (lost to damage), the number after the run before. */
	x->index = run_number(place->run, rs->n ? x[-1].index : -1);
	if (x->index < 0)
		x->index = rs->n ? x[-1].index + 1 : 0;
	x->numbered = place->have;
	rs->n++;
	rs->whole++;
	if (run_number(place->runs, rs->planned) > 0)
		rs->planned = run_number(place->runs, rs->planned);
	snprintf(x->config, sizeof(x->config), "%s", place->config ? place->config : "");
	if (place->have)
		rs->several = 1;
	if (place->sweep && !rs->sweep[0])
		snprintf(rs->sweep, sizeof(rs->sweep), "%s", place->sweep);
	return add_bare(rs, x);
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
		ret = fol_runs_add(rs, &r);
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
	free(rs->bare);
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
	struct fol_recording rec = { .place = { 1, run, runs, (char *)sweep,
						 (char *)(sweep ? config : NULL) } };
	cJSON *j = fol_recording_json(&rec, FOL_CHUNK_RUN);
	int ret = j ? fol_writer_chunk_json(w, FOL_CHUNK_RUN, j) : -ENOMEM;

	cJSON_Delete(j);
	return ret;
}

int fol_runs_write_bare(struct fol_writer *w, int run, const char *config, struct fol_bare *bare)
{
	cJSON *j;
	int ret;

	bare->run = run;
	bare->config = (char *)config;
	j = fol_recording_bare_json(bare);
	ret = j ? fol_writer_chunk_json(w, FOL_CHUNK_BARE, j) : -ENOMEM;
	bare->config = NULL;
	cJSON_Delete(j);
	return ret;
}
