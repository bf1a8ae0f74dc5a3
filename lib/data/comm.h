/* SPDX-License-Identifier: GPL-2.0-only */
/* Thread names from COMM/FORK records: tid -> comm. */
#ifndef FOL_COMM_H
#define FOL_COMM_H

#include "data/event.h"

struct fol_comms;

struct fol_comms *fol_comms_new(void);
void fol_comms_free(struct fol_comms *c);
/* Follow COMM (rename, exec) and FORK (a child starts with its parent's name). */
int fol_comms_update(struct fol_comms *c, const struct fol_event *ev);
/* tid has ended (top and serve, which run for days, forget it). */
void fol_comms_forget(struct fol_comms *c, int tid);
/* The name of tid, or ":unknown" when no COMM or FORK named it. */
const char *fol_comms_get(const struct fol_comms *c, int tid);
/* The kernel's mm threads: khugepaged, kswapd<node>, kcompactd<node>. They are recorded
 * beside a workload; their work on its memory is its own. */
int fol_comm_mm_thread(const char *comm);

#endif
