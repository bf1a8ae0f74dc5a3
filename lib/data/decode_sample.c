// SPDX-License-Identifier: GPL-2.0-only
/* A perf sample's fields, laid out by its sample_type: the trailer every record carries
 * (sample_id_all), the call chain and the user stack, checked against the record's size. */
#include "data/decode_priv.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>

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

int dec_parse_trailer(uint64_t st, const char *rec, size_t size, struct fol_event *ev)
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

int dec_parse_sample(const struct fol_decoder *d, const struct evd *e, const char *rec, size_t size,
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
	int idx = dec_record_event(d, rec, size);

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
	int idx = dec_record_event(d, rec, size);
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
	int cpu = fol_decoder_cpu(d, rec, size), idx = dec_record_event(d, rec, size);

	return cpu < 0 || idx < 0 ? -1 : 2 * cpu + !!d->ev[idx].pub.mm_threads;
}
