#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bare.h"
#include "cmd.h"
#include "file.h"
#include "metadata.h"
#include "parse.h"
#include "record.h"
#include "report.h"
#include "runs.h"
#include "util.h"

/* 30 days: longer is a typo, and inf or 1e300 must not overflow the deadline. */
#define FOL_DURATION_MAX (30.0 * 24 * 3600)
#define FOL_REPEAT_MAX 1000
#define FOL_SWEEP_MAX 32

/* The built-in workloads' options a sweep can vary (cmd/workload.c's long options). */
static const char *const sweep_workload_keys[] = { "size", "policy", "stride", "mode", "threads",
						   "loops", NULL };

/* What record and stat share: the options that say what to record, and the run. */
struct rec_cli {
	struct fol_record_opts o;
	const char **events;
	int nevents;
	int quiet;
	int json;		/* stat only */
	struct fol_mthp mthp;
	char self[PATH_MAX];
	char *builtin[4];
	int repeat;		/* -r: runs of each configuration; 0 when not given */
	int bare_runs;		/* untraced runs of each configuration; -1: the default */
	char *sweep_copy;	/* --sweep KEY=V1,V2: KEY and the values point into it */
	const char *sweep_key;
	const char *sweep_val[FOL_SWEEP_MAX];
	int nsweep;
	int is_builtin;		/* the command is a built-in workload (foliostat __workload) */
};

static void usage(FILE *f, int stat)
{
	if (stat)
		fprintf(f,
			"usage: foliostat stat [options] [-- command [args]]\n"
			"\n"
			"Record a workload (the built-in fork-reuse when no command is given) and\n"
			"report it in one go, like perf stat: the text report on stderr, or JSON on\n"
			"stdout with --json. No file: the events stream from the ring buffers into\n"
			"the model as they are recorded.\n"
			"\n"
			"      --json             the JSON report (foliostat/report/v1) on stdout\n");
	else
		fprintf(f,
			"usage: foliostat record [options] [-- command [args]]\n"
			"       foliostat record [options] -p PID [--duration SECONDS]\n"
			"\n"
			"Run a workload (the built-in fork-reuse when no command is given) and record its\n"
			"page faults, folio allocations and memory-management events.\n"
			"\n"
			"  -o, --output FILE      write FILE, mode 0600 (default foliostat.data; an existing\n"
			"                         recording is kept as FILE.old; only recordings, devices\n"
			"                         and FIFOs are written, never a file through a link)\n");
	fprintf(f,
		"  -e, --event EVENT      record EVENT instead of the default set; repeatable.\n"
		"                         A tracepoint (kmem:mm_page_alloc, huge_memory:*) or\n"
		"                         minor-faults, major-faults, page-faults, cpu-clock\n"
		"  -m, --mmap-pages N     ring buffer pages per CPU, a power of two up to %d\n"
		"                         (default %d)\n"
		"  -p, --pid PID          attach to a running process and its threads\n"
		"      --duration S       with -p: stop after S seconds (default: at Ctrl-C)\n"
		"      --mthp SPEC        THP policy for the run, put back after it: SIZE=POLICY,...\n"
		"                         e.g. 64K=always,2M=never, or thp=madvise (PMD THP switch)\n"
		"      --latency-method M exact (fault entry tracepoint to exit sample), sampled\n"
		"                         (cpu-clock with kernel call chains: where the page\n"
		"                         fault tracepoints are missing), auto (default)\n"
		"      --sample-period NS the sampled method's cpu-clock period (default %d)\n"
		"      --kprobes          also record foliostat's own kprobes on do_wp_page (entry\n"
		"                         and return value) where the kernel has kprobe events;\n"
		"                         removed when the run ends\n"
		"  -r, --repeat N         run the command N times (1-%d), each run its own in one\n"
		"                         recording; the report gives mean, stddev, min, median, max\n"
		"      --bare-runs M      also run it M times untraced, interleaved, to show what\n"
		"                         recording adds to its own phase times (default: N for\n"
		"                         built-in workloads, else 0)\n"
		"      --sweep KEY=V1,V2  one configuration per value, side by side: mthp=4K,64K,2M-pte,2M\n"
		"                         (a complete THP policy each; 2M-pte: split to PTEs by the\n"
		"                         built-in workloads), or a built-in workload's option\n"
		"                         (mode=byte,memset size=64M,256M ...)\n"
		"  -q, --quiet            no summary line, no warnings\n"
		"  -h, --help             this text\n"
		"\n"
		"Exit status: the workload's (128+N if it died of signal N), 127 when it cannot\n"
		"be executed, 1 when recording failed, 2 for usage errors. With -r or --sweep,\n"
		"the first run that fails ends the experiment and gives the status.\n",
		FOL_RECORD_MAX_PAGES, FOL_RECORD_DEFAULT_PAGES, FOL_CLOCK_PERIOD_DEFAULT, FOL_REPEAT_MAX);
}

