// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "errors.h"
#include "comm.h"
#include "escape.h"
#include "session.h"
#include "util.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: foliostat script [-i FILE] [--sideband]\n"
		"\n"
		"Print every recorded sample in time order, one line each:\n"
		"  comm pid/tid [cpu] seconds.nanoseconds: event: field=value ...\n"
		"\n"
		"  -i, --input FILE   read FILE (default foliostat.data)\n"
		"  -S, --sideband     also print MMAP, COMM, FORK, EXIT and LOST records\n"
		"  -h, --help         this text\n");
}

static void print_sideband(const struct fol_event *ev)
{
	char esc[8192];

	switch (ev->kind) {
	case FOL_EV_MMAP:
		printf("PERF_RECORD_MMAP2 [0x%" PRIx64 "(0x%" PRIx64 ") @ 0x%" PRIx64 " prot=%u flags=0x%x]: %s",
		       ev->mmap.start, ev->mmap.len, ev->mmap.pgoff, ev->mmap.prot, ev->mmap.flags,
		       fol_escape(ev->mmap.filename, esc, sizeof(esc)));
		break;
	case FOL_EV_COMM:
		printf("PERF_RECORD_COMM%s: %s", ev->comm.exec ? " exec" : "",
		       fol_escape(ev->comm.comm, esc, sizeof(esc)));
		break;
	case FOL_EV_FORK:
		printf("PERF_RECORD_FORK(%d:%d):(%d:%d)", ev->fork.pid, ev->fork.tid, ev->fork.ppid,
		       ev->fork.ptid);
		break;
	case FOL_EV_EXIT:
		printf("PERF_RECORD_EXIT(%d:%d):(%d:%d)", ev->fork.pid, ev->fork.tid, ev->fork.ppid,
		       ev->fork.ptid);
		break;
	case FOL_EV_LOST:
		printf("PERF_RECORD_LOST lost=%" PRIu64, ev->lost.lost);
		break;
	default:
		break;
	}
}

int cmd_script(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "sideband", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *input = "foliostat.data";
	struct fol_session *s;
	struct fol_comms *comms;
	struct fol_event ev;
	char fields[4096], esc[8192], esc_comm[256], esc_name[512];
	int c, ret, sideband = 0;

	while ((c = getopt_long(argc, argv, "i:Sh", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'S':
			sideband = 1;
			break;
		default:
			return usage_exit(c, usage);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	ret = fol_session_open(&s, input);
	if (ret) {
		print_open_error(input, ret);
		return 1;
	}
	comms = fol_comms_new();
	if (!comms) {
		fol_session_close(s);
		return 1;
	}
	while ((ret = fol_session_next(s, &ev)) == 1) {
		const struct fol_evdesc *d = fol_decoder_event(fol_session_decoder(s), ev.evidx);

		fol_comms_update(comms, &ev);
		if (!d && !sideband)
			continue;
		printf("%16s %6d/%-6d [%03d] %5" PRIu64 ".%09" PRIu64 ": ",
		       fol_escape(fol_comms_get(comms, ev.tid), esc_comm, sizeof(esc_comm)),
		       ev.pid, ev.tid, ev.cpu, ev.time / 1000000000, ev.time % 1000000000);
		if (!d) {
			print_sideband(&ev);
		} else if (ev.kind == FOL_EV_FAULT_EXIT || ev.kind == FOL_EV_FAULT_EXIT_MAJ ||
			   !strcmp(d->kind, "software")) {
			printf("%s: addr=0x%" PRIx64, fol_escape(d->name, esc_name, sizeof(esc_name)),
			       ev.exit.addr);
		} else {
			fol_decoder_format(fol_session_decoder(s), &ev, fields, sizeof(fields));
			printf("%s:%s", fol_escape(d->name, esc_name, sizeof(esc_name)),
			       fol_escape(fields, esc, sizeof(esc)));
		}
		putchar('\n');
	}
	fol_comms_free(comms);
	if (ret < 0)
		error("reading %s: %s", input, fol_strerror(ret));
	ret = print_read_status(input, s) || ret < 0;
	fol_session_close(s);
	return ret ? 1 : 0;
}
