/* SPDX-License-Identifier: GPL-2.0-only */
/* A libFuzzer custom mutator for the targets that read a recording's chunks: now and then
 * it parses one of the JSON chunks and gives it what a byte mutation seldom makes and a
 * hostile file does: a key named twice (the second copy of another kind), a string of
 * kilobytes with escapes, newlines and invalid UTF-8, or a number at the edge of a range.
 * The chunk goes back with its length right (the harness writes the CRCs). Otherwise the
 * input is left to libFuzzer's own mutations. */
#ifndef FOL_FUZZ_JSON_MUTATOR_H
#define FOL_FUZZ_JSON_MUTATOR_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "harness.h"

/* libFuzzer's; absent from the plain runners, which never call the mutator. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max) __attribute__((weak));

static uint32_t jm_next(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static int jm_is_json(uint32_t type)
{
	return type != FOL_CHUNK_RECORDS && type != FOL_CHUNK_ROUND && type != FOL_CHUNK_KSYMS &&
	       type != FOL_CHUNK_ARCHIVE && type != FOL_CHUNK_WORKLOAD;
}

/* Every item of the tree, in order; returns how many (at most max). */
static int jm_items(cJSON *j, cJSON **out, int n, int max)
{
	for (; j && n < max; j = j->next) {
		out[n++] = j;
		n = jm_items(j->child, out, n, max);
	}
	return n;
}

static cJSON *jm_long_string(uint32_t *s)
{
	static const size_t lens[] = { 255, 256, 4095, 4096, 4097, 70000 };
	static const char bits[] = "a\x1b[2J\a\n\"\\\xff\xc2\x9b/..";
	size_t len = lens[jm_next(s) % (sizeof(lens) / sizeof(lens[0]))];
	char *v = malloc(len + 1);
	cJSON *item;

	if (!v)
		return NULL;
	for (size_t i = 0; i < len; i++)
		v[i] = bits[jm_next(s) % (sizeof(bits) - 1)];
	v[len] = '\0';
	item = cJSON_CreateString(v);
	free(v);
	return item;
}

static cJSON *jm_edge_number(uint32_t *s)
{
	static const double edges[] = { -1, 0.5, 1e300, 4294967296.0, 9.3e18, 1.8446744073709552e19,
					2147483648.0, -9.3e18 };

	return cJSON_CreateNumber(edges[jm_next(s) % (sizeof(edges) / sizeof(edges[0]))]);
}

/* The item whose children hold it. */
static cJSON *jm_parent(cJSON *root, cJSON **items, int n, const cJSON *it)
{
	for (int i = -1; i < n; i++)
		for (cJSON *c = (i < 0 ? root : items[i])->child; c; c = c->next)
			if (c == it)
				return i < 0 ? root : items[i];
	return NULL;
}

/* One change to the tree: 0 done, -1 none possible. */
static int jm_change(cJSON *root, uint32_t *s)
{
	cJSON *items[4096], *it, *parent, *v;
	int n = jm_items(root->child, items, 0, 4096), op;

	if (!n)
		return -1;
	it = items[jm_next(s) % (uint32_t)n];
	parent = jm_parent(root, items, n, it);
	op = (int)(jm_next(s) % 3);
	if (!parent || (op == 0 && !it->string))
		return -1;
	if (op == 0) /* the key again in the same object: a copy, or another kind */
		v = jm_next(s) % 2 ? cJSON_Duplicate(it, 1) : jm_next(s) % 2 ? jm_long_string(s)
									: jm_edge_number(s);
	else
		v = op == 1 ? jm_long_string(s) : jm_edge_number(s);
	if (!v)
		return -1;
	if (op == 0 ? cJSON_AddItemToObject(parent, it->string, v)
		    : (!it->string || (v->string = strdup(it->string))) &&
			      cJSON_ReplaceItemViaPointer(parent, it, v))
		return 0;
	cJSON_Delete(v);
	return -1;
}

/* The image with chunk k's payload replaced by json: into out (max bytes); its size, or 0
 * when it does not fit. */
static size_t jm_rebuild(const uint8_t *data, size_t size, const struct fuzz_chunk *c, int nc,
			 int k, const char *json, uint8_t *out, size_t max)
{
	size_t at = FUZZ_FILE_HEADER;

	if (size < FUZZ_FILE_HEADER || max < FUZZ_FILE_HEADER)
		return 0;
	memmove(out, data, FUZZ_FILE_HEADER);
	for (int i = 0; i < nc; i++) {
		const void *p = i == k ? (const void *)json : (const void *)c[i].p;
		uint64_t len = i == k ? strlen(json) : c[i].len;
		const uint8_t *hdr = c[i].p - FUZZ_CHUNK_HEADER;
		uint8_t h[FUZZ_CHUNK_HEADER];

		if (at + FUZZ_CHUNK_HEADER + len > max)
			return 0;
		memcpy(h, hdr, FUZZ_CHUNK_HEADER);
		memcpy(h + 8, &len, 8);
		memcpy(out + at, h, FUZZ_CHUNK_HEADER);
		memcpy(out + at + FUZZ_CHUNK_HEADER, p, len);
		at += FUZZ_CHUNK_HEADER + len;
	}
	return at;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed)
{
	static struct fuzz_chunk c[4096];
	uint32_t s = seed | 1;
	int nc, json[4096], nj = 0, k;
	uint8_t *copy, *out;
	cJSON *root;
	char *text;
	size_t n = 0;

	if (jm_next(&s) % 4 || !(copy = malloc(size ? size : 1)))
		return LLVMFuzzerMutate ? LLVMFuzzerMutate(data, size, max) : size;
	memcpy(copy, data, size);
	nc = fuzz_chunks(copy, size, c, 4096);
	for (int i = 0; i < nc; i++)
		if (jm_is_json(c[i].type))
			json[nj++] = i;
	k = nj ? json[jm_next(&s) % (uint32_t)nj] : -1;
	root = k >= 0 ? cJSON_ParseWithLength((const char *)c[k].p, c[k].len) : NULL;
	if (root && !jm_change(root, &s) && (text = cJSON_PrintUnformatted(root))) {
		out = malloc(max);
		if (out && (n = jm_rebuild(copy, size, c, nc, k, text, out, max)))
			memcpy(data, out, n);
		free(out);
		free(text);
	}
	cJSON_Delete(root);
	free(copy);
	if (n)
		return n;
	return LLVMFuzzerMutate ? LLVMFuzzerMutate(data, size, max) : size;
}

#endif
