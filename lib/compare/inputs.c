// SPDX-License-Identifier: GPL-2.0-only
#include "compare/inputs.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/errors.h"
#include "util/escape.h"
#include "util/files.h"

static int is_recording(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 5 && !strcmp(d->d_name + n - 5, ".data");
}

static int input_files(struct fol_input *in)
{
	struct dirent **names;
	struct stat st;
	int n;

	if (stat(in->path, &st) || !S_ISDIR(st.st_mode)) {
		in->files = calloc(1, sizeof(*in->files));
		if (!in->files || !(in->files[0] = strdup(in->path)))
			return -ENOMEM;
		in->nfiles = 1;
		return 0;
	}
	n = scandir(in->path, &names, is_recording, alphasort);
	if (n < 0)
		return -errno;
	in->files = calloc((size_t)n + 1, sizeof(*in->files));
	for (int i = 0; i < n; i++) {
		if (in->files && asprintf(&in->files[in->nfiles], "%s/%s", in->path, names[i]->d_name) >= 0)
			in->nfiles++;
		free(names[i]);
	}
	free(names);
	return in->files && in->nfiles == n ? 0 : -ENOMEM;
}

static void input_free(struct fol_input *in)
{
	for (int i = 0; i < in->n; i++)
		fol_runs_free(&in->rs[i]);
	for (int i = 0; i < in->nfiles; i++)
		free(in->files[i]);
	free(in->files);
	free(in->rs);
}

/* Each run left out, named, with why; and how much of the file is damaged. */
static void file_warnings(const char *path, const struct fol_runs *rs, struct fol_msgs *warn)
{
	char esc[512], run[160];
	const char *p = fol_escape(path, esc, sizeof(esc));

	for (int i = 0; i < rs->nout; i++)
		fol_msgs_add(warn, "%s: %s left out: %s", p, fol_run_out_text(&rs->out[i], run, sizeof(run)),
			     rs->out[i].why);
	if (rs->file.corrupt_chunks)
		fol_msgs_add(warn, "%s is damaged (%" PRIu64 " region%s, %" PRIu64 " bytes skipped%s): "
			     "comparing its %d whole run%s", p, rs->file.corrupt_chunks,
			     rs->file.corrupt_chunks == 1 ? "" : "s", rs->file.corrupt_bytes,
			     rs->file.truncated ? "; cut short" : "", rs->whole, rs->whole == 1 ? "" : "s");
	else if (rs->file.truncated || !rs->file.complete)
		fol_msgs_add(warn, "%s is %s: comparing its %d whole run%s", p,
			     rs->file.truncated ? "cut short" : "incomplete (no END chunk)", rs->whole,
			     rs->whole == 1 ? "" : "s");
}

/* The input's recordings read; a directory's recording without a whole run is left out
 * with a warning, a file without one is an error. */
static int input_load(struct fol_input *in, const struct fol_model_opts *mo, struct fol_msgs *warn,
		      struct fol_msgs *why, const char **failed)
{
	char esc[512];
	int ret = input_files(in);

	if (ret)
		return fol_msgs_add(why, "%s: %s", fol_escape(in->path, esc, sizeof(esc)), fol_strerror(ret)), ret;
	in->rs = calloc((size_t)in->nfiles + 1, sizeof(*in->rs));
	if (!in->rs)
		return fol_msgs_add(why, "%s", fol_strerror(-ENOMEM)), -ENOMEM;
	for (int i = 0; i < in->nfiles; i++) {
		struct fol_runs *rs = &in->rs[in->n];

		ret = fol_runs_load(in->files[i], mo, rs);
		if (ret) {
			*failed = in->files[i];
			return ret;
		}
		file_warnings(in->files[i], rs, warn);
		if (rs->whole) {
			in->n++;
			continue;
		}
		if (in->nfiles == 1)
			return fol_msgs_add(why, "%s has no whole run to compare (%d read, each left out): "
					    "foliostat report shows what it holds",
					    fol_escape(in->files[i], esc, sizeof(esc)), rs->n), -ENODATA;
		fol_msgs_add(warn, "%s has no whole run (%d read, each left out): not one of the side's "
			     "recordings", in->files[i], rs->n);
		fol_runs_free(rs);
	}
	if (!in->n)
		return fol_msgs_add(why, "%s holds no recording with a whole run (*.data): record each "
				    "side into its directory, one file a boot (record -r 5 -o DIR/1.data)",
				    fol_escape(in->path, esc, sizeof(esc))), -ENODATA;
	return 0;
}

