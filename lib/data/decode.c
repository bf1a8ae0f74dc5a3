// SPDX-License-Identifier: GPL-2.0-only
#include "data/decode.h"
#include "data/decode_priv.h"

#include <errno.h>
#include <event-parse.h>
#include <linux/perf_event.h>
#include <stdlib.h>

#include "data/recording.h"
#include "util/errors.h"
#include "util/grow.h"
#include "util/u64map.h"
#include "util/json.h"

static const char *const field_names[F_NR] = {
	"address", "ip", "error_code", "pfn", "order", "gfp_flags", "member", "size", "mm_id",
	"addr", "len", "start", "len_in", "behavior", "old_len", "new_len", "flags", "new_addr",
	"ret", "status", "mm", "nr_reclaimed", "i_ino", "index", "s_dev", "common_flags",
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
	{ "syscalls:sys_enter_mmap", FOL_EV_MMAP_CALL },
	{ "syscalls:sys_exit_mmap", FOL_EV_SYSCALL_EXIT },
	{ "syscalls:sys_enter_mlock", FOL_EV_MLOCK },
	{ "syscalls:sys_exit_mlock", FOL_EV_SYSCALL_EXIT },
	{ "syscalls:sys_enter_mlock2", FOL_EV_MLOCK },
	{ "syscalls:sys_exit_mlock2", FOL_EV_SYSCALL_EXIT },
	{ "syscalls:sys_enter_mlockall", FOL_EV_MLOCK },
	{ "syscalls:sys_exit_mlockall", FOL_EV_SYSCALL_EXIT },
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

/* 2^64 and 2^32 as doubles: a double at or past them does not convert to the integer
 * (undefined behaviour; the fuzzer's 1e300). */
#define TWO_64 18446744073709551616.0
#define TWO_32 4294967296.0

/* An attr's number in [0, limit); else *ok is cleared. */
static double attr_num(const cJSON *o, const char *key, double limit, int *ok)
{
	double v = fol_json_num(o, key, -1);

	if (!(v >= 0 && v < limit)) {
		*ok = 0;
		return 0;
	}
	return v;
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
		e->f[f] = tep_find_any_field(e->tp, field_names[f]);
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

	e->pub.type = (uint32_t)attr_num(attr, "type", TWO_32, &ok);
	e->pub.config = (uint64_t)attr_num(attr, "config", TWO_64, &ok);
	e->pub.sample_type = (uint64_t)attr_num(attr, "sample_type", TWO_64, &ok);
	if (!ok || (e->pub.sample_type & ~(uint64_t)KNOWN_SAMPLE_BITS) ||
	    !(e->pub.sample_type & PERF_SAMPLE_IDENTIFIER))
		return -FOL_E_BAD_FORMAT;
	if (e->pub.sample_type & PERF_SAMPLE_REGS_USER) {
		e->regs_user = (uint64_t)attr_num(attr, "sample_regs_user", TWO_64, &ok);
		if (!ok || !e->regs_user)
			return -FOL_E_BAD_FORMAT;
	}
	return 0;
}

int fol_decoder_add_event(struct fol_decoder *d, const char *json, size_t len)
{
	cJSON *j = cJSON_ParseWithLength(json, len), *attr, *ids;
	const cJSON *name, *kind, *fmt;
	struct evd *e = NULL;
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
	if (FOL_GROW(d->ev, d->ev_cap, (size_t)d->n + 1, 16)) {
		ret = -ENOMEM;
		goto out;
	}
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

int dec_record_event(const struct fol_decoder *d, const void *rec, size_t size)
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
	idx = dec_record_event(d, rec, size);
	if (idx == -EBADMSG)
		return idx;
	if (idx < 0)
		return 0;
	e = &d->ev[idx];
	memcpy(&h, rec, sizeof(h));
	if (h.type != PERF_RECORD_SAMPLE) {
		trailer = dec_parse_trailer(e->pub.sample_type, rec, size, ev);
		if (trailer < 0)
			return trailer;
		ret = dec_sideband(rec, size, trailer, ev);
		return ret;
	}
	ret = dec_parse_sample(d, e, rec, size, ev, &ip, &addr, &chain, &nchain);
	if (ret)
		return ret;
	ev->evidx = idx;
	ev->kind = e->pub.fkind;
	e->pub.samples++;
	if (ev->kind == FOL_EV_PAIRED)
		return dec_paired(d, ev);
	if (!e->tp && ev->kind != FOL_EV_CLOCK)
		ev->exit.addr = addr;
	else if (ev->raw && dec_tracepoint(e, ev))
		return -EBADMSG;
	if ((ev->kind == FOL_EV_FAULT_USER || ev->kind == FOL_EV_FAULT_KERNEL) && nchain > 0) {
		/* User stacks only (exclude_callchain_kernel): PERF_CONTEXT_USER first. */
		memcpy(&first, chain, 8);
		ev->fault.chain = first >= PERF_CONTEXT_MAX ? (const char *)chain + 8 : (const void *)chain;
		ev->fault.nchain = first >= PERF_CONTEXT_MAX ? nchain - 1 : nchain;
	}
	return 1;
}
