// SPDX-License-Identifier: GPL-2.0-only
#include "util/indexed.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/u64map.h"
#include "util/grow.h"

int fol_indexed_init(struct fol_indexed *a, size_t size)
{
	memset(a, 0, sizeof(*a));
	a->size = size;
	a->index = fol_u64map_new(sizeof(size_t));
	return a->index ? 0 : -ENOMEM;
}

void fol_indexed_free(struct fol_indexed *a)
{
	free(a->v);
	fol_u64map_free(a->index);
	memset(a, 0, sizeof(*a));
}

void *fol_indexed_get(struct fol_indexed *a, uint64_t h, const void *key,
		      int (*same)(const void *elem, const void *key), int *created)
{
	size_t *slot;
	char *el;

	for (;; h++) {
		h = h ? h : 1;
		slot = fol_u64map_put(a->index, h, created);
		if (!slot)
			return NULL;
		if (*created)
			break;
		el = (char *)a->v + (*slot - 1) * a->size;
		if (same(el, key))
			return el;
	}
	if (a->n == a->cap) {
		void *g = fol_grow_to(a->v, &a->cap, a->n + 1, a->size, 64);

		if (!g) {
			fol_u64map_del(a->index, h, NULL);
			return NULL;
		}
		a->v = g;
	}
	el = (char *)a->v + a->n * a->size;
	memcpy(el, key, a->size);
	*slot = ++a->n;
	a->last = h;
	return el;
}

void *fol_indexed_find(const struct fol_indexed *a, uint64_t h, const void *key,
		       int (*same)(const void *elem, const void *key))
{
	for (;; h++) {
		const size_t *slot;
		char *el;

		h = h ? h : 1;
		slot = a->index ? fol_u64map_get(a->index, h) : NULL;
		if (!slot)
			return NULL;
		el = (char *)a->v + (*slot - 1) * a->size;
		if (same(el, key))
			return el;
	}
}

void fol_indexed_unget(struct fol_indexed *a)
{
	if (!a->n)
		return;
	fol_u64map_del(a->index, a->last, NULL);
	a->n--;
}

/* FNV-1a's step, eight bytes at a time (a byte at a time, a build's report hashed each
 * fault's site and every site's group key for 5% of its time), the high bits folded down
 * after each word so that the next one's low bits meet them. */
uint64_t fol_hash(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (; n >= 8; n -= 8, b += 8) {
		uint64_t w;

		memcpy(&w, b, sizeof(w));
		h = (h ^ w) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	for (; n; n--, b++)
		h = (h ^ *b) * 0x100000001b3ull;
	return h;
}

int fol_indexed_same_str(const void *elem, const void *key)
{
	return !strcmp(*(char *const *)elem, *(const char *const *)key);
}

void *fol_indexed_take(struct fol_indexed *a, size_t *n)
{
	void *v = a->v;

	*n = a->n;
	a->v = NULL;
	fol_indexed_free(a);
	return v;
}
