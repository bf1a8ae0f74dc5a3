// SPDX-License-Identifier: GPL-2.0-only
/* The chunks the recorder writes beside the samples: META at the start; the mappings,
 * kernel symbols, counters, page tables and page cache at the end; END last. */
#include "record/record_priv.h"

#include <dirent.h>
#include <errno.h>
#include <perf/cpumap.h>
#include <perf/event.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>

#include "data/recording.h"
#include "symbols/ksyms.h"
#include "sys/maps.h"
#include "sys/pagecache.h"
#include "symbols/symbols.h"

int rec_flush_chunk(struct fol_recorder *r)
{
	int ret = 0;

	if (r->chunk_used)
		ret = fol_writer_chunk_buf(r->w, FOL_CHUNK_RECORDS, r->chunk, r->chunk_used);
	r->chunk_used = 0;
	return ret;
}

/* A file mapping in an MMAP2 record: for the page cache's folios at the end, and an
 * executable one for its build-id, remembered once. Out of memory, it is forgotten: its
 * faults' folio orders are then unknown, its code named without a build-id check. */
static void note_code(struct fol_recorder *r, const char *name)
{
	char **el;
	int created;

	if (!r->code.index && fol_indexed_init(&r->code, sizeof(char *)))
		return;
	el = fol_indexed_get(&r->code, fol_hash(FOL_HASH_INIT, name, strlen(name)), &name, fol_indexed_same_str, &created);
	if (el && created && !(*el = strdup(name)))
		fol_indexed_unget(&r->code);
}

