// SPDX-License-Identifier: GPL-2.0-only
/* Memory and time a recording can make the report spend: each test builds the input an
 * attacker would (keys that collide, forks over a large map, many mappings) and checks
 * that the work stays near what the input justifies. Memory is measured with mallinfo2
 * (0 under ASan, which keeps its own books); time is guarded by an alarm a thousand times
 * the normal run time, a hang guard and not a timing budget. Each failed before its fix. */
#include <errno.h>
#include <malloc.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "report/figures.h"
#include "sys/maps.h"
#include "data/merge.h"
#include "model/model.h"
#include "report/report.h"
#include "report/runs.h"
#include "util/grow.h"
#include "util/u64map.h"

#include "recbuild.h"

static struct fol_model_opts all = { .order = FOL_ANY, .cls = FOL_ANY };

static void watchdog(int sig)
{
	(void)sig;
	fprintf(stderr, "hang: quadratic again?\n");
	_exit(1);
}

/* Bytes allocated: large blocks are mmap'ed apart from the heap (hblkhd). */
static size_t allocated(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

/* A hang's guard, not a time budget: what was quadratic took minutes. A sanitized build
 * moves every map at every insert (FOL_U64MAP_MOVES) and is some 80 times slower on the
 * map's million keys (23 s where a plain build takes 0.3; over 60 on a loaded machine). */
static void guard(unsigned seconds)
{
#ifdef FOL_U64MAP_MOVES
	seconds *= 5;
#endif
	signal(SIGALRM, watchdog);
	alarm(seconds);
}

static uint64_t now = 1;

static void feed(struct fol_model *m, struct fol_event e)
{
	e.time = now++;
	assert_int_equal(fol_model_event(m, &e), 0);
}

/* A fault of pid at addr (a write when write), allocating a folio of alloc_order (-1:
 * none), and its end. */
static void fault(struct fol_model *m, int pid, uint64_t addr, int write, int alloc_order)
{
	feed(m, (struct fol_event){ .pid = pid, .tid = pid, .kind = FOL_EV_FAULT_USER,
				    .fault = { .address = addr, .error_code = write ? 7 : 6 } });
	if (alloc_order >= 0)
		feed(m, (struct fol_event){ .pid = pid, .tid = pid, .kind = FOL_EV_PAGE_ALLOC,
					    .page = { .pfn = 1, .order = alloc_order,
						      .gfp = FOL_GFP_MOVABLE } });
	feed(m, (struct fol_event){ .pid = pid, .tid = pid, .kind = FOL_EV_FAULT_EXIT,
				    .exit = { .addr = addr } });
}

static void fork_of(struct fol_model *m, int parent, int child)
{
	feed(m, (struct fol_event){ .pid = child, .tid = child, .kind = FOL_EV_FORK,
				    .fork = { .pid = child, .tid = child, .ppid = parent,
					      .ptid = parent } });
}

static void exit_of(struct fol_model *m, int pid)
{
	feed(m, (struct fol_event){ .pid = pid, .tid = pid, .kind = FOL_EV_EXIT,
				    .fork = { .pid = pid, .tid = pid, .ppid = pid, .ptid = pid } });
}

/* 40 forks of a process of a million folios: each copied the map (80 MB), 3.2 GB in all;
 * now the children share it until they change it. */
static void test_forks_share_map(void **state)
{
	struct fol_model *m = fol_model_new(&all);
	struct fol_summary s;
	size_t before, held;

	(void)state;
	feed(m, (struct fol_event){ .pid = 1, .tid = 1, .kind = FOL_EV_FOLIOS,
				    .folios = { .start = 1ull << 32, .n = 1u << 20, .order = 0 } });
	before = allocated();
	for (int i = 0; i < 40; i++) {
		fork_of(m, 1, 100 + i);
		fault(m, 100 + i, 1ull << 32, 0, -1); /* a read changes nothing */
	}
	held = allocated() - before;
	assert_true(held < (16u << 20));
	/* A child that writes has a map of its own; the parent's stays as it was. */
	fault(m, 100, 1ull << 32, 1, -1);
	fault(m, 1, (1ull << 32) + 4096, 1, -1);
	assert_int_equal(fol_model_finish(m, &s), 0);
	assert_int_equal(s.seeded[0], 1u << 20);
	assert_int_equal(s.order[FOL_ORDER_SLOT(0)].reuse.folios, 2);
	assert_int_equal(s.order[FOL_ORDER_SLOT(0)].reuse.episodes, 2);
	fol_summary_free(&s);
	fol_model_free(m);
}

/* The folios a parent counted among the reused ones are not counted for its child: the
 * child's own episodes count them again (each process's reuse is its own). */
static void test_fork_counts_folios_again(void **state)
{
	struct fol_model *m = fol_model_new(&all);
	struct fol_summary s;
	const struct fol_reuse *r = &s.order[FOL_ORDER_SLOT(0)].reuse;

	(void)state;
	fault(m, 1, 0x10000, 1, 0);
	fault(m, 1, 0x10000, 1, -1);	/* episode 1, folio counted for pid 1 */
	fork_of(m, 1, 2);		/* ends it */
	fault(m, 1, 0x10000, 1, -1);	/* episode 2: the parent's folio, counted already */
	fork_of(m, 1, 3);		/* ends it; 3 shares 1's map */
	exit_of(m, 1);
	fault(m, 3, 0x10000, 1, -1);	/* episode 3: 3's folio, new to it */
	fault(m, 2, 0x10000, 1, -1);	/* episode 4: 2's, new to it */
	assert_int_equal(fol_model_finish(m, &s), 0);
	assert_int_equal(r->episodes, 4);
	assert_int_equal(r->faults, 4);
	assert_int_equal(r->folios, 3);
	fol_summary_free(&s);
	fol_model_free(m);
}

/* A million mappings, laid top-down as mmap lays them, and a fault in each: an array
 * searched from its start took 5*10^11 steps (minutes). */
static void test_many_mappings(void **state)
{
	struct fol_model *m = fol_model_new(&all);
	struct fol_summary s;
	const int n = 1000000;
	const uint64_t top = 0x7f0000000000ull;

	(void)state;
	guard(120);
	for (int i = 0; i < n; i++)
		feed(m, (struct fol_event){ .pid = 1, .tid = 1, .kind = FOL_EV_MMAP,
					    .mmap = { .start = top - (uint64_t)i * 8192, .len = 4096,
						      .filename = "//anon" } });
	for (int i = 0; i < n; i += 2)
		fault(m, 1, top - (uint64_t)i * 8192 + 100, 0, 0);
	/* One munmap over half of them, and one mapping over another quarter. */
	feed(m, (struct fol_event){ .pid = 1, .tid = 1, .kind = FOL_EV_MUNMAP,
				    .vm = { .start = top - (uint64_t)(n / 2) * 8192 + 4096,
					    .len = (uint64_t)(n / 2) * 8192 } });
	feed(m, (struct fol_event){ .pid = 1, .tid = 1, .kind = FOL_EV_MMAP,
				    .mmap = { .start = top - (uint64_t)(n / 4) * 8192 + 4096,
					      .len = (uint64_t)(n / 4) * 8192,
					      .filename = "/big" } });
	alarm(0);
	assert_int_equal(fol_model_finish(m, &s), 0);
	assert_int_equal(s.order[FOL_ORDER_SLOT(0)].cell[FOL_C_ANON_ALLOC].faults, n / 2);
	fol_summary_free(&s);
	fol_model_free(m);
}

/* A seeded run of 2^36 folios (schema-valid: 256 TiB of 4K pages) went into the folio map
 * one by one: 78 s and 7.9 GB up to the former bound of 2^26. Runs stay runs now; a fault
 * takes its folio out, munmap and mremap cut and move them, a fork copies them. */
static void test_huge_seed(void **state)
{
	struct fol_model *m = fol_model_new(&all);
	struct fol_summary s;
	const uint64_t base = 1ull << 44, k64 = 1ull << 16;
	size_t before, held;

	(void)state;
	guard(60);
	before = allocated();
	feed(m, (struct fol_event){ .pid = 1, .tid = 1, .kind = FOL_EV_FOLIOS,
				    .folios = { .start = base, .n = 1ull << 36, .order = 0 } });
	/* 64K folios over the first 1 MB, in place of those 4K ones. */
	feed(m, (struct fol_event){ .pid = 1, .tid = 1, .kind = FOL_EV_FOLIOS,
				    .folios = { .start = base, .n = 16, .order = 4 } });
	fault(m, 1, base + 5000, 1, -1);		/* 64K */
	fault(m, 1, base + (1ull << 40), 1, -1);	/* 4K, deep in the run */
	feed(m, (struct fol_event){ .pid = 1, .tid = 1, .kind = FOL_EV_MUNMAP,
				    .vm = { .start = base + (1ull << 30), .len = 1ull << 30 } });
	fault(m, 1, base + (1ull << 30) + 4096, 1, -1);	/* unmapped: unknown */
	/* The second MB of 64K folios moved 64K-aligned (kept), the third 4K-aligned. */
	feed(m, (struct fol_event){ .pid = 1, .tid = 1, .kind = FOL_EV_MREMAP,
				    .vm = { .start = base, .len = 2 * k64, .new_len = 2 * k64 } });
	feed(m, (struct fol_event){ .pid = 1, .tid = 1, .kind = FOL_EV_MREMAP_EXIT,
				    .vm = { .ret = (int64_t)(base - (1ull << 32)) } });
	fault(m, 1, base - (1ull << 32) + k64 + 100, 1, -1);	/* 64K, moved */
	fault(m, 1, base + 100, 1, -1);				/* moved away: unknown */
	feed(m, (struct fol_event){ .pid = 1, .tid = 1, .kind = FOL_EV_MREMAP,
				    .vm = { .start = base + 2 * k64, .len = k64, .new_len = k64 } });
	feed(m, (struct fol_event){ .pid = 1, .tid = 1, .kind = FOL_EV_MREMAP_EXIT,
				    .vm = { .ret = (int64_t)(base - (1ull << 33) + 4096) } });
	fault(m, 1, base - (1ull << 33) + 4096 + 100, 1, -1);	/* unaligned: unknown */
	/* A shrinking move from an address not 64K-aligned: of the 64K folios starting at
	 * offsets 60K, 124K, ... only the first is kept (100K), at a 64K-aligned place. */
	feed(m, (struct fol_event){ .pid = 1, .tid = 1, .kind = FOL_EV_MREMAP,
				    .vm = { .start = base + 196 * 1024, .len = 256 * 1024,
					    .new_len = 100 * 1024 } });
	feed(m, (struct fol_event){ .pid = 1, .tid = 1, .kind = FOL_EV_MREMAP_EXIT,
				    .vm = { .ret = (int64_t)(base - (1ull << 34) - 60 * 1024) } });
	fault(m, 1, base - (1ull << 34) + 100, 1, -1);		/* 64K, kept */
	fault(m, 1, base - (1ull << 34) + k64 + 100, 1, -1);	/* cut off: unknown */
	fork_of(m, 1, 2);
	fault(m, 2, base + (1ull << 41), 1, -1);	/* the child's copy of the runs: 4K */
	held = allocated() - before;
	alarm(0);
	assert_true(held < (1u << 20));
	assert_int_equal(fol_model_finish(m, &s), 0);
	assert_int_equal(s.seeded[0], 1ull << 36);
	assert_int_equal(s.seeded[4], 16);
	assert_int_equal(s.order[FOL_ORDER_SLOT(4)].cell[FOL_C_WP_REUSE].faults, 3);
	assert_int_equal(s.order[FOL_ORDER_SLOT(0)].cell[FOL_C_WP_REUSE].faults, 2);
	assert_int_equal(s.order[FOL_ORDER_SLOT(-1)].cell[FOL_C_WP_REUSE].faults, 4);
	assert_int_equal(s.moved_unaligned, 1);
	fol_summary_free(&s);
	fol_model_free(m);
}

/* 600,000 MADV_HUGEPAGE calls (an allocator may madvise each block) and a read fault in
 * each range: every fault searched a list of every call, 1.8*10^11 steps. */
static void test_many_madvised(void **state)
{
	struct fol_model_opts o = { .page_size = 4096, .order = FOL_ANY, .cls = FOL_ANY,
				    .pmd_order = 9, .huge_zero = FOL_HZ_MADVISE };
	struct fol_model *m = fol_model_new(&o);
	struct fol_summary s;
	const int n = 600000;
	const uint64_t base = 1ull << 40, step = 4ull << 20;

	(void)state;
	guard(60);
	feed(m, (struct fol_event){ .pid = 1, .tid = 1, .kind = FOL_EV_MMAP,
				    .mmap = { .start = base, .len = n * step, .filename = "//anon" } });
	for (int i = 0; i < n; i++)
		feed(m, (struct fol_event){ .pid = 1, .tid = 1, .kind = FOL_EV_MADVISE,
					    .vm = { .start = base + i * step, .len = 2 << 20,
						    .behavior = 14 /* MADV_HUGEPAGE */ } });
	for (int i = 0; i < n; i++) {
		feed(m, (struct fol_event){ .pid = 1, .tid = 1, .kind = FOL_EV_FAULT_USER,
					    .fault = { .address = base + i * step + 4096,
						       .error_code = 4 } });
		feed(m, (struct fol_event){ .pid = 1, .tid = 1, .kind = FOL_EV_FAULT_EXIT,
					    .exit = { .addr = base + i * step + 4096 } });
	}
	alarm(0);
	assert_int_equal(fol_model_finish(m, &s), 0);
	assert_int_equal(s.order[FOL_ORDER_SLOT(9)].cell[FOL_C_ANON_ZERO].faults, n);
	fol_summary_free(&s);
	fol_model_free(m);
}

/* The inverse of the map's former, unkeyed mix: keys whose hashes are i << 24 all land
 * in slot 0 of any map up to 16M slots. */
static uint64_t unmix(uint64_t h)
{
	uint64_t c = 0xff51afd7ed558ccdull, inv = c;

	for (int i = 0; i < 6; i++)
		inv *= 2 - c * inv; /* Newton's iteration for the inverse modulo 2^64 */
	h ^= h >> 33;
	h *= inv;
	h ^= h >> 33;
	return h;
}

static void test_colliding_keys(void **state)
{
	struct fol_u64map *m = fol_u64map_new(8);
	const uint64_t n = 1000000;

	(void)state;
	assert_non_null(m);
	guard(60); /* was 5*10^11 probes: 8 minutes; now 0.3 s */
	for (uint64_t i = 1; i <= n; i++)
		assert_non_null(fol_u64map_put(m, unmix(i << 24), NULL));
	for (uint64_t i = 1; i <= n; i++)
		assert_non_null(fol_u64map_get(m, unmix(i << 24)));
	for (uint64_t i = 1; i <= n; i += 2)
		assert_int_equal(fol_u64map_del(m, unmix(i << 24), NULL), 1);
	alarm(0);
	assert_null(fol_u64map_get(m, unmix(1ull << 24)));
	assert_non_null(fol_u64map_get(m, unmix(2ull << 24)));
	fol_u64map_free(m);
}

/* A map that held a peak gives the memory back when it is used again, and keeps its
 * entries. */
static void test_map_shrinks(void **state)
{
	struct fol_u64map *m = fol_u64map_new(8);
	const uint64_t n = 100000;

	(void)state;
	assert_non_null(m);
	for (uint64_t i = 1; i <= n; i++)
		*(uint64_t *)fol_u64map_put(m, i, NULL) = i;
	assert_true(fol_u64map_capacity(m) >= n);
	for (uint64_t i = 11; i <= n; i++)
		assert_int_equal(fol_u64map_del(m, i, NULL), 1);
	assert_true(fol_u64map_capacity(m) >= n); /* del moves no entry but its run's */
	assert_non_null(fol_u64map_put(m, n + 1, NULL));
	assert_int_equal(fol_u64map_capacity(m), 64);
	for (uint64_t i = 1; i <= 10; i++)
		assert_int_equal(*(uint64_t *)fol_u64map_get(m, i), i);
	assert_null(fol_u64map_get(m, 11));
	fol_u64map_free(m);
}

#ifdef FOL_U64MAP_MOVES
/* How a child that changes a map the way code must not ends: a signal, or 0. */
static int misuse(int how)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		struct fol_u64map *m = fol_u64map_new(8);
		size_t pos = 0;
		uint64_t key;

		for (uint64_t i = 1; i < 10; i++)
			fol_u64map_put(m, i, NULL);
		if (how == 0)
			while (fol_u64map_next(m, &pos, &key))
				if (key == 5)
					fol_u64map_del(m, key, NULL);
		if (how == 1)
			fol_u64map_put(fol_u64map_share(m), 100, NULL);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFSIGNALED(st) ? WTERMSIG(st) : 0;
}
#endif