/* --sweep KEY=V1,V2,...: 0, or the exit status. The keys are checked once the command
 * is known (check_experiment). */
static int parse_sweep(struct rec_cli *c, const char *arg, const char *cmd)
{
	char *eq, *save = NULL, *v;

	if (c->sweep_copy) {
		fprintf(stderr, "foliostat %s: one --sweep at a time\n", cmd);
		return EXIT_USAGE;
	}
	c->sweep_copy = strdup(arg);
	if (!c->sweep_copy)
		return 1;
	eq = strchr(c->sweep_copy, '=');
	if (!eq || eq == c->sweep_copy || !eq[1]) {
		fprintf(stderr, "foliostat %s: --sweep takes KEY=V1,V2,... (e.g. mthp=4K,64K,2M-pte)\n", cmd);
		return EXIT_USAGE;
	}
	*eq = '\0';
	c->sweep_key = c->sweep_copy;
	for (v = strtok_r(eq + 1, ",", &save); v; v = strtok_r(NULL, ",", &save)) {
		if (c->nsweep == FOL_SWEEP_MAX) {
			fprintf(stderr, "foliostat %s: --sweep takes at most %d values\n", cmd, FOL_SWEEP_MAX);
			return EXIT_USAGE;
		}
		c->sweep_val[c->nsweep++] = v;
	}
	if (!c->nsweep) {
		fprintf(stderr, "foliostat %s: --sweep %s= has no values\n", cmd, c->sweep_key);
		return EXIT_USAGE;
	}
	return 0;
}

/* -r, --bare-runs and --sweep against the rest of the command line: 0 or the status. */
static int check_experiment(struct rec_cli *c, const char *cmd)
{
	char spec[512];
	int policy, known = 0;

	if ((c->repeat || c->nsweep || c->bare_runs > 0) && c->o.pid) {
		fprintf(stderr, "foliostat %s: -r, --sweep and --bare-runs run a command; -p attaches "
				"to one process once\n", cmd);
		return EXIT_USAGE;
	}
	if (c->bare_runs > (c->repeat ? c->repeat : 1)) {
		fprintf(stderr, "foliostat %s: --bare-runs %d: at most one untraced run per recorded "
				"run (-r %d)\n", cmd, c->bare_runs, c->repeat ? c->repeat : 1);
		return EXIT_USAGE;
	}
	if (!c->nsweep)
		return 0;
	if (!strcmp(c->sweep_key, "mthp")) {
		if (c->o.mthp) {
			fprintf(stderr, "foliostat %s: --sweep mthp= sets the policy of each run: "
					"leave out --mthp\n", cmd);
			return EXIT_USAGE;
		}
		for (int i = 0; i < c->nsweep; i++) {
			int ret = fol_mthp_sweep_spec(c->sweep_val[i], "", spec, sizeof(spec), &policy);

			if (ret) {
				fprintf(stderr, "foliostat %s: --sweep mthp=%s: %s\n", cmd, c->sweep_val[i],
					ret == -ENOENT ? "this kernel has no such folio size "
							 "(see /sys/kernel/mm/transparent_hugepage/)"
						       : "a folio size is 4K, 16K ... 1M, 2M or 2M-pte");
				return EXIT_USAGE;
			}
		}
		return 0;
	}
	for (int i = 0; sweep_workload_keys[i]; i++)
		known |= !strcmp(sweep_workload_keys[i], c->sweep_key);
	if (!known) {
		fprintf(stderr, "foliostat %s: --sweep %s=: unknown key: mthp, or a built-in workload's "
				"size, policy, stride, mode, threads, loops\n", cmd, c->sweep_key);
		return EXIT_USAGE;
	}
	if (!c->is_builtin) {
		fprintf(stderr, "foliostat %s: --sweep %s= is an option of the built-in workloads; "
				"another command is swept only over mthp=\n", cmd, c->sweep_key);
		return EXIT_USAGE;
	}
	return 0;
}

