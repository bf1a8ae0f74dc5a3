// SPDX-License-Identifier: GPL-2.0-only
#include "report/report_sites.h"
#include "util/escape.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/sites.h"
#include "report/report.h"
#include "symbols/symbols.h"
#include "util/indexed.h"
#include "util/u64map.h"

/* What naming a site's code needs, for one grouping: the symbols, and the recorded
 * build-ids by the file's interned name (looked up once a name, not once a site). */
struct namer {
	const struct fol_report *r;
	struct fol_symbols_cache *sc;
	struct fol_u64map *bids;	/* by string id: struct bid */
};

struct bid {
	int n;
	uint8_t b[20];
};

static int namer_build_id(struct namer *nm, int id, uint8_t *b)
{
	struct bid *m = nm->bids ? fol_u64map_get(nm->bids, (uint64_t)(unsigned)id) : NULL;
	int created;

	if (!m) {
		int n = fol_recording_build_id(&nm->r->rec, fol_sites_str(nm->r->s.sites, id), b);

		m = nm->bids ? fol_u64map_put(nm->bids, (uint64_t)(unsigned)id, &created) : NULL;
		if (m) {
			m->n = n;
			memcpy(m->b, b, (size_t)n);
		}
		return n;
	}
	memcpy(b, m->b, (size_t)m->n);
	return m->n;
}

/* A site's value of each key. sym is the function without its offset: a function is one
 * group, as in perf report. */
struct parts {
	char order[16], cls[16], sym[256], src[128], map[300], pid[16];
	const char *dso, *comm;
};

static void site_sym(struct namer *nm, const struct fol_site *s, struct parts *p)
{
	const char *dso = fol_sites_str(nm->r->s.sites, s->ip_map);
	char *plus;

	if (s->ip_map < 0) {
		snprintf(p->sym, sizeof(p->sym), "0x%llx", (unsigned long long)s->ip);
		p->src[0] = '\0';
	} else {
		uint8_t bid[20];
		int n = namer_build_id(nm, s->ip_map, bid);
		int ret = fol_symbols_lookup(nm->sc, dso, n ? bid : NULL, n, s->ip, p->sym, sizeof(p->sym),
					     p->src, sizeof(p->src));

		if (!ret && (plus = strrchr(p->sym, '+')))
			*plus = '\0';
		else if (ret == -ESTALE)
			strncat(p->sym, " [not the recorded file]", sizeof(p->sym) - strlen(p->sym) - 1);
	}
}

/* The parts of the keys given (a bit each, by FOL_SORT_*): symbols (opening the files,
 * reading their DWARF) only for a grouping by them. */
static void site_parts(struct namer *nm, const struct fol_site *s, unsigned want, struct parts *p)
{
	const struct fol_report *r = nm->r;
	const char *map;

	if (want & 1u << FOL_SORT_ORDER)
		fol_order_size(s->order, r->page_size, p->order, sizeof(p->order));
	if (want & 1u << FOL_SORT_CLASS)
		snprintf(p->cls, sizeof(p->cls), "%s", fol_class_name((enum fol_class)s->cls));
	p->sym[0] = p->src[0] = '\0';
	if (want & 1u << FOL_SORT_SYM)
		site_sym(nm, s, p);
	p->dso = s->ip_map < 0 ? "[unknown]" : fol_sites_str(r->s.sites, s->ip_map);
	/* As /proc/PID/maps names them: perf's "//anon" is plain anonymous memory. */
	if (want & 1u << FOL_SORT_MAP) {
		size_t n;

		map = s->map < 0 ? "[unknown]" : fol_sites_str(r->s.sites, s->map);
		if (!strcmp(map, "//anon"))
			map = "[anon]";
		/* By hand: snprintf() of two strings, once a site, was 2% of a build's report. */
		n = strlen(map) < sizeof(p->map) - 1 ? strlen(map) : sizeof(p->map) - 1;
		memcpy(p->map, map, n);
		p->map[n] = '\0';
		if (s->shared)
			strncat(p->map, " (shared)", sizeof(p->map) - n - 1);
	}
	p->comm = fol_sites_str(r->s.sites, s->comm);
	if (want & 1u << FOL_SORT_PID)
		snprintf(p->pid, sizeof(p->pid), "%d", s->pid);
}

static const char *part_of(const struct parts *p, int key)
{
	switch (key) {
	case FOL_SORT_ORDER: return p->order;
	case FOL_SORT_CLASS: return p->cls;
	case FOL_SORT_SYM: return p->sym;
	case FOL_SORT_DSO: return p->dso;
	case FOL_SORT_MAP: return p->map;
	case FOL_SORT_COMM: return p->comm;
	default: return p->pid;
	}
}

static int group_cmp(const void *a, const void *b)
{
	const struct fol_group *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? 1 : -1;
	if (x->faults != y->faults)
		return x->faults < y->faults ? 1 : -1;
	/* Ties by name: the sites' own order follows the maps' keyed hashes, which differ
	 * from run to run. */
	return strcmp(x->key, y->key);
}

