// SPDX-License-Identifier: GPL-2.0-only
#include "data/session.h"
#include "symbols/ksyms.h"
#include "util/errors.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "data/merge.h"
#include "data/recording.h"
#include "util/parse.h"
#include "util/grow.h"
#include "util/json.h"

/* What the session keeps of a ring buffer between its chunks: the time of the last record
 * placed, and its last records themselves, held back until the buffer's next chunk, where
 * the records after them tell whether they are out of place (fol_merge_retime): a record
 * another sampler timed, near the end of its chunk, has too few after it to judge it by.
 * As many as fol_merge_retime looks ahead, and one. */
#define RETIME_TAIL (FOL_RETIME_WINDOW + 1)
struct ring {
	uint64_t last;		/* the time of the last record pushed */
	char *tail;		/* a copy of the records held back, or NULL */
	size_t tail_len;
	uint64_t tail_round;	/* the round they were held in */
};

struct fol_session {
	struct fol_reader *r;
	struct fol_decoder *dec;
	struct fol_merge *merge;
	cJSON *meta, *before, *after, *pmu, *end, *phases, *maps;
	cJSON *pagecache;	/* PAGECACHE, read ahead at the start (its run's last chunk) */
	cJSON *run;		/* this run's RUN chunk, in a recording of several */
	cJSON *bare;		/* the untraced runs written with it (BARE chunks) */
	struct fol_session_stats st;
	int eof;
	/* An attached process's threads and mappings at the start (SYNTH chunk), handed out
	 * before the recorded events; their strings point into synth_json. */
	cJSON *synth_json;
	struct fol_event *synth;
	int nsynth, synth_pos;
	int live;		/* fed by fol_session_feed(), no reader */
	/* The chunk being pushed (push_records), kept between chunks to spare allocations. */
	uint64_t *run_time;
	size_t *run_off;
	uint32_t *run_size;
	uint8_t *run_flag;
	size_t nrun, run_cap;
	struct ring *rings;	/* per ring buffer (fol_decoder_ring), made at the first chunk */
	uint64_t round;		/* ROUND chunks seen */
	/* A chunk read while looking for the end of the header, not consumed yet. */
	int pending;
	uint32_t ptype;
	const void *pbuf;
	size_t plen;
	struct fol_ksyms *ksyms; /* the kernel's symbols (KSYMS chunk), or NULL */
	/* The reader's damage count when this run took it, and whether the run's own share
	 * is fixed (at its END chunk, or where its stream ended). */
	struct fol_reader_status at_start;
	int damage_fixed;
};

/* A JSON chunk, checked against what foliostat expects of its type (fol_recording_check); NULL
 * when it is not JSON or not the right shape at all. */
static cJSON *parse_checked(struct fol_session *s, uint32_t type, const void *buf, size_t len)
{
	cJSON *j = cJSON_ParseWithLength(buf, len);
	int bad = fol_recording_check(type, j);

	if (bad < 0) {
		s->st.bad_metadata++;
		cJSON_Delete(j);
		return NULL;
	}
	s->st.bad_metadata += (uint64_t)bad;
	return j;
}

static void take_json(struct fol_session *s, uint32_t type, cJSON **slot, const void *buf,
		      size_t len)
{
	cJSON *j = parse_checked(s, type, buf, len);

	if (!j)
		return;
	cJSON_Delete(*slot);
	*slot = j;
}

/* The next event made from the SYNTH chunk, its common fields set. */
static struct fol_event *synth_event(struct fol_session *s, enum fol_kind kind, uint64_t t,
				     int pid, int tid)
{
	struct fol_event *e = &s->synth[s->nsynth++];

	e->kind = kind;
	e->evidx = -1;
	e->time = t;
	e->pid = pid;
	e->tid = tid;
	return e;
}

/* An attached process's threads, mappings and folios at the start, or a recorded
 * command's folios after exec, as events handed out before the recorded ones. Types and
 * ranges were checked by recording_check.c. */
