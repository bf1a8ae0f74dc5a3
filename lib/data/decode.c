// SPDX-License-Identifier: GPL-2.0-only
#include "data/decode.h"
#include "data/metadata.h"

#include "data/symbolic.h"
#include "util/errors.h"
#include "util/escape.h"

#include "data/bpf_record.h"
#include "util/order.h"
#include "util/u64map.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <event-parse.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace-seq.h>

/* The sample fields this decoder knows how to step over, in the kernel's layout order. */
#define KNOWN_SAMPLE_BITS                                                                  \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |    \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |     \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |                   \
	 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_CGROUP)

enum field_id {
	F_ADDRESS, F_IP, F_ERROR_CODE, F_PFN, F_ORDER, F_GFP, F_MEMBER, F_SIZE, F_MM_ID,
	F_ADDR, F_LEN, F_START, F_LEN_IN, F_BEHAVIOR, F_OLD_LEN, F_NEW_LEN, F_FLAGS,
	F_NEW_ADDR, F_RET, F_STATUS, F_MM, F_NR_RECLAIMED, F_I_INO, F_INDEX, F_S_DEV, F_NR
};

static const char *const field_names[F_NR] = {
	"address", "ip", "error_code", "pfn", "order", "gfp_flags", "member", "size", "mm_id",
	"addr", "len", "start", "len_in", "behavior", "old_len", "new_len", "flags", "new_addr",
	"ret", "status", "mm", "nr_reclaimed", "i_ino", "index", "s_dev",
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

static const struct {
	const char *name;
	enum fol_kind kind;
} kind_names[] = {
	{ "exceptions:page_fault_user", FOL_EV_FAULT_USER },
	{ "exceptions:page_fault_kernel", FOL_EV_FAULT_KERNEL },
	{ "minor-faults", FOL_EV_FAULT_EXIT },
	{ "major-faults", FOL_EV_FAULT_EXIT_MAJ },
	{ "kmem:mm_page_alloc", FOL_EV_PAGE_ALLOC },
	{ "kmem:mm_page_free", FOL_EV_PAGE_FREE },
	{ "kmem:rss_stat", FOL_EV_RSS_STAT },
	{ "pagemap:mm_lru_insertion", FOL_EV_LRU_INSERT },
	{ "filemap:mm_filemap_add_to_page_cache", FOL_EV_FILEMAP_ADD },
	{ "syscalls:sys_enter_munmap", FOL_EV_MUNMAP },
	{ "syscalls:sys_enter_mremap", FOL_EV_MREMAP },
	{ "syscalls:sys_exit_mremap", FOL_EV_MREMAP_EXIT },
	{ "syscalls:sys_enter_madvise", FOL_EV_MADVISE },
	{ "syscalls:sys_enter_mprotect", FOL_EV_MPROTECT },
	{ "syscalls:sys_exit_munmap", FOL_EV_SYSCALL_EXIT },
	{ "syscalls:sys_exit_madvise", FOL_EV_SYSCALL_EXIT },
	{ "syscalls:sys_exit_mprotect", FOL_EV_SYSCALL_EXIT },
	{ "tlb:tlb_flush", FOL_EV_TLB_FLUSH },
	{ "huge_memory:mm_khugepaged_scan_pmd", FOL_EV_SCAN_PMD },
	{ "huge_memory:mm_collapse_huge_page_isolate", FOL_EV_COLLAPSE_ISOLATE },
	{ "huge_memory:mm_collapse_huge_page", FOL_EV_COLLAPSE },
	{ "cpu-clock", FOL_EV_CLOCK },
	{ "vmscan:mm_vmscan_write_folio", FOL_EV_WRITE_FOLIO },
	{ "vmscan:mm_vmscan_direct_reclaim_begin", FOL_EV_RECLAIM_BEGIN },
	{ "vmscan:mm_vmscan_direct_reclaim_end", FOL_EV_RECLAIM_END },
	/* A memory cgroup over its limit reclaims in the charging task: direct reclaim too. */
	{ "vmscan:mm_vmscan_memcg_reclaim_begin", FOL_EV_RECLAIM_BEGIN },
	{ "vmscan:mm_vmscan_memcg_reclaim_end", FOL_EV_RECLAIM_END },
	{ "vmscan:mm_vmscan_kswapd_wake", FOL_EV_KSWAPD_WAKE },
	{ "vmscan:mm_vmscan_kswapd_sleep", FOL_EV_KSWAPD_SLEEP },
	{ "mmap_lock:mmap_lock_acquire_returned", FOL_EV_MMAP_LOCK },
	{ "foliostat:faults", FOL_EV_PAIRED },
};

struct fol_decoder *fol_decoder_new(void)
{
	struct fol_decoder *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->tep = tep_alloc();
	if (!d->tep) {
		free(d);
		return NULL;
	}
	d->ids = fol_u64map_new(sizeof(int));
	if (!d->ids) {
		tep_free(d->tep);
		free(d);
		return NULL;
	}
	for (int k = 0; k < FOL_EV_NR_KINDS; k++)
		d->first_of[k] = -1;
	/* Recordings are made on x86-64 and arm64, both LP64: 8-byte longs, host byte order. */
	tep_set_long_size(d->tep, 8);
	return d;
}

void fol_decoder_free(struct fol_decoder *d)
{
	if (!d)
		return;
	for (int i = 0; i < d->n; i++) {
		free(d->ev[i].pub.name);
		free(d->ev[i].pub.kind);
		free(d->ev[i].pub.status);
	}
	free(d->ev);
	fol_u64map_free(d->ids);
	tep_free(d->tep);
	free(d);
}

static enum fol_kind kind_of(const char *name)
{
	for (size_t i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
		if (!strcmp(name, kind_names[i].name))
			return kind_names[i].kind;
	if (!strncmp(name, "huge_memory:", 12))
		return FOL_EV_HUGE;
	if (!strncmp(name, "migrate:", 8))
		return FOL_EV_MIGRATE;
	return FOL_EV_OTHER;
}

/* A field declaration as C writes it, rebuilt token by token into out: identifiers and
 * '*', each identifier optionally followed by array bounds ("[]", "[16]"); at least one
 * identifier of type before the name, which is the last identifier (ahead of its bounds).
 * libtraceevent leaks or misparses on anything else (found by fuzzing: "u[signed long pfn",
 * a name with no type). 0 and the name, or -FOL_E_BAD_FORMAT. */
static int clean_decl(const char *p, size_t len, char *out, size_t cap, char *name,
		      size_t name_cap)
{
	const char *end = p + len, *last = NULL;
	size_t o = 0, last_len = 0;
	int idents = 0;

	while (p < end) {
		const char *tok = p;

		if (*p == ' ') {
			p++;
			continue;
		}
		if (isalpha((unsigned char)*p) || *p == '_') {
			while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
				p++;
			last = tok;
			last_len = (size_t)(p - tok);
			idents++;
			while (p < end && *p == '[') { /* bounds right after an identifier */
				p++;
				while (p < end && isdigit((unsigned char)*p))
					p++;
				if (p >= end || *p != ']' || p - tok > 64)
					return -FOL_E_BAD_FORMAT;
				p++;
			}
		} else if (*p == '*') {
			p++;
		} else {
			return -FOL_E_BAD_FORMAT;
		}
		if (o + (size_t)(p - tok) + 2 > cap)
			return -FOL_E_BAD_FORMAT;
		if (o)
			out[o++] = ' ';
		memcpy(out + o, tok, (size_t)(p - tok));
		o += (size_t)(p - tok);
	}
	out[o] = '\0';
	if (idents < 2 || !last || last_len >= name_cap)
		return -FOL_E_BAD_FORMAT;
	memcpy(name, last, last_len);
	name[last_len] = '\0';
	return 0;
}

/* One "\tfield:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" line, checked and rewritten into
 * out; its name in name. Its length, or -FOL_E_BAD_FORMAT when it is not such a line. */
static int clean_field(const char *line, size_t len, char *out, size_t cap, char *name,
		       size_t name_cap)
{
	char decl[FOL_FIELD_DECL_MAX + 1];
	const char *p = line, *end = line + len, *semi;
	unsigned off, size, sgn;
	size_t dl;
	int n, used;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if ((size_t)(end - p) < 6 || memcmp(p, "field:", 6))
		return -FOL_E_BAD_FORMAT;
	p += 6;
	semi = memchr(p, ';', (size_t)(end - p));
	dl = semi ? (size_t)(semi - p) : 0;
	if (!dl || dl > FOL_FIELD_DECL_MAX || clean_decl(p, dl, decl, sizeof(decl), name, name_cap))
		return -FOL_E_BAD_FORMAT;
	if (sscanf(semi + 1, " offset:%u; size:%u; signed:%u;%n", &off, &size, &sgn, &used) != 3 ||
	    off > FOL_FIELD_OFFSET_MAX || size > FOL_FIELD_OFFSET_MAX || sgn > 1 ||
	    semi + 1 + used > end)
		return -FOL_E_BAD_FORMAT;
	n = snprintf(out, cap, "\tfield:%s;\toffset:%u;\tsize:%u;\tsigned:%u;\n", decl, off, size,
		     sgn);
	return n < 0 || (size_t)n >= cap ? -FOL_E_BAD_FORMAT : n;
}

/* The format text of a tracepoint is untrusted: libtraceevent parses it with recursion
 * and with work that grows faster than the text. foliostat reads fields only, never the
 * print format, so it hands libtraceevent a text rebuilt from the checked field lines
 * (names, offsets and sizes bounded) and an empty print format. */
int fol_decoder_clean_format(const char *in, char *out, size_t cap)
{
	const char *p = in, *fields;
	char line[FOL_FIELD_DECL_MAX + 96], name[64], evname[64];
	size_t o = 0;
	unsigned long long id;
	int nfields = 0, n, in_common = 1;

	if (sscanf(in, "name: %63[A-Za-z0-9_] ID: %llu ", evname, &id) != 2 || !id ||
	    id > 0xffff)
		return -FOL_E_BAD_FORMAT;
	fields = strstr(in, "\nformat:\n");
	if (!fields)
		return -FOL_E_BAD_FORMAT;
	n = snprintf(out, cap, "name: %s\nID: %llu\nformat:\n", evname, id);
	if (n < 0 || (size_t)n >= cap)
		return -FOL_E_BAD_FORMAT;
	o = (size_t)n;
	for (p = fields + 9; *p;) {
		size_t len = strcspn(p, "\n");
		int w;

		if (len >= 10 && !memcmp(p, "print fmt:", 10))
			break;
		if (len && strspn(p, " \t") < len) {
			w = clean_field(p, len, line, sizeof(line), name, sizeof(name));
			if (w < 0 || ++nfields > FOL_FIELDS_MAX || o + (size_t)w + 1 >= cap)
				return -FOL_E_BAD_FORMAT;
			/* libtraceevent wants the common_ fields first, then a blank line. */
			if (strncmp(name, "common_", 7)) {
				if (in_common) {
					out[o++] = '\n';
					in_common = 0;
				}
			} else if (!in_common) {
				return -FOL_E_BAD_FORMAT;
			}
			memcpy(out + o, line, (size_t)w);
			o += (size_t)w;
		}
		p += len + (p[len] == '\n');
	}
	if (in_common)
		out[o++] = '\n';
	n = snprintf(out + o, cap - o, "\nprint fmt: \"\"\n");
	if (n < 0 || (size_t)n >= cap - o)
		return -FOL_E_BAD_FORMAT;
	return (int)(o + (size_t)n);
}

/* 2^64 and 2^32 as doubles: a double at or past them does not convert to the integer
 * (undefined behaviour; the fuzzer's 1e300). */
#define TWO_64 18446744073709551616.0
#define TWO_32 4294967296.0

/* An attr's number in [0, limit); else *ok is cleared. */
static double num(const cJSON *o, const char *key, double limit, int *ok)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble < limit)) {
		*ok = 0;
		return 0;
	}
	return v->valuedouble;
}

