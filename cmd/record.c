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
#include "record.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: foliostat record [options] [-- command [args]]\n"
		"       foliostat record [options] -p PID [--duration SECONDS]\n"
		"\n"
		"Run a workload (the built-in fork-reuse when no command is given) and record its\n"
		"page faults, folio allocations and memory-management events.\n"
		"\n"
		"  -o, --output FILE      write FILE (default foliostat.data; an existing one is\n"
		"                         kept as FILE.old)\n"
		"  -e, --event EVENT      record EVENT instead of the default set; repeatable.\n"
		"                         A tracepoint (kmem:mm_page_alloc, huge_memory:*) or\n"
		"                         minor-faults, major-faults, page-faults, cpu-clock\n"
		"  -m, --mmap-pages N     ring buffer pages per CPU, a power of two (default %d)\n"
		"  -p, --pid PID          attach to a running process and its threads\n"
		"      --duration S       with -p: stop after S seconds (default: at Ctrl-C)\n"
		"  -q, --quiet            no summary line\n"
		"  -h, --help             this text\n"
		"\n"
		"Exit status: the workload's (128+N if it died of signal N), 127 when it cannot\n"
		"be executed, 1 when recording failed, 2 for usage errors.\n",
		FOL_RECORD_DEFAULT_PAGES);
}

int cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "event", required_argument, NULL, 'e' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'd' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fol_record_opts o = { .output = "foliostat.data", .mmap_pages = FOL_RECORD_DEFAULT_PAGES };
	struct fol_record_result res;
	const char **events = NULL;
	char self[PATH_MAX], phases[] = "/tmp/foliostat-phases.XXXXXX";
	char *builtin[] = { self, "__workload", "fork-reuse", NULL };
	char *end;
	int c, ret, quiet = 0, nev = 0, status, phase_fd = -1;

	while ((c = getopt_long(argc, argv, "+o:e:m:p:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.output = optarg;
			break;
		case 'e': {
			const char **grown = realloc(events, sizeof(*events) * (size_t)(nev + 1));

			if (!grown)
				return 1;
			events = grown;
			events[nev++] = optarg;
			break;
		}
		case 'm':
			o.mmap_pages = (int)strtol(optarg, &end, 10);
			if (*end || o.mmap_pages <= 0 || (o.mmap_pages & (o.mmap_pages - 1))) {
				fprintf(stderr, "foliostat record: -m takes a power of two, not '%s'\n", optarg);
				free(events);
				return EXIT_USAGE;
			}
			break;
		case 'p':
			o.pid = (pid_t)strtol(optarg, &end, 10);
			if (*end || o.pid <= 0) {
				fprintf(stderr, "foliostat record: -p takes a process id, not '%s'\n", optarg);
				free(events);
				return EXIT_USAGE;
			}
			break;
		case 'd':
			o.duration = strtod(optarg, &end);
			if (*end || o.duration <= 0) {
				fprintf(stderr, "foliostat record: --duration takes seconds, not '%s'\n", optarg);
				free(events);
				return EXIT_USAGE;
			}
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			free(events);
			return 0;
		default:
			usage(stderr);
			free(events);
			return EXIT_USAGE;
		}
	}
	if (o.pid && optind < argc) {
		fprintf(stderr, "foliostat record: give either -p PID or a command, not both\n");
		free(events);
		return EXIT_USAGE;
	}
	if (o.duration > 0 && !o.pid) {
		fprintf(stderr, "foliostat record: --duration goes with -p; a command runs to its end\n");
		free(events);
		return EXIT_USAGE;
	}
	o.events = events;
	o.nr_events = nev;
	if (!o.pid) {
		if (optind < argc) {
			o.argv = argv + optind;
		} else {
			ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

			if (n < 0) {
				perror("foliostat record: /proc/self/exe");
				free(events);
				return 1;
			}
			self[n] = '\0';
			o.argv = builtin;
		}
		phase_fd = mkstemp(phases);
		if (phase_fd >= 0)
			o.phase_file = phases;
	}
	ret = fol_record(&o, &res);
	if (phase_fd >= 0) {
		close(phase_fd);
		unlink(phases);
	}
	free(events);
	for (int i = 0; i < res.warnings.n && (!quiet || ret); i++)
		fprintf(stderr, "foliostat record: warning: %s\n", res.warnings.v[i]);
	if (ret) {
		fprintf(stderr, "foliostat record: %s\n", res.error[0] ? res.error : strerror(-ret));
		status = res.exec_errno ? 127 : 1;
		fol_record_result_free(&res);
		return status;
	}
	if (!quiet)
		fprintf(stderr,
			"foliostat record: %llu samples, %llu records, %llu lost, %.2f MB written to %s "
			"in %.3f s\n",
			(unsigned long long)res.samples, (unsigned long long)res.records,
			(unsigned long long)res.lost, (double)res.bytes / 1e6, o.output, res.seconds);
	if (res.lost)
		fprintf(stderr, "foliostat record: warning: %llu events lost: try a larger -m\n",
			(unsigned long long)res.lost);
	status = 0;
	if (o.argv) {
		if (WIFEXITED(res.wait_status))
			status = WEXITSTATUS(res.wait_status);
		else if (WIFSIGNALED(res.wait_status))
			status = 128 + WTERMSIG(res.wait_status);
	}
	fol_record_result_free(&res);
	return status;
}
