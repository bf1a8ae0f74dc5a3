/* SPDX-License-Identifier: GPL-2.0-only */
/* Arrays that grow as they fill, their room doubled: the one way lib/ grows an array (as
 * git's ALLOC_GROW), so that the overflow check and the failure path are written once. */
#ifndef FOL_GROW_H
#define FOL_GROW_H

#include <errno.h>
#include <stddef.h>

/* v's new address with room for at least need elements of size bytes, its room *cap
 * elements, doubled from first (at least 1) until need fits; *cap updated. NULL out of
 * memory or when the size overflows, v and *cap then as they were. */
void *fol_grow_to(void *v, size_t *cap, size_t need, size_t size, size_t first);

/* v (an lvalue) with room for need elements, cap (a size_t lvalue) its room: 0, or
 * -ENOMEM with v and cap untouched. */
#define FOL_GROW(v, cap, need, first)                                                    \
	({                                                                               \
		int grow_ret_ = 0;                                                       \
		if ((need) > (cap)) {                                                    \
			void *grow_to_ = fol_grow_to((v), &(cap), (need), sizeof(*(v)),  \
						     (first));                           \
			if (grow_to_)                                                    \
				(v) = grow_to_;                                          \
			else                                                             \
				grow_ret_ = -ENOMEM;                                     \
		}                                                                        \
		grow_ret_;                                                               \
	})

#endif