/* A tracepoint's format text, as recorded, into libtraceevent (cleaned first: see
 * fol_decoder_clean_format) and the fields the model reads. 0, -FOL_E_BAD_FORMAT or
 * -ENOMEM. */
static int parse_format(struct fol_decoder *d, struct evd *e, const char *name, const char *fmt)
{
	const char *colon = strchr(name, ':');
	char sys[128], *clean;
	int n;

	if (!colon || (size_t)(colon - name) >= sizeof(sys))
		return -FOL_E_BAD_FORMAT;
	memcpy(sys, name, (size_t)(colon - name));
	sys[colon - name] = '\0';
	clean = malloc(FOL_FORMAT_MAX);
	if (!clean)
		return -ENOMEM;
	n = fol_decoder_clean_format(fmt, clean, FOL_FORMAT_MAX);
	if (n < 0 || tep_parse_format(d->tep, &e->tp, clean, (unsigned long)n, sys)) {
		free(clean);
		return -FOL_E_BAD_FORMAT;
	}
	free(clean);
	for (int f = 0; f < F_NR; f++)
		e->f[f] = tep_find_field(e->tp, field_names[f]);
	if (e->f[F_STATUS]) {
		struct fol_symbols sy;

		if (fol_symbols_parse(fmt, "status", &sy) && (e->pub.status = malloc(sizeof(sy))))
			*e->pub.status = sy;
	}
	return 0;
}

