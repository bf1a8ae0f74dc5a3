// SPDX-License-Identifier: GPL-2.0-only
/* A sample made into a fol_event: tracepoint fields read by name, the kernel's side-band
 * records (MMAP2, COMM, FORK, EXIT), and the BPF path's records split into the fault
 * entry and exit they stand for. */
#include "data/decode_priv.h"

#include <errno.h>
#include <event-parse.h>
#include <linux/perf_event.h>

#include "data/bpf_record.h"
#include "util/order.h"

_Static_assert(FOL_BPF_MAX_FILE_ORDER == FOL_MAX_ORDER, "the programs read the orders the model counts");

int dec_number_field(const struct tep_format_field *fl, const struct fol_event *ev,
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

uint64_t dec_field(const struct evd *e, enum field_id f, const struct fol_event *ev)
{
	unsigned long long v;

	return dec_number_field(e->f[f], ev, &v) ? 0 : v;
}

/* A folio order as the kernel can allocate it: anything else in a file is damage, and
 * the model shifts by it. */
static int order_ok(uint64_t order)
{
	return order <= FOL_MAX_ORDER;
}

int dec_tracepoint(const struct evd *e, struct fol_event *ev)
{
	uint64_t order;

	switch (ev->kind) {
	case FOL_EV_FAULT_USER:
	case FOL_EV_FAULT_KERNEL:
		ev->fault.address = dec_field(e, F_ADDRESS, ev);
		ev->fault.ip = dec_field(e, F_IP, ev);
		ev->fault.error_code = dec_field(e, F_ERROR_CODE, ev);
		break;
	case FOL_EV_PAGE_ALLOC:
	case FOL_EV_PAGE_FREE:
		ev->page.pfn = dec_field(e, F_PFN, ev);
		order = dec_field(e, F_ORDER, ev);
		if (!order_ok(order))
			return -EBADMSG;
		ev->page.order = (int)order;
		ev->page.gfp = dec_field(e, F_GFP, ev);
		/* The trace flags' hard and soft interrupt and NMI bits (the kernel's
		 * TRACE_FLAG_HARDIRQ, _SOFTIRQ, _NMI): a page freed by an RCU callback or
		 * an interrupt, not by the thread it interrupted. */
		ev->page.in_irq = !!(dec_field(e, F_COMMON_FLAGS, ev) & 0x58);
		break;
	case FOL_EV_RSS_STAT:
		ev->rss.member = (int)dec_field(e, F_MEMBER, ev);
		ev->rss.size = (int64_t)dec_field(e, F_SIZE, ev);
		ev->rss.mm_id = (uint32_t)dec_field(e, F_MM_ID, ev);
		break;
	case FOL_EV_FILEMAP_ADD:
		ev->filemap.pfn = dec_field(e, F_PFN, ev);
		order = dec_field(e, F_ORDER, ev);
		if (!order_ok(order))
			return -EBADMSG;
		ev->filemap.order = (int)order;
		ev->filemap.ino = dec_field(e, F_I_INO, ev);
		ev->filemap.index = dec_field(e, F_INDEX, ev);
		ev->filemap.dev = (uint32_t)dec_field(e, F_S_DEV, ev);
		break;
	case FOL_EV_MUNMAP:
		ev->vm.start = dec_field(e, F_ADDR, ev);
		ev->vm.len = dec_field(e, F_LEN, ev);
		break;
	case FOL_EV_MADVISE:
		ev->vm.start = dec_field(e, F_START, ev);
		ev->vm.len = dec_field(e, F_LEN_IN, ev);
		ev->vm.behavior = (int64_t)dec_field(e, F_BEHAVIOR, ev);
		break;
	case FOL_EV_MREMAP:
		ev->vm.start = dec_field(e, F_ADDR, ev);
		ev->vm.len = dec_field(e, F_OLD_LEN, ev);
		ev->vm.new_len = dec_field(e, F_NEW_LEN, ev);
		ev->vm.flags = dec_field(e, F_FLAGS, ev);
		ev->vm.new_addr = dec_field(e, F_NEW_ADDR, ev);
		break;
	case FOL_EV_MPROTECT:
	case FOL_EV_MLOCK:
		ev->vm.start = dec_field(e, F_START, ev);
		ev->vm.len = dec_field(e, F_LEN, ev);
		break;
	case FOL_EV_MMAP_CALL:
		ev->vm.start = dec_field(e, F_ADDR, ev);
		ev->vm.len = dec_field(e, F_LEN, ev);
		ev->vm.flags = dec_field(e, F_FLAGS, ev);
		break;
	case FOL_EV_MREMAP_EXIT:
	case FOL_EV_SYSCALL_EXIT:
		ev->vm.ret = (int64_t)dec_field(e, F_RET, ev);
		break;
	case FOL_EV_SCAN_PMD:
	case FOL_EV_COLLAPSE_ISOLATE:
	case FOL_EV_COLLAPSE:
		ev->huge.mm = dec_field(e, F_MM, ev);
		ev->huge.status = (int)dec_field(e, F_STATUS, ev);
		break;
	case FOL_EV_WRITE_FOLIO:
		ev->page.pfn = dec_field(e, F_PFN, ev);
		break;
	case FOL_EV_RECLAIM_END:
		ev->reclaim.nr_reclaimed = dec_field(e, F_NR_RECLAIMED, ev);
		break;
	case FOL_EV_MMAP_LOCK:
		ev->lock.mm = dec_field(e, F_MM, ev);
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

int dec_sideband(const char *rec, size_t size, int trailer, struct fol_event *ev)
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

/* A record's summary of the events inside its fault (FOL_BPF_SUM), onto its exit. */
static int summed(const struct fol_bpf_rec *r, struct fol_event *x)
{
	x->exit.summed = !!(r->sum & FOL_BPF_SUM);
	if (!x->exit.summed)
		return r->sum ? -EBADMSG : 0;
	if ((r->sum & ~(FOL_BPF_SUM | FOL_BPF_SUM_ANON | FOL_BPF_SUM_SWAP)) || r->alloc_order < -1 ||
	    r->alloc_order > FOL_MAX_ORDER || r->last_order < -1 || r->last_order > FOL_MAX_ORDER)
		return -EBADMSG;
	x->exit.alloc_order = r->alloc_order;
	x->exit.last_order = r->last_order;
	x->exit.anon_rss = !!(r->sum & FOL_BPF_SUM_ANON);
	x->exit.swap_rss = !!(r->sum & FOL_BPF_SUM_SWAP);
	return 0;
}

/* An RSS record: the rss_stat event it copies, with the counter's value before. */
static int paired_rss(struct fol_decoder *d, const struct fol_bpf_rec *r, struct fol_event *ev)
{
	int idx;

	if ((r->sum & ~FOL_BPF_SUM_PREV) || r->raw_size > FOL_BPF_RAW_MAX || ev->raw_size < sizeof(*r))
		return -EBADMSG;
	ev->raw = (const char *)ev->raw + offsetof(struct fol_bpf_rec, raw);
	ev->raw_size = r->raw_size;
	idx = paired_event(d, FOL_EV_RSS_STAT, r->t1, ev);
	if (idx < 0 || !d->ev[idx].tp || dec_tracepoint(&d->ev[idx], ev))
		return -EBADMSG;
	ev->rss.prev_known = !!(r->sum & FOL_BPF_SUM_PREV);
	ev->rss.prev = (int64_t)r->addr;
	return 1;
}

#define REC_FLAGS (FOL_BPF_KERNEL | FOL_BPF_MAJOR | FOL_BPF_EPISODE_KEPT | FOL_BPF_NOFAULT | FOL_BPF_UNTIMED)

int dec_paired(struct fol_decoder *d, struct fol_event *ev)
{
	struct fol_bpf_rec r;
	struct fol_event x;
	int idx;

	/* An exit alone leaves the raw copy out. */
	memset(&r, 0, sizeof(r));
	if (!ev->raw || ev->raw_size < offsetof(struct fol_bpf_rec, raw))
		return -EBADMSG;
	memcpy(&r, ev->raw, ev->raw_size < sizeof(r) ? ev->raw_size : sizeof(r));
	if (r.what == FOL_BPF_RSS && !r.flags)
		return paired_rss(d, &r, ev);
	if (!r.what || r.what > FOL_BPF_FAULT || (r.flags & ~REC_FLAGS) ||
	    ((r.flags & FOL_BPF_UNTIMED) && !(r.what & FOL_BPF_EXIT)) ||
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
	x.exit.episode_kept = !!(r.flags & FOL_BPF_EPISODE_KEPT);
	x.exit.untimed = !!(r.flags & FOL_BPF_UNTIMED);
	if ((r.what & FOL_BPF_EXIT) ? summed(&r, &x) : r.sum)
		return -EBADMSG;
	if (r.file_folio > FOL_MAX_ORDER + 1 || (r.file_folio && !(r.what & FOL_BPF_EXIT)))
		return -EBADMSG;
	x.exit.file_read = !!r.file_folio;
	x.exit.file_order = r.file_folio - 1;
	if (!(r.what & FOL_BPF_ENTRY)) {
		*ev = x;
		return 1;
	}
	ev->raw = (const char *)ev->raw + offsetof(struct fol_bpf_rec, raw);
	ev->raw_size = r.raw_size;
	idx = paired_event(d, r.flags & FOL_BPF_KERNEL ? FOL_EV_FAULT_KERNEL : FOL_EV_FAULT_USER, r.t0, ev);
	if (idx < 0 || !d->ev[idx].tp || dec_tracepoint(&d->ev[idx], ev))
		return -EBADMSG;
	ev->fault.faults_disabled = !!(r.flags & FOL_BPF_NOFAULT);
	if (r.what & FOL_BPF_EXIT) {
		d->more = x;
		d->has_more = 1;
	}
	return 1;
}