void rec_note_mapping(struct fol_recorder *r, const union perf_event *ev)
{
	const char *name = ev->mmap2.filename, *end = (const char *)ev + ev->header.size;

	/* Live (top, serve): no end to write the page cache or the build-ids at, and the files
	 * a machine maps over days are without number. */
	if (r->o->live || name >= end || name[0] != '/' || name[1] == '/' ||
	    !memchr(name, 0, (size_t)(end - name)))
		return;
	if (r->pc && !(ev->header.misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
		struct fol_file_id id = { ev->mmap2.maj, ev->mmap2.min, ev->mmap2.ino };
		uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

		fol_pc_files_note(r->pc, &id, name, ev->mmap2.pgoff / page,
				  (ev->mmap2.len + page - 1) / page);
	}
	if (ev->mmap2.prot & PROT_EXEC)
		note_code(r, name);
}

uint64_t rec_now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A fact's JSON written as the chunk of that type, and freed. */
static int write_facts(struct fol_recorder *r, uint32_t type, const struct fol_recording *facts)
{
	cJSON *j = fol_recording_json(facts, type);
	int ret = j ? fol_writer_chunk_json(r->w, type, j) : -ENOMEM;

	cJSON_Delete(j);
	return ret;
}

/* How the recording is made, as META says it. Its strings are the recorder's, borrowed. */
static void how_recorded(const struct fol_recorder *r, struct fol_recording *m, struct utsname *u)
{
	long page = sysconf(_SC_PAGESIZE);

	m->tool = "foliostat";
	m->version = FOL_VERSION;
	m->mode = r->o->system_wide ? "system-wide" : r->o->argv ? "workload" : "attach";
	m->pid = r->o->argv ? r->child.pid : r->o->pid;
	m->kernel = u->release;
	m->kernel_version = u->version;
	m->machine = u->machine;
	m->hostname = u->nodename;
	m->page_size = (double)page;
	m->pmd_order = fol_maps_pmd_order("", (unsigned)page);
	m->clock = "CLOCK_MONOTONIC";
	m->cpus = (double)sysconf(_SC_NPROCESSORS_ONLN);
	m->mmap_pages = r->o->mmap_pages;
	m->fault_path = r->bpf ? "bpf" : "samples";
	if (!r->bpf && r->path_why[0])
		m->fault_path_why = (char *)r->path_why;
	m->mthp_spec = (char *)r->o->mthp_spec;
	m->latency_method = r->sampled ? "sampled" : "exact";
	if (r->sampled)
		m->sample_period_ns = (double)(r->o->clock_period_ns ? r->o->clock_period_ns
								 : FOL_CLOCK_PERIOD_DEFAULT);
	m->probe = (struct fol_probe){
		.have = r->calibration.faults != 0,
		.faults = (double)r->calibration.faults,
		.passes = r->calibration.passes,
		.untraced_ns = r->calibration.untraced_ns,
		.traced_ns = r->calibration.traced_ns,
		.samples = (double)r->calibration.samples,
		.exits = (double)r->calibration.exits,
		.sample_bytes = (double)r->calibration.bytes,
	};
	m->scope = r->cg;
	m->warnings = (struct fol_strings){ r->res->warnings.v, r->res->warnings.n, 1 };
	m->missing_events = (struct fol_strings){ r->missing.v, r->missing.n, 1 };
}

int rec_write_meta(struct fol_recorder *r, uint64_t start_real, uint64_t start_mono)
{
	struct fol_recording m = { 0 };
	double mm[64], kmm[64];
	char hex[16][24], *ranges[16], bid[129];
	pid_t found[64];
	struct utsname u;
	int argc = 0;

	uname(&u);
	how_recorded(r, &m, &u);
	while (r->o->argv && r->o->argv[argc])
		argc++;
	m.command = (struct fol_strings){ (char **)r->o->argv, argc, 1 };
	if (fol_kernel_build_id("/sys/kernel/notes", bid, sizeof(bid)) > 0)
		m.kernel_build_id = bid;
	m.started_realtime_ns = (double)start_real;
	m.started_ns = (double)start_mono;
	/* Kernel addresses need all 64 bits: strings, not JSON numbers. */
	for (int i = 0; r->sampled && i < 2 * r->nranges && i < 16; i++) {
		snprintf(hex[i], sizeof(hex[i]), "0x%llx", (unsigned long long)r->ranges[i]);
		ranges[m.fault_ranges.n++] = hex[i];
	}
	m.fault_ranges.v = ranges;
	m.fault_ranges.have = r->sampled;
	for (int i = 0; r->kevlist && i < perf_thread_map__nr(r->kthreads) && i < 64; i++)
		mm[m.mm_threads.n++] = perf_thread_map__pid(r->kthreads, i);
	m.mm_threads.v = mm;
	m.mm_threads.have = r->kevlist != NULL;
	/* The kernel's mm threads, recorded or not (mm_threads: those whose events are): the
	 * report knows them by tid, not by a name a workload can take. */
	for (int i = 0, n = rec_find_mm_threads(found, 64); i < n; i++)
		kmm[m.kernel_mm_threads.n++] = found[i];
	m.kernel_mm_threads.v = kmm;
	m.kernel_mm_threads.have = 1;
	return write_facts(r, FOL_CHUNK_META, &m);
}

/* The value of an event opened on each of its CPUs and threads, one call per fd. */
static void for_each_fd(struct perf_evsel *evsel, void (*fn)(struct perf_counts_values *, void *),
			void *arg)
{
	int ncpu = perf_cpu_map__nr(perf_evsel__cpus(evsel));
	int nthr = perf_thread_map__nr(perf_evsel__threads(evsel));

	for (int c = 0; c < ncpu; c++)
		for (int t = 0; t < nthr; t++) {
			struct perf_counts_values v = { 0 };

			if (perf_evsel__read(evsel, c, t, &v) == 0)
				fn(&v, arg);
		}
}

/* Sample ids fit a double exactly: the kernel hands them out from a counter. */
static void add_id(struct perf_counts_values *v, void *ids)
{
	cJSON_AddItemToArray(ids, cJSON_CreateNumber((double)v->id));
}

static void add_lost(struct perf_counts_values *v, void *lost)
{
	*(uint64_t *)lost += v->lost;
}

int rec_write_ksyms(struct fol_recorder *r)
{
	void *buf;
	size_t len;
	int ret;

	if (r->o->no_ksyms || fol_ksyms_pack("/proc/kallsyms", &buf, &len))
		return 0;
	ret = len <= FOL_CHUNK_MAX ? fol_writer_chunk_buf(r->w, FOL_CHUNK_KSYMS, buf, len) : 0;
	free(buf);
	return ret;
}

int rec_write_events(struct fol_recorder *r)
{
	int ret = 0;

	for (int i = 0; i < r->nr_ev && !ret; i++) {
		struct perf_event_attr *a = perf_evsel__attr(r->ev[i].evsel);
		cJSON *e = cJSON_CreateObject(), *attr, *ids;

		cJSON_AddNumberToObject(e, "index", i);
		cJSON_AddStringToObject(e, "name", r->ev[i].name);
		cJSON_AddStringToObject(e, "kind", r->ev[i].kind);
		if (r->ev[i].mm_threads)
			cJSON_AddStringToObject(e, "scope", "mm-threads");
		attr = cJSON_AddObjectToObject(e, "attr");
		cJSON_AddNumberToObject(attr, "type", a->type);
		cJSON_AddNumberToObject(attr, "config", (double)a->config);
		cJSON_AddNumberToObject(attr, "sample_type", (double)a->sample_type);
		cJSON_AddNumberToObject(attr, "sample_period", (double)a->sample_period);
		cJSON_AddNumberToObject(attr, "read_format", (double)a->read_format);
		cJSON_AddBoolToObject(attr, "sample_id_all", a->sample_id_all);
		cJSON_AddBoolToObject(attr, "inherit", a->inherit);
		if (a->sample_type & PERF_SAMPLE_REGS_USER)
			cJSON_AddNumberToObject(attr, "sample_regs_user", (double)a->sample_regs_user);
		if (a->sample_type & PERF_SAMPLE_STACK_USER)
			cJSON_AddNumberToObject(attr, "sample_stack_user", a->sample_stack_user);
		{
			/* The whole perf_event_attr as opened, for tools that want every bit. */
			char hex[2 * sizeof(*a) + 1];
			const unsigned char *b = (const unsigned char *)a;

			for (size_t k = 0; k < sizeof(*a); k++)
				snprintf(hex + 2 * k, 3, "%02x", b[k]);
			cJSON_AddStringToObject(attr, "raw", hex);
		}
		ids = cJSON_AddArrayToObject(e, "ids");
		for_each_fd(r->ev[i].evsel, add_id, ids);
		if (r->ev[i].format)
			cJSON_AddStringToObject(e, "format", r->ev[i].format);
		ret = fol_writer_chunk_json(r->w, FOL_CHUNK_EVENT, e);
		cJSON_Delete(e);
	}
	return ret;
}

/* A counter's sums over its CPUs and threads; 0 when none could be read. */
static int read_counter(const struct fol_recorder *r, const struct rec_counter *c,
			struct fol_pmu_count *x)
{
	int nthr = perf_thread_map__nr(r->threads);
	int ncpu = r->o->system_wide ? perf_cpu_map__nr(r->cpus) : 1;
	uint64_t val = 0, ena = 0, run = 0;
	int ok = 0;

	for (int cpu = 0; c->evsel && cpu < ncpu; cpu++)
		for (int t = 0; t < nthr; t++) {
			struct perf_counts_values v = { 0 };

			if (perf_evsel__read(c->evsel, cpu, t, &v) == 0) {
				val += v.val;
				ena += v.ena;
				run += v.run;
				ok = 1;
			}
		}
	x->value = ok ? (double)val : -1;
	x->time_enabled_ns = ok ? (double)ena : -1;
	x->time_running_ns = ok ? (double)run : -1;
	return ok;
}

int rec_write_counters_pmu(struct fol_recorder *r)
{
	struct fol_recording rec = { .npmu = r->nr_counters };
	int ret;

	rec.pmu = calloc((size_t)r->nr_counters + 1, sizeof(*rec.pmu));
	if (!rec.pmu)
		return -ENOMEM;
	for (int i = 0; i < r->nr_counters; i++) {
		rec.pmu[i].event = (char *)r->counters[i].name;
		rec.pmu[i].supported = read_counter(r, &r->counters[i], &rec.pmu[i]);
	}
	ret = write_facts(r, FOL_CHUNK_PMU, &rec);
	free(rec.pmu);
	return ret;
}

/* Attached to a running process, the kernel reports no MMAP/COMM for what existed before:
 * read them from /proc (as perf synthesizes them), so that faults on file mappings are
 * told from anonymous ones and threads have names. */
void rec_add_seed(struct fol_recorder *r, cJSON *synth, pid_t pid)
{
	struct fol_maps *fm;
	uint64_t unaligned;
	/* A signal before the walk (the recording is being stopped as it starts): none; one
	 * during it stops it. */
	int ret = r->o->signals && *r->o->signals ? -EINTR
						   : fol_maps_read(pid, "", 1, r->o->signals, &fm);

	if (ret) {
		char why[160];

		snprintf(why, sizeof(why), "%s",
			 ret == -EPERM ? "page frame numbers and page flags need root"
				       : strerror(-ret));
		cJSON_AddStringToObject(synth, "folios_error", why);
		fol_msgs_add(&r->res->warnings, "folios of pid %d not read from its page tables "
				 "(%s): faults on memory older than the recording have order unknown",
			     (int)pid, why);
		return;
	}
	cJSON_AddItemToObject(synth, "folios", fol_maps_seed_json(fm, &unaligned));
	cJSON_AddNumberToObject(synth, "unaligned_folios", (double)unaligned);
	fol_maps_free(fm);
}

/* A task's name from its comm file, into comms under key. */
static void add_comm(cJSON *comms, const char *key, const char *path)
{
	char comm[64];

	if (!fol_sysfs_read(path, comm, sizeof(comm)))
		cJSON_AddStringToObject(comms, key, comm);
}

void rec_add_mm_thread_comms(const struct fol_recorder *r, cJSON *comms)
{
	for (int i = 0; r->kevlist && i < perf_thread_map__nr(r->kthreads); i++) {
		int tid = perf_thread_map__pid(r->kthreads, i);
		char path[64], key[16];

		snprintf(path, sizeof(path), "/proc/%d/comm", tid);
		snprintf(key, sizeof(key), "%d", tid);
		add_comm(comms, key, path);
	}
}

int rec_write_system_comms(struct fol_recorder *r, uint64_t now)
{
	cJSON *j = cJSON_CreateObject(), *comms = j ? cJSON_AddObjectToObject(j, "comm") : NULL;
	DIR *proc = opendir("/proc");
	struct dirent *p;
	int ret;

	if (!comms) {
		cJSON_Delete(j);
		if (proc)
			closedir(proc);
		return -ENOMEM;
	}
	cJSON_AddNumberToObject(j, "pid", getpid());
	cJSON_AddNumberToObject(j, "time_ns", (double)now);
	while (proc && (p = readdir(proc))) {
		char path[600];
		struct dirent *t;
		DIR *tasks;

		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", p->d_name);
		tasks = opendir(path);
		while (tasks && (t = readdir(tasks))) {
			if (t->d_name[0] < '1' || t->d_name[0] > '9')
				continue;
			snprintf(path, sizeof(path), "/proc/%s/task/%s/comm", p->d_name, t->d_name);
			add_comm(comms, t->d_name, path);
		}
		if (tasks)
			closedir(tasks);
	}
	if (proc)
		closedir(proc);
	ret = fol_writer_chunk_json(r->w, FOL_CHUNK_SYNTH, j);
	cJSON_Delete(j);
	return ret;
}

int rec_write_synth(struct fol_recorder *r, uint64_t now)
{
	char path[64], line[4352];
	cJSON *j = cJSON_CreateObject(), *maps, *comms;
	FILE *f;
	int ret;

	if (!j)
		return -ENOMEM;
	cJSON_AddNumberToObject(j, "pid", r->o->pid);
	cJSON_AddNumberToObject(j, "time_ns", (double)now);
	comms = cJSON_AddObjectToObject(j, "comm");
	for (int i = 0; i < perf_thread_map__nr(r->threads); i++) {
		int tid = perf_thread_map__pid(r->threads, i);
		char key[16];

		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", r->o->pid, tid);
		snprintf(key, sizeof(key), "%d", tid);
		add_comm(comms, key, path);
	}
	rec_add_mm_thread_comms(r, comms);
	maps = cJSON_AddArrayToObject(j, "maps");
	snprintf(path, sizeof(path), "/proc/%d/maps", r->o->pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off = 0;
		char perms[5] = "", hex[24];
		int name = 0;
		cJSON *m;

		unsigned maj = 0, min = 0;
		unsigned long long ino = 0;

		if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &lo, &hi, perms, &off, &maj, &min,
			   &ino, &name) < 7)
			continue;
		m = cJSON_CreateObject();
		snprintf(hex, sizeof(hex), "0x%llx", lo);
		cJSON_AddStringToObject(m, "start", hex);
		snprintf(hex, sizeof(hex), "0x%llx", hi);
		cJSON_AddStringToObject(m, "end", hex);
		/* The file offset, as an MMAP2 record has it: without it every address of a
		 * library's text was taken for an offset from the file's start (redis's
		 * _sdsnewlen named redis-check-rdb+0x19815). */
		snprintf(hex, sizeof(hex), "0x%llx", off);
		cJSON_AddStringToObject(m, "pgoff", hex);
		cJSON_AddStringToObject(m, "perms", perms);
		line[strcspn(line, "\n")] = '\0';
		/* An anonymous mapping, as perf names one. */
		cJSON_AddStringToObject(m, "file", name && line[name] ? line + name : "//anon");
		if (ino) {
			struct fol_file_id id = { maj, min, ino };
			uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

			cJSON_AddNumberToObject(m, "maj", maj);
			cJSON_AddNumberToObject(m, "min", min);
			cJSON_AddNumberToObject(m, "ino", (double)ino);
			if (line[name] == '/')
				fol_pc_files_note(r->pc, &id, line + name, off / page, (hi - lo) / page);
		}
		/* Code mapped before the attach: its build-id in the END chunk as for code
		 * mapped after (an MMAP2 record), so that a report checks the file it reads. */
		if (perms[2] == 'x' && name && line[name] == '/')
			note_code(r, line + name);
		cJSON_AddItemToArray(maps, m);
	}
	if (f)
		fclose(f);
	rec_add_seed(r, j, r->o->pid);
	ret = fol_writer_chunk_json(r->w, FOL_CHUNK_SYNTH, j);
	cJSON_Delete(j);
	return ret;
}

