// SPDX-License-Identifier: GPL-2.0-only
#include "util/escape.h"

#include <cjson/cJSON.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid, printable UTF-8 sequence at p, 0 when p starts anything else.
 * Overlong forms, surrogates and C1 controls (U+0080..U+009F, which some terminals obey
 * like ESC) do not count as printable. Hand-written: iconv/mbrtowc depend on the locale,
 * and the point is to be strict whatever the locale says. */
static size_t utf8_len(const unsigned char *p)
{
	uint32_t cp;
	size_t n;

	if (p[0] >= 0x20 && p[0] < 0x7f)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if (cp < 0xa0 || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

int fol_printable(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = utf8_len(p);

		if (!n)
			return 0;
		p += n;
	}
	return 1;
}

const char *fol_escape(const char *s, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	if (!s)
		return "";
	if (fol_printable(s) && !strchr(s, '\\'))
		return s;
	if (!len)
		return "";
	while (*p) {
		size_t n = utf8_len(p);
		char esc[5];

		if (*p == '\\')
			memcpy(esc, "\\\\", 3), n = 1;
		else if (!n)
			snprintf(esc, sizeof(esc), "\\x%02x", *p), n = 1;
		else
			esc[0] = '\0';
		if (esc[0]) {
			size_t e = strlen(esc);

			if (o + e >= len)
				break;
			memcpy(buf + o, esc, e);
			o += e;
		} else {
			if (o + n >= len)
				break;
			memcpy(buf + o, p, n);
			o += n;
		}
		p += n;
	}
	buf[o] = '\0';
	return buf;
}

/* A string of the tree made printable (escape.h); 0 when out of memory. */
static int escape_string(char **str)
{
	char buf[4096], *copy;
	const char *e = fol_escape(*str, buf, sizeof(buf));

	if (e == *str)
		return 1;
	copy = strdup(e);
	if (!copy)
		return 0;
	free(*str);
	*str = copy;
	return 1;
}

/* Every key and string value that came from the file, made printable: cJSON escapes
 * control bytes below 0x20 but passes DEL, C1 controls and invalid UTF-8 through, and
 * dashboards are not the only readers of this JSON; terminals are too. */
int fol_escape_json(cJSON *j)
{
	for (cJSON *c = j ? j->child : NULL; c; c = c->next) {
		if (c->string && !(c->type & cJSON_StringIsConst) && !escape_string(&c->string))
			return 0;
		if (cJSON_IsString(c) && c->valuestring && !escape_string(&c->valuestring))
			return 0;
		if ((cJSON_IsObject(c) || cJSON_IsArray(c)) && !fol_escape_json(c))
			return 0;
	}
	return 1;
}
