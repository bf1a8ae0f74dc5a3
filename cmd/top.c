// SPDX-License-Identifier: GPL-2.0-only
/* foliostat top: perf top's job for page faults. stat's streaming path (no file), the
 * model telling each fault to three tallies (all, by process, by thread), drawn every
 * -d seconds. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cmd.h"
#include "data/recording.h"
#include "live/stream.h"
#include "options.h"
#include "record_cli.h"
#include "top.h"
#include "util.h"
#include "util/clock.h"
#include "util/errors.h"
#include "util/parse.h"

static const struct usage top_usage = {
	"usage: foliostat top [options]                (every task: -a)\n"
	"       foliostat top [options] -p PID\n"
	"       foliostat top [options] -a -G CGROUP\n"
	"       foliostat top [options] -- command [args]\n"
	"\n"
	"Page faults live, as perf top: per process (Enter: its threads), folio order and\n"
	"class, the faults and fault time of the last interval and since the start, p99\n"
	"latency, reuse faults per folio and effectiveness. Refreshed every -d seconds.\n"
	"Keys as in the TUI: j/k select, Enter zoom, Esc back, s sort, f freeze, q quit.\n"
	"\n"
	"Cost: stat's streaming path (every fault streamed to the model, no file): the\n"
	"BPF fault path where the machine allows it (entry and exit paired in the kernel,\n"
	"one record per fault), else two samples per fault; of the tracepoints only those\n"
	"its figures read (no page frees, reclaim, collapse: a report's). The command's\n"
	"output is shown when top ends.\n"
	"\n",
	"\n"
	"Exit status: 0, the command's when one ran (128+N if it died of signal N), 1 when\n"
	"recording failed, 2 for usage errors.\n",
};

struct top {
	struct rec_cli c;
	struct fol_live *l;
	struct fol_tally *all, *procs, *threads;
	struct fol_top_ui *ui;
	struct fol_top_data d;
	double delay;
	uint64_t last_ns;
	uint64_t prog_ns, cpu_ns; /* at the last interval's end: the programs', top's CPU */
	uint64_t prog_now;	   /* the programs' time at the last tick */
	int prog_known;		   /* ... read there (the BPF path, its statistics on) */
	char target[256];
	int quit;
};

static int opt_delay(const struct opt *o, const char *arg)
{
	struct top *t = o->value;
	int ret = fol_parse_seconds(arg, 0.1, 3600, &t->delay);

	return ret ? print_bad_number("-d", "seconds (0.1 to 3600)", arg, ret) : 0;
}

static void refresh_data(struct top *t)
{
	const struct fol_summary *s = fol_live_summary(t->l);

	t->d.lost = s ? s->lost : 0;
	t->d.page_size = fol_live_page_size(t->l);
}

/* What the last interval's faults cost, each: the kernel's time in the BPF programs
 * (their run_time_ns) and top's own CPU time, over its faults. The tracepoints' and perf
 * events' own dispatch is not in either (some 100-300 ns a fault here: make bench). */
static void interval_cost(struct top *t, uint64_t span_ns)
{
	const struct fol_tally_row *all = NULL;
	uint64_t faults = 0, cpu = fol_cpu_ns();

	if (fol_tally_list(t->all, &all, 1) && all)
		faults = all->last.faults;
	t->d.per_s = span_ns ? (double)faults * 1e9 / (double)span_ns : 0;
	t->d.self_ns = faults ? (double)(cpu - t->cpu_ns) / (double)faults : 0;
	t->d.prog_ns = !t->prog_known ? -1 : faults ? (double)(t->prog_now - t->prog_ns) / (double)faults : 0;
	t->cpu_ns = cpu;
	t->prog_ns = t->prog_now;
}

/* The programs' time so far, while the recorder runs: the last interval, cut short by the
 * command's end, is costed with the last tick's. */
static void read_prog_time(struct top *t)
{
	uint64_t ns, runs;

	if (t->c.running && !fol_recorder_bpf_time(t->c.running, &ns, &runs)) {
		t->prog_now = ns;
		t->prog_known = 1;
	}
}

/* After every poll of the recorder: the keys, and the screen when an interval is due. */
static void top_tick(void *ctx)
{
	struct top *t = ctx;
	uint64_t now = fol_mono_ns();
	int policy;

	refresh_data(t);
	read_prog_time(t);
	fol_live_trim(t->l);
	policy = fol_live_policy_tick(t->l);
	if (policy >= 0)
		fol_recorder_huge_zero(t->c.running, policy);
	if (fol_top_keys(t->ui, &t->d) && !t->quit) {
		/* Ends the recording as Ctrl-C would: a command is passed the signal. */
		t->quit = 1;
		raise(SIGTERM);
	}
	if (now - t->last_ns < (uint64_t)(t->delay * 1e9) || fol_top_frozen(t->ui))
		return;
	fol_tally_interval(t->all);
	fol_tally_interval(t->procs);
	fol_tally_interval(t->threads);
	interval_cost(t, now - t->last_ns);
	t->last_ns = now;
	t->d.intervals++;
	fol_top_draw(t->ui, &t->d);
}

static int top_tallies(struct top *t)
{
	int ret = fol_live_add_tally(t->l, &(struct fol_tally_opts){ .by = FOL_BY_ALL, .cell_hist = 1 },
				 &t->all);

	if (!ret)
		ret = fol_live_add_tally(t->l, &(struct fol_tally_opts){ .by = FOL_BY_PROCESS }, &t->procs);
	if (!ret)
		ret = fol_live_add_tally(t->l, &(struct fol_tally_opts){ .by = FOL_BY_THREAD }, &t->threads);
	t->d.all = t->all;
	t->d.procs = t->procs;
	t->d.threads = t->threads;
	return ret;
}