static void near_put(struct fol_decoder *d, uint64_t id, int idx)
{
	size_t i = id % (sizeof(d->near) / sizeof(d->near[0]));

	if (!d->near[i].id || d->near[i].id == id) {
		d->near[i].id = id;
		d->near[i].idx = idx;
	}
}

/* The sample ids of the event's file descriptors, to event index n. */
static int add_ids(struct fol_decoder *d, const cJSON *ids, int n)
{
	const cJSON *id;

	cJSON_ArrayForEach(id, ids)
	{
		int *slot;

		/* Id 0 would be the map's empty key; the kernel starts ids at 1. */
		if (!cJSON_IsNumber(id) || !(id->valuedouble >= 1 && id->valuedouble < TWO_64))
			return -FOL_E_BAD_FORMAT;
		slot = fol_u64map_put(d->ids, (uint64_t)id->valuedouble, NULL);
		if (!slot)
			return -ENOMEM;
		*slot = n + 1;
		near_put(d, (uint64_t)id->valuedouble, n + 1);
	}
	return 0;
}

/* Where a record's time and CPU are, from its start (a sample) or its end (the
 * sample_id trailer of other records), by the fields before them. */
static void locate_fields(struct evd *e)
{
	uint64_t st = e->pub.sample_type;

	if (st & PERF_SAMPLE_TIME) {
		e->time_off = (uint32_t)(sizeof(struct perf_event_header) + 8 +
					 8 * (!!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID)));
		e->time_from_end = (uint32_t)(8 * (1 + !!(st & PERF_SAMPLE_ID) +
						   !!(st & PERF_SAMPLE_STREAM_ID) +
						   !!(st & PERF_SAMPLE_CPU) + 1));
	}
	if (st & PERF_SAMPLE_CPU) {
		e->cpu_off = (uint32_t)(sizeof(struct perf_event_header) + 8 +
					8 * (!!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) +
					     !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR) +
					     !!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID)));
		e->cpu_from_end = 16;
	}
}

/* The attr's sample layout: only fields this decoder can step over, an IDENTIFIER
 * first, and the registers a REGS_USER sample holds. */
static int read_attr(struct evd *e, const cJSON *attr)
{
	int ok = 1;

	e->pub.type = (uint32_t)num(attr, "type", TWO_32, &ok);
	e->pub.config = (uint64_t)num(attr, "config", TWO_64, &ok);
	e->pub.sample_type = (uint64_t)num(attr, "sample_type", TWO_64, &ok);
	if (!ok || (e->pub.sample_type & ~(uint64_t)KNOWN_SAMPLE_BITS) ||
	    !(e->pub.sample_type & PERF_SAMPLE_IDENTIFIER))
		return -FOL_E_BAD_FORMAT;
	if (e->pub.sample_type & PERF_SAMPLE_REGS_USER) {
		e->regs_user = (uint64_t)num(attr, "sample_regs_user", TWO_64, &ok);
		if (!ok || !e->regs_user)
			return -FOL_E_BAD_FORMAT;
	}
	return 0;
}

