// SPDX-License-Identifier: GPL-2.0-only
#include "util/parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int fol_parse_u64(const char *s, uint64_t min, uint64_t max, int suffixes, uint64_t *out)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;

	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (suffixes && *end) {
		const char *units = "KMGT", *u = strchr(units, toupper((unsigned char)*end));

		if (!u)
			return -EINVAL;
		shift = 10 * (unsigned)(u - units + 1);
		end++;
		if (*end == 'B' || *end == 'b')
			end++;
	}
	if (*end)
		return -EINVAL;
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	v <<= shift;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int fol_parse_seconds(const char *s, double min, double max, double *out)
{
	return fol_parse_decimal(s, min, max, out);
}

int fol_parse_decimal(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	/* Digits and one point only: strtod would also take inf, nan, hex and exponents. */
	if (!s || !*s || strspn(s, "0123456789.") != strlen(s) || strchr(s, '.') != strrchr(s, '.') ||
	    !strcmp(s, "."))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (*end || errno == ERANGE || !isfinite(v))
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}
