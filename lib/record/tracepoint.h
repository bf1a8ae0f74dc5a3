/* SPDX-License-Identifier: GPL-2.0-only */
/* Tracepoint discovery through libtracefs: ids and format text for the recording. */
#ifndef FOL_TRACEPOINT_H
#define FOL_TRACEPOINT_H

#include <stdint.h>

struct fol_tp {
	char *system;
	char *name;
	uint64_t id;
	char *format; /* the tracefs format file, stored in the recording */
};

/* Resolve "system:event"; the event part may be a glob ("huge_memory:*").
 * Appends to *tps, counting in *n. -ENOENT when nothing matches, -EACCES when tracefs cannot be read,
 * -ENODEV when tracefs is not mounted and cannot be. */
int fol_tp_resolve(const char *spec, struct fol_tp **tps, int *n);
void fol_tp_free(struct fol_tp *tps, int n);
/* A field of tp by name, through libtraceevent: its offset and size in the record; the
 * record's size (the end of its last field) when field is NULL. 0, or -ENOENT. */
int fol_tp_field(const struct fol_tp *tp, const char *field, int *offset, int *size);
/* The tracefs directory, or NULL when it is neither mounted nor mountable. */
const char *fol_tp_tracefs_dir(void);

#endif