static void add_synth(struct fol_session *s, const void *buf, size_t len)
{
	const cJSON *maps, *comms, *runs, *m;
	uint64_t t, tid;
	int pid;

	if (s->synth_json)
		return;
	s->synth_json = parse_checked(s, FOL_CHUNK_SYNTH, buf, len);
	if (!s->synth_json)
		return;
	pid = (int)fol_json_num(s->synth_json, "pid", 0);
	t = (uint64_t)fol_json_num(s->synth_json, "time_ns", 0);
	maps = cJSON_GetObjectItemCaseSensitive(s->synth_json, "maps");
	comms = cJSON_GetObjectItemCaseSensitive(s->synth_json, "comm");
	runs = cJSON_GetObjectItemCaseSensitive(s->synth_json, "folios");
	s->synth = calloc((size_t)(cJSON_GetArraySize(maps) + cJSON_GetArraySize(comms) +
				   cJSON_GetArraySize(runs)) + 1,
			  sizeof(*s->synth));
	if (!s->synth || pid <= 0)
		return;
	cJSON_ArrayForEach(m, comms)
		if (cJSON_IsString(m) && !fol_parse_u64(m->string, 1, FOL_PID_MAX, 0, &tid))
			synth_event(s, FOL_EV_COMM, t, pid, (int)tid)->comm.comm = m->valuestring;
	cJSON_ArrayForEach(m, maps)
	{
		const char *lo = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "start"));
		const char *hi = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "end"));
		const char *file = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "file"));
		const char *off = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "pgoff"));
		const char *perms = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "perms"));
		uint64_t start, end;
		struct fol_event *e;

		if (!lo || !hi || !file)
			continue;
		start = strtoull(lo, NULL, 16);
		end = strtoull(hi, NULL, 16);
		if (end <= start)
			continue;
		e = synth_event(s, FOL_EV_MMAP, t, pid, pid);
		e->mmap.start = start;
		e->mmap.len = end - start;
		/* Recorded before the key was kept: no offset, and "" for anonymous memory. */
		e->mmap.pgoff = off ? strtoull(off, NULL, 16) : 0;
		e->mmap.filename = file[0] ? file : "//anon";
		e->mmap.maj = (uint32_t)fol_json_num(m, "maj", 0);
		e->mmap.min = (uint32_t)fol_json_num(m, "min", 0);
		e->mmap.ino = (uint64_t)fol_json_num(m, "ino", 0);
		if (perms && strlen(perms) == 4) {
			e->mmap.prot = (perms[0] == 'r' ? PROT_READ : 0) |
				       (perms[1] == 'w' ? PROT_WRITE : 0) | (perms[2] == 'x' ? PROT_EXEC : 0);
			e->mmap.flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
		}
	}
	/* After the mappings: the folios they hold. */
	cJSON_ArrayForEach(m, runs)
	{
		const char *start = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "start"));
		struct fol_event *e;

		if (!start || !cJSON_GetObjectItemCaseSensitive(m, "order") ||
		    !cJSON_GetObjectItemCaseSensitive(m, "n"))
			continue;
		e = synth_event(s, FOL_EV_FOLIOS, t, pid, pid);
		e->folios.start = strtoull(start, NULL, 16);
		e->folios.order = (int)fol_json_num(m, "order", 0);
		e->folios.n = (uint64_t)fol_json_num(m, "n", 0);
	}
}

static void fix_damage(struct fol_session *s);

/* Chunks other than records and rounds. */
static void other_chunk(struct fol_session *s, uint32_t type, const void *buf, size_t len)
{
	switch (type) {
	case FOL_CHUNK_SYNTH:
		add_synth(s, buf, len);
		break;
	case FOL_CHUNK_COUNTERS:
		if (!s->before)
			take_json(s, type, &s->before, buf, len);
		else
			take_json(s, type, &s->after, buf, len);
		break;
	case FOL_CHUNK_PMU:
		take_json(s, type, &s->pmu, buf, len);
		break;
	case FOL_CHUNK_END:
		take_json(s, type, &s->end, buf, len);
		fix_damage(s);
		break;
	case FOL_CHUNK_MAPS:
		take_json(s, type, &s->maps, buf, len);
		break;
	case FOL_CHUNK_WORKLOAD:
		s->st.bad_metadata += fol_recording_phase_lines(s->phases, buf, len);
		break;
	case FOL_CHUNK_RUN:
		take_json(s, type, &s->run, buf, len);
		break;
	case FOL_CHUNK_KSYMS:
		if (!s->ksyms)
			s->ksyms = fol_ksyms_from_chunk(buf, len);
		break;
	case FOL_CHUNK_BARE: {
		cJSON *j = parse_checked(s, type, buf, len);

		if (j)
			cJSON_AddItemToArray(s->bare, j);
		break;
	}
	default:
		break; /* newer chunk types are skipped by older readers */
	}
}

