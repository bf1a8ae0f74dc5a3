// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "errors.h"
#include "record_cli.h"
#include "report.h"
#include "runs.h"
#include "session.h"
#include "util.h"

/* stat: the recording streams straight into the model, chunk by chunk; no file. With -r
 * or --sweep, each RUN chunk closes the run before it into runs. */
struct stat_stream {
	struct fol_session *s;
	struct fol_report r;
	struct fol_model_opts mo;
	int begun;
	struct fol_runs runs;
};

/* The run being fed is complete: analysed, into the list. */
static int stat_end_run(struct stat_stream *st)
{
	int ret;

	fol_session_feed_end(st->s);
	ret = st->begun ? fol_report_end(&st->r, st->s) : -FOL_E_NO_METADATA;
	if (!ret)
		ret = fol_runs_add(&st->runs, &st->r, fol_session_run(st->s), fol_session_bare(st->s));
	fol_report_free(&st->r);
	st->begun = 0;
	return ret;
}

static int stat_sink(void *ctx, uint32_t type, const void *buf, size_t len)
{
	struct stat_stream *st = ctx;
	int ret;

	if (type == FOL_CHUNK_RUN && fol_session_run(st->s)) {
		/* A run that recorded nothing (its workload failed to start) is dropped. */
		ret = stat_end_run(st);
		if (ret && ret != -FOL_E_NO_METADATA)
			return ret;
		fol_session_close(st->s);
		st->s = NULL;
		ret = fol_session_open_live(&st->s);
		if (ret)
			return ret;
	}
	ret = fol_session_feed(st->s, type, buf, len);
	if (ret)
		return ret;
	if (!st->begun && type != FOL_CHUNK_META && type != FOL_CHUNK_EVENT && type != FOL_CHUNK_RUN &&
	    type != FOL_CHUNK_BARE && fol_session_ready(st->s)) {
		ret = fol_report_begin(&st->r, st->s, &st->mo);
		if (ret)
			return ret;
		st->begun = 1;
	}
	/* After each pass over the ring buffers: what the merge can release, into the model. */
	return st->begun && type == FOL_CHUNK_ROUND ? fol_report_drain(&st->r, st->s) : 0;
}

static int print_stat(struct stat_stream *st, const struct rec_cli *c)
{
	struct fol_report *r;

	if (!st->runs.n)
		return 1;
	if (st->runs.several)
		return print_runs(&st->runs, c->json, 0, c->json ? stdout : stderr);
	r = &st->runs.v[0].r;
	if (c->json)
		return print_json(fol_report_json(r), stdout);
	fol_report_text(r, stderr);
	return 0;
}

int cmd_stat(int argc, char **argv)
{
	struct rec_cli c = { 0 };
	struct stat_stream st = { .mo = { .order = FOL_ANY, .cls = FOL_ANY } };
	struct fol_writer *w = NULL;
	int status = rec_parse(argc, argv, &c, 1), ret;

	if (status) {
		rec_cli_free(&c);
		return status < 0 ? 0 : status;
	}
	c.output = "the report";
	c.quiet = 1;
	ret = fol_session_open_live(&st.s);
	if (!ret)
		ret = fol_writer_open_sink(&w, stat_sink, &st);
	if (ret) {
		fol_session_close(st.s);
		rec_cli_free(&c);
		return error("out of memory");
	}
	rec_signals_install();
	ret = rec_several(&c) ? experiment(&c, w, &status) : record_one(&c, w, &status);
	rec_signals_restore();
	fol_writer_close(w);
	rec_cli_free(&c);
	if (!ret) {
		ret = stat_end_run(&st);
		if (ret && ret != -FOL_E_NO_METADATA)
			status = error("%s", fol_strerror(ret));
		else if (!st.runs.n)
			status = error("nothing was recorded");
		else if (print_stat(&st, &c))
			status = 1;
	}
	fol_report_free(&st.r);
	fol_runs_free(&st.runs);
	fol_session_close(st.s);
	return status;
}
