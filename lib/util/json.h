/* SPDX-License-Identifier: GPL-2.0-only */
/* A recording's JSON read back: the one reader of a number member, for every stage that
 * reads the metadata chunks (their types and ranges checked once, by data/recording.h's
 * fol_recording_check). */
#ifndef FOL_JSON_H
#define FOL_JSON_H

#include <cjson/cJSON.h>

/* o's member key when it is a number, else dflt (o NULL, key missing, another type). */
double fol_json_num(const cJSON *o, const char *key, double dflt);

#endif