static int setup_ranges(struct fol_session *s)
{
	const cJSON *rg = cJSON_GetObjectItemCaseSensitive(s->meta, "fault_ranges"), *a;
	uint64_t ranges[16];
	int n = 0;

	cJSON_ArrayForEach(a, rg)
		if (cJSON_IsString(a) && n < 16)
			ranges[n++] = strtoull(a->valuestring, NULL, 16);
	return fol_decoder_set_fault_ranges(s->dec, ranges, n / 2);
}

static struct fol_session *session_new(void)
{
	struct fol_session *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->dec = fol_decoder_new();
	s->merge = fol_merge_new();
	s->phases = cJSON_CreateArray();
	s->bare = cJSON_CreateArray();
	if (!s->dec || !s->merge || !s->phases || !s->bare) {
		fol_session_close(s);
		return NULL;
	}
	return s;
}

/* A chunk read but not consumed yet: the next header or stream step takes it first.
 * Its buffer stays the reader's until the reader's next call. */
static void hold(struct fol_session *s, uint32_t type, const void *buf, size_t len)
{
	s->pending = 1;
	s->ptype = type;
	s->pbuf = buf;
	s->plen = len;
}

/* The chunk ends this run's stream: another run's RUN chunk, or another run's metadata
 * when the RUN chunk before it was lost to damage (two runs must not merge into one). */
static int next_run_starts(const struct fol_session *s, uint32_t type)
{
	return (type == FOL_CHUNK_RUN && (s->run || s->meta)) || (type == FOL_CHUNK_META && s->meta);
}

/* This run's share of the file's damage: what the reader skipped since the run took it. */
static void fix_damage(struct fol_session *s)
{
	const struct fol_reader_status *now;

	if (s->damage_fixed || !s->r)
		return;
	now = fol_reader_status(s->r);
	s->st.run_corrupt_chunks = now->corrupt_chunks - s->at_start.corrupt_chunks;
	s->st.run_corrupt_bytes = now->corrupt_bytes - s->at_start.corrupt_bytes;
	s->damage_fixed = 1;
}

/* The stream is over at chunk type, held for the next run. */
static void end_stream(struct fol_session *s, uint32_t type, const void *buf, size_t len)
{
	hold(s, type, buf, len);
	s->st.run_boundary_lost = type == FOL_CHUNK_META;
	s->eof = 1;
	fix_damage(s);
}

/* The header chunks up to the stream's first: metadata, event descriptions, and in a
 * recording of several runs the RUN and BARE chunks before them. */
/* The page cache at the end of this run, wanted before its first fault: read ahead. */
static int read_pagecache(struct fol_session *s)
{
	void *buf;
	size_t len;
	int ret = fol_reader_find_ahead(s->r, FOL_CHUNK_PAGECACHE,
					1ull << FOL_CHUNK_END | 1ull << FOL_CHUNK_RUN, &buf, &len);

	if (ret == 1) {
		take_json(s, FOL_CHUNK_PAGECACHE, &s->pagecache, buf, len);
		free(buf);
	}
	return ret == -ENOMEM ? ret : 0;
}

static int read_header(struct fol_session *s)
{
	uint32_t type;
	const void *buf;
	size_t len;
	int ret = 1;

	for (;;) {
		if (s->pending) {
			s->pending = 0;
			type = s->ptype;
			buf = s->pbuf;
			len = s->plen;
		} else if ((ret = fol_reader_next(s->r, &type, &buf, &len)) != 1) {
			break;
		}
		if (next_run_starts(s, type)) {
			/* The next run's, before any of this one's stream. */
			end_stream(s, type, buf, len);
			break;
		}
		if (type == FOL_CHUNK_RECORDS || type == FOL_CHUNK_ROUND || type == FOL_CHUNK_END ||
		    type == FOL_CHUNK_PMU) {
			/* The header is over: this chunk is the stream's first. */
			hold(s, type, buf, len);
			break;
		}
		/* A damaged event description is skipped; the records of it count as unknown. */
		if (fol_session_feed(s, type, buf, len) == -ENOMEM) {
			ret = -ENOMEM;
			break;
		}
	}
	if (ret < 0)
		return ret;
	if (!s->meta || fol_decoder_nr_events(s->dec) == 0)
		return -FOL_E_NO_METADATA;
	if (ret == 0) {
		s->eof = 1;
		fix_damage(s);
	}
	return read_pagecache(s);
}