int fol_decoder_add_event(struct fol_decoder *d, const char *json, size_t len)
{
	cJSON *j = cJSON_ParseWithLength(json, len), *attr, *ids;
	const cJSON *name, *kind, *fmt;
	struct evd *grown, *e = NULL;
	int ret = -FOL_E_BAD_FORMAT;

	if (!j || fol_json_repeats_keys(j)) {
		cJSON_Delete(j);
		return -FOL_E_BAD_FORMAT;
	}
	name = cJSON_GetObjectItemCaseSensitive(j, "name");
	kind = cJSON_GetObjectItemCaseSensitive(j, "kind");
	attr = cJSON_GetObjectItemCaseSensitive(j, "attr");
	ids = cJSON_GetObjectItemCaseSensitive(j, "ids");
	fmt = cJSON_GetObjectItemCaseSensitive(j, "format");
	if (!cJSON_IsString(name) || !cJSON_IsString(kind) || !cJSON_IsObject(attr) ||
	    !cJSON_IsArray(ids))
		goto out;
	grown = realloc(d->ev, sizeof(*d->ev) * (size_t)(d->n + 1));
	if (!grown) {
		ret = -ENOMEM;
		goto out;
	}
	d->ev = grown;
	e = &d->ev[d->n];
	memset(e, 0, sizeof(*e));
	if ((ret = read_attr(e, attr)) ||
	    (cJSON_IsString(fmt) && (ret = parse_format(d, e, name->valuestring, fmt->valuestring))) ||
	    (ret = add_ids(d, ids, d->n)))
		goto out;
	locate_fields(e);
	e->pub.name = strdup(name->valuestring);
	e->pub.kind = strdup(kind->valuestring);
	e->pub.fkind = kind_of(name->valuestring);
	e->pub.mm_threads = !strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "scope")) ?: "",
				    "mm-threads");
	if (!e->pub.mm_threads && d->first_of[e->pub.fkind] < 0)
		d->first_of[e->pub.fkind] = d->n;
	d->n++;
	ret = 0;
out:
	if (ret && e)
		free(e->pub.status); /* not added: nothing else holds it */
	cJSON_Delete(j);
	return ret;
}

int fol_decoder_nr_events(const struct fol_decoder *d)
{
	return d->n;
}

const struct fol_evdesc *fol_decoder_event(const struct fol_decoder *d, int idx)
{
	return idx >= 0 && idx < d->n ? &d->ev[idx].pub : NULL;
}

static int lookup(const struct fol_decoder *d, uint64_t id)
{
	size_t i = id % (sizeof(d->near) / sizeof(d->near[0]));
	const int *slot;

	if (!id)
		return -1;
	if (d->near[i].id == id)
		return d->near[i].idx - 1;
	slot = fol_u64map_get(d->ids, id);
	return slot ? *slot - 1 : -1;
}

/* Event of a record: IDENTIFIER is the first u64 of a sample and the last of any other
 * record (sample_id_all). */
static int record_event(const struct fol_decoder *d, const void *rec, size_t size)
{
	struct perf_event_header h;
	uint64_t id;

	if (size < sizeof(h) + sizeof(id))
		return -EBADMSG;
	memcpy(&h, rec, sizeof(h)); /* records sit at any alignment in a chunk */
	if (h.size != size)
		return -EBADMSG;
	if (h.type == PERF_RECORD_SAMPLE)
		memcpy(&id, (const char *)rec + sizeof(h), sizeof(id));
	else
		memcpy(&id, (const char *)rec + size - sizeof(id), sizeof(id));
	return lookup(d, id);
}

struct cursor {
	const char *p, *end;
};

static int take(struct cursor *c, void *out, size_t n)
{
	if ((size_t)(c->end - c->p) < n)
		return -EBADMSG;
	if (out)
		memcpy(out, c->p, n);
	c->p += n;
	return 0;
}

/* sample_id trailer of a non-sample record: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER. */
static int parse_trailer(uint64_t st, const char *rec, size_t size, struct fol_event *ev)
{
	size_t n = 0;
	struct cursor c;
	uint32_t two[2];

	n += !!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ID) +
	     !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU) +
	     !!(st & PERF_SAMPLE_IDENTIFIER);
	if (size < sizeof(struct perf_event_header) + n * 8)
		return -EBADMSG;
	c.p = rec + size - n * 8;
	c.end = rec + size;
	if (st & PERF_SAMPLE_TID) {
		take(&c, two, 8);
		ev->pid = (int)two[0];
		ev->tid = (int)two[1];
	}
	if (st & PERF_SAMPLE_TIME)
		take(&c, &ev->time, 8);
	if (st & PERF_SAMPLE_ID)
		take(&c, NULL, 8);
	if (st & PERF_SAMPLE_STREAM_ID)
		take(&c, NULL, 8);
	if (st & PERF_SAMPLE_CPU) {
		take(&c, two, 8);
		ev->cpu = (int)two[0];
	}
	return (int)(n * 8);
}

int fol_decoder_set_fault_ranges(struct fol_decoder *d, const uint64_t *ranges, int n)
{
	if (n < 0 || n > 8)
		return -EINVAL;
	memcpy(d->ranges, ranges, sizeof(uint64_t) * 2 * (size_t)n);
	d->nranges = n;
	return 0;
}

static int in_ranges(const struct fol_decoder *d, uint64_t ip)
{
	for (int i = 0; i < d->nranges; i++)
		if (ip >= d->ranges[2 * i] && ip < d->ranges[2 * i + 1])
			return 1;
	return 0;
}

/* --call-graph dwarf: the user registers (an ABI word, then one u64 per bit of the mask
 * unless the ABI is NONE: a kernel thread) and the stack copy (its size, the bytes, then
 * how many of them the kernel could copy). */
static int parse_user_stack(uint64_t st, uint64_t regs_user, struct cursor *c, struct fol_event *ev)
{
	uint64_t abi, size, dyn;

	if (st & PERF_SAMPLE_REGS_USER) {
		uint64_t n = (uint64_t)__builtin_popcountll(regs_user);

		if (take(c, &abi, 8))
			return -EBADMSG;
		if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
			if ((uint64_t)(c->end - c->p) / 8 < n)
				return -EBADMSG;
			/* A 32-bit task's registers are another set: stepped over, not used. */
			if (abi == PERF_SAMPLE_REGS_ABI_64) {
				ev->regs = c->p;
				ev->regs_mask = regs_user;
			}
			c->p += 8 * n;
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		if (take(c, &size, 8) || (uint64_t)(c->end - c->p) < size)
			return -EBADMSG;
		if (size) {
			const char *data = c->p;

			c->p += size;
			if (take(c, &dyn, 8) || dyn > size)
				return -EBADMSG;
			ev->stack = data;
			ev->stack_size = dyn;
		}
	}
	return 0;
}

