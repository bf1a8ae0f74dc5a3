// SPDX-License-Identifier: GPL-2.0-only
/* The recording's facts table (data/recording_facts.c): what the recorder writes is what
 * the check keeps and the reader reads, for every row; a value of the wrong type or range
 * is removed and counted; a fact not written reads as its default. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "data/file.h"
#include "data/recording.h"
#include "sys/counters.h"
#include "util/errors.h"

#include "fakeroot.h"

static char *argv_[] = { "./app", "--size", "8M" };
static char *warns[] = { "a warning" };
static char *missing[] = { "kmem:mm_page_alloc" };
static char *ranges[] = { "0xffffffff81000000", "0xffffffff81001000" };
static char *events[] = { "minor-faults", "tracking" };
static double lost[] = { 3, 4 };
static double mm[] = { 41 }, kmm[] = { 41, 42 };
static struct fol_build_id ids[] = { { "/bin/app", { 0xab, 0xcd, 0x01 }, 3 },
				     { "/lib/libc.so.6", { 0x12 }, 1 } };

/* Every fact given a value that is not its default, so that every row is written. */
static void every_fact(struct fol_recording *r)
{
	cJSON *scope;

	*r = (struct fol_recording){
		.tool = "foliostat", .version = "1", .mode = "workload", .pid = 1234,
		.command = { argv_, 3, 1 },
		.kernel = "6.18", .kernel_build_id = "ab12", .kernel_version = "#1 SMP",
		.machine = "x86_64", .hostname = "vm", .page_size = 4096, .pmd_order = 9,
		.clock = "CLOCK_MONOTONIC", .cpus = 2, .started_realtime_ns = 1.5e18,
		.started_ns = 1e12, .mmap_pages = 1024, .fault_path = "samples",
		.fault_path_why = "asked", .mthp_spec = "64K=always", .latency_method = "sampled",
		.fault_ranges = { ranges, 2, 1 }, .sample_period_ns = 10000,
		.probe = { .have = 1, .faults = 512, .passes = 5, .untraced_ns = 900.5,
			   .traced_ns = 1200.25, .samples = 1024, .exits = 512, .sample_bytes = 65536 },
		.mm_threads = { mm, 1, 1 }, .kernel_mm_threads = { kmm, 2, 1 },
		.warnings = { warns, 1, 1 }, .missing_events = { missing, 1, 1 },
		.duration_ns = 5e9, .exit_code = 3, .exit_signal = 9, .user_ns = 1e9,
		.system_ns = 2e9, .interrupted_by = 2, .records = 100, .samples = 90, .lost = 1,
		.bpf_threads_not_followed = 0, .bpf_records_not_written = 7,
		.lost_by_event = { events, lost, 2, 1 },
		.build_ids = { ids, 2 },
	};
	scope = cJSON_Parse("{\"path\": \"/a\", \"ids\": [\"0x10\", \"0x11\"]}");
	assert_int_equal(fol_cgroups_from_json(scope, &r->scope), 0);
	cJSON_Delete(scope);
}

static void free_every_fact(struct fol_recording *r)
{
	fol_cgroups_free(&r->scope);
}

/* The least a recorder writes: the numbers it always has, the others at their defaults. */
static const struct fol_recording least = {
	.page_size = 4096, .cpus = 1, .mmap_pages = 1, .pmd_order = -1, .exit_code = -1,
	.exit_signal = -1, .user_ns = -1, .system_ns = -1, .duration_ns = 1,
	.bpf_threads_not_followed = -1, .bpf_records_not_written = -1,
};

/* META and END of r written, checked (asserting nothing was removed) and read back. */
static void round_trip(const struct fol_recording *r, struct fol_recording *back,
		       cJSON **meta, cJSON **end)
{
	*meta = fol_recording_json(r, FOL_CHUNK_META);
	*end = fol_recording_json(r, FOL_CHUNK_END);
	assert_non_null(*meta);
	assert_non_null(*end);
	assert_int_equal(fol_recording_check(FOL_CHUNK_META, *meta), 0);
	assert_int_equal(fol_recording_check(FOL_CHUNK_END, *end), 0);
	assert_int_equal(fol_recording_parse(back, &(struct fol_recording_chunks){
				 .meta = *meta, .end = *end }), 0);
}

