// SPDX-License-Identifier: GPL-2.0-only
#include "util/hist.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Values below 16 get exact buckets; above, bucket = (magnitude, top 4 bits below the
 * leading one). */
static int bucket_of(uint64_t v)
{
	int mag, i;

	if (v < FOL_HIST_SUB)
		return (int)v;
	mag = 63 - __builtin_clzll(v); /* >= 4 */
	i = (mag - FOL_HIST_SUB_BITS + 1) * (int)FOL_HIST_SUB +
	    (int)((v >> (mag - FOL_HIST_SUB_BITS)) & (FOL_HIST_SUB - 1));
	return i < FOL_HIST_BUCKETS ? i : FOL_HIST_BUCKETS - 1;
}

void fol_hist_bucket_range(int i, uint64_t *lo, uint64_t *hi)
{
	int mag;
	uint64_t sub;

	if (i < (int)FOL_HIST_SUB) {
		*lo = *hi = (uint64_t)i;
		return;
	}
	mag = i / (int)FOL_HIST_SUB + FOL_HIST_SUB_BITS - 1;
	sub = (uint64_t)(i % (int)FOL_HIST_SUB);
	*lo = (1ull << mag) | (sub << (mag - FOL_HIST_SUB_BITS));
	*hi = *lo + (1ull << (mag - FOL_HIST_SUB_BITS)) - 1;
}

static int have_buckets(struct fol_hist *h)
{
	if (!h->b && !(h->b = calloc(FOL_HIST_BUCKETS, sizeof(*h->b))))
		return -ENOMEM;
	return 0;
}

void fol_hist_free(struct fol_hist *h)
{
	free(h->b);
	h->b = NULL;
}

int fol_hist_add(struct fol_hist *h, uint64_t v)
{
	if (have_buckets(h))
		return -ENOMEM;
	if (!h->count || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->sum += v;
	h->b[bucket_of(v)]++;
	return 0;
}

int fol_hist_merge(struct fol_hist *into, const struct fol_hist *from)
{
	if (!from->count || !from->b)
		return 0;
	if (have_buckets(into))
		return -ENOMEM;
	if (!into->count || from->min < into->min)
		into->min = from->min;
	if (from->max > into->max)
		into->max = from->max;
	into->count += from->count;
	into->sum += from->sum;
	for (int i = 0; i < FOL_HIST_BUCKETS; i++)
		into->b[i] += from->b[i];
	return 0;
}

uint64_t fol_hist_quantile(const struct fol_hist *h, double q)
{
	uint64_t rank, seen = 0, lo, hi;

	if (!h->count || !h->b)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	/* The smallest value with at least q of the values at or below it. */
	rank = (uint64_t)(q * (double)h->count + 0.999999999);
	if (rank < 1)
		rank = 1;
	for (int i = 0; i < FOL_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			fol_hist_bucket_range(i, &lo, &hi);
			if (hi > h->max)
				hi = h->max;
			if (hi < h->min)
				hi = h->min;
			return hi;
		}
	}
	return h->max;
}

uint64_t fol_hist_mean(const struct fol_hist *h)
{
	return h->count ? (h->sum + h->count / 2) / h->count : 0;
}
