/* SPDX-License-Identifier: GPL-2.0-only */
/* The probe effect, calibrated: what the exact method's two events per fault (the fault
 * entry tracepoint and the minor-faults sample at the end of handle_mm_fault) add to a
 * fault on this machine, measured by the calling thread on itself before a recording
 * starts: read faults on fresh anonymous memory (the zero page: no allocation, the
 * cheapest fault there is), untraced and traced in turn. */
#ifndef FOL_CALIBRATE_H
#define FOL_CALIBRATE_H

#include <stdint.h>

struct fol_calibration {
	uint64_t faults;	/* per pass */
	int passes;		/* of each kind, alternated */
	double untraced_ns;	/* per fault: the median pass */
	double traced_ns;
	uint64_t samples;	/* read back from the traced passes: 2 per fault when the
				 * events were on, 1 or 2 on the BPF path (2 where an event
				 * recorded comes inside the fault: its entry goes out first) */
	uint64_t exits;		/* of them, those that close a fault: 1 per fault */
	uint64_t bytes;		/* their size: with a user stack, the copies the faults made */
};

#define FOL_CALIBRATE_PAGES 512

/* 0, or a negative errno (the events cannot be opened: no fault entry tracepoint, no
 * permission, no memory). With bpf, the BPF path's cost: its carriers' programs, already
 * attached, and its own exit event and outputs (before the recording's are set). stack:
 * NULL, or the user stack the recording takes at each fault entry (-g, --call-graph
 * dwarf): its sample_type bits, registers and stack size go on the calibration's entry
 * event too, since the copy is made inside the fault (dwarf's 8 KB: +6 us a fault). */
struct fol_bpf_faults;
struct perf_event_attr;
int fol_calibrate(uint64_t pages, struct fol_bpf_faults *bpf, const struct perf_event_attr *stack,
		  struct fol_calibration *c);

#endif
