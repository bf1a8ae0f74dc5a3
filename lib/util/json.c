// SPDX-License-Identifier: GPL-2.0-only
#include "util/json.h"

double fol_json_num(const cJSON *o, const char *key, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}