/* Written, read and written again, every fact is what it was. */
static void test_round_trip(void **state)
{
	struct fol_recording r, back;
	cJSON *meta, *end, *meta2, *end2;
	unsigned char b[20];

	(void)state;
	every_fact(&r);
	round_trip(&r, &back, &meta, &end);
	meta2 = fol_recording_json(&back, FOL_CHUNK_META);
	end2 = fol_recording_json(&back, FOL_CHUNK_END);
	assert_true(cJSON_Compare(meta, meta2, 1));
	assert_true(cJSON_Compare(end, end2, 1));
	assert_string_equal(back.command.v[2], "8M");
	assert_int_equal(back.command.n, 3);
	assert_true(back.probe.have);
	assert_true(back.probe.traced_ns == 1200.25);
	assert_true(back.kernel_mm_threads.n == 2 && back.kernel_mm_threads.v[1] == 42);
	assert_true(back.exit_signal == 9 && back.interrupted_by == 2);
	assert_true(back.bpf_threads_not_followed == 0); /* 0 is a count, not "none" */
	assert_true(back.lost_samples == 7);		 /* summed over the events */
	assert_true(back.ended);
	assert_true(fol_cgroups_has(&back.scope, 0x11) && !fol_cgroups_has(&back.scope, 0x12));
	assert_int_equal(fol_recording_build_id(&back, "/bin/app", b), 3);
	assert_int_equal(b[2], 0x01);
	free_every_fact(&r);
	fol_recording_free(&back);
	cJSON_Delete(meta);
	cJSON_Delete(end);
	cJSON_Delete(meta2);
	cJSON_Delete(end2);
}

/* Any fact of the wrong type is removed, counted, and the others stay. Checked for every
 * key the writer wrote in the chunk, or in its object named in (NULL: the chunk's own):
 * every row's check. */
static void wrong_type_each(const cJSON *chunk, uint32_t type, const char *in)
{
	const cJSON *obj = in ? cJSON_GetObjectItemCaseSensitive(chunk, in) : chunk;

	assert_non_null(obj);
	for (const cJSON *k = obj->child; k; k = k->next) {
		cJSON *copy = cJSON_Duplicate(chunk, 1);
		cJSON *o = in ? cJSON_GetObjectItemCaseSensitive(copy, in) : copy;
		int n = cJSON_GetArraySize(o);

		assert_true(cJSON_ReplaceItemInObjectCaseSensitive(o, k->string, cJSON_CreateTrue()));
		assert_int_equal(fol_recording_check(type, copy), 1);
		assert_null(cJSON_GetObjectItemCaseSensitive(o, k->string));
		assert_int_equal(cJSON_GetArraySize(o), n - 1);
		cJSON_Delete(copy);
	}
}

static void test_wrong_types(void **state)
{
	struct fol_recording r, back;
	cJSON *meta, *end;

	(void)state;
	every_fact(&r);
	round_trip(&r, &back, &meta, &end);
	wrong_type_each(meta, FOL_CHUNK_META, NULL);
	wrong_type_each(meta, FOL_CHUNK_META, "probe_calibration");
	wrong_type_each(end, FOL_CHUNK_END, NULL);
	free_every_fact(&r);
	fol_recording_free(&back);
	cJSON_Delete(meta);
	cJSON_Delete(end);
}