static int skip_to_run(struct fol_session *s);

int fol_session_open(struct fol_session **sp, const char *path)
{
	struct fol_session *s = session_new();
	int ret;

	if (!s)
		return -ENOMEM;
	ret = fol_reader_open(&s->r, path);
	if (!ret)
		ret = read_header(s);
	/* A first run whose metadata is damaged, in a recording of several: the runs after it
	 * stand, as they do after a later run's damage. */
	if (ret == -FOL_E_NO_METADATA && skip_to_run(s) == 1) {
		struct fol_session *next;

		if (fol_session_open_next(s, &next) == 1) {
			fol_session_close(s);
			*sp = next;
			return 0;
		}
	}
	if (ret) {
		fol_session_close(s);
		return ret;
	}
	*sp = s;
	return 0;
}

/* Past a run that could not be read, to the next run's start (its RUN chunk, or its META
 * when that was lost): 1 there (pending), 0 at the end of the file. */
static int skip_to_run(struct fol_session *s)
{
	uint32_t type;
	const void *buf;
	size_t len;
	int ret;

	if (s->pending && (s->ptype == FOL_CHUNK_RUN || s->ptype == FOL_CHUNK_META))
		return 1;
	s->pending = 0;
	/* A META here is the next run's: this run's own came before its first record. */
	while ((ret = fol_reader_next(s->r, &type, &buf, &len)) == 1) {
		if (type == FOL_CHUNK_RUN || type == FOL_CHUNK_META) {
			hold(s, type, buf, len);
			return 1;
		}
	}
	return ret;
}

/* Two runs' metadata name the same kernel build. */
static int same_kernel(const cJSON *a, const cJSON *b)
{
	const char *x = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(a, "kernel_build_id"));
	const char *y = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "kernel_build_id"));

	return x && y && !strcmp(x, y);
}

int fol_session_open_next(struct fol_session *prev, struct fol_session **sp)
{
	struct fol_session *from = prev;
	int ret = 0;

	*sp = NULL;
	while (from->r && from->pending &&
	       (from->ptype == FOL_CHUNK_RUN || from->ptype == FOL_CHUNK_META)) {
		struct fol_session *s = session_new();

		if (!s) {
			ret = -ENOMEM;
			break;
		}
		fix_damage(from);
		/* The reader moves on to the new session, with the chunk it stopped at. */
		s->r = from->r;
		s->at_start = *fol_reader_status(s->r);
		from->r = NULL;
		hold(s, from->ptype, from->pbuf, from->plen);
		from->pending = 0;
		if (from != prev)
			fol_session_close(from);
		ret = read_header(s);
		/* The kernel's symbols come with the first run: the later runs of the same
		 * kernel share them. */
		if (!s->ksyms && prev->ksyms && same_kernel(prev->meta, s->meta))
			s->ksyms = fol_ksyms_get(prev->ksyms);
		if (!ret) {
			*sp = s;
			return 1;
		}
		from = s;
		/* A run without metadata or events (its recording failed): on to the next. */
		if (ret != -FOL_E_NO_METADATA || (ret = skip_to_run(s)) < 0)
			break;
		ret = 0;
	}
	if (from != prev) {
		/* No run after prev: the reader comes back to it, so its status tells how the
		 * file ended (cut inside a run that was skipped). */
		prev->r = from->r;
		from->r = NULL;
		fol_session_close(from);
	}
	return ret;
}

int fol_session_open_live(struct fol_session **sp)
{
	struct fol_session *s = session_new();

	if (!s)
		return -ENOMEM;
	s->live = 1;
	*sp = s;
	return 0;
}

int fol_session_ready(const struct fol_session *s)
{
	return s->meta && fol_decoder_nr_events(s->dec) > 0;
}