/* 0 to go on, else the exit status. */
static int parse(int argc, char **argv, struct rec_cli *c, int stat)
{
	enum { O_DURATION = 256, O_MTHP, O_JSON, O_KPROBES, O_METHOD, O_PERIOD, O_BARE, O_SWEEP };
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "event", required_argument, NULL, 'e' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, O_DURATION },
		{ "quiet", no_argument, NULL, 'q' },
		{ "mthp", required_argument, NULL, O_MTHP },
		{ "json", no_argument, NULL, O_JSON },
		{ "kprobes", no_argument, NULL, O_KPROBES },
		{ "latency-method", required_argument, NULL, O_METHOD },
		{ "sample-period", required_argument, NULL, O_PERIOD },
		{ "repeat", required_argument, NULL, 'r' },
		{ "bare-runs", required_argument, NULL, O_BARE },
		{ "sweep", required_argument, NULL, O_SWEEP },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = stat ? "stat" : "record";
	char err[256], what[64];
	int ch, ret;

	c->o.output = "foliostat.data";
	c->o.mmap_pages = FOL_RECORD_DEFAULT_PAGES;
	c->bare_runs = -1;
	while ((ch = getopt_long(argc, argv, stat ? "+e:m:p:r:qh" : "+o:e:m:p:r:qh", opts, NULL)) != -1) {
		switch (ch) {
		case 'r':
			ret = parse_int(optarg, 1, FOL_REPEAT_MAX, &c->repeat);
			if (ret) {
				snprintf(what, sizeof(what), "a number of runs from 1 to %d", FOL_REPEAT_MAX);
				print_bad_number(cmd, "-r", what, optarg, ret);
				return EXIT_USAGE;
			}
			break;
		case O_BARE:
			ret = parse_int(optarg, 0, FOL_REPEAT_MAX, &c->bare_runs);
			if (ret) {
				snprintf(what, sizeof(what), "a number of runs from 0 to %d", FOL_REPEAT_MAX);
				print_bad_number(cmd, "--bare-runs", what, optarg, ret);
				return EXIT_USAGE;
			}
			break;
		case O_SWEEP:
			ret = parse_sweep(c, optarg, cmd);
			if (ret)
				return ret;
			break;
		case 'o':
			c->o.output = optarg;
			break;
		case 'e': {
			const char **grown = realloc(c->events, sizeof(*grown) * (size_t)(c->nevents + 1));

			if (!grown)
				return 1;
			c->events = grown;
			c->events[c->nevents++] = optarg;
			break;
		}
		case 'm':
			ret = parse_int(optarg, 1, FOL_RECORD_MAX_PAGES, &c->o.mmap_pages);
			if (!ret && (c->o.mmap_pages & (c->o.mmap_pages - 1)))
				ret = -EINVAL;
			if (ret) {
				snprintf(what, sizeof(what), "a power of two from 1 to %d",
					 FOL_RECORD_MAX_PAGES);
				print_bad_number(cmd, "-m", what, optarg, ret);
				return EXIT_USAGE;
			}
			break;
		case 'p':
			ret = parse_int(optarg, 1, FOL_PID_MAX, &c->o.pid);
			if (ret) {
				print_bad_number(cmd, "-p", "a process id", optarg, ret);
				return EXIT_USAGE;
			}
			break;
		case O_DURATION:
			ret = fol_parse_seconds(optarg, 0.001, FOL_DURATION_MAX, &c->o.duration);
			if (ret) {
				print_bad_number(cmd, "--duration", "seconds (0.001 to 30 days)", optarg, ret);
				return EXIT_USAGE;
			}
			break;
		case 'q':
			c->quiet = 1;
			break;
		case O_MTHP:
			if (fol_mthp_parse(optarg, "", &c->mthp, err, sizeof(err))) {
				fprintf(stderr, "foliostat %s: --mthp %s\n", cmd, err);
				return EXIT_USAGE;
			}
			c->o.mthp = &c->mthp;
			c->o.mthp_spec = optarg;
			break;
		case O_KPROBES:
			c->o.kprobes = 1;
			break;
		case O_METHOD:
			if (!strcmp(optarg, "auto"))
				c->o.method = FOL_METHOD_AUTO;
			else if (!strcmp(optarg, "exact"))
				c->o.method = FOL_METHOD_EXACT;
			else if (!strcmp(optarg, "sampled"))
				c->o.method = FOL_METHOD_SAMPLED;
			else {
				fprintf(stderr, "foliostat %s: --latency-method is auto, exact or sampled\n", cmd);
				return EXIT_USAGE;
			}
			break;
		case O_PERIOD:
			ret = fol_parse_u64(optarg, 1000, 1000000000000ull, 0, &c->o.clock_period_ns);
			if (ret) {
				print_bad_number(cmd, "--sample-period", "nanoseconds (1000 to 10^12)", optarg,
						 ret);
				return EXIT_USAGE;
			}
			break;
		case O_JSON:
			if (!stat) {
				fprintf(stderr, "foliostat record: --json is for stat and report\n");
				return EXIT_USAGE;
			}
			c->json = 1;
			break;
		case 'h':
			usage(stdout, stat);
			return -1;
		default:
			usage(stderr, stat);
			return EXIT_USAGE;
		}
	}
	if (c->o.pid && optind < argc) {
		fprintf(stderr, "foliostat %s: give either -p PID or a command, not both\n", cmd);
		return EXIT_USAGE;
	}
	if (c->o.duration > 0 && !c->o.pid) {
		fprintf(stderr, "foliostat %s: --duration goes with -p; a command runs to its end\n", cmd);
		return EXIT_USAGE;
	}
	c->o.events = c->events;
	c->o.nr_events = c->nevents;
	if (!c->o.pid) {
		if (optind < argc) {
			c->o.argv = argv + optind;
		} else {
			ssize_t n = readlink("/proc/self/exe", c->self, sizeof(c->self) - 1);

			if (n < 0) {
				fprintf(stderr, "foliostat %s: cannot find its own binary for the built-in "
						"workload: %s\n", cmd, strerror(errno));
				return 1;
			}
			c->self[n] = '\0';
			c->builtin[0] = c->self;
			c->builtin[1] = "__workload";
			c->builtin[2] = "fork-reuse";
			c->builtin[3] = NULL;
			c->o.argv = c->builtin;
		}
		c->is_builtin = c->o.argv[0] && c->o.argv[1] && !strcmp(c->o.argv[1], "__workload");
	}
	return check_experiment(c, cmd);
}

