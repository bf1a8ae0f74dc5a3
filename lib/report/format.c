// SPDX-License-Identifier: GPL-2.0-only
#include "report/format.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/escape.h"
#include "util/order.h"

/* A display preference of the process, set once by cmd/ from the locale. */
static int fmt_ascii;

void fol_fmt_set_ascii(int ascii)
{
	fmt_ascii = ascii;
}

const char *fol_fmt_ns(uint64_t ns, char *buf, int len)
{
	double v = (double)ns;

	if (ns < 1000)
		snprintf(buf, (size_t)len, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, (size_t)len, fmt_ascii ? "%.1f us" : "%.1f µs", v / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, (size_t)len, "%.2f ms", v / 1e6);
	else
		snprintf(buf, (size_t)len, "%.3f s", v / 1e9);
	return buf;
}

const char *fol_fmt_ns_col(uint64_t ns, int have, int w, char *buf, int len)
{
	char t[24];
	int cols = 0, pad;

	if (have)
		fol_fmt_ns(ns, t, sizeof(t));
	else
		snprintf(t, sizeof(t), "-");
	for (const char *p = t; *p; p++)
		cols += ((unsigned char)*p & 0xc0) != 0x80; /* UTF-8 continuation bytes: no column */
	pad = w > cols ? w - cols : 0;
	if (pad + (int)strlen(t) >= len)
		pad = 0;
	memset(buf, ' ', (size_t)pad);
	memcpy(buf + pad, t, strlen(t) + 1);
	return buf;
}

const char *fol_command_text(char *const *argv, int argc, char *buf, size_t len)
{
	const char *w = argc > 1 ? argv[1] : NULL;
	/* A built-in workload's foliostat is this program, wherever it was installed. */
	int builtin = w && (!strcmp(w, "workload") || !strcmp(w, "__workload"));
	char esc[1024];
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!i && builtin && strrchr(a, '/'))
			a = strrchr(a, '/') + 1;
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? " " : "",
						 fol_escape(a, esc, sizeof(esc)));
	}
	return buf;
}

/* "64K 256 whole, 64K 256 split first (4096 pieces)": nothing when nothing was written. */
const char *fol_swapout_text(const struct fol_swapout *sw, unsigned page_size, int brief,
			     char *buf, size_t len)
{
	size_t used = 0;
	char sz[16];

	buf[0] = '\0';
	for (int o = 0; o <= FOL_MAX_ORDER && used < len; o++) {
		fol_order_size(o, page_size, sz, sizeof(sz));
		if (sw->whole[o])
			used += (size_t)snprintf(buf + used, len - used, "%s%s %" PRIu64 " whole",
						 used ? ", " : "", sz, sw->whole[o]);
		if (sw->split[o] && used < len && brief)
			used += (size_t)snprintf(buf + used, len - used, "%s%s %" PRIu64 " split first",
						 used ? ", " : "", sz, sw->split[o]);
		else if (sw->split[o] && used < len)
			used += (size_t)snprintf(buf + used, len - used,
						 "%s%s %" PRIu64 " split first (%" PRIu64 " pieces)",
						 used ? ", " : "", sz, sw->split[o], sw->pieces[o]);
	}
	if (sw->unknown && used < len)
		snprintf(buf + used, len - used, "%s%" PRIu64 " %s", used ? ", " : "", sw->unknown,
			 brief ? "pages unknown" : "pages of no folio seen allocated");
	return buf;
}
