/* SPDX-License-Identifier: GPL-2.0-only */
/* A recording of one or several runs (record -r N, --sweep), each analysed on its own. */
#ifndef FOL_RUNS_H
#define FOL_RUNS_H

#include <cjson/cJSON.h>

#include "report/report.h"

struct fol_run {
	struct fol_report r;
	int index;		/* its number in the recording, from 0 (its RUN chunk's) */
	char config[64];	/* the sweep's value for it ("64K"); "" outside a sweep */
	int numbered;		/* it has its RUN chunk (in a recording of several) */
	/* Why it does not stand for a whole run, "" when it does: cut short, damaged inside,
	 * its configuration lost with its RUN chunk. Its figures cover part of a run: every
	 * aggregate (compare, the runs' summary) leaves it out; report --run shows it. */
	char why[160];
};

/* Runs the recording planned that are not whole in it: damaged or cut short (in v, with
 * their why), or missing altogether, as a range of run numbers. */
struct fol_run_out {
	int index, last;	/* from 0; last == index for one run */
	char config[64];	/* "" when unknown or outside a sweep */
	char why[160];
};

struct fol_runs {
	struct fol_run *v;
	int n;
	size_t cap;
	/* The untraced runs (BARE chunks, each with its config): in the runs' recordings. */
	const struct fol_bare **bare;
	int nbare;
	size_t bare_cap;
	char sweep[64];		/* the swept key ("mthp", "mode"); "" */
	int several;		/* the recording is made of RUN chunks */
	int planned;		/* the runs the experiment was to make (RUN chunks say) */
	struct fol_run_out *out; /* in the order of their numbers */
	int nout;
	size_t out_cap;
	int whole;		/* runs of v with no why */
	struct fol_reader_status file; /* the whole file's */
};

/* Every run of the recording at path through the model, each judged whole or not (why),
 * and the runs left out listed. Negative codes as fol_session_open, for the first run; a
 * later run that cannot be read ends the list. */
int fol_runs_load(const char *path, const struct fol_model_opts *o, struct fol_runs *rs);
/* The run numbered index (from 0), or NULL. */
struct fol_run *fol_runs_find(struct fol_runs *rs, int index);
/* Append a run analysed elsewhere (stat, as it is recorded): r is moved in, its place
 * and its untraced runs from its recording (RUN and BARE chunks). */
int fol_runs_add(struct fol_runs *rs, struct fol_report *r);
void fol_runs_free(struct fol_runs *rs);
/* The configurations in the order they were run; a recording without a sweep has one,
 * "". Returns how many (at most max); names point into rs. */
int fol_runs_configs(const struct fol_runs *rs, const char **names, int max);

/* Open run number run (of runs) in a recording of several: its RUN chunk. sweep and
 * config NULL outside a sweep. */
struct fol_writer;
int fol_runs_write_start(struct fol_writer *w, int run, int runs, const char *sweep,
			 const char *config);
/* The untraced run made with run number run (bare, from fol_bare_run; its run and config
 * are set): a BARE chunk, anywhere after the run's RUN chunk and before the next. */
int fol_runs_write_bare(struct fol_writer *w, int run, const char *config, struct fol_bare *bare);

#endif