/* Record; on success *status is what foliostat exits with (the workload's). */
static int run(struct rec_cli *c, const char *cmd, int *status)
{
	char phases[] = "/tmp/foliostat-phases.XXXXXX";
	struct fol_record_result res;
	int ret, phase_fd = -1;

	if (c->o.argv) {
		phase_fd = mkstemp(phases);
		if (phase_fd >= 0)
			c->o.phase_file = phases;
	}
	ret = fol_record(&c->o, &res);
	if (phase_fd >= 0) {
		close(phase_fd);
		unlink(phases);
	}
	for (int i = 0; i < res.warnings.n && (!c->quiet || ret); i++)
		fprintf(stderr, "foliostat %s: warning: %s\n", cmd, res.warnings.v[i]);
	if (ret) {
		fprintf(stderr, "foliostat %s: %s\n", cmd, res.error[0] ? res.error : strerror(-ret));
		*status = res.exec_errno ? 127 : 1;
		fol_record_result_free(&res);
		return ret;
	}
	if (!c->quiet)
		fprintf(stderr,
			"foliostat %s: %llu samples, %llu records, %llu lost, %.2f MB written to %s "
			"in %.3f s\n",
			cmd, (unsigned long long)res.samples, (unsigned long long)res.records,
			(unsigned long long)res.lost, (double)res.bytes / 1e6, c->o.output, res.seconds);
	if (res.lost)
		fprintf(stderr, "foliostat %s: warning: %llu events lost: try a larger -m\n", cmd,
			(unsigned long long)res.lost);
	*status = 0;
	if (c->o.argv) {
		if (WIFEXITED(res.wait_status))
			*status = WEXITSTATUS(res.wait_status);
		else if (WIFSIGNALED(res.wait_status))
			*status = 128 + WTERMSIG(res.wait_status);
	}
	fol_record_result_free(&res);
	return 0;
}

/* The command line of one configuration of a sweep: the built-in workload's own option
 * added last (getopt takes the last), or the policy that gives a folio size. */
