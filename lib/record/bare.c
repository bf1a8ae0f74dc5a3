// SPDX-License-Identifier: GPL-2.0-only
#include "record/bare.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>

#include "record/start.h"
#include "util/clock.h"

static cJSON *read_phases(const char *path)
{
	cJSON *a = cJSON_CreateArray();
	char line[1024];
	FILE *f = fopen(path, "re");

	while (a && f && fgets(line, sizeof(line), f)) {
		cJSON *j = cJSON_Parse(line);

		if (cJSON_IsObject(j))
			cJSON_AddItemToArray(a, j);
		else
			cJSON_Delete(j);
	}
	if (f)
		fclose(f);
	return a;
}

int fol_bare_run(char *const *argv, const char *phase_file, struct fol_mthp *mthp, cJSON **out)
{
	struct fol_start_opts so = { .phase_file = phase_file };
	int fd, untraced, status = 0, ret = 0;
	struct fol_child c;
	uint64_t t0;
	cJSON *o;

	*out = NULL;
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
	o = cJSON_CreateObject();
	if (!o) {
		ret = -ENOMEM;
		goto out;
	}
	cJSON_AddNumberToObject(o, "duration_ns", (double)(fol_mono_ns() - t0));
	if (WIFEXITED(status))
		cJSON_AddNumberToObject(o, "exit_code", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		cJSON_AddNumberToObject(o, "exit_signal", WTERMSIG(status));
	cJSON_AddItemToObject(o, "phases", read_phases(phase_file));
	*out = o;
out:
	if (mthp)
		fol_mthp_restore(mthp);
	return ret;
}
