// SPDX-License-Identifier: GPL-2.0-only
#include "symbols/symtab.h"

#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

struct fol_symtab {
	int first_global;	/* libdwfl searches [first_global, n) first, then the rest */
	struct fol_sym *sized;	/* by value */
	/* below[i]: the nearest symbol before sized[i] that ends past its start, or -1. A
	 * symbol holding an address is on this chain from the last one starting at or
	 * below it (any holder before sized[i] ends past sized[i]'s start). */
	ssize_t *below;
	size_t nsized;
	uint64_t *sizeless;	/* the starts of the symbols without a size, sorted */
	size_t nsizeless;
	/* The sizeless symbols libdwfl could take for some address (see labels()), by
	 * section and start. */
	struct label *labels;
	size_t nlabels;
};

/* A label is taken for addr only below next, the first start after its own among the
 * symbols searched before it: any of those at or below addr ends past the label. reach:
 * the largest next of its section's labels up to it. */
struct label {
	uint32_t shndx;
	uint64_t value, next, reach;
};

static int by_value(const void *x, const void *y)
{
	const struct fol_sym *a = x, *b = y;

	if (a->value != b->value)
		return a->value < b->value ? -1 : 1;
	return a->index - b->index;
}

static int by_section(const void *x, const void *y)
{
	const struct label *a = x, *b = y;

	if (a->shndx != b->shndx)
		return a->shndx < b->shndx ? -1 : 1;
	return a->value < b->value ? -1 : a->value > b->value;
}

static int by_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* A size past the address space's end (a hostile file) reaches to its end. */
static uint64_t end_of(const struct fol_sym *s)
{
	return s->value + s->size < s->value ? UINT64_MAX : s->value + s->size;
}

/* below[], with a stack of the symbols still open: one that ends at or before a start
 * ends before every later start too, and leaves the stack for good. */
static void set_below(struct fol_symtab *t)
{
	ssize_t *open = malloc(sizeof(*open) * (t->nsized + 1)), top = -1;

	for (size_t i = 0; i < t->nsized; i++) {
		while (open && top >= 0 && end_of(&t->sized[open[top]]) <= t->sized[i].value)
			top--;
		/* Out of memory: every symbol's chain is all before it. */
		t->below[i] = open ? (top >= 0 ? open[top] : -1) : (ssize_t)i - 1;
		if (open)
			open[++top] = (ssize_t)i;
	}
	free(open);
}

static int by_index(const void *x, const void *y)
{
	return ((const struct fol_sym *)x)->index - ((const struct fol_sym *)y)->index;
}