static char **config_argv(const struct rec_cli *c, int conf, struct fol_mthp *m, char *spec,
			  size_t speclen)
{
	static const char *const policies[] = { [FOL_SWEEP_SMALL] = "small", [FOL_SWEEP_MTHP] = "mthp",
						[FOL_SWEEP_PTE_THP] = "pte-thp", [FOL_SWEEP_THP] = "thp" };
	char opt[64], err[256];
	const char *val = c->sweep_val[conf];
	char **argv;
	int n = 0, policy;

	while (c->o.argv[n])
		n++;
	argv = calloc((size_t)n + 3, sizeof(*argv));
	if (!argv)
		return NULL;
	memcpy(argv, c->o.argv, (size_t)n * sizeof(*argv));
	if (strcmp(c->sweep_key, "mthp")) {
		snprintf(opt, sizeof(opt), "--%s", c->sweep_key);
		argv[n] = strdup(opt);
		argv[n + 1] = (char *)val;
		return argv;
	}
	if (fol_mthp_sweep_spec(val, "", spec, speclen, &policy) ||
	    fol_mthp_parse(spec, "", m, err, sizeof(err))) {
		free(argv);
		return NULL;
	}
	if (c->is_builtin) {
		argv[n] = strdup("--policy");
		argv[n + 1] = (char *)policies[policy];
	}
	return argv;
}

static void free_config_argv(const struct rec_cli *c, char **argv)
{
	int n = 0;

	while (c->o.argv[n])
		n++;
	if (argv)
		free(argv[n]);
	free(argv);
}

/* An untraced run's exit as foliostat's status: 0, its exit code, or 128 + its signal. */
static int bare_status(const cJSON *bare)
{
	const cJSON *sig = cJSON_GetObjectItemCaseSensitive(bare, "exit_signal");
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(bare, "exit_code");

	if (cJSON_IsNumber(sig))
		return 128 + sig->valueint;
	return cJSON_IsNumber(code) ? code->valueint : 0;
}

/* Between runs, Ctrl-C or a kill ends the experiment after the run in progress: each run
 * already written stays whole. (During a recorded run, fol_record's own handlers pass the
 * signal to the workload.) */
static volatile sig_atomic_t experiment_stop;

static void on_experiment_signal(int sig)
{
	experiment_stop = sig;
}

/* The untraced run of an experiment's run, into a BARE chunk. 0 to go on (*status 0),
 * else the run's status or the error. */
static int bare_run(struct rec_cli *c, const char *cmd, struct fol_writer *w, int idx,
		    const char *config, int *status)
{
	char phases[] = "/tmp/foliostat-bare.XXXXXX";
	cJSON *bj = NULL;
	int ret, fd = mkstemp(phases);

	ret = fd < 0 ? -errno : fol_bare_run(c->o.argv, phases, c->o.mthp, &bj);
	if (fd >= 0) {
		close(fd);
		unlink(phases);
	}
	if (ret) {
		fprintf(stderr, "foliostat %s: the untraced run of '%s' failed: %s\n", cmd, c->o.argv[0],
			strerror(-ret));
		*status = ret == -ENOENT || ret == -EACCES ? 127 : 1;
		return ret;
	}
	*status = bare_status(bj);
	ret = fol_runs_write_bare(w, idx, config, bj);
	cJSON_Delete(bj);
	if (ret) {
		fprintf(stderr, "foliostat %s: cannot write %s: %s\n", cmd, c->o.output, strerror(-ret));
		*status = 1;
	}
	return ret;
}

/* One run of an experiment: the recorded run and, when there is one, the untraced run,
 * in alternating order (untraced first in the configuration's even runs, nth) so that
 * neither always comes after the other: what one run leaves (page cache, fragmentation, a compaction
 * pending) falls on both alike. 0 to go on, else the error; *status as run(). */
