// SPDX-License-Identifier: GPL-2.0-only
#include "record/start.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

/* What the child says on its error pipe before exec closes it: UNTRACED when ptrace was
 * refused (it runs untraced), then the errno of an exec that failed. */
#define UNTRACED (-1)

static void say(int fd, int what)
{
	if (write(fd, &what, sizeof(what)) < 0)
		_exit(127);
}

static __attribute__((noreturn)) void child(char *const *argv, const struct fol_start_opts *o,
					    int go_fd, int err_fd)
{
	char c;

	if (go_fd >= 0 && read(go_fd, &c, 1) != 1)
		_exit(127);
	if (o->phase_file)
		setenv(FOL_PHASES_ENV, o->phase_file, 1);
	if (o->traced && ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
		say(err_fd, UNTRACED);
	execvp(argv[0], argv);
	say(err_fd, errno);
	_exit(127);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int fol_start(char *const *argv, const struct fol_start_opts *o, struct fol_child *c)
{
	int go[2] = { -1, -1 }, err[2];
	int e;

	*c = (struct fol_child){ .go_fd = -1, .err_fd = -1 };
	if (o->corked && pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(err, O_CLOEXEC) < 0) {
		e = -errno;
		goto fail;
	}
	c->pid = fork();
	if (c->pid == 0) {
		close_fd(&go[1]);
		close_fd(&err[0]);
		child(argv, o, go[0], err[1]);
	}
	e = -errno;
	close_fd(&go[0]);
	close_fd(&err[1]);
	if (c->pid < 0) {
		c->pid = 0;
		close_fd(&err[0]);
		goto fail;
	}
	c->go_fd = go[1];
	c->err_fd = err[0];
	return 0;
fail:
	close_fd(&go[0]);
	close_fd(&go[1]);
	return e;
}

int fol_start_exec(struct fol_child *c, int *untraced)
{
	int msg[2], e = 0;
	size_t got = 0;
	ssize_t n;

	*untraced = 0;
	if (c->go_fd >= 0) {
		if (write(c->go_fd, "g", 1) != 1)
			return -errno;
		close_fd(&c->go_fd);
	}
	while (got < sizeof(msg)) {
		n = read(c->err_fd, (char *)msg + got, sizeof(msg) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close_fd(&c->err_fd);
	for (size_t i = 0; i < got / sizeof(int); i++) {
		if (msg[i] == UNTRACED)
			*untraced = 1;
		else
			e = msg[i];
	}
	if (!e)
		return 0;
	while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
		;
	c->pid = 0;
	return -e;
}

void fol_start_close(struct fol_child *c)
{
	close_fd(&c->go_fd);
	close_fd(&c->err_fd);
}
