/* SPDX-License-Identifier: GPL-2.0-only */
/* What report.c (computing) shares with its renderers, report_json.c and report_text.c:
 * small readers of the recording's JSON metadata. Not part of the public API. */
#ifndef FOL_REPORT_PRIV_H
#define FOL_REPORT_PRIV_H

#include <cjson/cJSON.h>

#include "report/report.h"
#include "util/json.h"

static inline cJSON *json_dup(const cJSON *j)
{
	return j ? cJSON_Duplicate(j, 1) : NULL;
}

/* fol_json_num() under the short name the renderers' long lines use. */
static inline double num(const cJSON *o, const char *k, double dflt)
{
	return fol_json_num(o, k, dflt);
}

static inline const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

#endif
