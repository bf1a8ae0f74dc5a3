// SPDX-License-Identifier: GPL-2.0-only
#include "sites.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "u64map.h"

/* Sites live in an array (reported in bulk); a hash of the key finds them. The hash map
 * holds key hash -> index + 1, and a clash of two keys on one hash moves the newcomer to
 * the next hash value: the key in the array decides. */
struct fol_sites {
	struct fol_site *v;
	size_t n, cap;
	struct fol_u64map *index;
	char **names;
	int nnames, cnames;
	struct fol_u64map *name_index; /* hash of a name -> id + 1, the same way */
	struct fol_stack *stacks;
	size_t nstacks, cstacks;
	struct fol_u64map *stack_index;
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t key_hash(const struct fol_site *k)
{
	uint64_t h = 0xcbf29ce484222325ull;

	h = fnv(h, &k->pid, sizeof(k->pid));
	h = fnv(h, &k->comm, sizeof(k->comm));
	h = fnv(h, &k->ip_map, sizeof(k->ip_map));
	h = fnv(h, &k->ip, sizeof(k->ip));
	h = fnv(h, &k->map, sizeof(k->map));
	h = fnv(h, &k->shared, sizeof(k->shared));
	h = fnv(h, &k->order, sizeof(k->order));
	h = fnv(h, &k->cls, sizeof(k->cls));
	return h ? h : 1;
}

static int same_key(const struct fol_site *a, const struct fol_site *b)
{
	return a->pid == b->pid && a->comm == b->comm && a->ip_map == b->ip_map &&
	       a->ip == b->ip && a->map == b->map && a->shared == b->shared &&
	       a->order == b->order && a->cls == b->cls;
}

struct fol_sites *fol_sites_new(void)
{
	struct fol_sites *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->index = fol_u64map_new(sizeof(size_t));
	s->name_index = fol_u64map_new(sizeof(int));
	s->stack_index = fol_u64map_new(sizeof(size_t));
	if (!s->index || !s->name_index || !s->stack_index) {
		fol_sites_free(s);
		return NULL;
	}
	return s;
}

void fol_sites_free(struct fol_sites *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->nnames; i++)
		free(s->names[i]);
	free(s->names);
	free(s->v);
	free(s->stacks);
	fol_u64map_free(s->stack_index);
	fol_u64map_free(s->index);
	fol_u64map_free(s->name_index);
	free(s);
}

int fol_sites_intern(struct fol_sites *s, const char *name)
{
	uint64_t h = fnv(0xcbf29ce484222325ull, name, strlen(name));
	int *slot;

	for (;; h++) {
		int created;

		h = h ? h : 1;
		slot = fol_u64map_put(s->name_index, h, &created);
		if (!slot)
			return -ENOMEM;
		if (created)
			break;
		if (!strcmp(s->names[*slot - 1], name))
			return *slot - 1;
	}
	if (s->nnames == s->cnames) {
		int cap = s->cnames ? s->cnames * 2 : 64;
		char **g = realloc(s->names, sizeof(*g) * (size_t)cap);

		if (!g) {
			fol_u64map_del(s->name_index, h, NULL);
			return -ENOMEM;
		}
		s->names = g;
		s->cnames = cap;
	}
	s->names[s->nnames] = strdup(name);
	if (!s->names[s->nnames]) {
		fol_u64map_del(s->name_index, h, NULL);
		return -ENOMEM;
	}
	*slot = ++s->nnames;
	return s->nnames - 1;
}

const char *fol_sites_str(const struct fol_sites *s, int id)
{
	return id >= 0 && id < s->nnames ? s->names[id] : "?";
}

int fol_sites_add(struct fol_sites *s, const struct fol_site *key, uint64_t ns)
{
	struct fol_site *site;
	size_t *slot;

	uint64_t h;

	for (h = key_hash(key);; h = h + 1 ? h + 1 : 1) {
		int created;

		slot = fol_u64map_put(s->index, h, &created);
		if (!slot)
			return -ENOMEM;
		if (created)
			break;
		if (same_key(&s->v[*slot - 1], key)) {
			site = &s->v[*slot - 1];
			goto count;
		}
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct fol_site *g = realloc(s->v, sizeof(*g) * cap);

		if (!g) {
			fol_u64map_del(s->index, h, NULL);
			return -ENOMEM;
		}
		s->v = g;
		s->cap = cap;
	}
	site = &s->v[s->n++];
	*site = *key;
	site->faults = site->time_ns = site->max_ns = 0;
	*slot = s->n;
count:
	site->faults++;
	site->time_ns += ns;
	if (ns > site->max_ns)
		site->max_ns = ns;
	return 0;
}

const struct fol_site *fol_sites_all(const struct fol_sites *s, size_t *n)
{
	*n = s->n;
	return s->v;
}

static uint64_t stack_hash(const struct fol_stack *k)
{
	uint64_t h = fnv(0xcbf29ce484222325ull, &k->comm, sizeof(k->comm));

	h = fnv(h, &k->n, sizeof(k->n));
	for (int i = 0; i < k->n; i++) {
		h = fnv(h, &k->f[i].map, sizeof(k->f[i].map));
		h = fnv(h, &k->f[i].off, sizeof(k->f[i].off));
	}
	return h ? h : 1;
}

static int same_stack(const struct fol_stack *a, const struct fol_stack *b)
{
	if (a->comm != b->comm || a->n != b->n)
		return 0;
	for (int i = 0; i < a->n; i++)
		if (a->f[i].map != b->f[i].map || a->f[i].off != b->f[i].off)
			return 0;
	return 1;
}

int fol_sites_add_stack(struct fol_sites *s, const struct fol_stack *key, uint64_t ns)
{
	struct fol_stack *st;
	size_t *slot;
	uint64_t h;

	if (key->n < 0 || key->n > FOL_STACK_MAX)
		return -EINVAL;
	for (h = stack_hash(key);; h = h + 1 ? h + 1 : 1) {
		int created;

		slot = fol_u64map_put(s->stack_index, h, &created);
		if (!slot)
			return -ENOMEM;
		if (created)
			break;
		if (same_stack(&s->stacks[*slot - 1], key)) {
			st = &s->stacks[*slot - 1];
			goto count;
		}
	}
	if (s->nstacks == s->cstacks) {
		size_t cap = s->cstacks ? s->cstacks * 2 : 64;
		struct fol_stack *g = realloc(s->stacks, sizeof(*g) * cap);

		if (!g) {
			fol_u64map_del(s->stack_index, h, NULL);
			return -ENOMEM;
		}
		s->stacks = g;
		s->cstacks = cap;
	}
	st = &s->stacks[s->nstacks++];
	*st = *key;
	st->faults = st->time_ns = 0;
	*slot = s->nstacks;
count:
	st->faults++;
	st->time_ns += ns;
	return 0;
}

const struct fol_stack *fol_sites_stacks(const struct fol_sites *s, size_t *n)
{
	*n = s->nstacks;
	return s->stacks;
}
