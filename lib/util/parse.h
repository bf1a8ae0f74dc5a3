/* SPDX-License-Identifier: GPL-2.0-only */
/* Numbers from command lines and the workload's options, parsed whole: no sign, no blanks,
 * no trailing text, no wrap-around. strtoull alone takes "-1" (as 2^64-1), "12abc" (as
 * 12) and overflows silently with a suffix; strtod takes "inf", "nan" and "1e300". */
#ifndef FOL_PARSE_H
#define FOL_PARSE_H

#include <stdint.h>

/* 0, or -EINVAL (not a number of that form) / -ERANGE (outside [min, max]). With
 * suffixes, K, M, G and T multiply by powers of 1024 and a trailing B is allowed ("64K",
 * "2MB"). */
int fol_parse_u64(const char *s, uint64_t min, uint64_t max, int suffixes, uint64_t *out);
/* A plain decimal ("1.5", "0.05") in [min, max]; and seconds as one. */
int fol_parse_decimal(const char *s, double min, double max, double *out);
int fol_parse_seconds(const char *s, double min, double max, double *out);

#endif
