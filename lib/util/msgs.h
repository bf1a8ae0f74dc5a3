/* SPDX-License-Identifier: GPL-2.0-only */
/* A growable list of messages that lib/ hands to cmd/ to print: warnings, and what a call
 * that failed has to say beside its negative code (lib/'s one error channel). */
#ifndef FOL_MSGS_H
#define FOL_MSGS_H

#include <stdarg.h>
#include <stddef.h>

struct fol_msgs {
	char **v;
	int n;
	size_t cap;
};

/* m may be NULL: the caller did not want to know. 0, or -ENOMEM. */
__attribute__((format(printf, 2, 3))) int fol_msgs_add(struct fol_msgs *m, const char *fmt, ...);
/* The newest message, or "" when there is none: what a failed call said last. */
const char *fol_msgs_last(const struct fol_msgs *m);
/* fol_msgs_add() for a caller with its own arguments. */
__attribute__((format(printf, 2, 0))) int fol_msgs_vadd(struct fol_msgs *m, const char *fmt, va_list ap);
void fol_msgs_free(struct fol_msgs *m);

#endif