/* One record of the chunk being pushed: where it is, its time. */
static int run_add(struct fol_session *s, size_t off, uint32_t size, uint64_t t)
{
	if (s->nrun == s->run_cap) {
		/* Four arrays side by side: each grown from the same room, the room moved on
		 * once all four have it (one that grew alone is only larger than it says). */
		size_t tm = s->run_cap, of = tm, sz = tm, fl = tm;

		if (FOL_GROW(s->run_time, tm, s->nrun + 1, 1024) ||
		    FOL_GROW(s->run_off, of, s->nrun + 1, 1024) ||
		    FOL_GROW(s->run_size, sz, s->nrun + 1, 1024) ||
		    FOL_GROW(s->run_flag, fl, s->nrun + 1, 1024))
			return -ENOMEM;
		s->run_cap = tm;
	}
	s->run_time[s->nrun] = t;
	s->run_off[s->nrun] = off;
	s->run_size[s->nrun] = size;
	s->nrun++;
	return 0;
}

/* The ring buffer of a chunk, from its first record; NULL when unknown (no CPU in it). */
static int chunk_ring(struct fol_session *s, const char *buf, size_t len, struct ring **out)
{
	struct perf_event_header h;
	int k;

	*out = NULL;
	if (len < sizeof(h))
		return 0;
	memcpy(&h, buf, sizeof(h));
	if (h.size < sizeof(h) || h.size > len || (k = fol_decoder_ring(s->dec, buf, h.size)) < 0)
		return 0;
	if (!s->rings && !(s->rings = calloc(2 * FOL_MAX_CPUS, sizeof(*s->rings))))
		return -ENOMEM;
	*out = &s->rings[k];
	return 0;
}

/* The records' places and times in the run arrays, after slot 0 (the predecessor). The
 * first seen bytes are records held back from the buffer's previous chunk: what was
 * wrong with them was counted then. */
static void add_records(struct fol_session *s, const char *buf, size_t len, size_t seen, int *ret)
{
	size_t off = 0;

	while (!*ret && off + sizeof(struct perf_event_header) <= len) {
		struct perf_event_header h;
		uint64_t t = 0;
		int r;

		memcpy(&h, buf + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - off) {
			/* The chunk's CRC was right, so the writer wrote this: skip the rest. */
			s->st.bad_records++;
			return;
		}
		r = fol_decoder_time(s->dec, buf + off, h.size, &t);
		if (r == -ENOENT)
			s->st.unknown_records += off >= seen;
		else if (r)
			s->st.bad_records += off >= seen;
		else
			*ret = run_add(s, off, h.size, t);
		off += h.size;
	}
	if (off != len)
		s->st.bad_records++;
}

/* Records of one ring buffer, in the order it was written, into the merge as one run:
 * their times checked against that order (fol_merge_retime), the buffer's last time
 * before them in slot 0. With hold, the last RETIME_TAIL records from byte hold_from on
 * are kept back (bytes and all) for the buffer's next chunk, where the records after them
 * judge them: another sampler's record near the end of a chunk has too few after it
 * here. */
static int push_run(struct fol_session *s, struct ring *g, const char *buf, size_t len,
		    size_t seen, int hold, size_t hold_from)
{
	size_t n, keep = 0;
	int ret = run_add(s, 0, 0, g ? g->last : 0);

	if (!ret)
		add_records(s, buf, len, seen, &ret);
	if (ret)
		return ret;
	n = s->nrun;
	while (hold && g && keep < RETIME_TAIL && keep < n - 1 && s->run_off[n - 1 - keep] >= hold_from)
		keep++;
	if (n > 1)
		s->st.retimed += fol_merge_retime(s->run_time, s->run_flag, n, s->run_time[0] != 0);
	for (size_t i = n - keep; i < n; i++)
		s->st.retimed -= s->run_flag[i]; /* judged again with the next chunk */
	if (n - keep > 1)
		ret = fol_merge_reserve(s->merge, n - keep - 1, len);
	for (size_t i = 1; i < n - keep && !ret; i++)
		ret = fol_merge_push(s->merge, s->run_time[i], buf + s->run_off[i], s->run_size[i]);
	s->st.records += n - keep - 1; /* the held ones count when they go in */
	if (g && n - keep > 1)
		g->last = s->run_time[n - keep - 1];
	if (!ret && keep) {
		/* The kept records only: bytes past the last one (a damaged record's) would
		 * cut the next chunk short when parsed in front of it. */
		size_t from = s->run_off[n - keep], to = s->run_off[n - 1] + s->run_size[n - 1];

		g->tail = malloc(to - from);
		if (!g->tail)
			ret = -ENOMEM;
		else
			memcpy(g->tail, buf + from, to - from);
		g->tail_len = g->tail ? to - from : 0;
		g->tail_round = s->round;
	}
	s->nrun = 0;
	return ret ? ret : fol_merge_end_run(s->merge);
}

