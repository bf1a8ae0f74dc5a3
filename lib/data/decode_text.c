// SPDX-License-Identifier: GPL-2.0-only
/* Tracepoint format texts, rebuilt before libtraceevent parses them (a recording's text
 * is untrusted), and a sample's fields printed by them (foliostat script). */
#include "data/decode_priv.h"

#include <ctype.h>
#include <event-parse.h>
#include <stdlib.h>

#include "data/recording.h"
#include "util/errors.h"
#include "util/escape.h"

/* A field declaration as C writes it, rebuilt token by token into out: identifiers and
 * '*', each identifier optionally followed by array bounds ("[]", "[16]"); at least one
 * identifier of type before the name, which is the last identifier (ahead of its bounds).
 * libtraceevent leaks or misparses on anything else (found by fuzzing: "u[signed long pfn",
 * a name with no type). 0 and the name, or -FOL_E_BAD_FORMAT. */
static int clean_decl(const char *p, size_t len, char *out, size_t cap, char *name,
		      size_t name_cap)
{
	const char *end = p + len, *last = NULL;
	size_t o = 0, last_len = 0;
	int idents = 0;

	while (p < end) {
		const char *tok = p;

		if (*p == ' ') {
			p++;
			continue;
		}
		if (isalpha((unsigned char)*p) || *p == '_') {
			while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
				p++;
			last = tok;
			last_len = (size_t)(p - tok);
			idents++;
			while (p < end && *p == '[') { /* bounds right after an identifier */
				p++;
				while (p < end && isdigit((unsigned char)*p))
					p++;
				if (p >= end || *p != ']' || p - tok > 64)
					return -FOL_E_BAD_FORMAT;
				p++;
			}
		} else if (*p == '*') {
			p++;
		} else {
			return -FOL_E_BAD_FORMAT;
		}
		if (o + (size_t)(p - tok) + 2 > cap)
			return -FOL_E_BAD_FORMAT;
		if (o)
			out[o++] = ' ';
		memcpy(out + o, tok, (size_t)(p - tok));
		o += (size_t)(p - tok);
	}
	out[o] = '\0';
	if (idents < 2 || !last || last_len >= name_cap)
		return -FOL_E_BAD_FORMAT;
	memcpy(name, last, last_len);
	name[last_len] = '\0';
	return 0;
}

/* One "\tfield:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" line, checked and rewritten into
 * out; its name in name. Its length, or -FOL_E_BAD_FORMAT when it is not such a line. */
static int clean_field(const char *line, size_t len, char *out, size_t cap, char *name,
		       size_t name_cap)
{
	char decl[FOL_FIELD_DECL_MAX + 1];
	const char *p = line, *end = line + len, *semi;
	unsigned off, size, sgn;
	size_t dl;
	int n, used;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if ((size_t)(end - p) < 6 || memcmp(p, "field:", 6))
		return -FOL_E_BAD_FORMAT;
	p += 6;
	semi = memchr(p, ';', (size_t)(end - p));
	dl = semi ? (size_t)(semi - p) : 0;
	if (!dl || dl > FOL_FIELD_DECL_MAX || clean_decl(p, dl, decl, sizeof(decl), name, name_cap))
		return -FOL_E_BAD_FORMAT;
	if (sscanf(semi + 1, " offset:%u; size:%u; signed:%u;%n", &off, &size, &sgn, &used) != 3 ||
	    off > FOL_FIELD_OFFSET_MAX || size > FOL_FIELD_OFFSET_MAX || sgn > 1 ||
	    semi + 1 + used > end)
		return -FOL_E_BAD_FORMAT;
	n = snprintf(out, cap, "\tfield:%s;\toffset:%u;\tsize:%u;\tsigned:%u;\n", decl, off, size,
		     sgn);
	return n < 0 || (size_t)n >= cap ? -FOL_E_BAD_FORMAT : n;
}

/* The format text of a tracepoint is untrusted: libtraceevent parses it with recursion
 * and with work that grows faster than the text. foliostat reads fields only, never the
 * print format, so it hands libtraceevent a text rebuilt from the checked field lines
 * (names, offsets and sizes bounded) and an empty print format. */
int fol_decoder_clean_format(const char *in, char *out, size_t cap)
{
	const char *p = in, *fields;
	char line[FOL_FIELD_DECL_MAX + 96], name[64], evname[64];
	size_t o = 0;
	unsigned long long id;
	int nfields = 0, n, in_common = 1;

	if (sscanf(in, "name: %63[A-Za-z0-9_] ID: %llu ", evname, &id) != 2 || !id ||
	    id > 0xffff)
		return -FOL_E_BAD_FORMAT;
	fields = strstr(in, "\nformat:\n");
	if (!fields)
		return -FOL_E_BAD_FORMAT;
	n = snprintf(out, cap, "name: %s\nID: %llu\nformat:\n", evname, id);
	if (n < 0 || (size_t)n >= cap)
		return -FOL_E_BAD_FORMAT;
	o = (size_t)n;
	for (p = fields + 9; *p;) {
		size_t len = strcspn(p, "\n");
		int w;

		if (len >= 10 && !memcmp(p, "print fmt:", 10))
			break;
		if (len && strspn(p, " \t") < len) {
			w = clean_field(p, len, line, sizeof(line), name, sizeof(name));
			if (w < 0 || ++nfields > FOL_FIELDS_MAX || o + (size_t)w + 1 >= cap)
				return -FOL_E_BAD_FORMAT;
			/* libtraceevent wants the common_ fields first, then a blank line. */
			if (strncmp(name, "common_", 7)) {
				if (in_common) {
					out[o++] = '\n';
					in_common = 0;
				}
			} else if (!in_common) {
				return -FOL_E_BAD_FORMAT;
			}
			memcpy(out + o, line, (size_t)w);
			o += (size_t)w;
		}
		p += len + (p[len] == '\n');
	}
	if (in_common)
		out[o++] = '\n';
	n = snprintf(out + o, cap - o, "\nprint fmt: \"\"\n");
	if (n < 0 || (size_t)n >= cap - o)
		return -FOL_E_BAD_FORMAT;
	return (int)(o + (size_t)n);
}

