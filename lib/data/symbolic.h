/* SPDX-License-Identifier: GPL-2.0-only */
/* The names a tracepoint's print format gives a field's values, as
 * __print_symbolic(REC->status, {0, "failed"}, {1, "succeeded"}, ...) lists them: read
 * from the recorded format text, so that a report names khugepaged's scan results as the
 * recording kernel did, whatever their numbers there. */
#ifndef FOL_SYMBOLIC_H
#define FOL_SYMBOLIC_H

#include <stdint.h>

#define FOL_SYMBOLS_MAX 64
#define FOL_SYMBOL_NAME_MAX 48

struct fol_symbols {
	int n;
	struct {
		int64_t value;
		char name[FOL_SYMBOL_NAME_MAX];
	} v[FOL_SYMBOLS_MAX];
};

/* The pairs of __print_symbolic(REC->field, ...) in format: how many (0 when there is no
 * such list). Reads a recording's text: it stops at the first thing that is not a pair
 * of a decimal number and a name of [A-Za-z0-9_], and takes at most FOL_SYMBOLS_MAX. */
int fol_symbols_parse(const char *format, const char *field, struct fol_symbols *out);
/* The name of value, or NULL. */
const char *fol_symbols_name(const struct fol_symbols *s, int64_t value);

#endif
