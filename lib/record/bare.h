/* SPDX-License-Identifier: GPL-2.0-only */
/* The workload run without recording, for the probe effect: its own phase timings when
 * nothing traces it, against the same phases recorded. */
#ifndef FOL_BARE_H
#define FOL_BARE_H

#include <cjson/cJSON.h>

#include "sys/mthp.h"

/* Run argv to its end, untraced, with FOLIOSTAT_PHASES=phase_file (emptied first) and
 * under mthp's policy when given (put back after). *out: {"duration_ns", "exit_code" or
 * "exit_signal", "phases": [...]}, the BARE chunk without its run and config. Negative:
 * it could not be started (-ENOENT...), or the policy not set. */
int fol_bare_run(char *const *argv, const char *phase_file, struct fol_mthp *mthp, cJSON **out);

#endif