/* A __data_loc/__rel_loc field holds offset | length << 16 of its data: in a hostile
 * record both can point anywhere, and libtraceevent would read there. */
static int dynamic_in_bounds(const struct tep_format_field *f, const struct fol_event *ev)
{
	uint32_t loc, off, len;

	if (!(f->flags & TEP_FIELD_IS_DYNAMIC))
		return 1;
	if (f->size != 4)
		return 0;
	memcpy(&loc, (const char *)ev->raw + f->offset, 4);
	off = loc & 0xffff;
	len = loc >> 16;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += (uint32_t)f->offset + 4;
	return off + len <= ev->raw_size;
}

/* A string or array field's content, printed from a copy of the record with a NUL after
 * it: libtraceevent reads a string up to its NUL, and a hostile record's last string may
 * have none (its read ran past the buffer). */
static void print_string_field(struct trace_seq *s, const struct fol_event *ev,
			       const struct tep_format_field *f)
{
	char small[1024], *copy = ev->raw_size < sizeof(small) ? small : malloc(ev->raw_size + 1);

	if (!copy)
		return;
	memcpy(copy, ev->raw, ev->raw_size);
	copy[ev->raw_size] = '\0';
	tep_print_field_content(s, copy, (int)ev->raw_size, (struct tep_format_field *)f);
	if (copy != small)
		free(copy);
}

void fol_decoder_format(const struct fol_decoder *d, const struct fol_event *ev, char *buf,
			size_t len)
{
	const struct evd *e;
	struct tep_format_field **fields;
	struct trace_seq s;

	if (!len)
		return;
	buf[0] = '\0';
	if (ev->evidx < 0 || ev->evidx >= d->n)
		return;
	e = &d->ev[ev->evidx];
	if (!e->tp || !ev->raw)
		return;
	trace_seq_init(&s);
	fields = tep_event_fields(e->tp);
	for (int i = 0; fields && fields[i]; i++) {
		const struct tep_format_field *f = fields[i];

		if ((unsigned)f->offset + (unsigned)f->size > ev->raw_size)
			continue;
		trace_seq_printf(&s, " %s=", f->name);
		if (!dynamic_in_bounds(f, ev)) {
			trace_seq_puts(&s, "?");
		} else if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING)) {
			print_string_field(&s, ev, f);
		} else {
			unsigned long long v = 0;

			tep_read_number_field((struct tep_format_field *)f, ev->raw, &v);
			if (f->flags & TEP_FIELD_IS_SIGNED)
				trace_seq_printf(&s, "%lld", f->size == 4 ? (long long)(int)v
									  : (long long)v);
			else if (f->size == 8)
				trace_seq_printf(&s, "0x%llx", v);
			else
				trace_seq_printf(&s, "%llu", v);
		}
	}
	free(fields);
	trace_seq_terminate(&s);
	snprintf(buf, len, "%s", s.buffer ? s.buffer : "");
	trace_seq_destroy(&s);
}

void fol_decoder_fields_json(const struct fol_decoder *d, const struct fol_event *ev, cJSON *obj)
{
	const struct evd *e;
	struct tep_format_field **fields;
	char esc[8192];

	if (ev->evidx < 0 || ev->evidx >= d->n)
		return;
	e = &d->ev[ev->evidx];
	if (!e->tp || !ev->raw)
		return;
	fields = tep_event_fields(e->tp);
	for (int i = 0; fields && fields[i]; i++) {
		const struct tep_format_field *f = fields[i];

		if ((unsigned)f->offset + (unsigned)f->size > ev->raw_size || !dynamic_in_bounds(f, ev))
			continue;
		if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING)) {
			struct trace_seq s;

			trace_seq_init(&s);
			print_string_field(&s, ev, f);
			trace_seq_terminate(&s);
			/* A hostile record's bytes: escaped to text that is valid UTF-8. */
			cJSON_AddStringToObject(obj, f->name, fol_escape(s.buffer ? s.buffer : "", esc, sizeof(esc)));
			trace_seq_destroy(&s);
		} else {
			unsigned long long v;
			char hex[24];

			if (dec_number_field(f, ev, &v))
				continue;
			if ((f->flags & TEP_FIELD_IS_SIGNED) && (long long)v >= -(1ll << 53) &&
			    (long long)v <= (1ll << 53)) {
				cJSON_AddNumberToObject(obj, f->name, (double)(long long)v);
			} else if (!(f->flags & TEP_FIELD_IS_SIGNED) && v <= (1ull << 53)) {
				cJSON_AddNumberToObject(obj, f->name, (double)v);
			} else {
				snprintf(hex, sizeof(hex), "0x%llx", v);
				cJSON_AddStringToObject(obj, f->name, hex);
			}
		}
	}
	free(fields);
}