static int one_run(struct rec_cli *c, const char *cmd, struct fol_writer *w, int idx, int total,
		   int conf, int nth, int bare, int *status)
{
	const char *config = c->nsweep ? c->sweep_val[conf] : NULL;
	int ret;

	if (!c->quiet)
		fprintf(stderr, "foliostat %s: run %d of %d%s%s%s%s%s\n", cmd, idx + 1, total,
			config ? " (" : "", config ? c->sweep_key : "", config ? "=" : "",
			config ? config : "", config ? ")" : "");
	ret = fol_runs_write_start(w, idx, total, config ? c->sweep_key : NULL, config);
	if (ret) {
		fprintf(stderr, "foliostat %s: cannot write %s: %s\n", cmd, c->o.output, strerror(-ret));
		*status = 1;
		return ret;
	}
	if (bare && nth % 2 == 0) {
		ret = bare_run(c, cmd, w, idx, config, status);
		if (ret || *status || experiment_stop)
			return ret;
	}
	c->o.writer = w;
	ret = run(c, cmd, status);
	if (!ret && !*status && !experiment_stop && bare && nth % 2 == 1)
		ret = bare_run(c, cmd, w, idx, config, status);
	return ret;
}

/* A configuration of a sweep: its command line and THP policy. */
struct config {
	char **argv;		/* NULL: the command as given */
	struct fol_mthp m;
	char spec[512];
};

static void set_config(struct rec_cli *c, struct config *cf, char *const *argv)
{
	c->o.argv = cf->argv ? cf->argv : argv;
	if (c->nsweep && !strcmp(c->sweep_key, "mthp")) {
		c->o.mthp = &cf->m;
		c->o.mthp_spec = cf->spec;
	}
}

/* -r and --sweep: every run of every configuration into one writer, the configurations
 * in turn (4K, 64K, 4K, 64K...): a drift of the machine over the experiment (page
 * cache, memory fragmentation, a noisy neighbour) then falls on all of them alike
 * instead of making a difference between them. */
static int experiment(struct rec_cli *c, const char *cmd, struct fol_writer *w, int *status)
{
	int nconf = c->nsweep ? c->nsweep : 1, runs = c->repeat ? c->repeat : 1;
	int bare = c->bare_runs >= 0 ? c->bare_runs : c->is_builtin ? runs : 0;
	char *const *argv = c->o.argv;
	struct sigaction sa = { .sa_handler = on_experiment_signal }, old[3];
	const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };
	struct config *cf = calloc((size_t)nconf, sizeof(*cf));
	int ret = 0, idx = 0;

	*status = 0;
	if (!cf)
		return -ENOMEM;
	for (int k = 0; k < c->nsweep && !ret; k++) {
		cf[k].argv = config_argv(c, k, &cf[k].m, cf[k].spec, sizeof(cf[k].spec));
		if (!cf[k].argv) {
			fprintf(stderr, "foliostat %s: --sweep %s=%s: cannot set it up\n", cmd,
				c->sweep_key, c->sweep_val[k]);
			*status = 1;
			ret = -EINVAL;
		}
	}
	experiment_stop = 0;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
	for (int i = 0; i < runs && !ret && !*status && !experiment_stop; i++)
		for (int k = 0; k < nconf && !ret && !*status && !experiment_stop; k++, idx++) {
			set_config(c, &cf[k], argv);
			ret = one_run(c, cmd, w, idx, nconf * runs, k, i, i < bare, status);
		}
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	c->o.argv = argv;
	if (c->nsweep && !strcmp(c->sweep_key, "mthp"))
		c->o.mthp = NULL;
	for (int k = 0; k < c->nsweep; k++)
		free_config_argv(c, cf[k].argv);
	free(cf);
	if (!ret && (*status || experiment_stop))
		fprintf(stderr, "foliostat %s: %s: the experiment stops after run %d of %d\n", cmd,
			experiment_stop ? strsignal(experiment_stop) : "the workload failed", idx,
			nconf * runs);
	if (!*status && experiment_stop)
		*status = 128 + experiment_stop;
	return ret;
}

static int several(const struct rec_cli *c)
{
	return c->repeat || c->nsweep || c->bare_runs > 0;
}

int cmd_record(int argc, char **argv)
{
	struct rec_cli c = { 0 };
	int status = parse(argc, argv, &c, 0);

	if (!status && several(&c)) {
		struct fol_writer *w;
		char msg[512];
		int ret = fol_writer_open(&w, c.o.output);

		if (ret) {
			fprintf(stderr, "foliostat record: %s\n",
				fol_writer_strerror(ret, c.o.output, msg, sizeof(msg)));
			status = 1;
		} else {
			experiment(&c, "record", w, &status);
			ret = fol_writer_close(w);
			if (ret) {
				fprintf(stderr, "foliostat record: cannot write %s: %s\n", c.o.output,
					strerror(-ret));
				status = status ? status : 1;
			}
		}
	} else if (!status) {
		run(&c, "record", &status);
	}
	free(c.events);
	free(c.sweep_copy);
	return status < 0 ? 0 : status;
}