static int parse_sample(const struct fol_decoder *d, const struct evd *e, const char *rec, size_t size,
			struct fol_event *ev, uint64_t *ip, uint64_t *addr, const uint64_t **chain,
			int *nchain)
{
	uint64_t st = e->pub.sample_type;
	struct cursor c = { rec + sizeof(struct perf_event_header), rec + size };
	uint32_t two[2], raw_size;

	if (take(&c, NULL, 8)) /* IDENTIFIER */
		return -EBADMSG;
	if ((st & PERF_SAMPLE_IP) && take(&c, ip, 8))
		return -EBADMSG;
	if (st & PERF_SAMPLE_TID) {
		if (take(&c, two, 8))
			return -EBADMSG;
		ev->pid = (int)two[0];
		ev->tid = (int)two[1];
	}
	if ((st & PERF_SAMPLE_TIME) && take(&c, &ev->time, 8))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_ADDR) && take(&c, addr, 8))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_ID) && take(&c, NULL, 8))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_STREAM_ID) && take(&c, NULL, 8))
		return -EBADMSG;
	if (st & PERF_SAMPLE_CPU) {
		if (take(&c, two, 8))
			return -EBADMSG;
		ev->cpu = (int)two[0];
	}
	if ((st & PERF_SAMPLE_PERIOD) && take(&c, &ev->clock.period, 8))
		return -EBADMSG;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr, pc = 0;

		if (take(&c, &nr, 8) || nr > (uint64_t)(c.end - c.p) / 8)
			return -EBADMSG;
		*chain = (const uint64_t *)c.p;
		*nchain = (int)(nr > 4096 ? 4096 : nr);
		for (uint64_t i = 0; i < nr; i++) {
			take(&c, &pc, 8);
			/* Context markers (PERF_CONTEXT_KERNEL...) sit at the top of the range. */
			if (pc < PERF_CONTEXT_MAX && in_ranges(d, pc))
				ev->clock.in_fault = 1;
		}
	}
	if (st & PERF_SAMPLE_RAW) {
		if (take(&c, &raw_size, 4) || (size_t)(c.end - c.p) < raw_size)
			return -EBADMSG;
		ev->raw = c.p;
		ev->raw_size = raw_size;
		c.p += raw_size;
	}
	if (parse_user_stack(st, e->regs_user, &c, ev))
		return -EBADMSG;
	/* What else lies between RAW and CGROUP (branch stacks, weights...) is never asked
	 * for: KNOWN_SAMPLE_BITS refused it when the event was added. */
	if ((st & PERF_SAMPLE_CGROUP) && take(&c, &ev->cgroup, 8))
		return -EBADMSG;
	return 0;
}

int fol_decoder_time(const struct fol_decoder *d, const void *rec, size_t size, uint64_t *time)
{
	struct perf_event_header h;
	const struct evd *e;
	int idx = record_event(d, rec, size);

	if (idx < 0)
		return idx == -1 ? -ENOENT : idx;
	e = &d->ev[idx];
	*time = 0;
	if (!e->time_off)
		return 0;
	memcpy(&h, rec, sizeof(h));
	if (h.type == PERF_RECORD_SAMPLE) {
		if (size < e->time_off + 8)
			return -EBADMSG;
		memcpy(time, (const char *)rec + e->time_off, 8);
	} else {
		if (size < sizeof(h) + e->time_from_end)
			return -EBADMSG;
		memcpy(time, (const char *)rec + size - e->time_from_end, 8);
	}
	return 0;
}

int fol_decoder_cpu(const struct fol_decoder *d, const void *rec, size_t size)
{
	struct perf_event_header h;
	const struct evd *e;
	int idx = record_event(d, rec, size);
	uint32_t cpu;

	if (idx < 0 || !d->ev[idx].cpu_off)
		return -1;
	e = &d->ev[idx];
	memcpy(&h, rec, sizeof(h));
	if (h.type == PERF_RECORD_SAMPLE) {
		if (size < e->cpu_off + 4)
			return -1;
		memcpy(&cpu, (const char *)rec + e->cpu_off, 4);
	} else {
		if (size < sizeof(h) + e->cpu_from_end)
			return -1;
		memcpy(&cpu, (const char *)rec + size - e->cpu_from_end, 4);
	}
	return cpu < FOL_MAX_CPUS ? (int)cpu : -1;
}

int fol_decoder_ring(const struct fol_decoder *d, const void *rec, size_t size)
{
	int cpu = fol_decoder_cpu(d, rec, size), idx = record_event(d, rec, size);

	return cpu < 0 || idx < 0 ? -1 : 2 * cpu + !!d->ev[idx].pub.mm_threads;
}

/* A number field's value, bounds-checked against the payload (a hostile file must not
 * make the decoder read past the record), signed ones narrower than 64 bits
 * sign-extended. 0, or -EBADMSG. */
static int number_field(const struct tep_format_field *fl, const struct fol_event *ev,
			unsigned long long *v)
{
	uint64_t x = 0;

	*v = 0;
	if (!fl || (unsigned)fl->offset + (unsigned)fl->size > ev->raw_size ||
	    (fl->size != 1 && fl->size != 2 && fl->size != 4 && fl->size != 8))
		return -EBADMSG;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* Into x's low bytes, as tep_read_number_field() reads it (the decoder's tep keeps
	 * this machine's byte order, in which the kernel wrote the records), without its two
	 * calls a field: they were a tenth of a build's report. */
	memcpy(&x, (const char *)ev->raw + fl->offset, (size_t)fl->size);
#else
	if (tep_read_number_field((struct tep_format_field *)fl, ev->raw, (unsigned long long *)&x))
		return -EBADMSG;
#endif
	*v = x;
	if ((fl->flags & TEP_FIELD_IS_SIGNED) && fl->size < 8 && (*v >> (fl->size * 8 - 1)) & 1)
		*v |= ~0ull << (fl->size * 8);
	return 0;
}

