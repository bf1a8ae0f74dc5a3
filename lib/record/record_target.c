// SPDX-License-Identifier: GPL-2.0-only
/* The recorder's target: a command started corked and stopped at its exec by ptrace, or a
 * running process attached to, and how it ends. */
#include "record/record_priv.h"

#include <dirent.h>
#include <errno.h>
#include <perf/threadmap.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "sys/maps.h"
#include "sys/pagecache.h"
#include "util/grow.h"

/* The workload waits until its events are open, so that nothing it does escapes the
 * recording; exec enables them (enable_on_exec). Traced, it is stopped right after exec
 * and at exit, so that its page tables can be read at both ends of the recording
 * (exec_stop, rec_traced_stop); without ptrace it runs the same. */
static int start_corked(struct fol_recorder *r)
{
	struct fol_start_opts o = { .phase_file = r->o->phase_file, .corked = 1, .traced = 1 };

	return fol_start(r->o->argv, &o, &r->child);
}

/* The workload after exec, stopped by ptrace (SIGTRAP): its folios as they are now go into
 * the file (exec made them before the events could see it: the stack, the zeroed bss),
 * then it is let go, with a stop at exit asked for. */
static int exec_stop(struct fol_recorder *r)
{
	struct rusage ru;
	cJSON *j;
	int st, ret;

	if (wait4(r->child.pid, &st, 0, &ru) != r->child.pid)
		return -errno;
	if (!WIFSTOPPED(st)) {
		/* Not traced (ptrace refused), and already gone. */
		r->res->wait_status = st;
		rec_note_rusage(r->res, &ru);
		r->child.pid = 0;
		return 0;
	}
	j = cJSON_CreateObject();
	if (!j)
		return -ENOMEM;
	cJSON_AddNumberToObject(j, "pid", r->child.pid);
	cJSON_AddNumberToObject(j, "time_ns", (double)rec_now_ns(CLOCK_MONOTONIC));
	rec_add_seed(r, j, r->child.pid);
	/* A reader takes one SYNTH chunk: the mm threads are named in this one. */
	rec_add_mm_thread_comms(r, cJSON_AddObjectToObject(j, "comm"));
	ret = fol_writer_chunk_json(r->w, FOL_CHUNK_SYNTH, j);
	cJSON_Delete(j);
	if (ret)
		return ret;
	/* TRACEEXEC too: without it a traced process that execs again (env, a wrapper
	 * script's exec) is sent a SIGTRAP, which passed on would kill it. */
	ptrace(PTRACE_SETOPTIONS, r->child.pid, NULL, (void *)(long)(PTRACE_O_TRACEEXIT | PTRACE_O_TRACEEXEC));
	ptrace(PTRACE_CONT, r->child.pid, NULL, NULL);
	return 0;
}

int rec_uncork(struct fol_recorder *r)
{
	int untraced, ret = fol_start_exec(&r->child, &untraced);

	if (ret) {
		r->res->exec_errno = -ret;
		return ret;
	}
	if (untraced) {
		fol_msgs_add(&r->res->warnings, "the workload could not be traced (ptrace refused: "
				 "it is traced already, or kernel.yama.ptrace_scope is 3): no folios "
				 "read from its page tables after exec and at exit");
		return 0;
	}
	return exec_stop(r);
}

/* 'Z' or 'X' in /proc/PID/task/TID/stat: the task has exited. */
static int task_dead(pid_t pid, const char *tid)
{
	char path[64], buf[512], *paren;
	FILE *f;
	int dead = 1;

	snprintf(path, sizeof(path), "/proc/%d/task/%.16s/stat", (int)pid, tid);
	f = fopen(path, "re");
	if (!f)
		return 1;
	if (fgets(buf, sizeof(buf), f) && (paren = strrchr(buf, ')')) && paren[1] == ' ')
		dead = paren[2] == 'Z' || paren[2] == 'X';
	fclose(f);
	return dead;
}

/* The live threads of pid. A zombie cannot be traced (perf_event_open says ESRCH): a main
 * thread that called pthread_exit() while the others run is left out, and a process
 * whose every thread is a zombie is -ESRCH. Grows as needed: a server may have
 * thousands of threads. */
static int threads_of(pid_t pid, struct perf_thread_map **out)
{
	char path[64];
	pid_t *tids = NULL;
	size_t cap = 0;
	struct dirent *de;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || task_dead(pid, de->d_name))
			continue;
		if (FOL_GROW(tids, cap, (size_t)n + 1, 64)) {
			free(tids);
			closedir(d);
			return -ENOMEM;
		}
		tids[n++] = atoi(de->d_name);
	}
	closedir(d);
	*out = n ? perf_thread_map__new_array(n, tids) : NULL;
	free(tids);
	if (!n)
		return -ESRCH;
	return *out ? 0 : -ENOMEM;
}

int rec_target_gone(pid_t pid)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int live = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 1;
	while (!live && (de = readdir(d)))
		live = de->d_name[0] != '.' && !task_dead(pid, de->d_name);
	closedir(d);
	return !live;
}

int rec_traced_stop(struct fol_recorder *r, int st)
{
	siginfo_t si;
	int sig = WSTOPSIG(st), ret = 0;

	if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8))) {
		ret = rec_write_maps(r, r->child.pid);
		sig = 0;
	} else if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXEC << 8))) {
		sig = 0;
	} else if (ptrace(PTRACE_GETSIGINFO, r->child.pid, NULL, &si) < 0) {
		return 0; /* group stop: SIGCONT will resume it */
	}
	ptrace(PTRACE_CONT, r->child.pid, NULL, (void *)(long)sig);
	return ret;
}

int rec_open_target(struct fol_recorder *r)
{
	int ret;

	if (r->o->system_wide) {
		r->threads = perf_thread_map__new_dummy();
		if (!r->threads)
			return rec_fail(r, -ENOMEM, "out of memory");
		ret = r->o->argv ? start_corked(r) : 0;
		return ret ? rec_fail(r, ret, "cannot start the workload: %s", strerror(-ret)) : 0;
	}
	if (r->o->argv) {
		ret = start_corked(r);
		if (ret)
			return rec_fail(r, ret, "cannot start the workload: %s", strerror(-ret));
		r->threads = perf_thread_map__new_array(1, &r->child.pid);
		return r->threads ? 0 : rec_fail(r, -ENOMEM, "out of memory");
	}
	if (fol_pid_is_kernel_thread("", r->o->pid))
		return rec_fail(r, -EPERM, "cannot attach to pid %d: a kernel thread has no memory of its "
				"own to fault on (record -a records every task)", r->o->pid);
	ret = threads_of(r->o->pid, &r->threads);
	if (ret)
		rec_fail(r, ret, "cannot attach to pid %d: %s", r->o->pid,
			 ret == -ENOENT ? "no such process"
			 : ret == -ESRCH ? "it has exited (a zombie: its parent has not reaped it)"
				     : strerror(-ret));
	return ret;
}
