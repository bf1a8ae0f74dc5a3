// SPDX-License-Identifier: GPL-2.0-only
#include "model/sites.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/indexed.h"

/* Sites, stacks and names live in arrays (reported in bulk), found by a hash of their
 * key (indexed.h). */
struct fol_sites {
	struct fol_indexed sites;  /* struct fol_site */
	size_t last_site;	   /* the last site added + 1: faults come in runs from one */
	struct fol_indexed stacks; /* struct fol_stack */
	struct fol_indexed names;  /* char *: the id is the index */
};

/* The key's fields packed into words, hashed a word at a time (once a fault). */
static uint64_t site_hash(const struct fol_site *k)
{
	const uint64_t w[4] = {
		(uint64_t)(uint32_t)k->pid << 32 | (uint32_t)k->comm,
		(uint64_t)(uint32_t)k->ip_map << 32 | (uint32_t)k->map,
		k->ip,
		(uint64_t)(uint32_t)k->order << 32 | ((uint32_t)k->cls << 1 ^ (uint32_t)k->shared),
	};

	return fol_hash(FOL_HASH_INIT, w, sizeof(w));
}

static int same_site(const void *x, const void *y)
{
	const struct fol_site *a = x, *b = y;

	return a->pid == b->pid && a->comm == b->comm && a->ip_map == b->ip_map &&
	       a->ip == b->ip && a->map == b->map && a->shared == b->shared &&
	       a->order == b->order && a->cls == b->cls;
}

static uint64_t stack_hash(const struct fol_stack *k)
{
	uint64_t h = site_hash(&k->site);

	h = fol_hash(h, &k->n, sizeof(k->n));
	for (int i = 0; i < k->n; i++) {
		const uint64_t w[2] = { (uint64_t)(uint32_t)k->f[i].map, k->f[i].off };

		h = fol_hash(h, w, sizeof(w));
	}
	return h;
}

static int same_stack(const void *x, const void *y)
{
	const struct fol_stack *a = x, *b = y;

	if (!same_site(&a->site, &b->site) || a->n != b->n)
		return 0;
	for (int i = 0; i < a->n; i++)
		if (a->f[i].map != b->f[i].map || a->f[i].off != b->f[i].off)
			return 0;
	return 1;
}

struct fol_sites *fol_sites_new(void)
{
	struct fol_sites *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	if (fol_indexed_init(&s->sites, sizeof(struct fol_site)) ||
	    fol_indexed_init(&s->stacks, sizeof(struct fol_stack)) ||
	    fol_indexed_init(&s->names, sizeof(char *))) {
		fol_sites_free(s);
		return NULL;
	}
	return s;
}

void fol_sites_free(struct fol_sites *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->names.n; i++)
		free(*FOL_INDEXED_AT(&s->names, char *, i));
	fol_indexed_free(&s->names);
	fol_indexed_free(&s->sites);
	fol_indexed_free(&s->stacks);
	free(s);
}

int fol_sites_intern(struct fol_sites *s, const char *name)
{
	int created;
	char **el = fol_indexed_get(&s->names, fol_hash(FOL_HASH_INIT, name, strlen(name)), &name, fol_indexed_same_str,
				    &created);

	if (!el)
		return -ENOMEM;
	if (created && !(*el = strdup(name))) {
		fol_indexed_unget(&s->names);
		return -ENOMEM;
	}
	return (int)(el - (char **)s->names.v);
}

const char *fol_sites_str(const struct fol_sites *s, int id)
{
	return id >= 0 && (size_t)id < s->names.n ? *FOL_INDEXED_AT(&s->names, char *, id) : "?";
}

int fol_sites_add(struct fol_sites *s, const struct fol_site *key, uint64_t ns)
{
	int created = 0;
	struct fol_site *site = s->last_site ? FOL_INDEXED_AT(&s->sites, struct fol_site, s->last_site - 1)
					     : NULL;

	if (!site || !same_site(site, key))
		site = fol_indexed_get(&s->sites, site_hash(key), key, same_site, &created);
	if (!site)
		return -ENOMEM;
	s->last_site = (size_t)(site - (struct fol_site *)s->sites.v) + 1;
	if (created)
		site->faults = site->time_ns = site->max_ns = 0;
	site->faults++;
	site->time_ns += ns;
	if (ns > site->max_ns)
		site->max_ns = ns;
	return 0;
}

const struct fol_site *fol_sites_all(const struct fol_sites *s, size_t *n)
{
	*n = s->sites.n;
	return s->sites.v;
}

int fol_sites_add_stack(struct fol_sites *s, const struct fol_stack *key, uint64_t ns)
{
	int created;
	struct fol_stack *st;

	if (key->n < 0 || key->n > FOL_STACK_MAX)
		return -EINVAL;
	st = fol_indexed_get(&s->stacks, stack_hash(key), key, same_stack, &created);
	if (!st)
		return -ENOMEM;
	if (created)
		st->faults = st->time_ns = 0;
	st->faults++;
	st->time_ns += ns;
	return 0;
}

const struct fol_stack *fol_sites_stacks(const struct fol_sites *s, size_t *n)
{
	*n = s->stacks.n;
	return s->stacks.v;
}
