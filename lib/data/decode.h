/* SPDX-License-Identifier: GPL-2.0-only */
/* Decoder: perf records of a recording -> struct fol_event. Tracepoint fields are read by
 * name through libtraceevent from the format text stored in the file, so a recording made
 * on one kernel decodes on another. */
#ifndef FOL_DECODE_H
#define FOL_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "data/event.h"
#include "data/symbolic.h"

struct fol_decoder;

struct fol_evdesc {
	char *name;		/* "kmem:mm_page_alloc", "minor-faults", "tracking" */
	char *kind;		/* "tracepoint", "software", "tracking" */
	uint32_t type;
	uint64_t config;
	uint64_t sample_type;
	enum fol_kind fkind;
	uint64_t samples;	/* decoded so far */
	struct fol_symbols *status; /* the names of its status field's values, or NULL */
	int mm_threads;		/* opened on the kernel's mm threads, beside the target */
};

/* Bounds on a tracepoint's format text (the kernel's longest is a few KB, its field
 * declarations well under 100 bytes). */
#define FOL_FORMAT_MAX (64 * 1024)
#define FOL_FIELD_DECL_MAX 256
#define FOL_FIELDS_MAX 128
#define FOL_FIELD_OFFSET_MAX 65535
/* The format text of one tracepoint, checked and rebuilt for libtraceevent: the field
 * lines only, with an empty print format. Its length, or -FOL_E_BAD_FORMAT when in is not a format
 * text within the bounds above. */
int fol_decoder_clean_format(const char *in, char *out, size_t cap);

struct fol_decoder *fol_decoder_new(void);
void fol_decoder_free(struct fol_decoder *d);
/* One EVENT chunk (JSON). -FOL_E_BAD_FORMAT when it is malformed or uses a sample layout this
 * decoder cannot read. */
int fol_decoder_add_event(struct fol_decoder *d, const char *json, size_t len);
int fol_decoder_nr_events(const struct fol_decoder *d);
const struct fol_evdesc *fol_decoder_event(const struct fol_decoder *d, int idx);

/* The timestamp of a record, for the merge. -EBADMSG for a malformed record, -ENOENT when
 * it carries no time (unknown event id). */
int fol_decoder_time(const struct fol_decoder *d, const void *rec, size_t size, uint64_t *time);
/* The CPU a record was written on (its ring buffer), or -1 when it does not say or says
 * more than FOL_MAX_CPUS. */
#define FOL_MAX_CPUS 8192
int fol_decoder_cpu(const struct fol_decoder *d, const void *rec, size_t size);
/* The ring buffer a record was written into: each CPU has the target's and the mm threads'
 * (record.h); 2 x CPU, + 1 for the mm threads'. -1 when the record does not say. */
int fol_decoder_ring(const struct fol_decoder *d, const void *rec, size_t size);
/* 1: ev filled (pointers into rec stay valid while rec does); 0: a record type with
 * nothing for foliostat; -EBADMSG: malformed. */
int fol_decoder_decode(struct fol_decoder *d, const void *rec, size_t size, struct fol_event *ev);
/* A record of the BPF path stands for two events, the fault's entry (from
 * fol_decoder_decode()) and its exit: 1 and the exit in ev after such a record, else 0. */
int fol_decoder_more(struct fol_decoder *d, struct fol_event *ev);
/* Kernel text ranges of the fault handler ([start, end) pairs): a cpu-clock sample whose
 * call chain passes through one is inside a fault. */
int fol_decoder_set_fault_ranges(struct fol_decoder *d, const uint64_t *ranges, int n);
/* A tracepoint sample's fields into obj: numbers as JSON numbers (as strings "0x..." when
 * they do not fit a double exactly), arrays and strings as text; fields out of the
 * record's bounds left out. */
struct cJSON;
void fol_decoder_fields_json(const struct fol_decoder *d, const struct fol_event *ev, struct cJSON *obj);
/* Tracepoint fields of ev as " name=value ..." into buf (truncated to len). */
void fol_decoder_format(const struct fol_decoder *d, const struct fol_event *ev, char *buf,
			size_t len);

#endif
