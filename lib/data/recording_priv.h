/* SPDX-License-Identifier: GPL-2.0-only */
/* What the recording module's files share: recording_check.c's small schema, which the
 * facts' table (recording_facts.c) checks its lists and the other chunks with, and the
 * table's walks that recording.c reads with. Not an API. */
#ifndef FOL_RECORDING_PRIV_H
#define FOL_RECORDING_PRIV_H

#include "data/recording.h"

/* What a known key must hold. Written by hand because no packaged JSON-schema validator
 * for C is kept in this project, and the checks needed are few: a type, a numeric range,
 * a string length. */
enum rc_type { RC_NUM, RC_INT, RC_STR, RC_BOOL, RC_OBJ, RC_MAP, RC_ARR };
struct rc_field {
	const char *key;	/* NULL ends an object's list */
	enum rc_type type;
	double min, max;	/* numbers; RC_MAP: max members, 0 for any number */
	const struct rc_field *sub; /* RC_OBJ: its keys; RC_MAP, RC_ARR: what every member is */
};
/* -1: v does not fit f (the caller removes it); else the number of misfits removed
 * inside it. */
int recording_check_value(const struct rc_field *f, cJSON *v);
/* Members: a string, a pid, a count, a phase (WORKLOAD's). */
extern const struct rc_field rc_a_string[], rc_a_pid[], rc_a_count[], rc_a_phase[];
/* The shape of a chunk that is not the facts table's (COUNTERS, PMU, ...); NULL for
 * another type. */
const struct rc_field *recording_shape(uint32_t chunk_type);

/* The facts of chunk in the object o, into base (the chunk's struct: a BARE chunk's
 * fol_bare, the others' fol_recording): read (absent: their defaults; *bad on no
 * memory), freed. */
void recording_facts_read(uint32_t chunk, const cJSON *o, void *base, int *bad);
void recording_facts_free(uint32_t chunk, void *base);
/* Each object of the array a read as chunk's struct (size bytes each): the array of them
 * and their number in *n; NULL with *n 0 when a holds none, or on no memory (*bad). */
void *recording_facts_list(uint32_t chunk, const cJSON *a, size_t size, int *n, int *bad);
/* A WORKLOAD chunk's phases (an array of checked objects) into ph; freed. */
void recording_phases_read(struct fol_phases *ph, const cJSON *a, int *bad);
void recording_phases_free(struct fol_phases *ph);

#endif
