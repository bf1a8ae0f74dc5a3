/* SPDX-License-Identifier: GPL-2.0-only */
/* A command started for foliostat: the one place lib/ forks and execs. The recorder's
 * workload (corked until its events are open, traced to be stopped after exec and at
 * exit), the probe effect's untraced run (bare.h) and foliostat maps' command all start
 * here. The child finds its phase file in FOLIOSTAT_PHASES; the errno of a failed exec
 * comes back through a pipe that a successful exec closes. */
#ifndef FOL_START_H
#define FOL_START_H

#include <sys/types.h>

/* The variable naming the file a workload appends its phases to, one JSON line each
 * ({"phase":..., "start_ns":..., "end_ns":...}): the built-in workloads do, any command may. */
#define FOL_PHASES_ENV "FOLIOSTAT_PHASES"

struct fol_start_opts {
	const char *phase_file;	/* FOLIOSTAT_PHASES for the child, or NULL */
	int corked;		/* exec only at fol_start_exec() */
	int traced;		/* PTRACE_TRACEME: stopped with SIGTRAP after exec */
};

struct fol_child {
	pid_t pid;		/* 0: none */
	int go_fd, err_fd;	/* -1: closed */
};

/* Fork the child: 0, or -errno (nothing started). */
int fol_start(char *const *argv, const struct fol_start_opts *o, struct fol_child *c);
/* Let a corked child exec, and wait for the exec: 0 when it ran (*untraced: ptrace was
 * refused, so no stop will come), or the -errno of the exec that failed (the child reaped,
 * pid 0). */
int fol_start_exec(struct fol_child *c, int *untraced);
/* The pipes still open: closed (a child never uncorked reads EOF and exits). */
void fol_start_close(struct fol_child *c);

#endif