/* Sanitized builds catch what a map's change does to its users: a change while iterating
 * (a backward shift skips or repeats an entry) and a change of a map shared without
 * fol_u64map_own abort; a pointer kept across a change is a use after free (u64map.c). */
static void test_map_misuse(void **state)
{
	(void)state;
#ifdef FOL_U64MAP_MOVES
	assert_int_equal(misuse(0), SIGABRT);
	assert_int_equal(misuse(1), SIGABRT);
#else
	skip();
#endif
}

/* Copy on write: a holder's change is its own. */
static void test_shared_map(void **state)
{
	struct fol_u64map *a = fol_u64map_new(8), *b;
	uint64_t *v;

	(void)state;
	*(uint64_t *)fol_u64map_put(a, 7, NULL) = 70;
	b = fol_u64map_share(a);
	assert_ptr_equal(a, b);
	assert_true(fol_u64map_shared(a));
	assert_int_equal(fol_u64map_own(&b), 0);
	assert_ptr_not_equal(a, b);
	assert_false(fol_u64map_shared(a));
	*(uint64_t *)fol_u64map_get(b, 7) = 71;
	assert_int_equal(fol_u64map_del(b, 7, NULL) + !!fol_u64map_put(b, 8, NULL), 2);
	v = fol_u64map_get(a, 7);
	assert_non_null(v);
	assert_int_equal(*v, 70);
	assert_null(fol_u64map_get(a, 8));
	assert_int_equal(fol_u64map_own(&a), 0); /* alone: no copy */
	fol_u64map_free(a);
	fol_u64map_free(b);
}

