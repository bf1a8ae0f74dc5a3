// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"
#include "util/errors.h"
#include "sys/maps.h"
#include "data/recording.h"
#include "record/start.h"
#include "options.h"
#include "util.h"

static const struct usage maps_usage = {
	"usage: foliostat maps [--json] [--vmas] -p PID\n"
	"       foliostat maps [--json] [--vmas] -- command [args]\n"
	"\n"
	"The folio composition of a process's anonymous memory, from its page tables\n"
	"(pagemap and kpageflags, as the kernel's tools/mm/thpmaps reads them): memory by\n"
	"folio size, PMD-mapped, partially mapped and unaligned folios. With a command,\n"
	"the snapshot is taken as it exits (its memory still mapped). Needs root.\n"
	"\n",
	NULL,
};

/* 0, or 1 when the JSON could not be made (said). */
static int print_maps(const struct fol_maps *m, int json, int vmas)
{
	if (json)
		return print_json(fol_maps_json(m), stdout);
	fol_maps_text(m, vmas, stdout);
	return 0;
}

/* Run argv under ptrace until it exits: its memory is still there at the exit stop
 * (PTRACE_EVENT_EXIT). Signals go through to it. 0 and *status, or -errno. */
static int run_to_exit(char **argv, int json, int vmas, int *status)
{
	struct fol_start_opts o = { .traced = 1 };
	int st, ret, taken = 0, untraced;
	struct fol_child c;
	pid_t pid;

	ret = fol_start(argv, &o, &c);
	if (ret)
		return ret;
	ret = fol_start_exec(&c, &untraced);
	if (ret) {
		error("cannot execute '%s': %s", argv[0], strerror(-ret));
		*status = 127;
		return 0;
	}
	pid = c.pid;
	if (untraced || waitpid(pid, &st, 0) < 0 || !WIFSTOPPED(st))
		return -ECHILD;
	ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(long)(PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL));
	ptrace(PTRACE_CONT, pid, NULL, NULL);
	for (;;) {
		if (waitpid(pid, &st, 0) < 0)
			return -errno;
		if (WIFEXITED(st) || WIFSIGNALED(st))
			break;
		if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8)) && !taken) {
			struct fol_maps *m;

			taken = 1;
			ret = fol_maps_read(pid, "", 0, NULL, &m);
			if (!ret) {
				print_maps(m, json, vmas);
				fol_maps_free(m);
			}
			ptrace(PTRACE_CONT, pid, NULL, NULL);
			continue;
		}
		/* A signal for the workload: deliver it (a stop is not one foliostat made). */
		ptrace(PTRACE_CONT, pid, NULL,
		       (void *)(long)(WIFSTOPPED(st) && WSTOPSIG(st) != SIGTRAP ? WSTOPSIG(st) : 0));
	}
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return ret;
}

static int print_error(int err, int pid)
{
	if ((err == -EPERM || err == -EACCES) && geteuid() == 0)
		error("the kernel refuses pid %d's page tables (/proc/PID/pagemap) even to root: "
		      "another user namespace's process, or one that is not dumpable", pid);
	else if (err == -EPERM || err == -EACCES)
		error("the page frame numbers and page flags of pid %d "
			"(/proc/PID/pagemap, /proc/kpageflags) need root: run as root", pid);
	else if (err == -EINVAL)
		error("pid %d is a kernel thread: it has no memory of its own", pid);
	else if (err == -ESRCH)
		error("pid %d exited while its page tables were read: no totals", pid);
	else if (err == -ENOENT)
		error("no process %d", pid);
	else
		error("cannot read the page tables of pid %d: %s", pid, fol_strerror(err));
	return 1;
}

int cmd_maps(int argc, char **argv)
{
	int ret, pid = 0, json = 0, vmas = 0, status = 0;
	const struct opt opts[] = {
		OPT_INTEGER('p', "pid", &pid, "PID", 1, FOL_PID_MAX, "a process id", "a running process"),
		OPT_SET_INT(0, "vmas", &vmas, 1, "each VMA as well as the total"),
		OPT_SET_INT(0, "json", &json, 1, "schema foliostat/maps/v1"),
		OPT_END(),
	};
	struct fol_maps *m;

	ret = parse_options(argc, argv, opts, &maps_usage, PARSE_OPT_STOP_AT_NON_OPTION);
	if (ret)
		return ret < 0 ? 0 : ret;
	if (!pid == (optind >= argc))
		return usage_error("give -p PID or a command (not both)");
	if (!pid) {
		ret = run_to_exit(argv + optind, json, vmas, &status);
		return ret ? print_error(ret, 0) : status;
	}
	ret = fol_maps_read(pid, "", 0, NULL, &m);
	if (ret)
		return print_error(ret, pid);
	ret = print_maps(m, json, vmas);
	fol_maps_free(m);
	return ret;
}
