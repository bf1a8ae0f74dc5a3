/* SPDX-License-Identifier: GPL-2.0-only */
/* A recording analysed: the model's summary plus what the file says about how it was
 * recorded; rendered as text or JSON (schema foliostat/report/v1, man/foliostat-report.1). */
#ifndef FOL_REPORT_H
#define FOL_REPORT_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "model/model.h"
#include "util/msgs.h"
#include "data/session.h"
#include "model/summary.h"
#include "data/symbolic.h"
#include "sys/cgroup.h"
#include "data/recording.h"
#include "report/sort.h"

struct fol_report_event {
	char name[64];
	uint64_t count;
	int mm_threads;	/* recorded in the kernel's mm threads, not the target */
	int carrier;	/* the BPF path's records: counted as the fault events they stand for */
};

struct fol_report {
	struct fol_summary s;
	struct fol_recording rec; /* what the recording says of itself (data/recording.h) */
	struct fol_report_event *events;
	int nevents;
	struct fol_session_stats st;
	unsigned page_size;
	int pmd_order;
	const char *method;	/* "exact", or "none" when no exit samples were recorded */
	struct fol_msgs warnings;
	struct fol_msgs notes;	/* what every run has and needs no action (page cache faults) */
	struct fol_symbols scan_names; /* the recording kernel's names of collapse results */
	struct fol_cgroups cg;	/* record -G's scope, the model's while it runs (ids NULL: none) */
	const char *symfs;	/* report --symfs: where the recorded files are; NULL: / */
	/* The files' and kernel's symbols, looked up once for every table and output of the
	 * report (made by fol_report_end; NULL before). */
	struct fol_symbols_cache *symcache;
	const char *kallsyms;	/* report --kallsyms FILE, or NULL */
	struct fol_ksyms *ksyms; /* the recording kernel's symbols (ksyms.h), NULL: none */
	const char *ksyms_from;	/* where they come from: "recording", a file, "none" */
	int ksyms_damaged;	/* the recording carries them, but its chunk reads no symbol */
	struct fol_model *model; /* while events stream in */
};

/* How a computed report is shown: what the user asked of the output, apart from the
 * figures. The renderers take it beside the report; nothing in it changes a figure. */
struct fol_report_view {
	char filter[256];	/* the narrowing options, for the header; "" when none */
	/* report --sort: the keys of the sites table (report_sites.h); 0 keys: the default
	 * (text: sym,map, top 10; JSON: order,class,dso,sym,map, all). top: rows shown, 0 all. */
	int sort[FOL_SORT_NR], nsort;
	int top;
	const char *table;	/* csv: faults (NULL), reuse, calls or sites */
	int by_count;		/* folded: stacks weighed by their faults, not their time */
};

/* An output of the report, by name (report --format): one renderer file and one row of
 * fol_report_formats each. 0, or -ENOMEM, -EINVAL (csv: no such table), -ENOENT (folded:
 * no stacks recorded). */
struct fol_report_format {
	const char *name;
	int (*render)(const struct fol_report *r, const struct fol_report_view *v, FILE *f);
};
extern const struct fol_report_format fol_report_formats[]; /* ended by a NULL name */
const struct fol_report_format *fol_report_format(const char *name);
int fol_render_text(const struct fol_report *r, const struct fol_report_view *v, FILE *f);
int fol_render_json(const struct fol_report *r, const struct fol_report_view *v, FILE *f);
int fol_render_csv(const struct fol_report *r, const struct fol_report_view *v, FILE *f);
int fol_render_openmetrics(const struct fol_report *r, const struct fol_report_view *v, FILE *f);
int fol_render_prometheus(const struct fol_report *r, const struct fol_report_view *v, FILE *f);
int fol_render_folded(const struct fol_report *r, const struct fol_report_view *v, FILE *f);

/* Read the whole recording through the model. Negative codes as fol_session_open. */
int fol_report_build(const char *path, const struct fol_model_opts *o, struct fol_report *r);
/* The same in steps, for a session fed as it is recorded: begin once the header is in
 * (fol_session_ready), drain whenever chunks came, end after fol_session_feed_end. */
int fol_report_begin(struct fol_report *r, struct fol_session *s, const struct fol_model_opts *o);
/* fol_report_begin at the first chunk of type past the header (the metadata, the events'
 * formats, a run's start) once the session is ready; *begun: it was, now or before. */
int fol_report_begin_at(struct fol_report *r, int *begun, struct fol_session *s,
			const struct fol_model_opts *o, uint32_t type);
int fol_report_drain(struct fol_report *r, struct fol_session *s);
int fol_report_end(struct fol_report *r, struct fol_session *s);
void fol_report_free(struct fol_report *r);
cJSON *fol_report_json(const struct fol_report *r, const struct fol_report_view *v);
/* The fault time of a cell by the recording's method: the sum of exact latencies, or
 * cpu-clock samples x period. */
uint64_t fol_cell_time(const struct fol_summary *s, const struct fol_cell *c);
uint64_t fol_total_time(const struct fol_summary *s);
/* The /proc/vmstat counters a report shows (NULL-terminated), and a counter's change over
 * the run: after - before, section "vmstat". */
extern const char *const fol_report_vmstat[];
double fol_report_counter(const struct fol_report *r, const char *section, const char *name);
void fol_report_text(const struct fol_report *r, const struct fol_report_view *v, FILE *f);
/* One table as CSV, v->table: "faults" (order x class), "reuse", "calls", "sites"
 * (--sort's keys). -EINVAL for another name, -ENOMEM. */
int fol_report_csv(const struct fol_report *r, const struct fol_report_view *v, FILE *f);
/* The figures in the OpenMetrics text format (report_om.c). */
enum fol_metrics { FOL_METRICS_OPENMETRICS, FOL_METRICS_PROMETHEUS };
void fol_report_metrics(const struct fol_report *r, enum fol_metrics fmt, FILE *f);
/* The formats' pieces, which serve's metrics share: a family's TYPE, UNIT and HELP lines
 * (type "counter", "gauge", "histogram" or "info"; name without _total or _info), and a
 * label value, escaped. */
void fol_metrics_family(FILE *f, enum fol_metrics fmt, const char *name, const char *type,
			const char *unit, const char *help);
void fol_metrics_label(FILE *f, const char *raw);

/* A collapse result's name ("exceed_none_pte"), or "status_N" in buf when the recording
 * does not name it. */
const char *fol_scan_result(const struct fol_report *r, int status, char *buf, int len);

#endif