/* A counters snapshot of n mTHP sizes, each with one stat. */
static char *many_sizes(int n, int value)
{
	cJSON *c = cJSON_CreateObject(), *mthp = cJSON_AddObjectToObject(c, "mthp");
	char name[32], *json;

	for (int i = 0; i < n; i++) {
		cJSON *sz;

		snprintf(name, sizeof(name), "hugepages-%dkB", i);
		sz = cJSON_AddObjectToObject(mthp, name);
		cJSON_AddNumberToObject(cJSON_AddObjectToObject(sz, "stats"), "anon_fault_alloc",
					value);
	}
	json = cJSON_PrintUnformatted(c);
	cJSON_Delete(c);
	assert_non_null(json);
	return json;
}

/* 200,000 mTHP sizes before and after: each looked up in the other snapshot by name
 * (5 minutes); a kernel has at most a dozen, the recorder writes 64 at most: more is
 * not a snapshot of a kernel and is left out, counted. */
static void test_many_mthp_sizes(void **state)
{
	struct fol_report r;
	struct rb b;
	char *before = many_sizes(200000, 1), *after = many_sizes(200000, 2);

	(void)state;
	rb_start(&b);
	rb_json(&b, FOL_CHUNK_COUNTERS, before);
	rb_json(&b, FOL_CHUNK_COUNTERS, after);
	rb_close(&b);
	guard(60);
	assert_int_equal(fol_report_build(b.path, &all, &r), 0);
	{
		struct fol_figures f;

		assert_int_equal(fol_figures_of(&r, &f), 0);
		fol_figures_free(&f);
	}
	alarm(0);
	assert_int_equal(r.st.bad_metadata, 2);
	fol_report_free(&r);
	unlink(b.path);
	free(before);
	free(after);
}

