/* SPDX-License-Identifier: GPL-2.0-only */
/* The events foliostat knows by name, for the recorder, the calibration and the check. */
#ifndef FOL_EVENTS_H
#define FOL_EVENTS_H

/* The tracepoints recorded by default (foliostat check lists them); a name may be a glob. */
extern const char *const fol_default_tracepoints[];
extern const char *const fol_live_tracepoints[];	/* top's and serve's: fewer */
extern const char *const fol_software_events[];	/* sampled at period 1 */
extern const char *const fol_counting_events[];	/* PMU and software, counted */

/* Fill attr for a software or hardware event name ("minor-faults", "dTLB-load-misses");
 * -ENOENT for an unknown name. */
struct perf_event_attr;
int fol_record_named_attr(const char *name, struct perf_event_attr *attr);

#endif
