// SPDX-License-Identifier: GPL-2.0-only
#include "symtab.h"

#include <stdlib.h>
#include <string.h>

struct fol_symtab {
	struct fol_sym *all;	/* as given: libdwfl's order is the table's */
	size_t nall;
	struct fol_sym *sized;	/* by value */
	uint64_t *reach;	/* reach[i]: the largest end of sized[0..i] */
	size_t nsized;
	uint64_t *sizeless;	/* the starts of the symbols without a size, sorted */
	size_t nsizeless;
	struct low *lows;	/* per section, its lowest sizeless start; by section */
	size_t nlows;
};

struct low {
	uint32_t shndx;
	uint64_t value;
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
	const struct low *a = x, *b = y;

	if (a->shndx != b->shndx)
		return a->shndx < b->shndx ? -1 : 1;
	return a->value < b->value ? -1 : a->value > b->value;
}

static int by_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

struct fol_symtab *fol_symtab_from(const struct fol_sym *v, size_t n)
{
	struct fol_symtab *t = calloc(1, sizeof(*t));

	if (!t || !(t->all = malloc(sizeof(*t->all) * (n + 1))) ||
	    !(t->sized = malloc(sizeof(*t->sized) * (n + 1))) ||
	    !(t->reach = malloc(sizeof(*t->reach) * (n + 1))) ||
	    !(t->sizeless = malloc(sizeof(*t->sizeless) * (n + 1))) ||
	    !(t->lows = malloc(sizeof(*t->lows) * (n + 1)))) {
		fol_symtab_free(t);
		return NULL;
	}
	memcpy(t->all, v, sizeof(*v) * n);
	t->nall = n;
	for (size_t i = 0; i < n; i++) {
		if (v[i].size) {
			t->sized[t->nsized++] = v[i];
		} else {
			t->lows[t->nsizeless] = (struct low){ v[i].shndx, v[i].value };
			t->sizeless[t->nsizeless++] = v[i].value;
		}
	}
	qsort(t->sized, t->nsized, sizeof(*t->sized), by_value);
	qsort(t->sizeless, t->nsizeless, sizeof(*t->sizeless), by_u64);
	/* The lowest start of each section: the first of its run once sorted. */
	qsort(t->lows, t->nsizeless, sizeof(*t->lows), by_section);
	for (size_t i = 0; i < t->nsizeless; i++)
		if (!t->nlows || t->lows[t->nlows - 1].shndx != t->lows[i].shndx)
			t->lows[t->nlows++] = t->lows[i];
	for (size_t i = 0; i < t->nsized; i++) {
		uint64_t end = t->sized[i].value + t->sized[i].size;

		/* A size past the address space's end (a hostile file) reaches to its end. */
		end = end < t->sized[i].value ? UINT64_MAX : end;
		t->reach[i] = i && t->reach[i - 1] > end ? t->reach[i - 1] : end;
	}
	return t;
}

void fol_symtab_free(struct fol_symtab *t)
{
	if (!t)
		return;
	free(t->all);
	free(t->sized);
	free(t->reach);
	free(t->sizeless);
	free(t->lows);
	free(t);
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

/* A sizeless symbol of section shndx starts at or below addr. */
static int label_below(const struct fol_symtab *t, uint32_t shndx, uint64_t addr)
{
	size_t lo = 0, hi = t->nlows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->lows[mid].shndx < shndx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nlows && t->lows[lo].shndx == shndx && t->lows[lo].value <= addr;
}

/* No sized symbol holds addr: does a sizeless one of its section count, as libdwfl's
 * search takes one (an assembly label: at or above the end of every symbol it has
 * passed at or below addr)? Its search goes through the global symbols, then the local
 * ones, each in table order; the ends passed are counted here phase by phase (libdwfl
 * may carry them over: it then takes fewer labels, never more), so "none" is certain. */
static int label_counts(const struct fol_symtab *t, uint64_t addr, uint32_t addr_shndx)
{
	for (int local = 0; local < 2; local++) {
		uint64_t passed = 0;

		for (size_t i = 0; i < t->nall; i++) {
			const struct fol_sym *s = &t->all[i];

			if (s->value > addr || (s->bind == 1) != local)
				continue;
			if (!s->size && s->shndx == addr_shndx && s->value >= passed)
				return 1;
			if (s->value + s->size > passed)
				passed = s->value + s->size;
		}
	}
	return 0;
}

int fol_symtab_find(const struct fol_symtab *t, uint64_t addr, uint32_t addr_shndx,
		    const struct fol_sym **sym)
{
	const struct fol_sym *best = NULL;
	size_t i = sized_upto(t, addr);
	size_t k = upto(t->sizeless, t->nsizeless, addr);

	if (k && t->sizeless[k - 1] == addr)
		return 0;
	/* Back from the last symbol starting at or below addr, while any before still
	 * reaches past it. */
	while (i-- > 0 && t->reach[i] > addr) {
		const struct fol_sym *s = &t->sized[i];

		if (addr - s->value >= s->size)
			continue;
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
		       !label_below(t, addr_shndx, addr) ? -1 : label_counts(t, addr, addr_shndx) ? 0 : -1;
	*sym = best;
	return 1;
}

uint64_t fol_symtab_stretch(const struct fol_symtab *t, uint64_t addr)
{
	size_t i = sized_upto(t, addr), k = upto(t->sizeless, t->nsizeless, addr);

	if ((i && (t->sized[i - 1].value == addr || t->reach[i - 1] > addr)) ||
	    (k && t->sizeless[k - 1] == addr))
		return UINT64_MAX;
	return (uint64_t)i + (uint64_t)k;
}