/* The kernel's splits over the run, from vmstat and every mTHP size's stats, warn that
 * the folio map's orders may be stale. */
static void test_split_warning(void **state)
{
	struct fol_report r;
	struct rb b;
	int said = 0;

	(void)state;
	rb_start(&b);
	rb_json(&b, FOL_CHUNK_COUNTERS, "{\"vmstat\":{\"thp_split_page\":1},\"mthp\":{\"64kB\":{"
					"\"stats\":{\"split\":1}},\"32kB\":{\"stats\":{\"split\":0}}}}");
	rb_json(&b, FOL_CHUNK_COUNTERS, "{\"vmstat\":{\"thp_split_page\":3},\"mthp\":{\"64kB\":{"
					"\"stats\":{\"split\":4}},\"32kB\":{\"stats\":{\"split\":2}}}}");
	rb_close(&b);
	assert_int_equal(fol_report_build(b.path, &all, &r), 0);
	for (int i = 0; i < r.warnings.n; i++)
		said |= strstr(r.warnings.v[i], "the kernel split 7 and collapsed 0") != NULL;
	assert_true(said);
	fol_report_free(&r);
	unlink(b.path);
}

/* 3,000 runs of one fault each: every run's summary held ~200 empty histograms, 610 KB a
 * run, 1.8 GB in all; a histogram now takes memory once it has a value. */
