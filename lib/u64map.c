// SPDX-License-Identifier: GPL-2.0-only
#include "u64map.h"

#include <stdlib.h>
#include <string.h>

struct fol_u64map {
	size_t vsize, slot, cap, n;
	/* cap slots of { u64 key; value }, key 0 = empty; then one more slot for the value
	 * of key 0 itself, in use when has_zero: a pid, tid or address of 0 in a hostile
	 * recording is a key like any other. */
	char *slots;
	int has_zero;
};

#define ZERO_VAL(m) VAL(m, (m)->cap)

#define KEY(m, i) (*(uint64_t *)((m)->slots + (i) * (m)->slot))
#define VAL(m, i) ((void *)((m)->slots + (i) * (m)->slot + 8))

static size_t hash(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

struct fol_u64map *fol_u64map_new(size_t value_size)
{
	struct fol_u64map *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->vsize = value_size;
	m->slot = 8 + ((value_size + 7) & ~(size_t)7);
	m->cap = 64;
	m->slots = calloc(m->cap + 1, m->slot);
	if (!m->slots) {
		free(m);
		return NULL;
	}
	return m;
}

void fol_u64map_free(struct fol_u64map *m)
{
	if (!m)
		return;
	free(m->slots);
	free(m);
}

struct fol_u64map *fol_u64map_clone(const struct fol_u64map *m)
{
	struct fol_u64map *c = malloc(sizeof(*c));

	if (!c)
		return NULL;
	*c = *m;
	c->slots = malloc((m->cap + 1) * m->slot);
	if (!c->slots) {
		free(c);
		return NULL;
	}
	memcpy(c->slots, m->slots, (m->cap + 1) * m->slot);
	return c;
}

static size_t find(const struct fol_u64map *m, uint64_t key)
{
	size_t i = hash(key, m->cap);

	while (KEY(m, i) && KEY(m, i) != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

void *fol_u64map_get(const struct fol_u64map *m, uint64_t key)
{
	size_t i;

	if (!key)
		return m->has_zero ? ZERO_VAL(m) : NULL;
	i = find(m, key);

	return KEY(m, i) ? VAL(m, i) : NULL;
}

static int grow(struct fol_u64map *m)
{
	struct fol_u64map big = *m;

	big.cap = m->cap * 2;
	big.slots = calloc(big.cap + 1, big.slot);
	if (!big.slots)
		return -1;
	memcpy(ZERO_VAL(&big), ZERO_VAL(m), m->vsize);
	for (size_t i = 0; i < m->cap; i++)
		if (KEY(m, i))
			memcpy(big.slots + find(&big, KEY(m, i)) * big.slot, m->slots + i * m->slot,
			       m->slot);
	free(m->slots);
	*m = big;
	return 0;
}

void *fol_u64map_put(struct fol_u64map *m, uint64_t key, int *created)
{
	size_t i;

	if (created)
		*created = 0;
	if (!key) {
		if (!m->has_zero) {
			m->has_zero = 1;
			memset(ZERO_VAL(m), 0, m->vsize);
			m->n++;
			if (created)
				*created = 1;
		}
		return ZERO_VAL(m);
	}
	i = find(m, key);
	if (KEY(m, i))
		return VAL(m, i);
	if ((m->n + 1) * 4 > m->cap * 3) {
		if (grow(m))
			return NULL;
		i = find(m, key);
	}
	KEY(m, i) = key;
	memset(VAL(m, i), 0, m->vsize);
	m->n++;
	if (created)
		*created = 1;
	return VAL(m, i);
}

int fol_u64map_del(struct fol_u64map *m, uint64_t key, void *out)
{
	size_t i, j;

	if (!key) {
		if (!m->has_zero)
			return 0;
		if (out)
			memcpy(out, ZERO_VAL(m), m->vsize);
		m->has_zero = 0;
		m->n--;
		return 1;
	}
	i = find(m, key);
	if (!KEY(m, i))
		return 0;
	if (out)
		memcpy(out, VAL(m, i), m->vsize);
	KEY(m, i) = 0;
	m->n--;
	/* Backward shift: move later entries of the probe run into the hole when their home
	 * slot is not between the hole and themselves. */
	j = i;
	for (;;) {
		size_t home;

		j = (j + 1) & (m->cap - 1);
		if (!KEY(m, j))
			break;
		home = hash(KEY(m, j), m->cap);
		if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) {
			memcpy(m->slots + i * m->slot, m->slots + j * m->slot, m->slot);
			KEY(m, j) = 0;
			i = j;
		}
	}
	return 1;
}

size_t fol_u64map_capacity(const struct fol_u64map *m)
{
	return m->cap;
}

void *fol_u64map_next(const struct fol_u64map *m, size_t *pos, uint64_t *key)
{
	while (*pos < m->cap) {
		size_t i = (*pos)++;

		if (KEY(m, i)) {
			if (key)
				*key = KEY(m, i);
			return VAL(m, i);
		}
	}
	if (*pos == m->cap) {
		(*pos)++;
		if (m->has_zero) {
			if (key)
				*key = 0;
			return ZERO_VAL(m);
		}
	}
	return NULL;
}
