// SPDX-License-Identifier: GPL-2.0-only
#include "record/bare.h"

#include "util/clock.h"
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


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

/* The child: exec errors come back through the pipe as an errno. */
static pid_t start(char *const *argv, const char *phase_file, int *err_fd)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		int e;

		close(p[0]);
		setenv("FOLIOSTAT_PHASES", phase_file, 1);
		execvp(argv[0], argv);
		e = errno;
		if (write(p[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	*err_fd = p[0];
	return pid;
}

int fol_bare_run(char *const *argv, const char *phase_file, struct fol_mthp *mthp, cJSON **out)
{
	int fd, err_fd, e = 0, status = 0, ret = 0;
	uint64_t t0;
	pid_t pid;
	cJSON *o;

	*out = NULL;
	fd = open(phase_file, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	if (mthp && (ret = fol_mthp_apply(mthp)))
		return ret;
	t0 = fol_mono_ns();
	pid = start(argv, phase_file, &err_fd);
	if (pid < 0) {
		ret = -errno;
		goto out;
	}
	if (read(err_fd, &e, sizeof(e)) == (ssize_t)sizeof(e))
		ret = -e;
	close(err_fd);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (ret)
		goto out;
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