static void test_many_runs(void **state)
{
	struct rb_recs recs = { 0 };
	struct fol_runs rs;
	struct rb b;
	const int n = 3000;
	size_t before, held;

	(void)state;
	rb_open(&b);
	for (int i = 0; i < n; i++) {
		assert_int_equal(fol_runs_write_start(b.w, i, n, NULL, NULL), 0);
		rb_meta(&b, NULL);
		rb_default_events(&b);
		rb_fault(&recs, 100, 100, 2000, 0x7f0000000000, 6);
		rb_alloc(&recs, 100, 100, 2001, 0);
		rb_exit(&recs, 100, 100, 3000, 0x7f0000000000);
		rb_records(&b, &recs);
		rb_json(&b, FOL_CHUNK_END, "{\"duration_ns\":5000}");
	}
	if (fol_writer_close(b.w))
		abort();
	before = allocated();
	assert_int_equal(fol_runs_load(b.path, &all, &rs), 0);
	held = allocated() - before;
	print_message("%d runs hold %zu KB\n", n, held >> 10);
	assert_int_equal(rs.n, n);
	assert_int_equal(rs.v[n - 1].r.s.faults, 1);
	assert_true(held < ((size_t)n << 16)); /* 64 KB a run */
	fol_runs_free(&rs);
	free(recs.b);
	unlink(b.path);
}

