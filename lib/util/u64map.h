/* SPDX-License-Identifier: GPL-2.0-only */
/* Hash map from a u64 key to a fixed-size value stored inline: folios by
 * address, threads by tid, address spaces by pid. Open addressing with linear probing and
 * backward-shift deletion, so it needs no tombstones and stays fast under churn; the
 * hash is keyed per map, so that keys a recording chooses cannot all collide. */
#ifndef FOL_U64MAP_H
#define FOL_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct fol_u64map;

struct fol_u64map *fol_u64map_new(size_t value_size);
void fol_u64map_free(struct fol_u64map *m);
struct fol_u64map *fol_u64map_clone(const struct fol_u64map *m);
/* Copy on write: share returns m held once more (each holder frees it once); a holder
 * about to change it calls own first, which gives it a copy of its own while others hold
 * it too (0, or -1 on ENOMEM with *m unchanged). */
struct fol_u64map *fol_u64map_share(struct fol_u64map *m);
int fol_u64map_shared(const struct fol_u64map *m);
int fol_u64map_own(struct fol_u64map **m);
/* The value of key, or NULL. */
void *fol_u64map_get(const struct fol_u64map *m, uint64_t key);
/* The value of key, inserted zeroed when missing (*created set); NULL on ENOMEM. */
void *fol_u64map_put(struct fol_u64map *m, uint64_t key, int *created);
/* Removes key; its value is copied to out (when not NULL) first. 1 if it was there. */
int fol_u64map_del(struct fol_u64map *m, uint64_t key, void *out);
size_t fol_u64map_capacity(const struct fol_u64map *m);
/* Iterate: pos from 0; returns the next value and its key, or NULL at the end. The map
 * must not change while iterating. */
void *fol_u64map_next(const struct fol_u64map *m, size_t *pos, uint64_t *key);

#endif
