// SPDX-License-Identifier: GPL-2.0-only
/* Merge: records of several CPU buffers come out in time order, released round by round. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "data/merge.h"

static int pop_all(struct fol_merge *m, uint64_t *out, int max)
{
	uint64_t t;
	const void *rec;
	size_t size;
	int n = 0;

	while (n < max && fol_merge_pop(m, &t, &rec, &size)) {
		assert_int_equal(size, sizeof(uint64_t));
		assert_int_equal(*(const uint64_t *)rec, t);
		out[n++] = t;
	}
	return n;
}

static void push(struct fol_merge *m, uint64_t t)
{
	assert_int_equal(fol_merge_push(m, t, &t, sizeof(t)), 0);
}

static void test_rounds(void **state)
{
	struct fol_merge *m = fol_merge_new();
	uint64_t out[32];
	int n;

	(void)state;
	/* Round 1: CPU0 drained 10,30,50; CPU1 drained 20,40. */
	push(m, 10), push(m, 30), push(m, 50), push(m, 20), push(m, 40);
	fol_merge_round(m);
	/* Nothing is safe yet: CPU0 may still hold 45 written after its drain. */
	assert_int_equal(pop_all(m, out, 32), 0);
	/* Round 2: CPU0 45, 60; CPU1 55. Still nothing: a record held back from round 1 (its
	 * chunk's last) may come in round 2 and be older than 50. */
	push(m, 45), push(m, 60), push(m, 55);
	fol_merge_round(m);
	assert_int_equal(pop_all(m, out, 32), 0);
	/* Round 3: CPU0 70. Round 1's newest, 50, and all before it are safe now. */
	push(m, 70);
	fol_merge_round(m);
	static const uint64_t want[] = { 10, 20, 30, 40, 45, 50 };

	n = pop_all(m, out, 32);
	assert_int_equal(n, 6);
	for (int i = 0; i < n; i++)
		assert_int_equal(out[i], want[i]);
	fol_merge_flush_all(m);
	n = pop_all(m, out, 32);
	assert_int_equal(n, 3);
	assert_int_equal(out[0], 55);
	assert_int_equal(out[1], 60);
	assert_int_equal(out[2], 70);
	assert_int_equal(fol_merge_late(m), 0);
	fol_merge_free(m);
}

#define MS 1000000ull

/* Rounds that say when their drains began release a quiet machine's last records: a round
 * with no records moves nothing by its newest time, but every record older than the
 * drain before it (less the margin for one still being written) was in the merge once
 * that round's held records came, at the next round's end. */
static void test_drained(void **state)
{
	struct fol_merge *m = fol_merge_new();
	uint64_t out[8];

	(void)state;
	/* Round 1 drained from 50 ms: records at 20 and 45 ms. Nothing is safe yet: the
	 * session holds a chunk's last records back a round. */
	push(m, 20 * MS), push(m, 45 * MS);
	fol_merge_drained(m, 50 * MS);
	fol_merge_round(m);
	assert_int_equal(pop_all(m, out, 8), 0);
	assert_int_equal(fol_merge_limit(m), 0);
	/* Round 2, from 150 ms, finds nothing: round 1's drain, less the margin, is safe:
	 * 20 ms, not yet 45 (it might have been written as the drain began). */
	fol_merge_drained(m, 150 * MS);
	fol_merge_round(m);
	assert_int_equal(fol_merge_limit(m), 50 * MS - FOL_MERGE_DRAIN_MARGIN_NS);
	assert_int_equal(pop_all(m, out, 8), 1);
	assert_int_equal(out[0], 20 * MS);
	/* Round 3, no time said (an older file's round): round 2's drain is safe now. */
	fol_merge_round(m);
	assert_int_equal(pop_all(m, out, 8), 1);
	assert_int_equal(out[0], 45 * MS);
	/* Rounds that say no time leave 160 ms to the newest-time rule: two rounds more. */
	push(m, 160 * MS);
	fol_merge_round(m);
	fol_merge_round(m);
	assert_int_equal(pop_all(m, out, 8), 0);
	fol_merge_free(m);
}

static void test_ties_keep_arrival_order(void **state)
{
	struct fol_merge *m = fol_merge_new();
	const void *rec;
	size_t size;
	uint64_t t;
	int vals[5] = { 1, 2, 3, 4, 5 };

	(void)state;
	for (int i = 0; i < 5; i++)
		assert_int_equal(fol_merge_push(m, 100, &vals[i], sizeof(int)), 0);
	fol_merge_flush_all(m);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(fol_merge_pop(m, &t, &rec, &size), 1);
		assert_int_equal(*(const int *)rec, i + 1);
	}
	assert_int_equal(fol_merge_pop(m, &t, &rec, &size), 0);
	fol_merge_free(m);
}

static void test_random_streams(void **state)
{
	/* Four CPUs draining in turn while time goes on: a buffer holds what was written
	 * to it since its last drain, so one drained late in a round can hold records older
	 * than one drained early. The output must be sorted and complete, and the merge
	 * must hold far fewer records than the total. */
	struct fol_merge *m = fol_merge_new();
	uint64_t drained[4] = { 0 }, now = 0, last = 0, t;
	const void *rec;
	size_t size;
	int total = 0, popped = 0;

	(void)state;
	srand(42);
	for (int round = 0; round < 500; round++) {
		for (int c = 0; c < 4; c++) {
			int k = rand() % 20;
			uint64_t span;

			now += 1 + (uint64_t)(rand() % 1000);
			span = now - drained[c];
			for (int i = 0; i < k; i++) {
				uint64_t at = drained[c] + 1 + (span - 1) * (uint64_t)i / (uint64_t)k;

				push(m, at);
				total++;
			}
			drained[c] = now;
		}
		fol_merge_round(m);
		while (fol_merge_pop(m, &t, &rec, &size)) {
			assert_true(t >= last);
			last = t;
			popped++;
		}
	}
	fol_merge_flush_all(m);
	while (fol_merge_pop(m, &t, &rec, &size)) {
		assert_true(t >= last);
		last = t;
		popped++;
	}
	assert_int_equal(popped, total);
	assert_int_equal(fol_merge_late(m), 0);
	assert_true(fol_merge_peak(m) < (size_t)total / 20);
	fol_merge_free(m);
}