static int same_group(const void *x, const void *y)
{
	return !strcmp(((const struct fol_group *)x)->key, ((const struct fol_group *)y)->key);
}

/* What makes sites one group: the values of the keys, each ended by 0x1f, cut to fit
 * len (what did not fit is left out, as snprintf() leaves it). */
static void group_key(const struct parts *p, const int *keys, int nkeys, char *key, size_t len)
{
	size_t used = 0;

	for (int k = 0; k < nkeys && used < len; k++) {
		const char *v = part_of(p, keys[k]);
		size_t n = strlen(v), room = len - used - 1;

		memcpy(key + used, v, n < room ? n : room);
		if (n < room)
			key[used + n] = '\x1f';
		used += n + 1;
	}
	key[used < len ? used : len - 1] = '\0';
}

static unsigned wanted(const int *keys, int nkeys)
{
	unsigned want = 0;

	for (int k = 0; k < nkeys; k++)
		want |= 1u << keys[k];
	return want;
}

static int fill_group(struct fol_group *gr, const struct parts *p, const int *keys, int nkeys,
		      const struct fol_site *s)
{
	if (!gr->faults) {
		gr->order = s->order;
		for (int i = 0; i < nkeys; i++)
			if (!(gr->part[keys[i]] = strdup(part_of(p, keys[i]))))
				return -ENOMEM;
	}
	/* The source line of the site that takes most time stands for the group's. */
	if (!gr->src || s->time_ns > gr->src_ns) {
		free(gr->src);
		if (!(gr->src = strdup(p->src)))
			return -ENOMEM;
		gr->src_ns = s->time_ns;
	}
	gr->faults += s->faults;
	gr->time_ns += s->time_ns;
	if (s->max_ns > gr->max_ns)
		gr->max_ns = s->max_ns;
	return 0;
}

/* The report's symbols, or (a report not ended, as in the unit tests) a cache of this
 * call's own, which *own says to free. */
static struct fol_symbols_cache *symbols_of(const struct fol_report *r, int *own)
{
	*own = !r->symcache;
	return r->symcache ? r->symcache
			   : fol_symbols_new(r->ksyms, r->symfs, (int64_t)(r->rec.started_realtime_ns / 1e9));
}

int fol_report_group(const struct fol_report *r, const int *keys, int nkeys, struct fol_grouping *g)
{
	int own;
	struct namer nm = { r, symbols_of(r, &own), fol_u64map_new(sizeof(struct bid)) };
	struct fol_indexed groups;
	size_t n = 0;
	const struct fol_site *all = r->s.sites ? fol_sites_all(r->s.sites, &n) : NULL;
	int ret = fol_indexed_init(&groups, sizeof(struct fol_group)); /* cleared even when it fails */
	unsigned mask = wanted(keys, nkeys);

	if (!nm.sc)
		ret = -ENOMEM;
	memset(g, 0, sizeof(*g));
	memcpy(g->keys, keys, sizeof(int) * (size_t)nkeys);
	g->nkeys = nkeys;
	for (size_t i = 0; i < n && !ret; i++) {
		struct fol_group want = { 0 }, *gr;
		struct parts p;
		char key[1024];
		int created;

		site_parts(&nm, &all[i], mask, &p);
		group_key(&p, keys, nkeys, key, sizeof(key));
		want.key = key;
		gr = fol_indexed_get(&groups, fol_hash(FOL_HASH_INIT, key, strlen(key)), &want, same_group, &created);
		if (gr && created && !(gr->key = strdup(key))) {
			fol_indexed_unget(&groups);
			gr = NULL;
		}
		ret = gr ? fill_group(gr, &p, keys, nkeys, &all[i]) : -ENOMEM;
		g->faults += all[i].faults;
		g->time_ns += all[i].time_ns;
	}
	g->v = fol_indexed_take(&groups, &g->n);
	if (own)
		fol_symbols_free(nm.sc);
	fol_u64map_free(nm.bids);
	if (ret) {
		fol_grouping_free(g);
		return ret;
	}
	/* No sites, no array: qsort of NULL is undefined even for 0 (the reader fuzzer). */
	if (g->n)
		qsort(g->v, g->n, sizeof(*g->v), group_cmp);
	return 0;
}

void fol_grouping_free(struct fol_grouping *g)
{
	for (size_t i = 0; i < g->n; i++) {
		for (int k = 0; k < FOL_SORT_NR; k++)
			free(g->v[i].part[k]);
		free(g->v[i].src);
		free(g->v[i].key);
	}
	free(g->v);
	memset(g, 0, sizeof(*g));
}

/* A name in a folded line, in place: escaped as the text is (a newline would forge a
 * line), and no ';' (a frame's end) or space (the count's). */
static void folded_safe(char *name, size_t len)
{
	char buf[1024];
	const char *e = fol_escape(name, buf, sizeof(buf));

	if (e != name)
		snprintf(name, len, "%s", e);
	for (char *p = name; *p; p++)
		if (*p == ';' || *p == ' ')
			*p = '_';
}

