/* SPDX-License-Identifier: GPL-2.0-only */
/* Strings from a recording made printable. A traced process chooses its command line,
 * thread names and file names, and a recording can be written by anyone: printed raw,
 * they could move a terminal's cursor, retitle its window or answer its queries. */
#ifndef FOL_ESCAPE_H
#define FOL_ESCAPE_H

#include <stddef.h>

/* s itself when it is printable as it is (valid UTF-8 without control characters),
 * else a copy in buf with every control byte, C1 control and invalid UTF-8 byte written
 * as \xNN (and a backslash as \\), cut to len - 1 bytes. NULL s gives "". */
const char *fol_escape(const char *s, char *buf, size_t len);
/* Whether s is valid UTF-8 without control characters (a backslash is printable: where
 * a format escapes backslashes itself, as Prometheus' label values do, s can go as it is;
 * escaped again, a cgroup named "a\b" was labelled "a\\b"). */
int fol_printable(const char *s);
/* Every key and string of a JSON tree escaped in place (cJSON passes DEL, C1 controls and
 * invalid UTF-8 through); 0 when out of memory. */
struct cJSON;
int fol_escape_json(struct cJSON *j);

#endif
