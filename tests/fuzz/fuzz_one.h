/* SPDX-License-Identifier: GPL-2.0-only */
/* One fuzz input through everything that reads a recording: the session (file, decoder,
 * merge), script's field formatting, the model and both renderers. Shared by the libFuzzer target and the mutation
 * test in make check. */
#ifndef FOL_FUZZ_ONE_H
#define FOL_FUZZ_ONE_H

#include <stdio.h>
#include <stdlib.h>

#include "compare/compare.h"
#include "report/report.h"
#include "report/runs.h"

/* What foliostat script does with every event: its fields formatted. */
static inline void fuzz_script(const char *path)
{
	struct fol_session *s;
	struct fol_event ev;
	char fields[4096];

	if (fol_session_open(&s, path))
		return;
	while (fol_session_next(s, &ev) == 1)
		fol_decoder_format(fol_session_decoder(s), &ev, fields, sizeof(fields));
	fol_session_close(s);
}

/* Every run's report rendered, and the runs compared as sides (one per configuration). */
static inline void fuzz_one_file(const char *path)
{
	struct fol_model_opts o = { .order = FOL_ANY, .cls = FOL_ANY };
	const struct fol_report **runs;
	struct fol_runs rs;
	FILE *devnull;

	/* Nothing kept in the user's cache: a mutated kernel table would be a new file each
	 * time. */
	setenv("FOLIOSTAT_NO_CACHE", "1", 1);
	fuzz_script(path);
	if (fol_runs_load(path, &o, &rs))
		return;
	devnull = fopen("/dev/null", "w");
	runs = calloc((size_t)rs.n, sizeof(*runs));
	if (devnull && runs) {
		struct fol_side side = { .name = "fuzz", .runs = runs, .n = rs.n, .bare = rs.bare,
					 .nbare = rs.nbare };
		struct fol_side sides[2] = { side, side };
		struct fol_cmp c;

		for (int i = 0; i < rs.n; i++) {
			cJSON *j;

			/* Symbols come from the files of this machine, not the input: none, so
			 * that an iteration does not open whatever paths the input names (and
			 * the kernel's symbol table) and stays fast. */
			rs.v[i].r.symfs = "/nonexistent-fuzz-symfs";
			j = fol_report_json(&rs.v[i].r, &(struct fol_report_view){ 0 });
			char *s = cJSON_PrintUnformatted(j);

			fol_report_text(&rs.v[i].r, &(struct fol_report_view){ 0 }, devnull);
			if (s)
				fputs(s, devnull);
			free(s);
			cJSON_Delete(j);
			runs[i] = &rs.v[i].r;
		}
		/* The runs split into two sides, so both tests run (Welch needs 2 a side). */
		sides[0].n = (rs.n + 1) / 2;
		sides[1].runs = runs + sides[0].n;
		sides[1].n = rs.n - sides[0].n;
		if (!fol_compare(sides, sides[1].n ? 2 : 1, FOL_CMP_FDR, &c)) {
			cJSON *j = fol_cmp_json(&c);
			char *s = cJSON_PrintUnformatted(j);

			fol_cmp_text(&c, devnull);
			fol_cmp_probe_text(&c, devnull);
			if (s)
				fputs(s, devnull);
			free(s);
			cJSON_Delete(j);
			fol_cmp_free(&c);
		}
	}
	if (devnull)
		fclose(devnull);
	free(runs);
	fol_runs_free(&rs);
}

#endif