int rec_write_phases(struct fol_recorder *r)
{
	char *buf, *nl;
	size_t n;
	FILE *f;
	int ret = 0;

	if (!r->o->phase_file || !(f = fopen(r->o->phase_file, "re")))
		return 0;
	buf = malloc(FOL_CHUNK_MAX);
	n = buf ? fread(buf, 1, FOL_CHUNK_MAX, f) : 0;
	if (n == FOL_CHUNK_MAX && fgetc(f) != EOF && (nl = memrchr(buf, '\n', n))) {
		n = (size_t)(nl - buf) + 1;
		fol_msgs_add(&r->res->warnings, "the workload wrote more phases than a chunk holds "
				 "(%u MB): the rest left out", FOL_CHUNK_MAX >> 20);
	}
	fclose(f);
	if (n)
		ret = fol_writer_chunk_buf(r->w, FOL_CHUNK_WORKLOAD, buf, n);
	free(buf);
	return buf ? ret : -ENOMEM;
}

/* The build-ids of the code the run mapped, read from the files now, as perf record does
 * at its end (those longer than a reader takes are left out: it would find none). */
static int read_build_ids(const struct fol_recorder *r, struct fol_build_ids *ids)
{
	ids->v = calloc(r->code.n + 1, sizeof(*ids->v));
	if (!ids->v)
		return -ENOMEM;
	for (size_t i = 0; i < r->code.n; i++) {
		struct fol_build_id *b = &ids->v[ids->n];
		uint8_t id[64];
		int n = fol_symbols_file_build_id(*FOL_INDEXED_AT(&r->code, char *, i), id, sizeof(id));

		if (n <= 0 || n > (int)sizeof(b->id))
			continue;
		b->path = *FOL_INDEXED_AT(&r->code, char *, i);
		b->len = n;
		memcpy(b->id, id, (size_t)n);
		ids->n++;
	}
	return 0;
}