/* A ring's held records into the merge, judged by what is before them only (no chunk of
 * their buffer came after them). */
static int release_tail(struct fol_session *s, struct ring *g)
{
	char *tail = g->tail;
	int ret;

	g->tail = NULL;
	ret = push_run(s, g, tail, g->tail_len, g->tail_len, 0, 0);
	free(tail);
	return ret;
}

/* Before a round ends: the records held since an earlier round go in now, so that the
 * merge has them before it releases that round's time. All of them (all != 0) at the end
 * of the stream. */
static int release_rings(struct fol_session *s, int all)
{
	int ret = 0;

	for (size_t i = 0; s->rings && i < 2 * FOL_MAX_CPUS && !ret; i++)
		if (s->rings[i].tail && (all || s->rings[i].tail_round < s->round))
			ret = release_tail(s, &s->rings[i]);
	return ret;
}

/* A round of drains ended: the records held back since an earlier one go in first. Its
 * chunk may say when the drains began (8 bytes; none in older files). */
static int end_round(struct fol_session *s, const void *buf, size_t len)
{
	int ret = release_rings(s, 0);
	uint64_t drained;

	s->round++;
	if (len == sizeof(drained)) {
		memcpy(&drained, buf, sizeof(drained));
		fol_merge_drained(s->merge, drained);
	}
	fol_merge_round(s->merge);
	return ret;
}

/* A chunk is one ring buffer's drain: after the records that buffer held back, if any
 * (copied before it into one buffer: a run's records are contiguous). */
static int push_records(struct fol_session *s, const char *buf, size_t len)
{
	struct ring *g;
	char *both;
	int ret = chunk_ring(s, buf, len, &g);

	if (ret)
		return ret;
	if (!g || !g->tail)
		return push_run(s, g, buf, len, 0, 1, 0);
	both = malloc(g->tail_len + len);
	if (!both)
		return -ENOMEM;
	memcpy(both, g->tail, g->tail_len);
	memcpy(both + g->tail_len, buf, len);
	free(g->tail);
	g->tail = NULL;
	/* Held since an earlier round: they go in now, judged by what came, however little.
	 * Held again, a quiet buffer's last records (a fork, the workload's parent faulting
	 * only where the kernel decides) stayed out for round after round, while the merge
	 * let the other buffers' later records past them (serve saw a child's faults before
	 * its fork). */
	ret = push_run(s, g, both, g->tail_len + len, g->tail_len, 1,
		       g->tail_round < s->round ? g->tail_len : 0);
	free(both);
	return ret;
}

int fol_session_feed(struct fol_session *s, uint32_t type, const void *buf, size_t len)
{
	switch (type) {
	case FOL_CHUNK_META:
		take_json(s, type, &s->meta, buf, len);
		return s->meta ? setup_ranges(s) : -FOL_E_BAD_METADATA;
	case FOL_CHUNK_EVENT:
		return fol_decoder_add_event(s->dec, buf, len);
	case FOL_CHUNK_RECORDS:
		return push_records(s, buf, len);
	case FOL_CHUNK_ROUND:
		return end_round(s, buf, len);
	default:
		other_chunk(s, type, buf, len);
		return 0;
	}
}

uint64_t fol_session_released_until(const struct fol_session *s)
{
	return fol_merge_limit(s->merge);
}

void fol_session_feed_end(struct fol_session *s)
{
	s->eof = 1;
	release_rings(s, 1);
	fol_merge_flush_all(s->merge);
}

