/* SPDX-License-Identifier: GPL-2.0-only */
/* The JSON chunks of a recording (META, COUNTERS, PMU, END, WORKLOAD, SYNTH) checked once,
 * when they are read: a recording is untrusted input, made on another machine or by
 * anyone. Every value that foliostat reads later is removed here unless it has the type
 * and range foliostat expects, so the report, the TUI and the JSON writer can take what
 * they find at face value. Keys foliostat does not know are left alone (newer writers). */
#ifndef FOL_METADATA_H
#define FOL_METADATA_H

#include <cjson/cJSON.h>
#include <stdint.h>

/* Removes from j what does not fit the chunk type's schema; returns how many values were
 * removed (0 for a well-formed chunk), or -FOL_E_BAD_METADATA when j is NULL (not JSON), an
 * object in it names a key twice, or its top level has the wrong type: the caller drops
 * the chunk. */
int fol_metadata_check(uint32_t chunk_type, cJSON *j);
/* 1 when an object anywhere in j names a key twice: cJSON keeps both, and a lookup finds
 * the first, so a check and a later read could see different copies. */
int fol_json_repeats_keys(const cJSON *j);

/* The longest string a chunk's value may hold (a command line's argument, a path): the
 * writer cuts what is longer, the reader drops it. */
#define FOL_META_STR_MAX 65536

/* The largest pid Linux hands out (PID_MAX_LIMIT on 64-bit). */
#define FOL_PID_MAX (4 * 1024 * 1024)

#endif
