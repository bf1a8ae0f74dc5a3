// SPDX-License-Identifier: GPL-2.0-only
#include "util/msgs.h"
#include "util/grow.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int fol_msgs_vadd(struct fol_msgs *m, const char *fmt, va_list ap)
{
	char *s;

	if (!m)
		return 0;
	if (vasprintf(&s, fmt, ap) < 0)
		return -ENOMEM;
	if (FOL_GROW(m->v, m->cap, (size_t)m->n + 1, 8)) {
		free(s);
		return -ENOMEM;
	}
	m->v[m->n++] = s;
	return 0;
}

int fol_msgs_add(struct fol_msgs *m, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = fol_msgs_vadd(m, fmt, ap);
	va_end(ap);
	return ret;
}

const char *fol_msgs_last(const struct fol_msgs *m)
{
	return m->n ? m->v[m->n - 1] : "";
}

void fol_msgs_free(struct fol_msgs *m)
{
	for (int i = 0; i < m->n; i++)
		free(m->v[i]);
	free(m->v);
	m->v = NULL;
	m->n = 0;
	m->cap = 0;
}
