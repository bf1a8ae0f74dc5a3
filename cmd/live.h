/* SPDX-License-Identifier: GPL-2.0-only */
/* What top and serve share (cmd-internal): stat's streaming path (the recording straight
 * into the model, no file), with the model telling each fault and task exit to tallies
 * (live/tally.h), and nothing kept that grows with the time recorded. */
#ifndef FOL_CMD_LIVE_H
#define FOL_CMD_LIVE_H

#include <pthread.h>

#include "data/file.h"
#include "data/session.h"
#include "live/tally.h"
#include "model/model.h"
#include "report/report.h"

#define LIVE_MAX_TALLIES 4

struct live {
	struct fol_session *s;
	struct fol_report r;
	struct fol_model_opts mo;
	struct fol_model_observer obs;
	int begun;
	struct fol_tally *tally[LIVE_MAX_TALLIES];
	int ntally;
	/* serve: held while the model and tallies change, and while a scrape reads them. */
	pthread_mutex_t *lock;
	int nomem;		/* a fault a tally could not count */
};

/* For days of running: buffers of 64 KB and more are mapped on their own and returned to
 * the system when freed, and the heap is trimmed (live_trim, from the command's tick, at
 * most once a minute, after the model forgets the files no process maps any more).
 * glibc's own threshold rises with each large block freed, and the merge's runs (grown,
 * then cut to size) left serve's heap at 44 MB for 25 MB in use after 15 minutes of a
 * fork/exit loop. */
void live_malloc_policy(void);
void live_trim(struct live *l);

/* The live stream and its writer (the recorder writes into it): 0, or -ENOMEM. Add the
 * tallies before the recording starts. */
int live_open(struct live *l, struct fol_writer **w);
int live_add_tally(struct live *l, const struct fol_tally_opts *o, struct fol_tally **t);
/* The recording has ended: what the merge still holds, into the model. 0 or -errno. */
int live_end(struct live *l);
/* The model's figures so far (NULL before the recording's first events). */
const struct fol_summary *live_summary(const struct live *l);
/* The recording's fault path ("bpf", "samples"), kernel release; NULL before the start. */
const char *live_meta(const struct live *l, const char *key);
void live_close(struct live *l);

#endif
