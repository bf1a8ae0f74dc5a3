/* SPDX-License-Identifier: GPL-2.0-only */
/* A command's options, each declared once with its help (as perf's OPT_* and git's
 * parse-options): the table parses argv, prints --help and lists the options for the
 * bash completion and the man-page check (--list-options). cmd-internal. */
#ifndef FOL_CMD_OPTIONS_H
#define FOL_CMD_OPTIONS_H

#include <getopt.h>
#include <stdio.h>

enum opt_type { OPT_END_, OPT_SET_INT_, OPT_STRING_, OPT_INTEGER_, OPT_CALLBACK_ };

struct opt {
	enum opt_type type;
	int short_name;		/* 0: none */
	const char *long_name;	/* NULL: short only */
	const char *argh;	/* the argument's name in --help; NULL: takes none */
	const char *help;	/* its lines after the first are indented under it */
	void *value;		/* SET_INT, INTEGER: int *; STRING: const char **; CALLBACK:
				 * what the callback gets */
	int defval;		/* SET_INT: the value set */
	int min, max;		/* INTEGER: its range */
	const char *what;	/* INTEGER: what it is, for an error ("a process id") */
	/* CALLBACK: 0 to go on, else the exit status (the error said). */
	int (*fn)(const struct opt *o, const char *arg);
	int optional;		/* the argument may be left out: --name[=ARG] */
	int hidden;		/* not in --help: another name of the option above it */
};

#define OPT_SET_INT(s, l, v, val, h)                                                     \
	{ .type = OPT_SET_INT_, .short_name = (s), .long_name = (l), .help = (h),        \
	  .value = (v), .defval = (val) }
#define OPT_STRING(s, l, v, a, h)                                                        \
	{ .type = OPT_STRING_, .short_name = (s), .long_name = (l), .argh = (a),         \
	  .help = (h), .value = (v) }
#define OPT_INTEGER(s, l, v, a, lo, hi, w, h)                                            \
	{ .type = OPT_INTEGER_, .short_name = (s), .long_name = (l), .argh = (a),        \
	  .help = (h), .value = (v), .min = (lo), .max = (hi), .what = (w) }
#define OPT_CALLBACK(s, l, v, a, f, h)                                                   \
	{ .type = OPT_CALLBACK_, .short_name = (s), .long_name = (l), .argh = (a),       \
	  .help = (h), .value = (v), .fn = (f) }
#define OPT_CALLBACK_OPTARG(s, l, v, a, f, h)                                            \
	{ .type = OPT_CALLBACK_, .short_name = (s), .long_name = (l), .argh = (a),       \
	  .help = (h), .value = (v), .fn = (f), .optional = 1 }
/* Another name of a callback option, said in that option's help. */
#define OPT_CALLBACK_ALIAS(l, v, a, f)                                                   \
	{ .type = OPT_CALLBACK_, .long_name = (l), .argh = (a), .value = (v), .fn = (f),  \
	  .hidden = 1 }
#define OPT_END() { .type = OPT_END_ }

/* What --help prints around the options: the usage lines and what the command does
 * (head), and what comes after (tail, may be NULL). */
struct usage {
	const char *head;
	const char *tail;
};

/* Stop at the first argument that is not an option (the command to run follows). */
#define PARSE_OPT_STOP_AT_NON_OPTION 1

/* Parse argv by opts, -h and --help added. 0 with optind at the first argument left;
 * -1 after --help (printed on stdout: exit 0) or --list-options; else the exit status of
 * an error, said with the usage on stderr. */
int parse_options(int argc, char **argv, const struct opt *opts, const struct usage *u,
		  int flags);
void usage_with_options(FILE *f, const struct usage *u, const struct opt *opts);
/* argv[0] of a command's argv vector, for a callback's error messages: "--sort". */
const char *opt_name(const struct opt *o, char *buf, size_t len);

#endif
