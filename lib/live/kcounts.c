// SPDX-License-Identifier: GPL-2.0-only
#include "live/kcounts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/bpf_record.h"
#include "sys/cgroup.h"
#include "util/clock.h"
#include "util/u64map.h"

/* The kernel's counts are scraped at least every 15 s; four pulls a second keep a scrape
 * a quarter of a second behind at most, for a few hundred keys read each time. */
#define PULL_EVERY_NS 250000000ull
/* How often removed cgroups are looked for: a file handle of each cgroup seen, 2 us
 * each here (name_to_handle_at), so some 130 us for 64. */
#define PRUNE_EVERY_NS 5000000000ull

_Static_assert(FOL_BPF_LAT_BUCKETS == FOL_LAT_BUCKETS, "the programs' latency buckets are the tally's");

struct fol_kcounts {
	struct fol_tally *tally;
	int by_cgroup;
	struct fol_u64map *seen;	/* cgroup << 8 | class << 4 | order -> struct seen */
	uint64_t nseen;
	uint64_t stat[FOL_BPF_K_NR];
	int found;			/* a pull found kernel counts */
	/* During a pruning pull: each cgroup id's verdict (1 removed, 2 there). */
	struct fol_u64map *alive;
	/* The collector's: when it last pulled and pruned, the root it prunes under ("" none
	 * found), -G's cgroup from that root ("/a/b") and whether it was found removed. */
	pthread_mutex_t *lock;
	uint64_t pulled_ns, pruned_ns;
	char root[1024];
	char *cgroup;
	int cgroup_gone;
};

struct seen {
	struct fol_bpf_reuse v;		/* the counts at the last pull */
	char cgroup[256];
};

int fol_kcounts_new(struct fol_kcounts **kc, const struct fol_kcounts_opts *o)
{
	struct fol_kcounts *k = calloc(1, sizeof(*k));
	const char *g = o->cgroup;

	while (g && *g == '/')
		g++;
	if (!k || !(k->seen = fol_u64map_new(sizeof(struct seen))) ||
	    (g && !(k->cgroup = malloc(strlen(g) + 2)))) {
		fol_kcounts_free(k);
		return -ENOMEM;
	}
	if (g)
		sprintf(k->cgroup, "/%s", g);
	k->tally = o->tally;
	k->by_cgroup = o->by_cgroup;
	k->lock = o->lock;
	k->pruned_ns = fol_mono_ns();
	if (k->by_cgroup && fol_cgroup_root(k->root, sizeof(k->root)))
		k->root[0] = 0; /* none: nothing is pruned */
	*kc = k;
	return 0;
}

void fol_kcounts_free(struct fol_kcounts *kc)
{
	if (!kc)
		return;
	fol_u64map_free(kc->seen);
	free(kc->cgroup);
	free(kc);
}

/* The model's class of the programs' (FOL_BPF_CLS_*), -1 none. */
static int model_class(uint32_t cls)
{
	static const int of[FOL_BPF_CLASSES] = {
		[FOL_BPF_CLS_REUSE] = FOL_C_WP_REUSE,
		[FOL_BPF_CLS_ALLOC] = FOL_C_ANON_ALLOC,
		[FOL_BPF_CLS_COPY] = FOL_C_WP_COPY,
		[FOL_BPF_CLS_SWAP] = FOL_C_SWAP_IN,
		[FOL_BPF_CLS_FILE] = FOL_C_FILE,
		[FOL_BPF_CLS_ZERO] = FOL_C_ANON_ZERO,
		[FOL_BPF_CLS_SPECIAL] = FOL_C_SPECIAL,
	};

	return cls < FOL_BPF_CLASSES ? of[cls] : -1;
}

/* During a pruning pull: whether the cgroup of id, seen at path, was removed since
 * (asked once a pull per id). "other": its path was not found when it was first seen. */
static int removed(struct fol_kcounts *kc, uint64_t id, const char *path)
{
	int created, *v = fol_u64map_put(kc->alive, id, &created);

	if (v && created)
		*v = !strcmp(path, "other") || (kc->root[0] && !fol_cgroup_alive(kc->root, path, id)) ? 1 : 2;
	return v && *v == 1;
}

