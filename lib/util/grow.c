// SPDX-License-Identifier: GPL-2.0-only
#include "util/grow.h"

#include <stdint.h>
#include <stdlib.h>

void *fol_grow_to(void *v, size_t *cap, size_t need, size_t size, size_t first)
{
	size_t n = *cap ? *cap : (first ? first : 1);
	void *g;

	while (n < need) {
		if (n > SIZE_MAX / 2)
			return NULL;
		n *= 2;
	}
	if (size && n > SIZE_MAX / size)
		return NULL;
	g = realloc(v, n * size);
	if (g)
		*cap = n;
	return g;
}
