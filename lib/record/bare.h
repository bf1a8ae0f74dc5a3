/* SPDX-License-Identifier: GPL-2.0-only */
/* The workload run without recording, for the probe effect: its own phase timings when
 * nothing traces it, against the same phases recorded. */
#ifndef FOL_BARE_H
#define FOL_BARE_H

#include "data/recording.h"
#include "sys/mthp.h"

/* Run argv to its end, untraced, with FOLIOSTAT_PHASES=phase_file (emptied first) and
 * under mthp's policy when given (put back after). *out: its duration, exit and phases,
 * the BARE chunk without its run and config (fol_recording_bare_free). Negative: it could
 * not be started (-ENOENT...), or the policy not set, or -ENOMEM. */
int fol_bare_run(char *const *argv, const char *phase_file, struct fol_mthp *mthp,
		 struct fol_bare *out);

#endif