/* stat: the recording streams straight into the model, chunk by chunk; no file. With -r
 * or --sweep, each RUN chunk closes the run before it into runs. */
struct stat_stream {
	struct fol_session *s;
	struct fol_report r;
	struct fol_model_opts mo;
	int begun;
	struct fol_runs runs;
};

/* The run being fed is complete: analysed, into the list. */
static int stat_end_run(struct stat_stream *st)
{
	int ret;

	fol_session_feed_end(st->s);
	ret = st->begun ? fol_report_end(&st->r, st->s) : -EPROTO;
	if (!ret)
		ret = fol_runs_add(&st->runs, &st->r, fol_session_run(st->s), fol_session_bare(st->s));
	fol_report_free(&st->r);
	st->begun = 0;
	return ret;
}

static int stat_sink(void *ctx, uint32_t type, const void *buf, size_t len)
{
	struct stat_stream *st = ctx;
	int ret;

	if (type == FOL_CHUNK_RUN && fol_session_run(st->s)) {
		/* A run that recorded nothing (its workload failed to start) is dropped. */
		ret = stat_end_run(st);
		if (ret && ret != -EPROTO)
			return ret;
		fol_session_close(st->s);
		st->s = NULL;
		ret = fol_session_open_live(&st->s);
		if (ret)
			return ret;
	}
	ret = fol_session_feed(st->s, type, buf, len);
	if (ret)
		return ret;
	if (!st->begun && type != FOL_CHUNK_META && type != FOL_CHUNK_EVENT && type != FOL_CHUNK_RUN &&
	    type != FOL_CHUNK_BARE && fol_session_ready(st->s)) {
		ret = fol_report_begin(&st->r, st->s, &st->mo);
		if (ret)
			return ret;
		st->begun = 1;
	}
	/* After each pass over the ring buffers: what the merge can release, into the model. */
	return st->begun && type == FOL_CHUNK_ROUND ? fol_report_drain(&st->r, st->s) : 0;
}

static int print_stat(struct stat_stream *st, const struct rec_cli *c)
{
	struct fol_report *r;

	if (!st->runs.n)
		return 1;
	if (st->runs.several)
		return print_runs(&st->runs, c->json, 0, c->json ? stdout : stderr, "stat");
	r = &st->runs.v[0].r;
	if (c->json)
		return print_json(fol_report_json(r), stdout, "stat");
	fol_report_text(r, stderr);
	return 0;
}

int cmd_stat(int argc, char **argv)
{
	struct rec_cli c = { 0 };
	struct stat_stream st = { .mo = { .order = FOL_ANY, .cls = FOL_ANY } };
	int status = parse(argc, argv, &c, 1), ret;

	if (status) {
		free(c.events);
		free(c.sweep_copy);
		return status < 0 ? 0 : status;
	}
	ret = fol_session_open_live(&st.s);
	if (ret) {
		fprintf(stderr, "foliostat stat: out of memory\n");
		free(c.events);
		free(c.sweep_copy);
		return 1;
	}
	c.o.output = "the report";
	c.quiet = 1;
	if (several(&c)) {
		struct fol_writer *w;

		ret = fol_writer_open_sink(&w, stat_sink, &st);
		if (!ret) {
			ret = experiment(&c, "stat", w, &status);
			fol_writer_close(w);
		}
	} else {
		c.o.sink = stat_sink;
		c.o.sink_ctx = &st;
		ret = run(&c, "stat", &status);
	}
	free(c.events);
	free(c.sweep_copy);
	if (!ret) {
		ret = stat_end_run(&st);
		if (ret && ret != -EPROTO) {
			fprintf(stderr, "foliostat stat: %s\n", strerror(-ret));
			status = 1;
		} else if (!st.runs.n) {
			fprintf(stderr, "foliostat stat: nothing was recorded\n");
			status = 1;
		} else if (print_stat(&st, &c)) {
			status = 1;
		}
	}
	fol_report_free(&st.r);
	fol_runs_free(&st.runs);
	fol_session_close(st.s);
	return status;
}
