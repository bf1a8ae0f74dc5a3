#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"
#include "metadata.h"
#include "parse.h"
#include "record.h"
#include "report.h"
#include "util.h"

/* 30 days: longer is a typo, and inf or 1e300 must not overflow the deadline. */
#define FOL_DURATION_MAX (30.0 * 24 * 3600)

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
		"  -q, --quiet            no summary line, no warnings\n"
		"  -h, --help             this text\n"
		"\n"
		"Exit status: the workload's (128+N if it died of signal N), 127 when it cannot\n"
		"be executed, 1 when recording failed, 2 for usage errors.\n",
		FOL_RECORD_MAX_PAGES, FOL_RECORD_DEFAULT_PAGES, FOL_CLOCK_PERIOD_DEFAULT);
}

/* 0 to go on, else the exit status. */
static int parse(int argc, char **argv, struct rec_cli *c, int stat)
{
	enum { O_DURATION = 256, O_MTHP, O_JSON, O_KPROBES, O_METHOD, O_PERIOD };
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = stat ? "stat" : "record";
	char err[256], what[64];
	int ch, ret;

	c->o.output = "foliostat.data";
	c->o.mmap_pages = FOL_RECORD_DEFAULT_PAGES;
	while ((ch = getopt_long(argc, argv, stat ? "+e:m:p:qh" : "+o:e:m:p:qh", opts, NULL)) != -1) {
		switch (ch) {
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
	}
	return 0;
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

int cmd_record(int argc, char **argv)
{
	struct rec_cli c = { 0 };
	int status = parse(argc, argv, &c, 0);

	if (!status)
		run(&c, "record", &status);
	free(c.events);
	return status < 0 ? 0 : status;
}

/* stat: the recording streams straight into the model, chunk by chunk; no file. */
struct stat_stream {
	struct fol_session *s;
	struct fol_report r;
	struct fol_model_opts mo;
	int begun;
};

static int stat_sink(void *ctx, uint32_t type, const void *buf, size_t len)
{
	struct stat_stream *st = ctx;
	int ret = fol_session_feed(st->s, type, buf, len);

	if (ret)
		return ret;
	if (!st->begun && type != FOL_CHUNK_META && type != FOL_CHUNK_EVENT &&
	    fol_session_ready(st->s)) {
		ret = fol_report_begin(&st->r, st->s, &st->mo);
		if (ret)
			return ret;
		st->begun = 1;
	}
	/* After each pass over the ring buffers: what the merge can release, into the model. */
	return st->begun && type == FOL_CHUNK_ROUND ? fol_report_drain(&st->r, st->s) : 0;
}

int cmd_stat(int argc, char **argv)
{
	struct rec_cli c = { 0 };
	struct stat_stream st = { .mo = { .order = FOL_ANY, .cls = FOL_ANY } };
	int status = parse(argc, argv, &c, 1), ret;

	if (status) {
		free(c.events);
		return status < 0 ? 0 : status;
	}
	ret = fol_session_open_live(&st.s);
	if (ret) {
		fprintf(stderr, "foliostat stat: out of memory\n");
		free(c.events);
		return 1;
	}
	c.o.output = "the report";
	c.o.sink = stat_sink;
	c.o.sink_ctx = &st;
	c.quiet = 1;
	ret = run(&c, "stat", &status);
	free(c.events);
	if (!ret) {
		fol_session_feed_end(st.s);
		ret = st.begun ? fol_report_end(&st.r, st.s) : -EPROTO;
		if (ret) {
			fprintf(stderr, "foliostat stat: %s\n",
				ret == -EPROTO ? "nothing was recorded" : strerror(-ret));
			status = 1;
		} else if (c.json) {
			cJSON *j = fol_report_json(&st.r);
			char *s = j ? cJSON_Print(j) : NULL;

			if (s)
				puts(s);
			else
				status = 1;
			free(s);
			cJSON_Delete(j);
		} else {
			fol_report_text(&st.r, stderr);
		}
	}
	fol_report_free(&st.r);
	fol_session_close(st.s);
	return status;
}
