// SPDX-License-Identifier: GPL-2.0-only
/* record/stat -r N, --bare-runs, --sweep: the runs of an experiment, one recording. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/bare.h"
#include "util/errors.h"
#include "record_cli.h"
#include "report/runs.h"
#include "util.h"

/* The command line of one configuration of a sweep: the built-in workload's own option
 * added last (getopt takes the last), or the policy that gives a folio size. */
static char **config_argv(const struct rec_cli *c, int conf, struct fol_mthp *m, char *spec,
			  size_t speclen)
{
	static const char *const policies[] = { [FOL_SWEEP_SMALL] = "small", [FOL_SWEEP_MTHP] = "mthp",
						[FOL_SWEEP_PTE_THP] = "pte-thp", [FOL_SWEEP_THP] = "thp" };
	char opt[64];
	const char *val = c->sweep_val[conf];
	char **argv;
	int n = 0, policy;

	while (c->o.argv[n])
		n++;
	argv = calloc((size_t)n + 3, sizeof(*argv));
	if (!argv)
		return NULL;
	memcpy(argv, c->o.argv, (size_t)n * sizeof(*argv));
	if (strcmp(c->sweep_key, "mthp")) {
		snprintf(opt, sizeof(opt), "--%s", c->sweep_key);
		argv[n] = strdup(opt);
		argv[n + 1] = (char *)val;
		return argv;
	}
	if (fol_mthp_sweep_spec(val, "", spec, speclen, &policy) ||
	    fol_mthp_parse(spec, "", m, NULL)) {
		free(argv);
		return NULL;
	}
	if (c->is_builtin) {
		argv[n] = strdup("--policy");
		argv[n + 1] = (char *)policies[policy];
	}
	return argv;
}

static void free_config_argv(const struct rec_cli *c, char **argv)
{
	int n = 0;

	while (c->o.argv[n])
		n++;
	if (argv)
		free(argv[n]);
	free(argv);
}

/* An untraced run's exit as foliostat's status: 0, its exit code, or 128 + its signal. */
static int bare_status(const struct fol_bare *bare)
{
	if (bare->exit_signal >= 0)
		return 128 + (int)bare->exit_signal;
	return bare->exit_code >= 0 ? (int)bare->exit_code : 0;
}

/* The untraced run of an experiment's run, into a BARE chunk. 0 to go on (*status 0),
 * else the run's status or the error. */
static int bare_run(struct rec_cli *c, struct fol_writer *w, int idx, const char *config,
		    int *status)
{
	char phases[64];
	struct fol_bare bare = { 0 };
	int ret, fd = rec_phase_file(phases, sizeof(phases));

	ret = fd < 0 ? fd : fol_bare_run(c->o.argv, phases, c->o.mthp, &bare);
	if (fd >= 0)
		close(fd);
	if (ret) {
		error("the untraced run of '%s' failed: %s", c->o.argv[0], fol_strerror(ret));
		*status = ret == -ENOENT || ret == -EACCES ? 127 : 1;
		return ret;
	}
	*status = bare_status(&bare);
	ret = fol_runs_write_bare(w, idx, config, &bare);
	fol_recording_bare_free(&bare);
	if (ret) {
		error("cannot write %s: %s", c->output, fol_strerror(ret));
		*status = 1;
	}
	return ret;
}

/* One run of an experiment: the recorded run and, when there is one, the untraced run,
 * in alternating order (untraced first in the configuration's even runs, nth) so that
 * neither always comes after the other: what one run leaves (page cache, fragmentation,
 * a compaction pending) falls on both alike. 0 to go on, else the error; *status as
 * record_one(). */
static int one_run(struct rec_cli *c, struct fol_writer *w, int idx, int total, int conf, int nth,
		   int bare, int *status)
{
	const char *config = c->nsweep ? c->sweep_val[conf] : NULL;
	int ret;

	if (!c->quiet)
		fprintf(stderr, "foliostat %s: run %d of %d%s%s%s%s%s\n", get_cmd_name(), idx + 1, total,
			config ? " (" : "", config ? c->sweep_key : "", config ? "=" : "",
			config ? config : "", config ? ")" : "");
	ret = fol_runs_write_start(w, idx, total, config ? c->sweep_key : NULL, config);
	if (ret) {
		*status = error("cannot write %s: %s", c->output, fol_strerror(ret));
		return ret;
	}
	if (bare && nth % 2 == 0) {
		ret = bare_run(c, w, idx, config, status);
		if (ret || *status || rec_signal())
			return ret;
	}
	/* The kernel's symbols once, in the first run: the later runs' reports share them. */
	c->o.no_ksyms = idx > 0;
	ret = record_one(c, w, status);
	if (!ret && !*status && !rec_signal() && bare && nth % 2 == 1)
		ret = bare_run(c, w, idx, config, status);
	return ret;
}

/* A configuration of a sweep: its command line and THP policy. */
struct config {
	char **argv;		/* NULL: the command as given */
	struct fol_mthp m;
	char spec[512];
};

static void set_config(struct rec_cli *c, struct config *cf, char *const *argv)
{
	c->o.argv = cf->argv ? cf->argv : argv;
	if (c->nsweep && !strcmp(c->sweep_key, "mthp")) {
		c->o.mthp = &cf->m;
		c->o.mthp_spec = cf->spec;
	}
}

static struct config *make_configs(struct rec_cli *c, int nconf)
{
	struct config *cf = calloc((size_t)nconf, sizeof(*cf));

	for (int k = 0; cf && k < c->nsweep; k++) {
		cf[k].argv = config_argv(c, k, &cf[k].m, cf[k].spec, sizeof(cf[k].spec));
		if (!cf[k].argv) {
			error("--sweep %s=%s: cannot set it up", c->sweep_key, c->sweep_val[k]);
			while (k--)
				free_config_argv(c, cf[k].argv);
			free(cf);
			return NULL;
		}
	}
	return cf;
}

/* -r and --sweep: every run of every configuration into one writer, the configurations
 * in turn (4K, 64K, 4K, 64K...): a drift of the machine over the experiment (page
 * cache, memory fragmentation, a noisy neighbour) then falls on all of them alike
 * instead of making a difference between them. Ended by the first run that fails, or by
 * a signal (the command's policy, record_cli.h) after the run in progress. */
int experiment(struct rec_cli *c, struct fol_writer *w, int *status)
{
	int nconf = c->nsweep ? c->nsweep : 1, runs = c->repeat ? c->repeat : 1;
	int bare = c->bare_runs >= 0 ? c->bare_runs : c->is_builtin ? runs : 0;
	char *const *argv = c->o.argv;
	struct config *cf = make_configs(c, nconf);
	int ret = 0, idx = 0;

	*status = 0;
	if (!cf) {
		*status = 1;
		return -ENOMEM;
	}
	for (int i = 0; i < runs && !ret && !*status && !rec_signal(); i++)
		for (int k = 0; k < nconf && !ret && !*status && !rec_signal(); k++, idx++) {
			set_config(c, &cf[k], argv);
			ret = one_run(c, w, idx, nconf * runs, k, i, i < bare, status);
		}
	c->o.argv = argv;
	if (c->nsweep && !strcmp(c->sweep_key, "mthp"))
		c->o.mthp = NULL;
	for (int k = 0; k < c->nsweep; k++)
		free_config_argv(c, cf[k].argv);
	free(cf);
	if (!ret && (*status || rec_signal()))
		error("%s: the experiment stops after run %d of %d",
		      rec_signal() ? strsignal(rec_signal()) : "the workload failed", idx, nconf * runs);
	if (!*status && rec_signal())
		*status = 128 + rec_signal();
	return ret;
}
