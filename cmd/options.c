// SPDX-License-Identifier: GPL-2.0-only
/* getopt_long underneath: it knows argument permutation, abbreviations and "--"; this
 * file turns a table into its arguments and into --help, so that nothing is said twice. */
#include "options.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "util.h"

/* The column the help text starts at, as the hand-written usages had it. */
#define HELP_COL 25

static int count(const struct opt *opts)
{
	int n = 0;

	while (opts[n].type != OPT_END_)
		n++;
	return n;
}

const char *opt_name(const struct opt *o, char *buf, size_t len)
{
	if (o->long_name)
		snprintf(buf, len, "--%s", o->long_name);
	else
		snprintf(buf, len, "-%c", o->short_name);
	return buf;
}

static void print_option(FILE *f, const struct opt *o)
{
	char left[128];
	const char *h = o->help, *nl;
	int n;

	n = snprintf(left, sizeof(left), "  %c%c%s", o->short_name ? '-' : ' ',
		     o->short_name ? o->short_name : ' ', o->short_name && o->long_name ? ", " : "  ");
	if (o->long_name)
		n += snprintf(left + n, sizeof(left) - (size_t)n, "--%s", o->long_name);
	if (o->argh)
		snprintf(left + n, sizeof(left) - (size_t)n, o->optional ? "[=%s]" : " %s", o->argh);
	fprintf(f, "%-*s ", HELP_COL - 1, left);
	while ((nl = strchr(h, '\n'))) {
		fprintf(f, "%.*s\n%*s", (int)(nl - h), h, HELP_COL, "");
		h = nl + 1;
	}
	fprintf(f, "%s\n", h);
}

void usage_with_options(FILE *f, const struct usage *u, const struct opt *opts)
{
	fputs(u->head, f);
	for (const struct opt *o = opts; o->type != OPT_END_; o++)
		if (!o->hidden)
			print_option(f, o);
	print_option(f, &(struct opt){ .short_name = 'h', .long_name = "help", .help = "this text" });
	if (u->tail)
		fputs(u->tail, f);
}

/* The options, one a line, for the completion and the man-page check; not the hidden
 * ones (another command's, refused with what to do). */
static void list_options(const struct opt *opts)
{
	for (const struct opt *o = opts; o->type != OPT_END_; o++) {
		if (o->hidden)
			continue;
		if (o->long_name)
			printf("--%s\n", o->long_name);
		if (o->short_name)
			printf("-%c\n", o->short_name);
	}
}

static int take(const struct opt *o, const char *arg)
{
	char name[64];
	int ret;

	switch (o->type) {
	case OPT_SET_INT_:
		*(int *)o->value = o->defval;
		return 0;
	case OPT_STRING_:
		*(const char **)o->value = arg;
		return 0;
	case OPT_INTEGER_:
		ret = parse_int(arg, o->min, o->max, o->value);
		return ret ? print_bad_number(opt_name(o, name, sizeof(name)), o->what, arg, ret) : 0;
	case OPT_CALLBACK_:
		return o->fn(o, arg);
	case OPT_END_:
		break;
	}
	return 0;
}

/* getopt's short option string and long options of the table. */
static void getopt_args(const struct opt *opts, int n, int flags, char *shorts, struct option *longs)
{
	char *s = shorts;
	int k = 0;

	if (flags & PARSE_OPT_STOP_AT_NON_OPTION)
		*s++ = '+';
	for (int i = 0; i < n; i++) {
		const struct opt *o = &opts[i];

		if (o->short_name) {
			*s++ = (char)o->short_name;
			if (o->argh)
				*s++ = ':';
			if (o->argh && o->optional)
				*s++ = ':';
		}
		if (o->long_name)
			longs[k++] = (struct option){ o->long_name,
						      !o->argh ? no_argument
						      : o->optional ? optional_argument
								    : required_argument,
						      NULL, 256 + i };
	}
	strcpy(s, "h");
	longs[k++] = (struct option){ "help", no_argument, NULL, 'h' };
	longs[k++] = (struct option){ "list-options", no_argument, NULL, 1 };
	longs[k] = (struct option){ NULL, 0, NULL, 0 };
}

int parse_options(int argc, char **argv, const struct opt *opts, const struct usage *u,
		  int flags)
{
	int n = count(opts), ch, ret = 0;
	struct option *longs = calloc((size_t)n + 3, sizeof(*longs));
	char shorts[3 * 64 + 3];

	if (!longs || n > 64) {
		free(longs);
		return error("out of memory");
	}
	getopt_args(opts, n, flags, shorts, longs);
	optind = 1;
	while (!ret && (ch = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		if (ch == 'h') {
			usage_with_options(stdout, u, opts);
			ret = -1;
		} else if (ch == 1) {
			list_options(opts);
			ret = -1;
		} else if (ch >= 256 && ch < 256 + n) {
			ret = take(&opts[ch - 256], optarg);
		} else {
			int i = 0;

			while (i < n && (opts[i].short_name != ch || ch == 0))
				i++;
			if (i < n) {
				ret = take(&opts[i], optarg);
			} else {
				usage_with_options(stderr, u, opts);
				ret = EXIT_USAGE;
			}
		}
	}
	free(longs);
	return ret;
}