/* 20,000 chunks of one record and no round marker: each run kept its first allocations
 * (20 KB), 400 MB in all (851 MB for 100,000 in a file); now what it holds. */
static void test_many_small_runs(void **state)
{
	struct fol_merge *m = fol_merge_new();
	const int n = 20000;
	uint64_t rec[6] = { 0 }, t, prev = 0;
	const void *p;
	size_t size, before, held;
	int popped = 0;

	(void)state;
	before = allocated();
	for (int i = 0; i < n; i++) {
		assert_int_equal(fol_merge_push(m, (uint64_t)(i * 7919 % n), rec, sizeof(rec)), 0);
		assert_int_equal(fol_merge_end_run(m), 0);
	}
	held = allocated() - before;
	print_message("%d runs of one record hold %zu KB\n", n, held >> 10);
	assert_true(held < (size_t)n * 320);
	fol_merge_flush_all(m);
	while (fol_merge_pop(m, &t, &p, &size)) {
		assert_true(t >= prev);
		prev = t;
		popped++;
	}
	assert_int_equal(popped, n);
	fol_merge_free(m);
}

static volatile sig_atomic_t signals;

static void count_signal(int sig)
{
	(void)sig;
	signals++;
}

static void put_file(const char *root, const char *name, const char *text, off_t size)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	if (size)
		assert_int_equal(truncate(path, size), 0);
}