/* One of the fields the model reads: 0 when missing or out of bounds. */
static uint64_t field(const struct evd *e, enum field_id f, const struct fol_event *ev)
{
	unsigned long long v;

	return number_field(e->f[f], ev, &v) ? 0 : v;
}

/* A folio order as the kernel can allocate it: anything else in a file is damage, and
 * the model shifts by it. */
static int order_ok(uint64_t order)
{
	return order <= FOL_MAX_ORDER;
}

/* Fills ev from the payload; -EBADMSG when a value is out of the range the kernel can
 * produce (checked here once, so that the model may trust a decoded event). */
static int decode_tracepoint(const struct evd *e, struct fol_event *ev)
{
	uint64_t order;

	switch (ev->kind) {
	case FOL_EV_FAULT_USER:
	case FOL_EV_FAULT_KERNEL:
		ev->fault.address = field(e, F_ADDRESS, ev);
		ev->fault.ip = field(e, F_IP, ev);
		ev->fault.error_code = field(e, F_ERROR_CODE, ev);
		break;
	case FOL_EV_PAGE_ALLOC:
	case FOL_EV_PAGE_FREE:
		ev->page.pfn = field(e, F_PFN, ev);
		order = field(e, F_ORDER, ev);
		if (!order_ok(order))
			return -EBADMSG;
		ev->page.order = (int)order;
		ev->page.gfp = field(e, F_GFP, ev);
		break;
	case FOL_EV_RSS_STAT:
		ev->rss.member = (int)field(e, F_MEMBER, ev);
		ev->rss.size = (int64_t)field(e, F_SIZE, ev);
		ev->rss.mm_id = (uint32_t)field(e, F_MM_ID, ev);
		break;
	case FOL_EV_FILEMAP_ADD:
		ev->filemap.pfn = field(e, F_PFN, ev);
		order = field(e, F_ORDER, ev);
		if (!order_ok(order))
			return -EBADMSG;
		ev->filemap.order = (int)order;
		ev->filemap.ino = field(e, F_I_INO, ev);
		ev->filemap.index = field(e, F_INDEX, ev);
		ev->filemap.dev = (uint32_t)field(e, F_S_DEV, ev);
		break;
	case FOL_EV_MUNMAP:
		ev->vm.start = field(e, F_ADDR, ev);
		ev->vm.len = field(e, F_LEN, ev);
		break;
	case FOL_EV_MADVISE:
		ev->vm.start = field(e, F_START, ev);
		ev->vm.len = field(e, F_LEN_IN, ev);
		ev->vm.behavior = (int64_t)field(e, F_BEHAVIOR, ev);
		break;
	case FOL_EV_MREMAP:
		ev->vm.start = field(e, F_ADDR, ev);
		ev->vm.len = field(e, F_OLD_LEN, ev);
		ev->vm.new_len = field(e, F_NEW_LEN, ev);
		ev->vm.flags = field(e, F_FLAGS, ev);
		ev->vm.new_addr = field(e, F_NEW_ADDR, ev);
		break;
	case FOL_EV_MPROTECT:
		ev->vm.start = field(e, F_START, ev);
		ev->vm.len = field(e, F_LEN, ev);
		break;
	case FOL_EV_MREMAP_EXIT:
	case FOL_EV_SYSCALL_EXIT:
		ev->vm.ret = (int64_t)field(e, F_RET, ev);
		break;
	case FOL_EV_SCAN_PMD:
	case FOL_EV_COLLAPSE_ISOLATE:
	case FOL_EV_COLLAPSE:
		ev->huge.mm = field(e, F_MM, ev);
		ev->huge.status = (int)field(e, F_STATUS, ev);
		break;
	case FOL_EV_WRITE_FOLIO:
		ev->page.pfn = field(e, F_PFN, ev);
		break;
	case FOL_EV_RECLAIM_END:
		ev->reclaim.nr_reclaimed = field(e, F_NR_RECLAIMED, ev);
		break;
	case FOL_EV_MMAP_LOCK:
		ev->lock.mm = field(e, F_MM, ev);
		break;
	default:
		break;
	}
	return 0;
}

/* A NUL-terminated string inside [p, end), or NULL. */
static const char *str_in(const char *p, const char *end)
{
	return p < end && memchr(p, '\0', (size_t)(end - p)) ? p : NULL;
}