static int top_parse(struct top *t, int argc, char **argv)
{
	struct rec_cli *c = &t->c;
	const struct opt opts[] = {
		OPT_SET_INT('a', "all-cpus", &c->o.system_wide, 1,
			    "every task on every CPU (the default with no -p or command)"),
		OPT_INTEGER('p', "pid", &c->o.pid, "PID", 1, FOL_PID_MAX, "a process id",
			    "a running process and its threads"),
		OPT_STRING('G', "cgroup", &c->o.cgroup, "CGROUP",
			   "with -a: only the tasks of this cgroup (v2) and those below it"),
		OPT_CALLBACK('d', "delay", t, "SECONDS", opt_delay,
			     "seconds between refreshes, 0.1 to 3600 (default 1)"),
		OPT_END(),
	};
	int ret = parse_options(argc, argv, opts, &top_usage, PARSE_OPT_STOP_AT_NON_OPTION);

	if (ret)
		return ret;
	if (c->o.pid && (optind < argc || c->o.system_wide))
		return usage_error("give either -p PID, -a or a command");
	if (c->o.cgroup && optind < argc)
		return usage_error("-G scopes -a: give no command with it");
	if (!c->o.pid && optind >= argc)
		c->o.system_wide = 1;
	if (optind < argc)
		c->o.argv = argv + optind;
	c->o.mmap_pages = FOL_RECORD_DEFAULT_PAGES;
	c->o.live = 1;
	c->o.bpf_time = 1;
	c->output = "the live view";
	c->quiet = 1;
	if (c->o.argv)
		snprintf(t->target, sizeof(t->target), "%s", c->o.argv[0]);
	else if (c->o.pid)
		snprintf(t->target, sizeof(t->target), "pid %d", c->o.pid);
	else
		snprintf(t->target, sizeof(t->target), "all CPUs%s%s", c->o.cgroup ? ", cgroup " : "",
			 c->o.cgroup ? c->o.cgroup : "");
	t->d.target = t->target;
	t->d.interval_s = t->delay;
	return 0;
}

/* While the screen is up, the command's output and foliostat's messages go to a memory
 * file, written out when top ends: *saved are the real standard output and error. */
static int divert_output(int saved[2])
{
	int fd = memfd_create("foliostat-top-output", 0);

	saved[0] = dup(STDOUT_FILENO);
	saved[1] = dup(STDERR_FILENO);
	if (fd < 0 || saved[0] < 0 || saved[1] < 0 || dup2(fd, STDOUT_FILENO) < 0 ||
	    dup2(fd, STDERR_FILENO) < 0) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	return fd;
}

static void restore_output(int fd, const int saved[2])
{
	char buf[65536];
	ssize_t n;

	fflush(stdout);
	fflush(stderr);
	dup2(saved[0], STDOUT_FILENO);
	dup2(saved[1], STDERR_FILENO);
	close(saved[0]);
	close(saved[1]);
	if (fd < 0)
		return;
	lseek(fd, 0, SEEK_SET);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (write(STDERR_FILENO, buf, (size_t)n) < 0)
			break;
	close(fd);
}

/* The command ended (or the recording failed): the last figures stay until q. */
static void top_wait(struct top *t, int status, int ret)
{
	char state[400];

	if (ret)
		snprintf(state, sizeof(state), "recording failed: %s; q quits", fol_strerror(ret));
	else if (t->c.o.argv)
		snprintf(state, sizeof(state), "%s exited (status %d); q quits", t->target, status);
	else
		snprintf(state, sizeof(state), "recording ended; q quits");
	t->d.state = state;
	fol_tally_interval(t->all);
	fol_tally_interval(t->procs);
	fol_tally_interval(t->threads);
	interval_cost(t, fol_mono_ns() - t->last_ns);
	t->d.intervals++;
	refresh_data(t);
	fol_top_draw(t->ui, &t->d);
	while (!t->quit && !rec_signal()) {
		if (fol_top_keys(t->ui, &t->d))
			break;
		usleep(50000);
	}
}

int cmd_top(int argc, char **argv)
{
	struct top t = { .delay = 1 };
	struct fol_writer *w = NULL;
	char err[256];
	int status = top_parse(&t, argc, argv), ret, out_fd, saved[2];

	if (status)
		return status < 0 ? 0 : status;
	fol_live_malloc_policy();
	ret = fol_live_open(&t.l, NULL, &w);
	if (!ret)
		ret = top_tallies(&t);
	if (ret) {
		fol_writer_close(w);
		fol_live_close(t.l);
		return error("out of memory");
	}
	ret = fol_top_open(&t.ui, err, sizeof(err));
	if (ret) {
		fol_writer_close(w);
		fol_live_close(t.l);
		return error("%s", err);
	}
	out_fd = divert_output(saved);
	t.c.tick = top_tick;
	t.c.tick_ctx = &t;
	t.last_ns = fol_mono_ns();
	fol_top_draw(t.ui, &t.d);
	rec_signals_install();
	ret = record_one(&t.c, w, &status);
	fol_writer_close(w);
	if (!ret)
		ret = fol_live_end(t.l);
	if (!t.quit)
		top_wait(&t, status, ret);
	rec_signals_restore();
	fol_top_close(t.ui);
	restore_output(out_fd, saved);
	fol_live_close(t.l);
	if (ret && ret != -EINTR)
		status = status ? status : 1;
	/* q while a command ran: it was ended on purpose. */
	return t.quit && t.c.o.argv ? 0 : status;
}