/* A process with 4 TB reserved, on a kernel without PAGEMAP_SCAN (a fake /proc: the
 * ioctl fails on a regular file): the walk reads 2^30 entries page by page, and ignored
 * a signal until the end (49 s for 64 TB). Now it stops at the next window. */
static void test_walk_stops_at_signal(void **state)
{
	char root[] = "/tmp/foliostat-proc.XXXXXX", dir[512];
	struct itimerval tv = { .it_value = { .tv_usec = 100000 } };
	struct sigaction sa = { .sa_handler = count_signal };
	struct fol_maps *m = NULL;
	int ret;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/proc", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(dir, sizeof(dir), "%s/proc/4242", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	put_file(root, "proc/4242/maps", "100000000000-500000000000 rw-p 00000000 00:00 0 \n", 0);
	put_file(root, "proc/4242/stat", "4242 (reserve) S 1 4242 4242 0 -1 4194560 0\n", 0);
	put_file(root, "proc/4242/pagemap", "", (off_t)(0x500000000000ull / 4096 * 8));
	put_file(root, "proc/kpageflags", "", 0);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &tv, NULL);
	ret = fol_maps_read(4242, root, 0, &signals, &m);
	signal(SIGALRM, SIG_DFL);
	assert_int_equal(ret, -EINTR);
	assert_null(m);
	snprintf(dir, sizeof(dir), "rm -rf %s", root);
	assert_int_equal(system(dir), 0);
}

/* The one growth helper: room from first, doubled to fit, and on a size that would
 * overflow nothing changed. */
static void test_grow(void **state)
{
	uint64_t *v = NULL, *before;
	size_t cap = 0;

	(void)state;
	assert_int_equal(FOL_GROW(v, cap, 1, 16), 0);
	assert_int_equal(cap, 16);
	assert_int_equal(FOL_GROW(v, cap, 16, 16), 0);
	assert_int_equal(cap, 16);
	assert_int_equal(FOL_GROW(v, cap, 17, 16), 0);
	assert_int_equal(cap, 32);
	assert_int_equal(FOL_GROW(v, cap, 1000, 16), 0);
	assert_int_equal(cap, 1024);
	v[999] = 7;
	before = v;
	assert_int_equal(FOL_GROW(v, cap, SIZE_MAX / 4, 16), -ENOMEM);
	assert_ptr_equal(v, before);
	assert_int_equal(cap, 1024);
	assert_int_equal(v[999], 7);
	assert_null(fol_grow_to(v, &cap, SIZE_MAX, 1, 16));
	assert_int_equal(cap, 1024);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_split_warning),
		cmocka_unit_test(test_colliding_keys),
		cmocka_unit_test(test_map_shrinks),
		cmocka_unit_test(test_shared_map),
		cmocka_unit_test(test_map_misuse),
		cmocka_unit_test(test_huge_seed),
		cmocka_unit_test(test_forks_share_map),
		cmocka_unit_test(test_fork_counts_folios_again),
		cmocka_unit_test(test_many_mappings),
		cmocka_unit_test(test_many_madvised),
		cmocka_unit_test(test_many_mthp_sizes),
		cmocka_unit_test(test_many_runs),
		cmocka_unit_test(test_many_small_runs),
		cmocka_unit_test(test_walk_stops_at_signal),
	};

	return cmocka_run_group_tests_name("bounds", tests, NULL, NULL);
}