/* Out of range, at the top and inside an object: removed, the rest kept. */
static void test_ranges(void **state)
{
	cJSON *m = cJSON_Parse("{\"pid\": 99999999, \"page_size\": 512, \"cpus\": 2,"
			       " \"probe_calibration\": {\"passes\": 0, \"faults\": 512},"
			       " \"kernel_mm_threads\": [0, 7], \"started_ns\": 1.5}");
	cJSON *e = cJSON_Parse("{\"exit_code\": 256, \"exit_signal\": 0, \"lost\": -1,"
			       " \"lost_samples\": {\"a\": -2, \"b\": 5}, \"build_ids\": {\"/x\": 7}}");
	struct fol_recording r;

	(void)state;
	assert_int_equal(fol_recording_check(FOL_CHUNK_META, m), 5);
	assert_int_equal(fol_recording_check(FOL_CHUNK_END, e), 5);
	assert_int_equal(fol_recording_parse(&r, &(struct fol_recording_chunks){ .meta = m, .end = e }), 0);
	assert_true(r.pid == 0 && r.page_size == 0 && r.cpus == 2 && r.started_ns == 0);
	assert_int_equal(fol_recording_page_size(&r), 4096);
	assert_true(r.probe.have && r.probe.passes == 0 && r.probe.faults == 512);
	assert_true(r.kernel_mm_threads.n == 1 && r.kernel_mm_threads.v[0] == 7);
	assert_true(r.exit_code == -1 && r.exit_signal == -1 && r.lost == 0);
	assert_true(r.lost_by_event.n == 1 && r.lost_samples == 5);
	assert_int_equal(r.build_ids.n, 0);
	fol_recording_free(&r);
	cJSON_Delete(m);
	cJSON_Delete(e);
}

/* A number at its default is not written where the row says so (no exit code without a
 * command, no BPF losses off the BPF path), and reads back the same; one without is. */
static void test_defaults(void **state)
{
	struct fol_recording r = least, back, none;
	cJSON *meta, *end;

	(void)state;
	round_trip(&r, &back, &meta, &end);
	assert_null(cJSON_GetObjectItemCaseSensitive(end, "exit_code"));
	assert_null(cJSON_GetObjectItemCaseSensitive(end, "bpf_records_not_written"));
	assert_null(cJSON_GetObjectItemCaseSensitive(meta, "sample_period_ns"));
	assert_null(cJSON_GetObjectItemCaseSensitive(meta, "command"));
	assert_null(cJSON_GetObjectItemCaseSensitive(meta, "probe_calibration"));
	assert_non_null(cJSON_GetObjectItemCaseSensitive(meta, "pmd_order"));
	assert_non_null(cJSON_GetObjectItemCaseSensitive(end, "duration_ns"));
	assert_true(back.exit_code == -1 && back.bpf_records_not_written == -1);
	assert_false(back.command.have);
	assert_false(back.probe.have);
	/* Nothing recorded at all: every default. */
	assert_int_equal(fol_recording_parse(&none, &(struct fol_recording_chunks){ 0 }), 0);
	assert_true(none.pmd_order == -1 && none.duration_ns == -1 && none.probe.exits == -1);
	assert_true(none.lost_samples == -1 && !none.ended && !none.mode);
	fol_recording_free(&none);
	fol_recording_free(&back);
	cJSON_Delete(meta);
	cJSON_Delete(end);
}

/* A string longer than a reader keeps is cut by the writer, saying so, and read back. */
static void test_cut(void **state)
{
	size_t n = FOL_META_STR_MAX + 100;
	char *big = malloc(n + 1);
	char *cmd[] = { big };
	struct fol_recording r = least, back;
	cJSON *meta, *end;

	(void)state;
	assert_non_null(big);
	r.command = (struct fol_strings){ cmd, 1, 1 };
	memset(big, 'x', n);
	big[n] = '\0';
	round_trip(&r, &back, &meta, &end);
	assert_int_equal(back.command.n, 1);
	assert_true(strlen(back.command.v[0]) < FOL_META_STR_MAX);
	assert_non_null(strstr(back.command.v[0], "... [164 bytes cut]"));
	fol_recording_free(&back);
	cJSON_Delete(meta);
	cJSON_Delete(end);
	free(big);
}

/* A run's place (RUN) and an untraced run (BARE) by the same table: written, checked,
 * read and written again; each key of the wrong type removed. */