/* The command a recording ran, as JSON ("" unknown). */
static const char *command_of(const struct fol_runs *rs, char *buf, size_t len)
{
	const struct fol_recording *rec = &rs->v[0].r.rec;
	cJSON *cmd = rec->command.have
		? cJSON_CreateStringArray((const char *const *)rec->command.v, rec->command.n) : NULL;
	char *s = cmd ? cJSON_PrintUnformatted(cmd) : NULL;

	snprintf(buf, len, "%s", s ? s : "");
	cJSON_Delete(cmd);
	free(s);
	return buf;
}

/* What two recordings compared as one setup should share: the command, and within one
 * side the kernel. */
static void setup_warnings(const struct fol_input *in, int nin, struct fol_msgs *warn)
{
	const struct fol_runs *first = &in[0].rs[0];
	char a[1024], b[1024];

	command_of(first, a, sizeof(a));
	for (int k = 0; k < nin; k++)
		for (int i = 0; i < in[k].n; i++) {
			const char *k0 = in[k].rs[0].v[0].r.rec.kernel, *ki = in[k].rs[i].v[0].r.rec.kernel;

			if (strcmp(a, command_of(&in[k].rs[i], b, sizeof(b))))
				fol_msgs_add(warn, "%s ran another command than %s: %s against %s",
					     in[k].files[i], in[0].files[0], b, a);
			if (i && k0 && ki && strcmp(k0, ki))
				fol_msgs_add(warn, "%s: its recordings ran other kernels (%s, %s): one side "
					     "is one kernel", in[k].path, k0, ki);
		}
}

int fol_comparison_check(char *const *paths, int n, struct fol_msgs *why)
{
	if (n < 2 || n > FOL_MAX_SIDES)
		return fol_msgs_add(why, "give two recordings or directories of recordings or more (at "
				    "most %d): BASE NEW...", FOL_MAX_SIDES), -EINVAL;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < i; j++)
			if (fol_same_file(paths[j], paths[i]))
				return fol_msgs_add(why, "%s and %s are the same file: compare two "
						    "recordings (record -r N gives several runs of one)",
						    paths[j], paths[i]), -EINVAL;
	return 0;
}

int fol_comparison_open(struct fol_comparison *k, char **paths, int n, const struct fol_model_opts *mo,
			double fdr, struct fol_msgs *warn, struct fol_msgs *why, const char **failed)
{
	int ret = 0;

	memset(k, 0, sizeof(*k));
	*failed = NULL;
	k->in = calloc((size_t)n, sizeof(*k->in));
	if (!k->in)
		return fol_msgs_add(why, "%s", fol_strerror(-ENOMEM)), -ENOMEM;
	for (; k->nin < n && !ret; k->nin++) {
		k->in[k->nin].path = paths[k->nin];
		ret = input_load(&k->in[k->nin], mo, warn, why, failed);
	}
	if (ret)
		return ret;
	setup_warnings(k->in, n, warn);
	for (int i = 0; i < n && !ret; i++)
		ret = fol_sides_add(&k->sd, k->in[i].rs, k->in[i].n, paths[i], NULL);
	if (ret)
		return fol_msgs_add(why, "%s", ret == -E2BIG ? "more than 64 sides" : fol_strerror(ret)), ret;
	ret = fol_compare(k->sd.v, k->sd.n, fdr, &k->c);
	if (ret)
		return fol_msgs_add(why, "%s", fol_strerror(ret)), ret;
	k->compared = 1;
	return 0;
}

void fol_comparison_close(struct fol_comparison *k)
{
	if (k->compared)
		fol_cmp_free(&k->c);
	fol_sides_free(&k->sd);
	for (int i = 0; i < k->nin; i++)
		input_free(&k->in[i]);
	free(k->in);
	memset(k, 0, sizeof(*k));
}
