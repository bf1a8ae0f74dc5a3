/* SPDX-License-Identifier: GPL-2.0-only */
/* A growable array of fixed-size elements, found by a 64-bit hash of what identifies them
 * (the sites of the faults, their stacks, interned names, report groups): lookups through
 * a u64map of hash -> index + 1, a clash of two elements on one hash resolved by the
 * caller's equality and moved to the next hash value. */
#ifndef FOL_INDEXED_H
#define FOL_INDEXED_H

#include <stddef.h>
#include <stdint.h>

struct fol_u64map;

struct fol_indexed {
	void *v;		/* the elements */
	size_t n, cap, size;
	struct fol_u64map *index;
	uint64_t last;		/* the hash of the last element appended, for unget */
};

int fol_indexed_init(struct fol_indexed *a, size_t size); /* 0 or -ENOMEM */
void fol_indexed_free(struct fol_indexed *a);
/* The element equal to key (same(element, key)), or a copy of key appended (*created
 * set; key is a whole element): a pointer to it, valid until the next append. NULL on ENOMEM. */
void *fol_indexed_get(struct fol_indexed *a, uint64_t hash, const void *key,
		      int (*same)(const void *elem, const void *key), int *created);
/* The element equal to key, or NULL: nothing appended. */
void *fol_indexed_find(const struct fol_indexed *a, uint64_t hash, const void *key,
		       int (*same)(const void *elem, const void *key));
/* Equality of elements that are strings (char *): for arrays of names. */
int fol_indexed_same_str(const void *elem, const void *key);
/* The elements alone (the caller frees them), their count in *n; the index is freed and
 * a is empty. */
void *fol_indexed_take(struct fol_indexed *a, size_t *n);
/* Take back the element just appended (the caller could not complete it). */
void fol_indexed_unget(struct fol_indexed *a);
#define FOL_INDEXED_AT(a, type, i) (&((type *)(a)->v)[i])

/* A hash of n bytes, from h (FOL_HASH_INIT to start): the elements' hashes. Not kept
 * anywhere, only for finding elements: the index's map mixes it with its own key. */
#define FOL_HASH_INIT 0xcbf29ce484222325ull
uint64_t fol_hash(uint64_t h, const void *p, size_t n);

#endif