static void test_run_and_bare(void **state)
{
	struct fol_phase ph[] = { { "populate", 10, 50, 1 }, { "untimed", 0, 0, 0 } };
	struct fol_recording r = { .place = { 1, 2, 6, "mthp", "64K" } }, back;
	struct fol_bare b = { .run = 2, .config = "64K", .duration_ns = 5e6, .exit_code = 0,
			      .exit_signal = -1, .phases = { ph, 2 } };
	cJSON *run = fol_recording_json(&r, FOL_CHUNK_RUN), *bare = cJSON_CreateArray();
	cJSON *again;

	(void)state;
	assert_non_null(run);
	assert_true(cJSON_AddItemToArray(bare, fol_recording_bare_json(&b)));
	assert_int_equal(fol_recording_check(FOL_CHUNK_RUN, run), 0);
	assert_int_equal(fol_recording_check(FOL_CHUNK_BARE, bare->child), 0);
	assert_null(cJSON_GetObjectItemCaseSensitive(bare->child, "exit_signal"));
	assert_int_equal(fol_recording_parse(&back, &(struct fol_recording_chunks){
				 .run = run, .bare = bare }), 0);
	assert_true(back.place.have && back.place.run == 2 && back.place.runs == 6);
	assert_string_equal(back.place.config, "64K");
	assert_int_equal(back.bare.n, 1);
	assert_true(back.bare.v[0].exit_code == 0 && back.bare.v[0].exit_signal == -1);
	assert_int_equal(back.bare.v[0].phases.n, 2);
	assert_true(back.bare.v[0].phases.v[0].timed && back.bare.v[0].phases.v[0].end_ns == 50);
	assert_false(back.bare.v[0].phases.v[1].timed);
	again = fol_recording_bare_json(&back.bare.v[0]);
	assert_true(cJSON_Compare(bare->child, again, 1));
	wrong_type_each(run, FOL_CHUNK_RUN, NULL);
	wrong_type_each(bare->child, FOL_CHUNK_BARE, NULL);
	fol_recording_free(&back);
	cJSON_Delete(run);
	cJSON_Delete(bare);
	cJSON_Delete(again);
}

/* A workload's phase lines (an untraced run's own): what is not a phase is skipped, a
 * value out of range removed. */
static void test_phase_lines(void **state)
{
	const char *lines = "{\"phase\":\"a\",\"start_ns\":1,\"end_ns\":5}\nnot json\n"
			    "{\"phase\":\"b\",\"start_ns\":-1,\"end_ns\":3}\n[1]\n\n";
	struct fol_phases p;
	cJSON *a = cJSON_CreateArray();

	(void)state;
	/* As the session keeps them: 2 lines dropped, 1 value removed; the empty line none. */
	assert_int_equal(fol_recording_phase_lines(a, lines, strlen(lines)), 3);
	assert_int_equal(cJSON_GetArraySize(a), 2);
	cJSON_Delete(a);
	assert_int_equal(fol_recording_phases_read(&p, lines, strlen(lines)), 0);
	assert_int_equal(p.n, 2);
	assert_string_equal(p.v[0].name, "a");
	assert_true(p.v[0].timed && p.v[0].end_ns == 5);
	assert_string_equal(p.v[1].name, "b");
	assert_false(p.v[1].timed);
	for (int i = 0; i < p.n; i++)
		free(p.v[i].name);
	free(p.v);
}

/* The kernel's counters (COUNTERS, a data set with a shape of its own), as the recorder
 * snapshots them from a /proc and /sys written here: nothing removed; the THP policy,
 * a size's policy and stats of the wrong type removed and counted. */
