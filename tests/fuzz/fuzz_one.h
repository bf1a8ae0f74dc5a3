/* One fuzz input through everything that reads a recording: the session (file, decoder,
 * merge), script's field formatting, the model and both renderers. Shared by the libFuzzer target and the mutation
 * test in make check. */
#ifndef FOL_FUZZ_ONE_H
#define FOL_FUZZ_ONE_H

#include <stdio.h>
#include <stdlib.h>

#include "report.h"

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

static inline void fuzz_one_file(const char *path)
{
	struct fol_model_opts o = { .order = FOL_ANY, .cls = FOL_ANY };
	struct fol_report r;
	FILE *devnull;

	fuzz_script(path);
	if (fol_report_build(path, &o, &r))
		return;
	devnull = fopen("/dev/null", "w");
	if (devnull) {
		cJSON *j = fol_report_json(&r);
		char *s = cJSON_PrintUnformatted(j);

		fol_report_text(&r, devnull);
		if (s)
			fputs(s, devnull);
		free(s);
		cJSON_Delete(j);
		fclose(devnull);
	}
	fol_report_free(&r);
}

#endif