/* How many of the sorted a[0..n) are <= x. */
static size_t upto(const uint64_t *a, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A Fenwick tree of the largest end at or below a start (ranked), for label_bounds. */
struct ends {
	uint64_t *max;
	size_t n;
};

static void ends_put(struct ends *e, size_t rank, uint64_t end)
{
	for (size_t i = rank + 1; i <= e->n; i += i & -i)
		e->max[i] = e->max[i] > end ? e->max[i] : end;
}

static uint64_t ends_get(const struct ends *e, size_t rank)
{
	uint64_t m = 0;

	for (size_t i = rank + 1; i; i -= i & -i)
		m = e->max[i] > m ? e->max[i] : m;
	return m;
}

/* For each label (a sizeless symbol) of v (sorted by index), what bounds libdwfl's use
 * of it. Its search goes through the symbols from first_global on, then the rest, each
 * in table order, and takes a label only at or above the end of every symbol it has
 * passed at or below the address (counted here phase by phase: libdwfl may carry them
 * over, and then takes fewer labels, never more). So a label is never taken when a
 * symbol before it, starting at or below it, ends past it (next is then 0); and only
 * below the first start after its own of the symbols before it (next). */
static void label_bounds(const struct fol_sym *v, size_t n, int first_global, const uint64_t *starts,
			 size_t nstarts, uint64_t *next)
{
	struct ends e = { calloc(nstarts + 1, sizeof(uint64_t)), nstarts };
	/* The lowest start above a rank: a Fenwick tree over reversed ranks. */
	struct ends f = { calloc(nstarts + 1, sizeof(uint64_t)), nstarts };
	/* Each symbol's rank among the starts, found once. */
	size_t *ranks = malloc(sizeof(*ranks) * (n + 1));

	for (size_t i = 0; i < n; i++) {
		next[i] = UINT64_MAX;
		if (ranks)
			ranks[i] = upto(starts, nstarts, v[i].value) - 1;
	}
	for (int phase = 0; e.max && f.max && ranks && phase < 2; phase++) {
		memset(e.max, 0, sizeof(uint64_t) * (nstarts + 1));
		memset(f.max, 0, sizeof(uint64_t) * (nstarts + 1));
		for (size_t i = 0; i < n; i++) {
			size_t rank = ranks[i];

			if ((v[i].index >= first_global) != !phase)
				continue;
			if (!v[i].size && v[i].value < ends_get(&e, rank))
				next[i] = 0;
			else if (!v[i].size && rank + 1 < nstarts && ends_get(&f, nstarts - rank - 2))
				next[i] = ~ends_get(&f, nstarts - rank - 2);
			ends_put(&e, rank, end_of(&v[i]));
			/* Stored inverted: the tree keeps maxima, the lowest start is wanted. */
			ends_put(&f, nstarts - 1 - rank, ~v[i].value);
		}
	}
	free(e.max);
	free(f.max);
	free(ranks);
}

/* The labels libdwfl may take, by section and start, with their reach. */
static void set_labels(struct fol_symtab *t, const struct fol_sym *v, size_t n, const uint64_t *next)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (!v[i].size && next[i] > v[i].value)
			t->labels[m++] = (struct label){ v[i].shndx, v[i].value, next[i], 0 };
	qsort(t->labels, m, sizeof(*t->labels), by_section);
	for (size_t i = 0; i < m; i++) {
		int same = i && t->labels[i - 1].shndx == t->labels[i].shndx;
		uint64_t before = same ? t->labels[i - 1].reach : 0;

		t->labels[i].reach = before > t->labels[i].next ? before : t->labels[i].next;
	}
	t->nlabels = m;
}

static int labels(struct fol_symtab *t, const struct fol_sym *given, size_t n)
{
	struct fol_sym *v = malloc(sizeof(*v) * (n + 1));
	uint64_t *starts = malloc(sizeof(*starts) * (n + 1)), *next = malloc(sizeof(*next) * (n + 1));
	size_t ns = 0;

	if (!v || !starts || !next) {
		free(v);
		free(starts);
		free(next);
		return -1;
	}
	memcpy(v, given, sizeof(*v) * n);
	for (size_t i = 1; i < n; i++)
		if (v[i].index < v[i - 1].index) {
			qsort(v, n, sizeof(*v), by_index);
			break;
		}
	/* The distinct starts, sorted: the sized symbols' and the sizeless ones', each
	 * already sorted, merged. */
	for (size_t i = 0, j = 0; i < t->nsized || j < t->nsizeless;) {
		uint64_t x = j == t->nsizeless || (i < t->nsized && t->sized[i].value <= t->sizeless[j])
				     ? t->sized[i++].value
				     : t->sizeless[j++];

		if (!ns || starts[ns - 1] != x)
			starts[ns++] = x;
	}
	label_bounds(v, n, t->first_global, starts, ns, next);
	set_labels(t, v, n, next);
	free(v);
	free(starts);
	free(next);
	return 0;
}

struct fol_symtab *fol_symtab_from(const struct fol_sym *v, size_t n, int first_global)
{
	struct fol_symtab *t = calloc(1, sizeof(*t));