/* Another sampler's time in one of the records: placed after its predecessor, flagged;
 * the rest of the buffer untouched. Out of place early, late, at either end, none. */
static void test_retime(void **state)
{
	uint64_t early[] = { 100, 200, 150000, 300, 400 }; /* 150000: far ahead (late) */
	uint64_t ahead[] = { 100, 200, 50, 300, 400 };	   /* 50: behind (early) */
	uint64_t first[] = { 9000, 200, 300, 400 };	   /* the first record late */
	uint64_t last[] = { 100, 200, 300, 7 };		   /* the last record early */
	uint64_t sorted[] = { 1, 2, 2, 3, 0, 4 };	   /* 0: no time, no say */
	uint64_t pair[] = { 500, 100 };			   /* two alone: undecidable */
	uint8_t f[16];

	(void)state;
	assert_int_equal(fol_merge_retime(early, f, 5, 0), 1);
	assert_int_equal(early[2], 200);
	assert_int_equal(f[2], 1);
	assert_int_equal(f[1] + f[3], 0);
	assert_int_equal(fol_merge_retime(ahead, f, 5, 0), 1);
	assert_int_equal(ahead[2], 200);
	assert_int_equal(ahead[3], 300);
	assert_int_equal(fol_merge_retime(first, f, 4, 0), 1);
	assert_int_equal(first[0], 200);
	assert_int_equal(f[0], 1);
	assert_int_equal(fol_merge_retime(last, f, 4, 0), 1);
	assert_int_equal(last[3], 300);
	assert_int_equal(fol_merge_retime(sorted, f, 6, 0), 0);
	assert_int_equal(sorted[4], 0);
	assert_int_equal(fol_merge_retime(pair, f, 2, 0), 1);
	assert_int_equal(pair[1], 500); /* the later record is taken as the odd one */
	/* After a gap (the previous chunk of this CPU ended long ago) the record after the
	 * first is the early one, not the first late (seen live: an entry was moved back
	 * 137 ms instead of its exit being placed). */
	{
		uint64_t gap[] = { 617000, 754553, 700000, 754555, 754560 };

		assert_int_equal(fol_merge_retime(gap, f, 5, 1), 1);
		assert_int_equal(gap[1], 754553);
		assert_int_equal(f[2], 1);
		assert_int_equal(gap[2], 754553);
	}
	/* Another sampler's exits, all 574 us ahead, alternate with this recording's entries
	 * (seen live with perf record -e minor-faults -p on the workload): each is moved, none
	 * of the entries. */
	{
		uint64_t alt[] = { 100, 674, 110, 684, 120, 694, 130, 140, 150 };

		assert_int_equal(fol_merge_retime(alt, f, 9, 1), 3);
		assert_int_equal(alt[1], 100);
		assert_int_equal(alt[3], 110);
		assert_int_equal(alt[5], 120);
		assert_int_equal(f[2] + f[4] + f[6] + f[7] + f[8], 0);
	}
	/* The buffer's previous chunk ended at 1000: this chunk's first record is behind. */
	{
		uint64_t cont[] = { 1000, 20, 1100, 1200 };

		assert_int_equal(fol_merge_retime(cont, f, 4, 1), 1);
		assert_int_equal(cont[0], 1000);
		assert_int_equal(cont[1], 1000);
		assert_int_equal(f[1], 1);
	}
}

/* No round markers at all (a hostile or broken file): memory stays bounded, since past
 * the bound what is held is released as a round would release it. */
static void test_memory_bound(void **state)
{
	struct fol_merge *m = fol_merge_new();
	char rec[64] = { 0 };
	uint64_t t;
	const void *p;
	size_t size, most = 0;
	int popped = 0;

	(void)state;
	fol_merge_set_max_bytes(m, 64 * 1024);
	for (int i = 0; i < 100000; i++) {
		assert_int_equal(fol_merge_push(m, (uint64_t)i + 1, rec, sizeof(rec)), 0);
		if (i % 100 == 99) {
			assert_int_equal(fol_merge_end_run(m), 0);
			while (fol_merge_pop(m, &t, &p, &size))
				popped++;
		}
		if (fol_merge_queued(m) > most)
			most = fol_merge_queued(m);
	}
	fol_merge_flush_all(m);
	while (fol_merge_pop(m, &t, &p, &size))
		popped++;
	assert_int_equal(popped, 100000);
	assert_true(most * sizeof(rec) <= 64 * 1024 + 100 * sizeof(rec));
	assert_true(fol_merge_forced(m) > 0);
	fol_merge_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rounds),
		cmocka_unit_test(test_drained),
		cmocka_unit_test(test_ties_keep_arrival_order),
		cmocka_unit_test(test_random_streams),
		cmocka_unit_test(test_retime),
		cmocka_unit_test(test_memory_bound),
	};

	return cmocka_run_group_tests_name("merge", tests, NULL, NULL);
}
