// SPDX-License-Identifier: GPL-2.0-only
#include "util/u64map.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

struct fol_u64map {
	size_t vsize, slot, cap, n;
	/* cap slots of { u64 key; value }, key 0 = empty; then one more slot for the value
	 * of key 0 itself, in use when has_zero: a pid, tid or address of 0 in a hostile
	 * recording is a key like any other. */
	char *slots;
	int has_zero;
	int refs;	/* holders of a shared map (fol_u64map_share) */
	uint64_t seed;	/* the hash's key */
};

#define ZERO_VAL(m) VAL(m, (m)->cap)

#define KEY(m, i) (*(uint64_t *)((m)->slots + (i) * (m)->slot))
#define VAL(m, i) ((void *)((m)->slots + (i) * (m)->slot + 8))

/* Keys come from recordings: addresses and thread ids an attacker chooses. An unkeyed
 * mix is invertible, so keys that all land in one slot can be computed (100,000 thread
 * ids took 33 s against 2 s). Each map hashes with its own secret key: a random base
 * (getrandom, once per process) and a counter, put through the same mix. */
static uint64_t mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	k ^= k >> 33;
	return k;
}

static uint64_t new_seed(void)
{
	static uint64_t base, count;
	uint64_t b = __atomic_load_n(&base, __ATOMIC_RELAXED);

	if (!b) {
		/* Without entropy (a seccomp filter, an old kernel) the address of the stack
		 * and the time still differ from run to run. */
		if (getrandom(&b, sizeof(b), GRND_NONBLOCK) != sizeof(b))
			b = mix((uint64_t)(uintptr_t)&b ^ (uint64_t)time(NULL));
		b |= 1;
		__atomic_store_n(&base, b, __ATOMIC_RELAXED);
	}
	return mix(b + __atomic_fetch_add(&count, 1, __ATOMIC_RELAXED) * 0x9e3779b97f4a7c15ull);
}

static size_t home_of(const struct fol_u64map *m, uint64_t key)
{
	return (size_t)mix(key ^ m->seed) & (m->cap - 1);
}

struct fol_u64map *fol_u64map_new(size_t value_size)
{
	struct fol_u64map *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->vsize = value_size;
	m->refs = 1;
	m->seed = new_seed();
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
	if (!m || --m->refs > 0)
		return;
	free(m->slots);
	free(m);
}

struct fol_u64map *fol_u64map_share(struct fol_u64map *m)
{
	m->refs++;
	return m;
}

int fol_u64map_shared(const struct fol_u64map *m)
{
	return m->refs > 1;
}

int fol_u64map_own(struct fol_u64map **m)
{
	struct fol_u64map *c;

	if ((*m)->refs == 1)
		return 0;
	c = fol_u64map_clone(*m);
	if (!c)
		return -1;
	(*m)->refs--;
	*m = c;
	return 0;
}

struct fol_u64map *fol_u64map_clone(const struct fol_u64map *m)
{
	struct fol_u64map *c = malloc(sizeof(*c));

	if (!c)
		return NULL;
	*c = *m;
	c->refs = 1;
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
	size_t i = home_of(m, key);

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
		home = home_of(m, KEY(m, j));
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
