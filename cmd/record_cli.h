/* SPDX-License-Identifier: GPL-2.0-only */
/* What record, stat and their experiments share (cmd-internal): the options that say
 * what to record, a recorded run with the process policy around it (signals, the
 * tear-down), and -r/--sweep. */
#ifndef FOL_CMD_RECORD_CLI_H
#define FOL_CMD_RECORD_CLI_H

#include <limits.h>

#include "data/file.h"
#include "sys/mthp.h"
#include "record/record.h"

#define FOL_REPEAT_MAX 1000
#define FOL_SWEEP_MAX 32

struct rec_cli {
	struct fol_record_opts o;
	const char *output;	/* record: the file; stat: "the report", for messages */
	double duration;	/* with -p: seconds, 0 = until a signal */
	const char **events;
	int nevents;
	size_t events_cap;
	int quiet;
	int json;		/* stat only */
	unsigned interval_ms;	/* stat -I: a JSON line per interval; 0 none */
	/* Called after every poll of the recorder (stat -I: an interval line when one is due,
	 * events or not). */
	void (*tick)(void *ctx);
	void *tick_ctx;
	struct fol_recorder *running;	/* the run's recorder, for tick (serve's kernel reuse) */
	struct fol_mthp mthp;
	const char *workload;	/* -w NAME */
	char self[PATH_MAX];
	char **builtin;		/* the built-in workload's command line */
	int repeat;		/* -r: runs of each configuration; 0 when not given */
	int bare_runs;		/* untraced runs of each configuration; -1: the default */
	char *sweep_copy;	/* --sweep KEY=V1,V2: KEY and the values point into it */
	const char *sweep_key;
	const char *sweep_val[FOL_SWEEP_MAX];
	int nsweep;
	int is_builtin;		/* the command is a built-in workload (foliostat workload) */
};

/* --fault-path auto|bpf|samples, an option callback whose value is a struct rec_cli (serve
 * takes record's). */
struct opt;
int rec_opt_fault_path(const struct opt *o, const char *arg);
/* --duration S, 0.001 s to 30 days, into the double the option's value points at (record
 * -p/-a, serve). */
int rec_opt_duration(const struct opt *o, const char *arg);

/* 0 to go on, -1 when --help was printed (exit 0), else the exit status. */
int rec_parse(int argc, char **argv, struct rec_cli *c, int stat);
void rec_cli_free(struct rec_cli *c);
/* -r, --sweep or --bare-runs: an experiment of several runs. */
int rec_several(const struct rec_cli *c);

/* The command's signal policy, for the whole command (a run, or an experiment's runs):
 * the first SIGINT, SIGTERM or SIGHUP is kept and passed on to the workload running;
 * SIGCHLD only interrupts the poll, so that the workload's end is seen at once. */
void rec_signals_install(void);
void rec_signals_restore(void);
int rec_signal(void);

/* Where a workload writes its phases (FOLIOSTAT_PHASES): a memfd, named /proc/PID/fd/N
 * for the workload, which inherits it, so that nothing is left in /tmp whatever ends
 * foliostat. Returns the descriptor (close it after the run) or -errno. */
#include <stddef.h>
int rec_phase_file(char *path, size_t len);

/* One recorded run into w: 0 (and *status, the workload's exit as foliostat's) or the
 * recording's error (said). */
int record_one(struct rec_cli *c, struct fol_writer *w, int *status);
/* -r and --sweep, every run into w. */
int experiment(struct rec_cli *c, struct fol_writer *w, int *status);

#endif