static int decode_sideband(const char *rec, size_t size, int trailer, struct fol_event *ev)
{
	struct perf_event_header h;
	const char *body = rec + sizeof(h), *end = rec + size - trailer;
	uint32_t u32[4];

	memcpy(&h, rec, sizeof(h));
	switch (h.type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		uint64_t u64[3];

		if (end - body < 8 + 24)
			return -EBADMSG;
		ev->kind = FOL_EV_MMAP;
		memcpy(u32, body, 8);
		memcpy(u64, body + 8, 24);
		ev->pid = (int)u32[0];
		ev->tid = (int)u32[1];
		ev->mmap.start = u64[0];
		ev->mmap.len = u64[1];
		ev->mmap.pgoff = u64[2];
		body += 32;
		if (h.type == PERF_RECORD_MMAP2) {
			/* maj/min/ino/ino_generation or build id: 24 bytes, then prot, flags */
			if (end - body < 24 + 8)
				return -EBADMSG;
			if (!(h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
				memcpy(&ev->mmap.maj, body, 4);
				memcpy(&ev->mmap.min, body + 4, 4);
				memcpy(&ev->mmap.ino, body + 8, 8);
			}
			memcpy(&ev->mmap.prot, body + 24, 4);
			memcpy(&ev->mmap.flags, body + 28, 4);
			body += 32;
		}
		ev->mmap.filename = str_in(body, end);
		return ev->mmap.filename ? 1 : -EBADMSG;
	}
	case PERF_RECORD_COMM:
		if (end - body < 8)
			return -EBADMSG;
		ev->kind = FOL_EV_COMM;
		memcpy(u32, body, 8);
		ev->pid = (int)u32[0];
		ev->tid = (int)u32[1];
		ev->comm.comm = str_in(body + 8, end);
		ev->comm.exec = !!(h.misc & PERF_RECORD_MISC_COMM_EXEC);
		return ev->comm.comm ? 1 : -EBADMSG;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (end - body < 16)
			return -EBADMSG;
		ev->kind = h.type == PERF_RECORD_FORK ? FOL_EV_FORK : FOL_EV_EXIT;
		memcpy(u32, body, 16);
		ev->fork.pid = (int)u32[0];
		ev->fork.ppid = (int)u32[1];
		ev->fork.tid = (int)u32[2];
		ev->fork.ptid = (int)u32[3];
		ev->pid = ev->fork.pid;
		ev->tid = ev->fork.tid;
		return 1;
	case PERF_RECORD_LOST:
		if (end - body < 16)
			return -EBADMSG;
		ev->kind = FOL_EV_LOST;
		memcpy(&ev->lost.lost, body + 8, 8);
		return 1;
	case PERF_RECORD_LOST_SAMPLES:
		if (end - body < 8)
			return -EBADMSG;
		ev->kind = FOL_EV_LOST;
		memcpy(&ev->lost.lost, body, 8);
		return 1;
	case PERF_RECORD_CGROUP:
		if (end - body < 8)
			return -EBADMSG;
		ev->kind = FOL_EV_CGROUP;
		memcpy(&ev->cg.id, body, 8);
		ev->cg.path = str_in(body + 8, end);
		return ev->cg.path ? 1 : -EBADMSG;
	default:
		return 0;
	}
}

/* One side of a BPF path record as the event the plain path's sample would have been. */
static int paired_event(struct fol_decoder *d, enum fol_kind kind, uint64_t time, struct fol_event *ev)
{
	int idx = d->first_of[kind];

	if (idx < 0)
		return -EBADMSG;
	ev->kind = kind;
	ev->evidx = idx;
	ev->time = time;
	ev->paired = 1;
	d->ev[idx].pub.samples++;
	return idx;
}

/* A record of the BPF path (bpf_record.h) into the fault entry and exit events it stands
 * for: the entry into ev, the exit kept for fol_decoder_more() when both are there. */
static int decode_paired(struct fol_decoder *d, struct fol_event *ev)
{
	struct fol_bpf_rec r;
	struct fol_event x;
	int idx;

	/* An exit alone leaves the raw copy out. */
	memset(&r, 0, sizeof(r));
	if (!ev->raw || ev->raw_size < offsetof(struct fol_bpf_rec, raw))
		return -EBADMSG;
	memcpy(&r, ev->raw, ev->raw_size < sizeof(r) ? ev->raw_size : sizeof(r));
	if (!r.what || r.what > FOL_BPF_FAULT || (r.flags & ~(FOL_BPF_KERNEL | FOL_BPF_MAJOR)) ||
	    ((r.what & FOL_BPF_ENTRY) && (ev->raw_size < sizeof(r) || r.raw_size > FOL_BPF_RAW_MAX)) ||
	    (r.what == FOL_BPF_FAULT && r.t1 < r.t0))
		return -EBADMSG;
	x = *ev;
	x.raw = NULL;
	x.raw_size = 0;
	if ((r.what & FOL_BPF_EXIT) &&
	    paired_event(d, r.flags & FOL_BPF_MAJOR ? FOL_EV_FAULT_EXIT_MAJ : FOL_EV_FAULT_EXIT, r.t1, &x) < 0)
		return -EBADMSG;
	x.exit.addr = r.addr;
	if (!(r.what & FOL_BPF_ENTRY)) {
		*ev = x;
		return 1;
	}
	ev->raw = (const char *)ev->raw + offsetof(struct fol_bpf_rec, raw);
	ev->raw_size = r.raw_size;
	idx = paired_event(d, r.flags & FOL_BPF_KERNEL ? FOL_EV_FAULT_KERNEL : FOL_EV_FAULT_USER, r.t0, ev);
	if (idx < 0 || !d->ev[idx].tp || decode_tracepoint(&d->ev[idx], ev))
		return -EBADMSG;
	if (r.what & FOL_BPF_EXIT) {
		d->more = x;
		d->has_more = 1;
	}
	return 1;
}

int fol_decoder_more(struct fol_decoder *d, struct fol_event *ev)
{
	if (!d->has_more)
		return 0;
	*ev = d->more;
	d->has_more = 0;
	return 1;
}

