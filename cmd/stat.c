// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"
#include "cmd.h"
#include "util/errors.h"
#include "model/model.h"
#include <cjson/cJSON.h>
#include "record_cli.h"
#include "report/report.h"
#include "report/runs.h"
#include "runs_cli.h"
#include "data/session.h"
#include "util.h"

/* stat: the recording streams straight into the model, chunk by chunk; no file. With -r
 * or --sweep, each RUN chunk closes the run before it into runs. */
struct stat_stream {
	struct fol_session *s;
	struct fol_report r;
	struct fol_model_opts mo;
	int begun;
	int run_fed;		/* the session has its run's RUN chunk: the next starts another */
	struct fol_runs runs;
	/* -I: when the last interval line was printed, and the counts then. */
	uint64_t interval_ns, last_ns, start_ns;
	uint64_t faults[FOL_NR_ORDER_SLOTS][FOL_NR_CLASSES], time[FOL_NR_ORDER_SLOTS][FOL_NR_CLASSES];
};

/* -I: the faults since the last line, by order and class, as one JSON line: those the
 * model has seen (events reach it after each pass over the ring buffers). */
static void interval_line(struct stat_stream *st, uint64_t now)
{
	const struct fol_summary *s = fol_model_peek(st->r.model);
	cJSON *j = cJSON_CreateObject(), *arr;
	uint64_t all = 0, all_ns = 0;
	char *text;

	if (!j)
		return;
	cJSON_AddStringToObject(j, "schema", "foliostat/interval/v1");
	cJSON_AddNumberToObject(j, "t_ns", (double)(now - st->start_ns));
	cJSON_AddNumberToObject(j, "interval_ns", (double)(now - st->last_ns));
	arr = cJSON_AddArrayToObject(j, "cells");
	for (int slot = 0; slot < FOL_NR_ORDER_SLOTS; slot++)
		for (int c = 0; c < FOL_NR_CLASSES; c++) {
			const struct fol_cell *cell = &s->order[slot].cell[c];
			uint64_t n = cell->faults - st->faults[slot][c];
			uint64_t t = fol_cell_time(s, cell) - st->time[slot][c];
			cJSON *o;

			st->faults[slot][c] = cell->faults;
			st->time[slot][c] = fol_cell_time(s, cell);
			if (!n)
				continue;
			o = cJSON_CreateObject();
			cJSON_AddNumberToObject(o, "order", FOL_SLOT_ORDER(slot));
			cJSON_AddStringToObject(o, "class", fol_class_name((enum fol_class)c));
			cJSON_AddNumberToObject(o, "faults", (double)n);
			cJSON_AddNumberToObject(o, "time_ns", (double)t);
			cJSON_AddItemToArray(arr, o);
			all += n;
			all_ns += t;
		}
	cJSON_AddNumberToObject(j, "faults", (double)all);
	cJSON_AddNumberToObject(j, "fault_time_ns", (double)all_ns);
	text = cJSON_PrintUnformatted(j);
	if (text) {
		puts(text);
		fflush(stdout);
	}
	free(text);
	cJSON_Delete(j);
	st->last_ns = now;
}

/* The run being fed is complete: analysed, into the list. */
static int stat_end_run(struct stat_stream *st)
{
	int ret;

	fol_session_feed_end(st->s);
	ret = st->begun ? fol_report_end(&st->r, st->s) : -FOL_E_NO_METADATA;
	if (!ret)
		ret = fol_runs_add(&st->runs, &st->r);
	fol_report_free(&st->r);
	st->begun = 0;
	return ret;
}

static int stat_sink(void *ctx, uint32_t type, const void *buf, size_t len)
{
	struct stat_stream *st = ctx;
	int ret;

	if (type == FOL_CHUNK_RUN && st->run_fed) {
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
	st->run_fed |= type == FOL_CHUNK_RUN;
	ret = fol_report_begin_at(&st->r, &st->begun, st->s, &st->mo, type);
	if (ret)
		return ret;
	/* After each pass over the ring buffers: what the merge can release, into the model. */
	if (!st->begun || type != FOL_CHUNK_ROUND)
		return 0;
	return fol_report_drain(&st->r, st->s);
}

/* After every poll (record_cli.h's tick): a line when an interval is due, even one in
 * which nothing happened. */
static void stat_tick(void *ctx)
{
	struct stat_stream *st = ctx;
	uint64_t now = fol_mono_ns();

	if (!st->begun)
		return;
	if (!st->start_ns)
		st->start_ns = st->last_ns = now;
	else if (now - st->last_ns >= st->interval_ns)
		interval_line(st, now);
}

static int print_stat(struct stat_stream *st, const struct rec_cli *c)
{
	struct fol_report *r;

	if (!st->runs.n)
		return 1;
	if (st->runs.several)
		return print_runs(&st->runs, c->json ? RUNS_JSON : RUNS_TEXT, c->json ? stdout : stderr);
	r = &st->runs.v[0].r;
	if (c->json && c->interval_ms) {
		/* After the interval lines, the report on one line too: JSON Lines throughout. */
		cJSON *j = fol_report_json(r, &(struct fol_report_view){ 0 });
		char *s = j ? cJSON_PrintUnformatted(j) : NULL;

		cJSON_Delete(j);
		if (!s)
			return error("out of memory");
		puts(s);
		free(s);
		return 0;
	}
	if (fol_report_format(c->json ? "json" : "text")->render(r, &(struct fol_report_view){ 0 },
								  c->json ? stdout : stderr))
		return error("out of memory");
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
	st.interval_ns = (uint64_t)c.interval_ms * 1000000;
	if (st.interval_ns) {
		c.tick = stat_tick;
		c.tick_ctx = &st;
	}
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