static void test_counters(void **state)
{
	char root[] = "/tmp/foliostat-test-counters.XXXXXX";
	cJSON *snap, *copy, *thp, *size;

	(void)state;
	assert_non_null(mkdtemp(root));
	fake_put(root, "proc/vmstat", "pgfault 10\nthp_fault_alloc 2\n");
	fake_put(root, "sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n");
	fake_put(root, "sys/kernel/mm/transparent_hugepage/defrag", "[always] defer madvise never\n");
	fake_put(root, "sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "2097152\n");
	fake_put(root, "sys/kernel/mm/transparent_hugepage/use_zero_page", "1\n");
	fake_put(root, "sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled", "always inherit [never] madvise\n");
	fake_put(root, "sys/kernel/mm/transparent_hugepage/hugepages-64kB/stats/anon_fault_alloc", "5\n");
	snap = fol_counters_snapshot(root);
	fake_remove(root);
	assert_non_null(snap);
	thp = cJSON_GetObjectItemCaseSensitive(snap, "thp");
	size = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(snap, "mthp"), "64kB");
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(thp, "enabled")->valuestring, "madvise");
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(size, "enabled")->valuestring, "never");
	assert_int_equal(fol_recording_check(FOL_CHUNK_COUNTERS, snap), 0);
	wrong_type_each(snap, FOL_CHUNK_COUNTERS, "thp");
	wrong_type_each(snap, FOL_CHUNK_COUNTERS, NULL);
	copy = cJSON_Duplicate(snap, 1);
	size = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(copy, "mthp"), "64kB");
	cJSON_ReplaceItemInObjectCaseSensitive(size, "enabled", cJSON_CreateNumber(1));
	cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(size, "stats"),
					       "anon_fault_alloc", cJSON_CreateString("5"));
	assert_int_equal(fol_recording_check(FOL_CHUNK_COUNTERS, copy), 2);
	assert_null(cJSON_GetObjectItemCaseSensitive(size, "enabled"));
	assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(size, "stats"),
						     "anon_fault_alloc"));
	cJSON_Delete(copy);
	cJSON_Delete(snap);
}

/* The counted events (PMU, a list): written, checked, read and written again; a count
 * not counted reads as such; each field of the wrong type removed, and a member that is
 * no object. */
static void test_pmu(void **state)
{
	struct fol_pmu_count pmu[] = { { "cycles", 1, 12345, 1, 100, 90 },
				       { "tlb-misses", 0, -1, 0, -1, -1 } };
	struct fol_recording r = { .pmu = pmu, .npmu = 2 }, back;
	cJSON *j = fol_recording_json(&r, FOL_CHUNK_PMU), *again, *copy;

	(void)state;
	assert_non_null(j);
	assert_int_equal(fol_recording_check(FOL_CHUNK_PMU, j), 0);
	assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(j, 1), "value"));
	assert_int_equal(fol_recording_parse(&back, &(struct fol_recording_chunks){ .pmu = j }), 0);
	assert_int_equal(back.npmu, 2);
	assert_true(back.pmu[0].counted && back.pmu[0].supported && back.pmu[0].value == 12345);
	assert_true(!back.pmu[1].counted && !back.pmu[1].supported && back.pmu[1].value == 0);
	back.pmu[1].value = -1; /* as the recorder says "not counted" */
	again = fol_recording_json(&back, FOL_CHUNK_PMU);
	assert_true(cJSON_Compare(j, again, 1));
	for (const cJSON *k = j->child->child; k; k = k->next) {
		copy = cJSON_Duplicate(j, 1);
		assert_true(cJSON_ReplaceItemInObjectCaseSensitive(copy->child, k->string,
								    cJSON_CreateArray()));
		assert_int_equal(fol_recording_check(FOL_CHUNK_PMU, copy), 1);
		assert_null(cJSON_GetObjectItemCaseSensitive(copy->child, k->string));
		cJSON_Delete(copy);
	}
	copy = cJSON_Duplicate(j, 1);
	cJSON_AddItemToArray(copy, cJSON_CreateNumber(3));
	assert_int_equal(fol_recording_check(FOL_CHUNK_PMU, copy), 1);
	assert_int_equal(cJSON_GetArraySize(copy), 2);
	cJSON_Delete(copy);
	fol_recording_free(&back);
	cJSON_Delete(j);
	cJSON_Delete(again);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_wrong_types),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_run_and_bare),
		cmocka_unit_test(test_phase_lines),
		cmocka_unit_test(test_counters),
		cmocka_unit_test(test_pmu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