void fol_session_close(struct fol_session *s)
{
	if (!s)
		return;
	fol_reader_close(s->r);
	fol_decoder_free(s->dec);
	fol_merge_free(s->merge);
	fol_ksyms_put(s->ksyms);
	cJSON_Delete(s->meta);
	cJSON_Delete(s->before);
	cJSON_Delete(s->after);
	cJSON_Delete(s->pmu);
	cJSON_Delete(s->end);
	cJSON_Delete(s->phases);
	cJSON_Delete(s->maps);
	cJSON_Delete(s->pagecache);
	cJSON_Delete(s->run);
	cJSON_Delete(s->bare);
	cJSON_Delete(s->synth_json);
	free(s->synth);
	free(s->run_time);
	free(s->run_off);
	free(s->run_size);
	free(s->run_flag);
	for (size_t i = 0; s->rings && i < 2 * FOL_MAX_CPUS; i++)
		free(s->rings[i].tail);
	free(s->rings);
	free(s);
}

/* Feed one chunk to the merge; 0 at the end of the file. */
static int feed(struct fol_session *s)
{
	uint32_t type;
	const void *buf;
	size_t len;
	int ret;

	if (s->live)
		return 0; /* nothing more until the next chunk is fed */
	if (s->pending) {
		s->pending = 0;
		type = s->ptype;
		buf = s->pbuf;
		len = s->plen;
	} else if (s->eof) {
		return 0;
	} else {
		ret = fol_reader_next(s->r, &type, &buf, &len);
		if (ret <= 0) {
			s->eof = 1;
			fix_damage(s);
			return ret;
		}
	}
	if (next_run_starts(s, type)) {
		/* The next run's: this one's stream is over; fol_session_open_next goes on. */
		end_stream(s, type, buf, len);
		return 0;
	}
	if (type == FOL_CHUNK_RECORDS)
		ret = push_records(s, buf, len);
	else if (type == FOL_CHUNK_ROUND)
		ret = end_round(s, buf, len);
	else
		other_chunk(s, type, buf, len), ret = 0;
	return ret < 0 ? ret : 1;
}

int fol_session_next(struct fol_session *s, struct fol_event *ev)
{
	if (s->synth_pos < s->nsynth) {
		*ev = s->synth[s->synth_pos++];
		s->st.events++;
		return 1;
	}
	if (fol_decoder_more(s->dec, ev)) {
		s->st.events++;
		return 1;
	}
	for (;;) {
		uint64_t t;
		const void *rec;
		size_t size;
		int ret;

		if (fol_merge_pop(s->merge, &t, &rec, &size)) {
			ret = fol_decoder_decode(s->dec, rec, size, ev);
			if (ret < 0) {
				s->st.bad_records++;
				continue;
			}
			if (ret == 0)
				continue;
			/* Placed by fol_merge_retime: its own time is another clock's. */
			if (ev->time && t != ev->time && !ev->paired) {
				ev->time = t;
				ev->retimed = 1;
			}
			if (ev->kind == FOL_EV_LOST)
				s->st.lost += ev->lost.lost;
			s->st.events++;
			return 1;
		}
		ret = feed(s);
		if (ret < 0)
			return ret;
		if (ret == 0) {
			if (!s->live && (ret = release_rings(s, 1)))
				return ret;
			if (!fol_merge_queued(s->merge) || (s->live && !s->eof))
				return 0;
			fol_merge_flush_all(s->merge);
		}
	}
}

const struct fol_decoder *fol_session_decoder(const struct fol_session *s)
{
	return s->dec;
}

struct fol_ksyms *fol_session_ksyms(const struct fol_session *s)
{
	return s->ksyms;
}

int fol_session_recording(const struct fol_session *s, struct fol_recording *rec)
{
	return fol_recording_parse(rec, &(struct fol_recording_chunks){
		.meta = s->meta, .end = s->end, .pmu = s->pmu, .phases = s->phases,
		.before = s->before, .after = s->after, .synth = s->synth_json, .maps = s->maps,
		.pagecache = s->pagecache, .run = s->run, .bare = s->bare });
}

const cJSON *fol_session_pagecache(const struct fol_session *s)
{
	return s->pagecache;
}

struct fol_session_stats fol_session_stats(const struct fol_session *s)
{
	struct fol_session_stats st = s->st;

	st.out_of_order = fol_merge_late(s->merge);
	st.merge_peak = fol_merge_peak(s->merge);
	if (s->r)
		st.file = *fol_reader_status(s->r);
	else
		st.file.complete = s->end != NULL;
	return st;
}
