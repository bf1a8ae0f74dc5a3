/* SPDX-License-Identifier: GPL-2.0-only */
/* Messages shared by the subcommands that read a recording. */
#ifndef FOL_CMD_UTIL_H
#define FOL_CMD_UTIL_H

#include <stdint.h>

#include <stdio.h>

struct fol_session;
struct cJSON;

/* Messages, as git's: "foliostat CMD: ..." on stderr, CMD the command the user typed
 * (run_builtin sets it). error() returns 1 and usage_error() EXIT_USAGE, for
 * `return error(...)`. */
void set_cmd_name(const char *name);
const char *get_cmd_name(void);
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* error() of what a lib/ call that failed said (the newest of why's messages), why then
 * freed: 1. */
struct fol_msgs;
int error_why(struct fol_msgs *why);

void print_open_error(const char *path, int err);
/* Warn about a truncated or damaged file; 1 when data was damaged (exit non-zero). */
int print_read_status(const char *path, const struct fol_session *s);

/* An int option in [min, max] (min >= 0), through fol_parse_u64 (parse.h). */
int parse_int(const char *s, int min, int max, int *out);
/* "foliostat CMD: OPTION takes WHAT, not 'ARG'" for a parse_*() error, on stderr;
 * returns EXIT_USAGE. */
int print_bad_number(const char *option, const char *what, const char *arg, int err);

/* j (then deleted) printed on f; 1 with a message when it could not be made. */
int print_json(struct cJSON *j, FILE *f);

#endif