	if (!t || !(t->sized = malloc(sizeof(*t->sized) * (n + 1))) ||
	    !(t->below = malloc(sizeof(*t->below) * (n + 1))) ||
	    !(t->sizeless = malloc(sizeof(*t->sizeless) * (n + 1))) ||
	    !(t->labels = malloc(sizeof(*t->labels) * (n + 1)))) {
		fol_symtab_free(t);
		return NULL;
	}
	t->first_global = first_global;
	for (size_t i = 0; i < n; i++) {
		if (v[i].size)
			t->sized[t->nsized++] = v[i];
		else
			t->sizeless[t->nsizeless++] = v[i].value;
	}
	qsort(t->sized, t->nsized, sizeof(*t->sized), by_value);
	qsort(t->sizeless, t->nsizeless, sizeof(*t->sizeless), by_u64);
	set_below(t);
	/* Without a sizeless symbol there is no label to bound. */
	if (t->nsizeless && labels(t, v, n)) {
		fol_symtab_free(t);
		return NULL;
	}
	return t;
}

void fol_symtab_free(struct fol_symtab *t)
{
	if (!t)
		return;
	free(t->sized);
	free(t->below);
	free(t->sizeless);
	free(t->labels);
	free(t);
}

static size_t sized_upto(const struct fol_symtab *t, uint64_t x)
{
	size_t lo = 0, hi = t->nsized;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->sized[mid].value <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* a beats b in libdwfl's comparison whatever their order: a nearer start, else a
 * stronger binding, else (same start and binding) a smaller size. -1 when neither is
 * certain to win (one nearer, the other binding more strongly). */
static int dominates(const struct fol_sym *a, const struct fol_sym *b)
{
	if (a->value >= b->value && a->bind >= b->bind)
		return a->value > b->value || a->bind > b->bind || a->size < b->size ? 1 :
		       a->size == b->size ? 0 : -1;
	return -1;
}

/* A label of section shndx libdwfl may take for addr: one at or below it, below its
 * next. */
static int label_below(const struct fol_symtab *t, uint32_t shndx, uint64_t addr)
{
	size_t lo = 0, hi = t->nlabels;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct label *l = &t->labels[mid];

		if (l->shndx < shndx || (l->shndx == shndx && l->value <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && t->labels[lo - 1].shndx == shndx && t->labels[lo - 1].reach > addr;
}

int fol_symtab_find(const struct fol_symtab *t, uint64_t addr, uint32_t addr_shndx,
		    const struct fol_sym **sym)
{
	const struct fol_sym *best = NULL;
	size_t i = sized_upto(t, addr);
	size_t k = upto(t->sizeless, t->nsizeless, addr);
	int global = 0;

	if (k && t->sizeless[k - 1] == addr)
		return 0;
	/* Back along the chain from the last symbol starting at or below addr. */
	for (ssize_t j = (ssize_t)i - 1; j >= 0; j = t->below[j]) {
		const struct fol_sym *s = &t->sized[j];

		if (addr - s->value >= s->size)
			continue;
		global |= s->index >= t->first_global;
		if (!best) {
			best = s;
			continue;
		}
		switch (dominates(best, s)) {
		case 1:
			break;
		case 0:		/* equal in all: libdwfl takes the first of the table */
			if (s->index < best->index)
				best = s;
			else if (s->index == best->index)
				return 0;
			break;
		default:
			if (dominates(s, best) != 1)
				return 0;
			best = s;
		}
	}
	if (!best)
		return addr_shndx == FOL_SYMTAB_ANY_SECTION ? (k ? 0 : -1) :
		       label_below(t, addr_shndx, addr) ? 0 : -1;
	/* The winner is searched among the locals only when no global holds addr. */
	if (best->index < t->first_global && global)
		return 0;
	*sym = best;
	return 1;
}

/* A sized symbol of sized[0..i) holds addr. */
static int holder(const struct fol_symtab *t, size_t i, uint64_t addr)
{
	for (ssize_t j = (ssize_t)i - 1; j >= 0; j = t->below[j])
		if (addr - t->sized[j].value < t->sized[j].size)
			return 1;
	return 0;
}

uint64_t fol_symtab_stretch(const struct fol_symtab *t, uint64_t addr)
{
	size_t i = sized_upto(t, addr), k = upto(t->sizeless, t->nsizeless, addr);

	if ((i && (t->sized[i - 1].value == addr || holder(t, i, addr))) ||
	    (k && t->sizeless[k - 1] == addr))
		return UINT64_MAX;
	return (uint64_t)i + (uint64_t)k;
}
