// SPDX-License-Identifier: GPL-2.0-only
/* One recorded run, as record, stat, top, serve and an experiment's runs make it: the
 * command's signal policy, the workload's phase file, the recorder's loop and what is
 * said of the run. Apart from record.c's options, so that record.c and experiment.c both
 * build on it and neither on the other's. */
#include <errno.h>
#include <fcntl.h>
#include <perf/core.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "data/file.h"
#include "record/kprobe.h"
#include "record/record.h"
#include "record_cli.h"
#include "util.h"
#include "util/clock.h"
#include "util/errors.h"

/* libperf's own messages: foliostat says what failed itself. */
static int libperf_quiet(enum libperf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static volatile sig_atomic_t got_signal;
static volatile sig_atomic_t signals; /* every one, for the page-table walks */
static volatile sig_atomic_t workload_pid;
static struct sigaction old_actions[4];
static const int handled[4] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD };

static void on_signal(int sig)
{
	if (sig == SIGCHLD)
		return;
	signals++;
	if (!got_signal)
		got_signal = sig;
	/* Ctrl-C reaches the workload through the terminal; a kill of foliostat alone does
	 * not, so pass it on: the workload decides how to end, and we record until it has. */
	if (workload_pid > 0)
		kill((pid_t)workload_pid, sig);
}

void rec_signals_install(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	got_signal = 0;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 4; i++)
		sigaction(handled[i], &sa, &old_actions[i]);
}

void rec_signals_restore(void)
{
	for (int i = 0; i < 4; i++)
		sigaction(handled[i], &old_actions[i], NULL);
}

int rec_phase_file(char *path, size_t len)
{
	int fd = memfd_create("foliostat-phases", 0);

	if (fd < 0)
		return -errno;
	snprintf(path, len, "/proc/%d/fd/%d", (int)getpid(), fd);
	return fd;
}

int rec_signal(void)
{
	return got_signal;
}

/* When the last perf event of a tracepoint is closed, the kernel waits for an RCU grace
 * period (tracepoint_synchronize_unregister(), ~36 ms per tracepoint in this VM: most of
 * perf record's 1.3 s tear-down). Hand the last references to a detached process, which
 * waits until this one has closed its own, then exits and pays that wait; the workload's
 * status comes back at once. Returns the descriptor to close once the recorder is
 * deleted, or -1. */
static int defer_teardown(void)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		char c;

		if (fork() == 0) {
			/* A name of its own, for ps and for benchmarks that wait for it. */
			prctl(PR_SET_NAME, "foliostat-tdown");
			close(p[1]);
			signal(SIGINT, SIG_IGN);
			signal(SIGHUP, SIG_IGN);
			while (read(p[0], &c, 1) < 0 && errno == EINTR)
				;
		}
		_exit(0);
	}
	close(p[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return p[1];
}


/* The run, from open to stop: 0 or the error. An attached recording ends at a signal or
 * at the deadline; a workload's when it exits (a signal is passed on to it). */
static int run_recorder(struct rec_cli *c, struct fol_recorder *r, struct fol_writer *w)
{
	uint64_t deadline = 0;
	int ret = fol_recorder_open(r, w);

	/* Interrupted while the events were being opened: the corked workload never runs. */
	if (!ret && rec_signal())
		return -EINTR;
	if (!ret) {
		workload_pid = fol_recorder_pid(r);
		ret = fol_recorder_start(r);
	}
	/* --duration S counts S seconds of events: from their start, not from before they
	 * were opened (6 s recorded 9.1 s, 26.1 s on a busy machine, the start-up uncounted). */
	if (!ret && c->duration > 0)
		deadline = fol_mono_ns() + (uint64_t)(c->duration * 1e9);
	c->running = r;
	while (!ret) {
		uint64_t now = fol_mono_ns();
		int wait = deadline && deadline - now < 100000000ull ? (int)((deadline - now) / 1000000) : 100;
		int more = fol_recorder_poll(r, deadline && now >= deadline ? 0 : wait);

		if (more <= 0) {
			ret = more;
			break;
		}
		if (c->tick)
			c->tick(c->tick_ctx);
		if (!c->o.argv && (rec_signal() || (deadline && fol_mono_ns() >= deadline)))
			break;
	}
	workload_pid = 0;
	c->running = NULL;
	return ret ? ret : fol_recorder_stop(r, rec_signal());
}

/* The workload's exit as foliostat's: its code, or 128 + the signal that killed it. */
static int exit_status(const struct rec_cli *c, const struct fol_record_result *res)
{
	if (!c->o.argv)
		return 0;
	if (WIFEXITED(res->wait_status))
		return WEXITSTATUS(res->wait_status);
	return WIFSIGNALED(res->wait_status) ? 128 + WTERMSIG(res->wait_status) : 0;
}

static void report_run(const struct rec_cli *c, const struct fol_record_result *res, int ret,
		       uint64_t bytes)
{
	for (int i = 0; i < res->warnings.n && (!c->quiet || ret); i++)
		warning("%s", res->warnings.v[i]);
	if (ret == -EINTR && !res->errors.n)
		error("interrupted (%s) before the workload started", strsignal(rec_signal()));
	else if (ret)
		error("%s", res->errors.n ? fol_msgs_last(&res->errors) : fol_strerror(ret));
	if (ret)
		return;
	if (!c->quiet)
		fprintf(stderr,
			"foliostat %s: %llu samples, %llu records, %llu lost, %.2f MB written to %s "
			"in %.3f s\n",
			get_cmd_name(), (unsigned long long)res->samples, (unsigned long long)res->records,
			(unsigned long long)res->lost, (double)bytes / 1e6, c->output, res->seconds);
	if (res->lost)
		warning("%llu events lost: try a larger -m", (unsigned long long)res->lost);
}

int record_one(struct rec_cli *c, struct fol_writer *w, int *status)
{
	char phases[64];
	struct fol_recorder *r;
	int ret, phase_fd = -1, dfd = -1;
	uint64_t start_bytes = fol_writer_bytes(w);

	libperf_init(libperf_quiet);
	c->o.signals = &signals;
	if (c->o.argv && (phase_fd = rec_phase_file(phases, sizeof(phases))) >= 0)
		c->o.phase_file = phases;
	ret = fol_recorder_new(&r, &c->o);
	if (!ret)
		ret = run_recorder(c, r, w);
	if (phase_fd >= 0) {
		close(phase_fd);
		c->o.phase_file = NULL;
	}
	if (r) {
		const struct fol_record_result *res = fol_recorder_result(r);

		report_run(c, res, ret, fol_writer_bytes(w) - start_bytes);
		*status = ret ? (res->exec_errno ? 127 : ret == -EINTR ? 128 + rec_signal() : 1)
			      : exit_status(c, res);
		/* A kprobe event cannot be removed while a perf event uses it: no deferral. */
		if (!fol_recorder_has_kprobes(r))
			dfd = defer_teardown();
		if (fol_recorder_delete(r) == -EBUSY)
			warning("could not remove the kprobe events of this run: remove them with: "
				"echo '-:%s' >> /sys/kernel/tracing/kprobe_events", FOL_KPROBE_SYSTEM "/wp_*");
		if (dfd >= 0)
			close(dfd);
	} else {
		*status = error("out of memory");
	}
	return ret;
}