/* The samples the kernel dropped, by event: an event recorded in the target and in the
 * mm threads is one sum. Names are the events', borrowed. */
static int read_lost(const struct fol_recorder *r, struct fol_named_counts *c)
{
	c->names = calloc((size_t)r->nr_ev + 1, sizeof(*c->names));
	c->counts = calloc((size_t)r->nr_ev + 1, sizeof(*c->counts));
	if (!c->names || !c->counts)
		return -ENOMEM;
	c->have = 1;
	for (int i = 0; i < r->nr_ev; i++) {
		uint64_t lost = 0;
		int k = 0;

		for_each_fd(r->ev[i].evsel, add_lost, &lost);
		while (k < c->n && strcmp(c->names[k], r->ev[i].name))
			k++;
		if (k == c->n)
			c->names[c->n++] = (char *)r->ev[i].name;
		c->counts[k] += (double)lost;
	}
	return 0;
}

/* How the run ended, as END says it. */
static void how_ended(const struct fol_recorder *r, uint64_t dur, struct fol_recording *e)
{
	int st = r->res->wait_status;

	e->duration_ns = (double)dur;
	e->exit_code = e->exit_signal = e->user_ns = e->system_ns = -1;
	e->bpf_threads_not_followed = e->bpf_records_not_written = -1;
	if (r->o->argv && WIFEXITED(st))
		e->exit_code = WEXITSTATUS(st);
	else if (r->o->argv && WIFSIGNALED(st))
		e->exit_signal = WTERMSIG(st);
	if (r->o->argv && r->res->user_ns >= 0) {
		e->user_ns = r->res->user_ns;
		e->system_ns = r->res->system_ns;
	}
	e->interrupted_by = r->interrupted_by;
	e->records = (double)r->res->records;
	e->samples = (double)r->res->samples;
	e->lost = (double)r->res->lost;
	if (r->bpf) {
		uint64_t threads, records;

		fol_bpf_faults_dropped(r->bpf, &threads, &records);
		e->bpf_threads_not_followed = (double)threads;
		e->bpf_records_not_written = (double)records;
	}
}

