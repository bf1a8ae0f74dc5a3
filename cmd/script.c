// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "util/errors.h"
#include "data/comm.h"
#include "util/escape.h"
#include "data/decode.h"
#include <cjson/cJSON.h>
#include "data/session.h"
#include "util.h"
#include "options.h"

static const struct usage script_usage = {
	"usage: foliostat script [-i FILE] [--sideband] [--json]\n"
	"\n"
	"Print every recorded sample in time order, one line each:\n"
	"  comm pid/tid [cpu] seconds.nanoseconds: event: field=value ...\n"
	"\n",
	NULL,
};

/* A side-band record's fields, for --json. */
static void sideband_json(const struct fol_event *ev, cJSON *o)
{
	cJSON *f = cJSON_AddObjectToObject(o, "fields");
	char hex[24];

	switch (ev->kind) {
	case FOL_EV_MMAP:
		cJSON_AddStringToObject(o, "event", "PERF_RECORD_MMAP2");
		snprintf(hex, sizeof(hex), "0x%" PRIx64, ev->mmap.start);
		cJSON_AddStringToObject(f, "start", hex);
		cJSON_AddNumberToObject(f, "len", (double)ev->mmap.len);
		cJSON_AddNumberToObject(f, "pgoff", (double)ev->mmap.pgoff);
		cJSON_AddNumberToObject(f, "prot", ev->mmap.prot);
		cJSON_AddNumberToObject(f, "flags", ev->mmap.flags);
		cJSON_AddStringToObject(f, "filename", ev->mmap.filename);
		break;
	case FOL_EV_COMM:
		cJSON_AddStringToObject(o, "event", "PERF_RECORD_COMM");
		cJSON_AddStringToObject(f, "comm", ev->comm.comm);
		cJSON_AddBoolToObject(f, "exec", ev->comm.exec);
		break;
	case FOL_EV_FORK:
	case FOL_EV_EXIT:
		cJSON_AddStringToObject(o, "event", ev->kind == FOL_EV_FORK ? "PERF_RECORD_FORK"
									  : "PERF_RECORD_EXIT");
		cJSON_AddNumberToObject(f, "ppid", ev->fork.ppid);
		cJSON_AddNumberToObject(f, "ptid", ev->fork.ptid);
		break;
	case FOL_EV_LOST:
		cJSON_AddStringToObject(o, "event", "PERF_RECORD_LOST");
		cJSON_AddNumberToObject(f, "lost", (double)ev->lost.lost);
		break;
	default:
		cJSON_AddStringToObject(o, "event", "?");
		break;
	}
	/* "event" before "fields", as for samples. */
	cJSON_AddItemToObject(o, "fields", cJSON_DetachItemFromObject(o, "fields"));
}

/* One event as a JSON line; strings escaped to valid UTF-8 (escape.h). */
static void print_json_line(struct fol_session *s, const struct fol_evdesc *d,
			    const struct fol_comms *comms, const struct fol_event *ev)
{
	cJSON *o = cJSON_CreateObject(), *f;
	char *text;

	if (!o)
		return;
	cJSON_AddStringToObject(o, "comm", fol_comms_get(comms, ev->tid));
	cJSON_AddNumberToObject(o, "pid", ev->pid);
	cJSON_AddNumberToObject(o, "tid", ev->tid);
	cJSON_AddNumberToObject(o, "cpu", ev->cpu);
	cJSON_AddNumberToObject(o, "time_ns", (double)ev->time);
	if (!d) {
		sideband_json(ev, o);
	} else {
		cJSON_AddStringToObject(o, "event", d->name);
		f = cJSON_AddObjectToObject(o, "fields");
		if (ev->kind == FOL_EV_FAULT_EXIT || ev->kind == FOL_EV_FAULT_EXIT_MAJ ||
		    !strcmp(d->kind, "software")) {
			char hex[24];

			snprintf(hex, sizeof(hex), "0x%" PRIx64, ev->exit.addr);
			cJSON_AddStringToObject(f, "addr", hex);
		} else {
			fol_decoder_fields_json(fol_session_decoder(s), ev, f);
		}
	}
	fol_escape_json(o);
	text = cJSON_PrintUnformatted(o);
	if (text)
		puts(text);
	free(text);
	cJSON_Delete(o);
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
	const char *input = "foliostat.data";
	struct fol_session *s;
	struct fol_comms *comms;
	struct fol_event ev;
	char fields[4096], esc[8192], esc_comm[256], esc_name[512];
	int ret, sideband = 0, json = 0;
	const struct opt opts[] = {
		OPT_STRING('i', "input", &input, "FILE", "read FILE (default foliostat.data)"),
		OPT_SET_INT('S', "sideband", &sideband, 1,
			    "also print MMAP, COMM, FORK, EXIT and LOST records"),
		OPT_SET_INT('j', "json", &json, 1,
			    "one JSON object per line (JSON Lines): comm, pid, tid, cpu,\n"
			    "time_ns, event, fields"),
		OPT_END(),
	};

	ret = parse_options(argc, argv, opts, &script_usage, 0);
	if (ret)
		return ret < 0 ? 0 : ret;
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
		if (json) {
			print_json_line(s, d, comms, &ev);
			continue;
		}
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
