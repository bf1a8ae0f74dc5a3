/* SPDX-License-Identifier: GPL-2.0-only */
/* The decoder's insides, shared by the files that carry them out: decode.c (the events
 * of a recording, and a record to its event), decode_sample.c (a sample's layout),
 * decode_event.c (its fields to a fol_event), decode_text.c (format texts, printing).
 * Not an API. */
#ifndef FOL_DECODE_PRIV_H
#define FOL_DECODE_PRIV_H

#include "data/decode.h"

/* The sample fields this decoder knows how to step over, in the kernel's layout order. */
#define KNOWN_SAMPLE_BITS                                                                  \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |    \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |     \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |                   \
	 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_CGROUP)

enum field_id {
	F_ADDRESS, F_IP, F_ERROR_CODE, F_PFN, F_ORDER, F_GFP, F_MEMBER, F_SIZE, F_MM_ID,
	F_ADDR, F_LEN, F_START, F_LEN_IN, F_BEHAVIOR, F_OLD_LEN, F_NEW_LEN, F_FLAGS,
	F_NEW_ADDR, F_RET, F_STATUS, F_MM, F_NR_RECLAIMED, F_I_INO, F_INDEX, F_S_DEV,
	F_COMMON_FLAGS, F_NR
};

struct evd {
	struct fol_evdesc pub;
	/* Where the time is: from the start of a sample, from the end of another record
	 * (its sample_id trailer); 0 when the event records no time. Computed once so the
	 * merge reads a record's time without parsing it. */
	uint32_t time_off, time_from_end;
	uint32_t cpu_off, cpu_from_end; /* the same for the CPU; 0: none */
	struct tep_event *tp;
	struct tep_format_field *f[F_NR];
	uint64_t regs_user;	/* sample_regs_user: which registers a sample holds */
};

struct fol_decoder {
	struct tep_handle *tep;
	struct evd *ev;
	int n;
	size_t ev_cap;
	struct fol_u64map *ids; /* sample id -> event index + 1 */
	/* The same, for the ids that first took their slot here (by the id's low bits): the
	 * kernel numbers a recording's file descriptors in a row, so all fit, and a record's
	 * event is found without the map (twice a record: its time, then its payload). */
	struct { uint64_t id; int idx; } near[64];
	uint64_t ranges[16];	/* fault handler text, [start, end) pairs */
	int nranges;
	/* The first event of each kind (the recorded target's): where a BPF path record's
	 * entry and exit are counted, and which format reads its entry. -1: none. */
	int first_of[FOL_EV_NR_KINDS];
	/* A BPF path record's exit, after its entry was handed out. */
	struct fol_event more;
	int has_more;
};

/* The format text of a tracepoint is untrusted: libtraceevent parses it with recursion
 * and with work that grows faster than the text. foliostat reads fields only, never the
 * print format, so it hands libtraceevent a text rebuilt from the checked field lines
 * (names, offsets and sizes bounded) and an empty print format. */
int fol_decoder_clean_format(const char *in, char *out, size_t cap);

/* Event of a record: IDENTIFIER is the first u64 of a sample and the last of any other
 * record (sample_id_all). */
int dec_record_event(const struct fol_decoder *d, const void *rec, size_t size);

/* sample_id trailer of a non-sample record: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER. */
int dec_parse_trailer(uint64_t st, const char *rec, size_t size, struct fol_event *ev);

int dec_parse_sample(const struct fol_decoder *d, const struct evd *e, const char *rec, size_t size,
		     struct fol_event *ev, uint64_t *ip, uint64_t *addr, const uint64_t **chain,
		     int *nchain);

/* A number field's value, bounds-checked against the payload (a hostile file must not
 * make the decoder read past the record), signed ones narrower than 64 bits
 * sign-extended. 0, or -EBADMSG. */
int dec_number_field(const struct tep_format_field *fl, const struct fol_event *ev,
		     unsigned long long *v);

/* One of the fields the model reads: 0 when missing or out of bounds. */
uint64_t dec_field(const struct evd *e, enum field_id f, const struct fol_event *ev);

/* Fills ev from the payload; -EBADMSG when a value is out of the range the kernel can
 * produce (checked here once, so that the model may trust a decoded event). */
int dec_tracepoint(const struct evd *e, struct fol_event *ev);

int dec_sideband(const char *rec, size_t size, int trailer, struct fol_event *ev);

/* A record of the BPF path (bpf_record.h) into the fault entry and exit events it stands
 * for: the entry into ev, the exit kept for fol_decoder_more() when both are there. */
int dec_paired(struct fol_decoder *d, struct fol_event *ev);

#endif
