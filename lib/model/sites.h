/* SPDX-License-Identifier: GPL-2.0-only */
/* Where the faults come from: every fault the model accepts, by the code that took it
 * (the mapping its IP fell in, and the offset there) and the mapping of the address it
 * touched, per process, thread name, order and class. Names (mappings, thread names) are
 * interned; symbols are looked up later, once per site (symbols.h), not per fault. */
#ifndef FOL_SITES_H
#define FOL_SITES_H

#include <stddef.h>
#include <stdint.h>

/* A site's key and its figures. Ids name interned strings; -1: not known. */
struct fol_site {
	int pid;
	int comm;	/* the thread's name */
	int ip_map;	/* the mapping of the faulting IP: a file path, "[kernel]", "//anon" */
	uint64_t ip;	/* its offset in that file (as perf's map_ip), else the IP itself */
	int map;	/* the mapping of the faulting address, named as /proc/PID/maps does */
	int shared;	/* ... mapped MAP_SHARED */
	int order, cls;
	uint64_t faults, time_ns, max_ns;
};

struct fol_sites;

struct fol_sites *fol_sites_new(void);
void fol_sites_free(struct fol_sites *s);
/* The id of name (made on first use), or -ENOMEM. */
int fol_sites_intern(struct fol_sites *s, const char *name);
const char *fol_sites_str(const struct fol_sites *s, int id); /* "?" for -1 */
/* One fault of the site key (its figures ignored) that took ns (0: untimed). */
int fol_sites_add(struct fol_sites *s, const struct fol_site *key, uint64_t ns);
/* Every site, in no order. */
const struct fol_site *fol_sites_all(const struct fol_sites *s, size_t *n);

/* record -g: the user call stacks of the faults, innermost frame first, each frame the
 * mapping of its address and the offset there (as a site's IP); deeper frames dropped. */
#define FOL_STACK_MAX 48
struct fol_frame {
	int map;	/* -1: no mapping known (off is the address) */
	uint64_t off;
};

/* A stack is kept per site (its figures unused), so that a group of sites has its own. */
struct fol_stack {
	struct fol_site site;
	int n;
	struct fol_frame f[FOL_STACK_MAX];
	uint64_t faults, time_ns;
};

int fol_sites_add_stack(struct fol_sites *s, const struct fol_stack *key, uint64_t ns);
const struct fol_stack *fol_sites_stacks(const struct fol_sites *s, size_t *n);

#endif
