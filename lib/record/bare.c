// SPDX-License-Identifier: GPL-2.0-only
#include "record/bare.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "data/file.h"
#include "record/start.h"
#include "util/clock.h"

/* The phases the workload wrote: a small file of JSON lines (a workload's phases fit a
 * chunk: what is past one is left out). */
static int read_phases(const char *path, struct fol_phases *p)
{
	char *buf = malloc(FOL_CHUNK_MAX);
	FILE *f = fopen(path, "re");
	size_t n = buf && f ? fread(buf, 1, FOL_CHUNK_MAX, f) : 0;
	int ret = buf ? fol_recording_phases_read(p, buf, n) : -ENOMEM;

	if (f)
		fclose(f);
	free(buf);
	return ret;
}

int fol_bare_run(char *const *argv, const char *phase_file, struct fol_mthp *mthp,
		 struct fol_bare *out)
{
	struct fol_start_opts so = { .phase_file = phase_file };
	int fd, untraced, status = 0, ret = 0;
	struct fol_child c;
	uint64_t t0;

	memset(out, 0, sizeof(*out));
	out->run = out->exit_code = out->exit_signal = -1;
	fd = open(phase_file, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	if (mthp && (ret = fol_mthp_apply(mthp)))
		return ret;
	t0 = fol_mono_ns();
	ret = fol_start(argv, &so, &c);
	if (ret)
		goto out;
	ret = fol_start_exec(&c, &untraced);
	if (ret)
		goto out;
	while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR)
		;
	out->duration_ns = (double)(fol_mono_ns() - t0);
	if (WIFEXITED(status))
		out->exit_code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		out->exit_signal = WTERMSIG(status);
	ret = read_phases(phase_file, &out->phases);
out:
	if (mthp)
		fol_mthp_restore(mthp);
	return ret;
}
