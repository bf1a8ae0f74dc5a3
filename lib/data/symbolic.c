// SPDX-License-Identifier: GPL-2.0-only
#include "data/symbolic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Hand-written: libtraceevent parses print formats, but foliostat never hands it a
 * recording's print format (decode.h); this reads only the one list it needs. */
static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	return p;
}

/* One {N, "name"} pair at p: the position after it, or NULL. */
static const char *parse_pair(const char *p, int64_t *value, char *name)
{
	int neg = 0, digits = 0, len = 0;
	int64_t v = 0;

	p = skip_space(p);
	if (*p++ != '{')
		return NULL;
	p = skip_space(p);
	if (*p == '-') {
		neg = 1;
		p++;
	}
	while (*p >= '0' && *p <= '9' && digits < 18) {
		v = v * 10 + (*p++ - '0');
		digits++;
	}
	if (!digits || (*p >= '0' && *p <= '9'))
		return NULL;
	p = skip_space(p);
	if (*p++ != ',')
		return NULL;
	p = skip_space(p);
	if (*p++ != '"')
		return NULL;
	while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
	       *p == '_') {
		if (len == FOL_SYMBOL_NAME_MAX - 1)
			return NULL;
		name[len++] = *p++;
	}
	name[len] = '\0';
	if (!len || *p++ != '"')
		return NULL;
	p = skip_space(p);
	if (*p++ != '}')
		return NULL;
	*value = neg ? -v : v;
	return p;
}

int fol_symbols_parse(const char *format, const char *field, struct fol_symbols *out)
{
	char head[96];
	const char *p;

	out->n = 0;
	if (snprintf(head, sizeof(head), "__print_symbolic(REC->%s,", field) >= (int)sizeof(head) ||
	    !(p = strstr(format, head)))
		return 0;
	p += strlen(head);
	while (out->n < FOL_SYMBOLS_MAX) {
		const char *next = parse_pair(p, &out->v[out->n].value, out->v[out->n].name);

		if (!next)
			break;
		out->n++;
		p = skip_space(next);
		if (*p++ != ',')
			break;
	}
	return out->n;
}

const char *fol_symbols_name(const struct fol_symbols *s, int64_t value)
{
	for (int i = 0; s && i < s->n; i++)
		if (s->v[i].value == value)
			return s->v[i].name;
	return NULL;
}