static void grown(struct fol_tally_bulk *b, const struct fol_bpf_reuse *now, const struct fol_bpf_reuse *was)
{
	b->faults = now->faults - was->faults;
	b->episodes = now->episodes - was->episodes;
	b->timed = now->timed - was->timed;
	b->time_ns = now->time_ns - was->time_ns;
	for (int i = 0; i < FOL_LAT_BUCKETS; i++)
		b->lat[i] = now->lat[i] - was->lat[i];
}

static int pull_one(void *ctx, const struct fol_bpf_reuse_key *k, const struct fol_bpf_reuse *v)
{
	struct fol_kcounts *kc = ctx;
	uint64_t key = k->cgroup << 8 | (uint64_t)k->cls << 4 | k->order;
	struct fol_tally_bulk b = { 0 };
	struct seen *seen;
	int created, ret, cls = model_class(k->cls);

	if (k->order > FOL_BPF_MAX_ORDER || cls < 0)
		return 0;
	seen = fol_u64map_put(kc->seen, key, &created);
	if (!seen)
		return -ENOMEM;
	kc->nseen += created;
	if (created && kc->by_cgroup && fol_cgroup_path_of_id(k->cgroup, seen->cgroup, sizeof(seen->cgroup)))
		snprintf(seen->cgroup, sizeof(seen->cgroup), "other"); /* removed since */
	if (v->faults != seen->v.faults) {
		grown(&b, v, &seen->v);
		seen->v = *v;
		if ((ret = fol_tally_add(kc->tally, seen->cgroup, (int)k->order, cls, &b)))
			return ret;
	}
	if (!kc->alive || !kc->by_cgroup || !removed(kc, k->cgroup, seen->cgroup))
		return 0;
	kc->nseen -= fol_u64map_del(kc->seen, key, NULL);
	return FOL_BPF_FORGET;
}

/* What grew since the last pull into the tally, under the tally's lock; prune: a cgroup no
 * longer under the root is forgotten. 0, -ENOENT (no kernel counts in this recording), or
 * -ENOMEM. */
static int pull(struct fol_kcounts *kc, struct fol_recorder *r, int prune)
{
	int ret;

	kc->pulled_ns = fol_mono_ns();
	if (prune && !(kc->alive = fol_u64map_new(sizeof(int))))
		return -ENOMEM;
	ret = fol_recorder_reuse(r, pull_one, kc, kc->stat, FOL_BPF_K_NR);
	kc->found |= ret != -ENOENT;
	fol_u64map_free(kc->alive);
	kc->alive = NULL;
	return ret;
}

uint64_t fol_kcounts_keys(const struct fol_kcounts *kc)
{
	return kc->nseen;
}

const uint64_t *fol_kcounts_stat(const struct fol_kcounts *kc)
{
	return kc->found ? kc->stat : NULL;
}

/* 1 the first time -G's cgroup is found removed. */
static int cgroup_removed(struct fol_kcounts *kc)
{
	if (!kc->cgroup || !kc->root[0] || kc->cgroup_gone)
		return 0;
	kc->cgroup_gone = !fol_cgroup_alive(kc->root, kc->cgroup, 0);
	return kc->cgroup_gone;
}

int fol_kcounts_tick(struct fol_kcounts *kc, struct fol_recorder *r, int soon)
{
	uint64_t now = fol_mono_ns();
	int gone = 0;

	if (soon)
		kc->pulled_ns = 0;
	pthread_mutex_lock(kc->lock);
	if (kc->by_cgroup && now - kc->pruned_ns >= PRUNE_EVERY_NS) {
		kc->pruned_ns = now;
		gone = cgroup_removed(kc);
		if (r)
			pull(kc, r, 1);
		fol_tally_prune(kc->tally, now);
	}
	if (r && fol_mono_ns() - kc->pulled_ns >= PULL_EVERY_NS)
		pull(kc, r, 0);
	pthread_mutex_unlock(kc->lock);
	return gone;
}