int rec_write_end(struct fol_recorder *r, uint64_t dur)
{
	struct fol_recording e = { 0 };
	int ret;

	how_ended(r, dur, &e);
	ret = read_build_ids(r, &e.build_ids);
	if (!ret && !r->no_format_lost)
		ret = read_lost(r, &e.lost_by_event);
	if (!ret)
		ret = write_facts(r, FOL_CHUNK_END, &e);
	free(e.build_ids.v);
	free(e.lost_by_event.names);
	free(e.lost_by_event.counts);
	return ret;
}

int rec_write_maps(struct fol_recorder *r, pid_t pid)
{
	struct fol_maps *m;
	cJSON *j;
	int ret;

	if (fol_maps_read(pid, "", 0, r->o->signals, &m))
		return 0;
	j = fol_maps_json(m);
	fol_maps_free(m);
	if (!j)
		return -ENOMEM;
	ret = fol_writer_chunk_json(r->w, FOL_CHUNK_MAPS, j);
	cJSON_Delete(j);
	return ret;
}

int rec_write_pagecache(struct fol_recorder *r)
{
	cJSON *j = fol_pc_snapshot(r->pc, "", (time_t)(r->start_real / 1000000000), r->o->signals);
	int ret;

	if (!j)
		return -ENOMEM;
	ret = fol_writer_chunk_json(r->w, FOL_CHUNK_PAGECACHE, j);
	cJSON_Delete(j);
	return ret;
}