int fol_decoder_decode(struct fol_decoder *d, const void *rec, size_t size, struct fol_event *ev)
{
	struct perf_event_header h;
	struct evd *e;
	uint64_t ip = 0, addr = 0, first;
	const uint64_t *chain = NULL;
	int idx, ret, trailer, nchain = 0;


	memset(ev, 0, sizeof(*ev));
	ev->evidx = -1;
	d->has_more = 0;
	idx = record_event(d, rec, size);
	if (idx == -EBADMSG)
		return idx;
	if (idx < 0)
		return 0;
	e = &d->ev[idx];
	memcpy(&h, rec, sizeof(h));
	if (h.type != PERF_RECORD_SAMPLE) {
		trailer = parse_trailer(e->pub.sample_type, rec, size, ev);
		if (trailer < 0)
			return trailer;
		ret = decode_sideband(rec, size, trailer, ev);
		return ret;
	}
	ret = parse_sample(d, e, rec, size, ev, &ip, &addr, &chain, &nchain);
	if (ret)
		return ret;
	ev->evidx = idx;
	ev->kind = e->pub.fkind;
	e->pub.samples++;
	if (ev->kind == FOL_EV_PAIRED)
		return decode_paired(d, ev);
	if (!e->tp && ev->kind != FOL_EV_CLOCK)
		ev->exit.addr = addr;
	else if (ev->raw && decode_tracepoint(e, ev))
		return -EBADMSG;
	if ((ev->kind == FOL_EV_FAULT_USER || ev->kind == FOL_EV_FAULT_KERNEL) && nchain > 0) {
		/* User stacks only (exclude_callchain_kernel): PERF_CONTEXT_USER first. */
		memcpy(&first, chain, 8);
		ev->fault.chain = first >= PERF_CONTEXT_MAX ? (const char *)chain + 8 : (const void *)chain;
		ev->fault.nchain = first >= PERF_CONTEXT_MAX ? nchain - 1 : nchain;
	}
	return 1;
}

/* A __data_loc/__rel_loc field holds offset | length << 16 of its data: in a hostile
 * record both can point anywhere, and libtraceevent would read there. */
static int dynamic_in_bounds(const struct tep_format_field *f, const struct fol_event *ev)
{
	uint32_t loc, off, len;

	if (!(f->flags & TEP_FIELD_IS_DYNAMIC))
		return 1;
	if (f->size != 4)
		return 0;
	memcpy(&loc, (const char *)ev->raw + f->offset, 4);
	off = loc & 0xffff;
	len = loc >> 16;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += (uint32_t)f->offset + 4;
	return off + len <= ev->raw_size;
}

/* A string or array field's content, printed from a copy of the record with a NUL after
 * it: libtraceevent reads a string up to its NUL, and a hostile record's last string may
 * have none (its read ran past the buffer). */
static void print_string_field(struct trace_seq *s, const struct fol_event *ev,
			       const struct tep_format_field *f)
{
	char small[1024], *copy = ev->raw_size < sizeof(small) ? small : malloc(ev->raw_size + 1);

	if (!copy)
		return;
	memcpy(copy, ev->raw, ev->raw_size);
	copy[ev->raw_size] = '\0';
	tep_print_field_content(s, copy, (int)ev->raw_size, (struct tep_format_field *)f);
	if (copy != small)
		free(copy);
}

void fol_decoder_format(const struct fol_decoder *d, const struct fol_event *ev, char *buf,
			size_t len)
{
	const struct evd *e;
	struct tep_format_field **fields;
	struct trace_seq s;

	if (!len)
		return;
	buf[0] = '\0';
	if (ev->evidx < 0 || ev->evidx >= d->n)
		return;
	e = &d->ev[ev->evidx];
	if (!e->tp || !ev->raw)
		return;
	trace_seq_init(&s);
	fields = tep_event_fields(e->tp);
	for (int i = 0; fields && fields[i]; i++) {
		const struct tep_format_field *f = fields[i];

		if ((unsigned)f->offset + (unsigned)f->size > ev->raw_size)
			continue;
		trace_seq_printf(&s, " %s=", f->name);
		if (!dynamic_in_bounds(f, ev)) {
			trace_seq_puts(&s, "?");
		} else if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING)) {
			print_string_field(&s, ev, f);
		} else {
			unsigned long long v = 0;

			tep_read_number_field((struct tep_format_field *)f, ev->raw, &v);
			if (f->flags & TEP_FIELD_IS_SIGNED)
				trace_seq_printf(&s, "%lld", f->size == 4 ? (long long)(int)v
									  : (long long)v);
			else if (f->size == 8)
				trace_seq_printf(&s, "0x%llx", v);
			else
				trace_seq_printf(&s, "%llu", v);
		}
	}
	free(fields);
	trace_seq_terminate(&s);
	snprintf(buf, len, "%s", s.buffer ? s.buffer : "");
	trace_seq_destroy(&s);
}

void fol_decoder_fields_json(const struct fol_decoder *d, const struct fol_event *ev, cJSON *obj)
{
	const struct evd *e;
	struct tep_format_field **fields;
	char esc[8192];

	if (ev->evidx < 0 || ev->evidx >= d->n)
		return;
	e = &d->ev[ev->evidx];
	if (!e->tp || !ev->raw)
		return;
	fields = tep_event_fields(e->tp);
	for (int i = 0; fields && fields[i]; i++) {
		const struct tep_format_field *f = fields[i];

		if ((unsigned)f->offset + (unsigned)f->size > ev->raw_size || !dynamic_in_bounds(f, ev))
			continue;
		if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING)) {
			struct trace_seq s;

			trace_seq_init(&s);
			print_string_field(&s, ev, f);
			trace_seq_terminate(&s);
			/* A hostile record's bytes: escaped to text that is valid UTF-8. */
			cJSON_AddStringToObject(obj, f->name, fol_escape(s.buffer ? s.buffer : "", esc, sizeof(esc)));
			trace_seq_destroy(&s);
		} else {
			unsigned long long v;
			char hex[24];

			if (number_field(f, ev, &v))
				continue;
			if ((f->flags & TEP_FIELD_IS_SIGNED) && (long long)v >= -(1ll << 53) &&
			    (long long)v <= (1ll << 53)) {
				cJSON_AddNumberToObject(obj, f->name, (double)(long long)v);
			} else if (!(f->flags & TEP_FIELD_IS_SIGNED) && v <= (1ull << 53)) {
				cJSON_AddNumberToObject(obj, f->name, (double)v);
			} else {
				snprintf(hex, sizeof(hex), "0x%llx", v);
				cJSON_AddStringToObject(obj, f->name, hex);
			}
		}
	}
	free(fields);
}
