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
#ifdef FOL_U64MAP_MOVES
	unsigned changes; /* puts that inserted and dels, for next()'s check */
#endif
};

#define MIN_CAP 64
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
	m->cap = MIN_CAP;
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

static int resize(struct fol_u64map *m, size_t cap)
{
	struct fol_u64map to = *m;

	to.cap = cap;
	to.slots = calloc(to.cap + 1, to.slot);
	if (!to.slots)
		return -1;
	memcpy(ZERO_VAL(&to), ZERO_VAL(m), m->vsize);
	for (size_t i = 0; i < m->cap; i++)
		if (KEY(m, i))
			memcpy(to.slots + find(&to, KEY(m, i)) * to.slot, m->slots + i * m->slot,
			       m->slot);
	free(m->slots);
	*m = to;
	return 0;
}

#ifdef FOL_U64MAP_MOVES
/* Sanitized builds: every put that inserts and every del moves the whole map (a map of
 * more than 64 slots every cap/64-th time, to stay linear), so that a pointer a caller
 * keeps across either, which a growth or a backward shift would leave pointing at another
 * entry now and then, is a use after free AddressSanitizer reports every time. A change
 * of a map another holds too (fol_u64map_own not called) would be theirs as well: it
 * aborts, as does a change while iterating (next() below). */
static void moves(struct fol_u64map *m)
{
	static size_t ops;

	if (m->refs > 1)
		abort();
	m->changes++;
	if (m->cap <= 64 || __atomic_add_fetch(&ops, 1, __ATOMIC_RELAXED) % (m->cap / 64) == 0)
		resize(m, m->cap);
}

/* An iteration's position carries the map's changes when it began in its top 16 bits:
 * a change since, which a backward shift makes skip or repeat an entry, aborts. */
#define POS_BITS 48
static size_t slot_of(const struct fol_u64map *m, size_t *pos)
{
	size_t tag = ((size_t)(m->changes & 0x7fff) + 1) << POS_BITS;

	if (!*pos)
		*pos = tag;
	else if ((*pos & ~(((size_t)1 << POS_BITS) - 1)) != tag)
		abort();
	return *pos & (((size_t)1 << POS_BITS) - 1);
}

static void slot_set(size_t *pos, size_t slot)
{
	*pos = (*pos & ~(((size_t)1 << POS_BITS) - 1)) | slot;
}
#else
static void moves(struct fol_u64map *m)
{
	(void)m;
}

static size_t slot_of(const struct fol_u64map *m, size_t *pos)
{
	(void)m;
	return *pos;
}

static void slot_set(size_t *pos, size_t slot)
{
	*pos = slot;
}
#endif

/* The capacity for one more key: doubled past 3/4 full; halved while under 1/8 full, so
 * that a map that once held a peak (serve's cgroups and processes of an hour ago) gives
 * the memory back, and the loads between grow and shrink keep either from repeating.
 * Only put resizes: del moves only its own probe run. */
static size_t cap_for_one_more(const struct fol_u64map *m)
{
	size_t cap = m->cap;

	if ((m->n + 1) * 4 > cap * 3)
		return cap * 2;
	while (cap > MIN_CAP && (m->n + 1) * 8 < cap)
		cap /= 2;
	return cap;
}

void *fol_u64map_put(struct fol_u64map *m, uint64_t key, int *created)
{
	size_t i, cap;
	const char *slots;

	if (created)
		*created = 0;
	if (!key) {
		if (!m->has_zero) {
			moves(m);
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
	slots = m->slots;
	moves(m);
	cap = cap_for_one_more(m);
	/* Without the memory to shrink, the map stays as large as it is. */
	if (cap != m->cap && resize(m, cap) && cap > m->cap)
		return NULL;
	if (m->slots != slots) /* moved: probe again, only then (an insert per fault) */
		i = find(m, key);
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
		moves(m);
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
	moves(m);
	return 1;
}

size_t fol_u64map_capacity(const struct fol_u64map *m)
{
	return m->cap;
}

void *fol_u64map_next(const struct fol_u64map *m, size_t *pos, uint64_t *key)
{
	size_t i = slot_of(m, pos);

	for (; i < m->cap; i++) {
		if (KEY(m, i)) {
			slot_set(pos, i + 1);
			if (key)
				*key = KEY(m, i);
			return VAL(m, i);
		}
	}
	slot_set(pos, m->cap + 1);
	if (i == m->cap && m->has_zero) {
		if (key)
			*key = 0;
		return ZERO_VAL(m);
	}
	return NULL;
}