/* A frame's name for a folded line: its function, or [file+0xoff]. */
static void frame_name(struct namer *nm, const struct fol_frame *fr, char *out, size_t len)
{
	char *plus;

	if (fr->map < 0) {
		snprintf(out, len, "[unknown]");
	} else {
		const char *path = fol_sites_str(nm->r->s.sites, fr->map);
		uint8_t bid[20];
		int n = namer_build_id(nm, fr->map, bid);

		if (!fol_symbols_lookup(nm->sc, path, n ? bid : NULL, n, fr->off, out, len, NULL, 0) &&
		    (plus = strrchr(out, '+')))
			*plus = '\0';
		else
			snprintf(out, len, "[%s+0x%llx]", strrchr(path, '/') ? strrchr(path, '/') + 1 : path,
				 (unsigned long long)fr->off);
	}
	folded_safe(out, len);
}

static int folded_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fol_folded *)a)->line, ((const struct fol_folded *)b)->line);
}

static int same_line(const void *x, const void *y)
{
	return !strcmp(((const struct fol_folded *)x)->line, ((const struct fol_folded *)y)->line);
}

/* A stack as a folded line: the thread's name, then its frames from the outermost. */
static void fold(struct namer *nm, const struct fol_stack *st, char *line, size_t len)
{
	char name[256];
	size_t used;

	snprintf(name, sizeof(name), "%s", fol_sites_str(nm->r->s.sites, st->site.comm));
	folded_safe(name, sizeof(name));
	used = (size_t)snprintf(line, len, "%s", name);
	/* The stack is innermost first; a flame graph reads callers first. */
	for (int k = st->n - 1; k >= 0 && used < len; k--) {
		frame_name(nm, &st->f[k], name, sizeof(name));
		used += (size_t)snprintf(line + used, len - used, ";%s", name);
	}
}

/* Is the stack's site one of group gi's (the same values of g's keys)? */
static int in_group(struct namer *nm, const struct fol_stack *st, const struct fol_grouping *g,
		    size_t gi)
{
	struct parts p;
	char key[1024];

	site_parts(nm, &st->site, wanted(g->keys, g->nkeys), &p);
	group_key(&p, g->keys, g->nkeys, key, sizeof(key));
	return !strcmp(key, g->v[gi].key);
}

static int add_line(struct fol_indexed *lines, const char *line, const struct fol_stack *st)
{
	struct fol_folded want = { .line = (char *)line }, *fl;
	int created;

	fl = fol_indexed_get(lines, fol_hash(FOL_HASH_INIT, line, strlen(line)), &want, same_line, &created);
	if (fl && created) {
		fl->faults = fl->time_ns = 0;
		if (!(fl->line = strdup(line))) {
			fol_indexed_unget(lines);
			fl = NULL;
		}
	}
	if (!fl)
		return -ENOMEM;
	fl->faults += st->faults;
	fl->time_ns += st->time_ns;
	return 0;
}

int fol_report_stacks(const struct fol_report *r, const struct fol_grouping *g, size_t gi,
		      struct fol_folded_set *out)
{
	size_t n = 0;
	const struct fol_stack *st = r->s.sites ? fol_sites_stacks(r->s.sites, &n) : NULL;
	struct namer nm = { r, NULL, NULL };
	struct fol_indexed lines;
	int ret, own;

	memset(out, 0, sizeof(*out));
	if (!n)
		return -ENOENT;
	if (g && gi >= g->n)
		return -EINVAL;
	ret = fol_indexed_init(&lines, sizeof(struct fol_folded)); /* cleared even when it fails */
	nm.sc = symbols_of(r, &own);
	nm.bids = fol_u64map_new(sizeof(struct bid));
	if (!nm.sc)
		ret = -ENOMEM;
	for (size_t i = 0; i < n && !ret; i++) {
		char line[FOL_STACK_MAX * 160 + 64];

		if (g && !in_group(&nm, &st[i], g, gi))
			continue;
		fold(&nm, &st[i], line, sizeof(line));
		ret = add_line(&lines, line, &st[i]);
	}
	if (own)
		fol_symbols_free(nm.sc);
	fol_u64map_free(nm.bids);
	out->v = fol_indexed_take(&lines, &out->n);
	if (ret) {
		fol_folded_free(out);
		return ret;
	}
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), folded_cmp);
	return 0;
}

void fol_folded_free(struct fol_folded_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].line);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

int fol_report_folded(const struct fol_report *r, int by_count, FILE *f)
{
	struct fol_folded_set set;
	int ret = fol_report_stacks(r, NULL, 0, &set);

	for (size_t i = 0; i < set.n; i++)
		fprintf(f, "%s %llu\n", set.v[i].line,
			(unsigned long long)(by_count ? set.v[i].faults : set.v[i].time_ns));
	fol_folded_free(&set);
	return ret;
}

int fol_render_folded(const struct fol_report *r, const struct fol_report_view *v, FILE *f)
{
	return fol_report_folded(r, v->by_count, f);
}
