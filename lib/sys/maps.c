// SPDX-License-Identifier: GPL-2.0-only
#include "sys/maps.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "util/escape.h"
#include "util/grow.h"

/* /proc/PID/pagemap (Documentation/admin-guide/mm/pagemap.rst) */
#define PM_SWAP (1ull << 62)
/* /proc/kpageflags (include/uapi/linux/kernel-page-flags.h) */
#define KPF_ANON (1ull << 12)
#define KPF_COMPOUND_HEAD (1ull << 15)
#define KPF_COMPOUND_TAIL (1ull << 16)
#define KPF_ZERO_PAGE (1ull << 24)

#define MAX_FOLIO_PAGES (1u << FOL_MAX_ORDER)
/* pagemap is read this many entries at a time: a window that always holds the largest
 * folio ahead of the current page. */
#define WINDOW (4 * MAX_FOLIO_PAGES)

static uint64_t kpf_get(struct fol_kpf *k, uint64_t pfn)
{
	ssize_t got;

	if (pfn < k->base || pfn >= k->base + k->n) {
		k->base = pfn & ~((uint64_t)k->block - 1);
		got = pread(k->fd, k->v, k->block * sizeof(k->v[0]), (off_t)(k->base * 8));
		k->n = got > 0 ? (uint64_t)got / 8 : 0;
		if (pfn >= k->base + k->n)
			return 0;
	}
	return k->v[pfn - k->base];
}

/* The order of the folio headed by pfn: its tail pages follow it. */
static int head_order(struct fol_kpf *k, uint64_t head)
{
	unsigned n = 1;
	int order = 0;

	while (n < MAX_FOLIO_PAGES && (kpf_get(k, head + n) & KPF_COMPOUND_TAIL))
		n++;
	while ((2u << order) <= n)
		order++;
	return order;
}

/* The head of the large folio whose tail page pfn is. */
static uint64_t find_head(struct fol_kpf *k, uint64_t pfn)
{
	for (unsigned back = 1; back < MAX_FOLIO_PAGES && back <= pfn; back++)
		if (kpf_get(k, pfn - back) & KPF_COMPOUND_HEAD)
			return pfn - back;
	return pfn;
}

int fol_kpf_open(struct fol_kpf *k, const char *root)
{
	char path[128];

	memset(k, 0, sizeof(*k));
	k->block = FOL_KPF_BLOCK;
	snprintf(path, sizeof(path), "%s/proc/kpageflags", root);
	k->fd = open(path, O_RDONLY | O_CLOEXEC);
	return k->fd < 0 ? (errno == EACCES ? -EPERM : -errno) : 0;
}

void fol_kpf_close(struct fol_kpf *k)
{
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
}

uint64_t fol_kpf_folio(struct fol_kpf *k, uint64_t pfn, int *order)
{
	uint64_t flags = kpf_get(k, pfn), head;

	head = flags & KPF_COMPOUND_TAIL ? find_head(k, pfn) : pfn;
	*order = flags & (KPF_COMPOUND_HEAD | KPF_COMPOUND_TAIL) ? head_order(k, head) : 0;
	return head;
}

/* pagemap entries of one VMA, read a window at a time. */
struct pm {
	int fd;
	const volatile sig_atomic_t *signals; /* fol_maps_read's, and its value at the start */
	sig_atomic_t seen;
	uint64_t first, count;	/* the VMA's first page index, its pages */
	uint64_t base, n;	/* the window: entries [base, base + n) of the VMA */
	uint64_t *v;
};

static int interrupted(const struct pm *p)
{
	return p->signals && *p->signals != p->seen;
}

static int pm_at(struct pm *p, uint64_t i, uint64_t *e)
{
	if (i >= p->count)
		return 0;
	if (i < p->base || i >= p->base + p->n) {
		uint64_t want = p->count - i < WINDOW ? p->count - i : WINDOW;
		ssize_t got;

		if (interrupted(p))
			return -EINTR;
		got = pread(p->fd, p->v, want * 8, (off_t)((p->first + i) * 8));

		if (got < 0)
			return -errno;
		p->base = i;
		p->n = (uint64_t)got / 8;
		/* Nothing where the VMA was: its process exited meanwhile (its pagemap ends). */
		if (!p->n)
			return -ESRCH;
	}
	*e = p->v[i - p->base];
	return 1;
}

static int add_folio(struct fol_maps *m, const struct fol_maps_folio *f)
{
	if (FOL_GROW(m->folios, m->folios_cap, m->nfolios + 1, 256))
		return -ENOMEM;
	m->folios[m->nfolios++] = *f;
	return 0;
}

static void account(struct fol_maps_sum *s, const struct fol_maps_folio *f, unsigned page)
{
	s->folios[f->order]++;
	s->bytes[f->order] += (uint64_t)f->mapped * page;
	s->partial[f->order] += f->mapped < (1u << f->order);
	s->unaligned[f->order] += f->order > 0 && !f->aligned;
}

/* Pages [i, end) of a VMA: its anonymous pages grouped into folios, in address order. A
 * folio is counted once per run of its pages mapped in place, as thpmaps does. */
static int scan_range(struct fol_maps *m, struct fol_maps_vma *v, struct pm *p, struct fol_kpf *k,
		      int want_folios, uint64_t i, uint64_t end)
{
	uint64_t page = m->page_size, e;
	int r = 0;

	while (i < end && (r = pm_at(p, i, &e)) == 1) {
		struct fol_maps_folio f;
		uint64_t pfn = e & FOL_PM_PFN_MASK, flags, head;

		if (!(e & FOL_PM_PRESENT)) {
			v->sum.swapped_bytes += e & PM_SWAP ? page : 0;
			i++;
			continue;
		}
		if (!pfn)
			return -EPERM; /* PFNs hidden: not CAP_SYS_ADMIN */
		flags = kpf_get(k, pfn);
		if (!(flags & KPF_ANON)) {
			v->sum.zero_bytes += flags & KPF_ZERO_PAGE ? page : 0;
			i++;
			continue;
		}
		head = fol_kpf_folio(k, pfn, &f.order);
		f.pfn = head;
		f.va = v->start + i * page - (pfn - head) * page;
		f.aligned = !(f.va & ((page << f.order) - 1));
		f.mapped = 0;
		/* The run of this folio's pages mapped in place from here. */
		while (pfn + f.mapped < head + (1u << f.order) &&
		       pm_at(p, i + f.mapped, &e) == 1 && (e & FOL_PM_PRESENT) &&
		       (e & FOL_PM_PFN_MASK) == pfn + f.mapped)
			f.mapped++;
		i += f.mapped;
		account(&v->sum, &f, m->page_size);
		if (want_folios && (r = add_folio(m, &f)))
			return r;
	}
	return r < 0 ? r : 0;
}

/* PAGEMAP_SCAN (Linux 6.7, include/uapi/linux/fs.h), declared here: Debian 12's kernel
 * headers predate it. It lists the ranges of a VMA that hold present or swapped pages. */
#define SCAN_PRESENT (1 << 3)
#define SCAN_SWAPPED (1 << 4)
struct scan_region {
	uint64_t start, end, categories;
};
struct scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inv_mask, category_mask, category_anyof_mask, return_mask;
};
#define PAGEMAP_SCAN_IOCTL _IOWR('f', 16, struct scan_arg)

/* One VMA, read only where it holds pages: a reservation of terabytes with a few pages
 * used took half a minute page by page (and SIGINT waited). Kernels without
 * PAGEMAP_SCAN are read page by page still. */
static int scan_vma(struct fol_maps *m, struct fol_maps_vma *v, struct pm *p, struct fol_kpf *k,
		    int want_folios)
{
	struct scan_region reg[64];
	struct scan_arg a = {
		.size = sizeof(a), .start = v->start, .end = v->end, .vec = (uintptr_t)reg,
		.vec_len = 64, .category_anyof_mask = SCAN_PRESENT | SCAN_SWAPPED,
		.return_mask = SCAN_PRESENT | SCAN_SWAPPED,
	};
	uint64_t page = m->page_size;
	int r = 0;

	p->first = v->start / page;
	p->count = (v->end - v->start) / page;
	p->base = p->n = 0;
	while (!r && a.start < v->end) {
		long n;

		if (interrupted(p))
			return -EINTR;
		n = ioctl(p->fd, PAGEMAP_SCAN_IOCTL, &a);

		if (n < 0)
			return a.start == v->start ? scan_range(m, v, p, k, want_folios, 0, p->count)
						   : -errno;
		for (long i = 0; i < n && !r; i++)
			r = scan_range(m, v, p, k, want_folios, (reg[i].start - v->start) / page,
				       (reg[i].end - v->start) / page);
		if (a.walk_end <= a.start)
			break;
		a.start = a.walk_end;
	}
	return r;
}

static int vma_start_cmp(const void *a, const void *b)
{
	const struct fol_maps_vma *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* AnonHugePages of each VMA from smaps: the PMD-mapped part. */
static void read_smaps(struct fol_maps *m, const char *root)
{
	char path[128], line[512];
	struct fol_maps_vma *cur = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/%d/smaps", root, m->pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b, kb;

		if (sscanf(line, "%llx-%llx ", &a, &b) == 2 && strchr(line, ' ') &&
		    strchr(line, '-') < strchr(line, ' ')) {
			struct fol_maps_vma key = { .start = a };

			/* maps lists the VMAs in address order, so vmas is sorted: a process
			 * of 65,530 mappings searched them all for each (4*10^9 steps). */
			cur = bsearch(&key, m->vmas, (size_t)m->nvmas, sizeof(*m->vmas), vma_start_cmp);
		} else if (cur && sscanf(line, "AnonHugePages: %llu kB", &kb) == 1) {
			cur->sum.pmd_bytes = kb << 10;
		}
	}
	fclose(f);
}

static int read_vmas(struct fol_maps *m, const char *root)
{
	char path[128], line[4096];
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/%d/maps", root, m->pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b;
		char perms[5], name[4096] = "";
		struct fol_maps_vma *v;

		if (sscanf(line, "%llx-%llx %4s %*x %*x:%*x %*u %4095[^\n]", &a, &b, perms, name) < 3)
			continue;
		/* Anonymous folios live in private mappings, file-backed ones included (a
		 * written page of a private file mapping is an anonymous copy). */
		if (perms[3] != 'p' || !strcmp(name, "[vsyscall]") || !strcmp(name, "[vvar]") ||
		    !strcmp(name, "[vdso]") || b <= a)
			continue;
		if (FOL_GROW(m->vmas, cap, (size_t)m->nvmas + 1, 64)) {
			fclose(f);
			return -ENOMEM;
		}
		v = &m->vmas[m->nvmas++];
		memset(v, 0, sizeof(*v));
		v->start = a;
		v->end = b;
		memcpy(v->perms, perms, sizeof(v->perms));
		snprintf(v->name, sizeof(v->name), "%s", name);
	}
	fclose(f);
	return 0;
}

static void add_sum(struct fol_maps_sum *to, const struct fol_maps_sum *s)
{
	for (int o = 0; o <= FOL_MAX_ORDER; o++) {
		to->folios[o] += s->folios[o];
		to->bytes[o] += s->bytes[o];
		to->partial[o] += s->partial[o];
		to->unaligned[o] += s->unaligned[o];
	}
	to->pmd_bytes += s->pmd_bytes;
	to->swapped_bytes += s->swapped_bytes;
	to->zero_bytes += s->zero_bytes;
}

int fol_maps_pmd_order(const char *root, unsigned page_size)
{
	char path[128], buf[32];
	unsigned long long pages = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", root);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0) {
		buf[n] = '\0';
		pages = strtoull(buf, NULL, 10) / page_size;
	}
	if (pages < 2 || (pages & (pages - 1)) || pages > (1ull << FOL_MAX_ORDER))
		return -1;
	return __builtin_ctzll(pages);
}

int fol_pid_is_kernel_thread(const char *root, pid_t pid)
{
	char path[4200], buf[1024], *p;
	unsigned long flags = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/%d/stat", root, (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	/* After the comm: state, ppid, pgrp, session, tty_nr, tpgid, flags. */
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags);
	fclose(f);
	return (flags & 0x00200000) != 0;
}

int fol_maps_read(pid_t pid, const char *root, int want_folios,
		  const volatile sig_atomic_t *signals, struct fol_maps **out)
{
	struct fol_maps *m = calloc(1, sizeof(*m));
	struct fol_kpf k = { .fd = -1 };
	struct pm p = { .fd = -1, .signals = signals, .seen = signals ? *signals : 0 };
	char path[128];
	int ret;

	if (!m)
		return -ENOMEM;
	m->pid = pid;
	if (fol_pid_is_kernel_thread(root, pid)) {
		free(m);
		return -EINVAL;
	}
	m->page_size = (unsigned)sysconf(_SC_PAGESIZE);
	m->pmd_order = fol_maps_pmd_order(root, m->page_size);
	ret = read_vmas(m, root);
	if (ret)
		goto fail;
	snprintf(path, sizeof(path), "%s/proc/%d/pagemap", root, pid);
	p.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (p.fd < 0) {
		ret = errno == EACCES ? -EPERM : -errno;
		goto fail;
	}
	ret = fol_kpf_open(&k, root);
	p.v = malloc(WINDOW * sizeof(*p.v));
	if (ret || !p.v) {
		ret = ret ?: -ENOMEM;
		goto fail;
	}
	for (int i = 0; i < m->nvmas && !ret; i++)
		ret = scan_vma(m, &m->vmas[i], &p, &k, want_folios);
	if (ret)
		goto fail;
	read_smaps(m, root);
	for (int i = 0; i < m->nvmas; i++)
		add_sum(&m->total, &m->vmas[i].sum);
	close(p.fd);
	fol_kpf_close(&k);
	free(p.v);
	*out = m;
	return 0;
fail:
	if (p.fd >= 0)
		close(p.fd);
	fol_kpf_close(&k);
	free(p.v);
	fol_maps_free(m);
	return ret;
}

void fol_maps_free(struct fol_maps *m)
{
	if (!m)
		return;
	free(m->vmas);
	free(m->folios);
	free(m);
}

static uint64_t anon_bytes(const struct fol_maps_sum *s)
{
	uint64_t b = 0;

	for (int o = 0; o <= FOL_MAX_ORDER; o++)
		b += s->bytes[o];
	return b;
}

/* PMD-mapped folios: smaps' AnonHugePages counts whole PMD mappings. */
static uint64_t pmd_folios(const struct fol_maps *m, const struct fol_maps_sum *s)
{
	uint64_t n = m->pmd_order > 0 ? s->pmd_bytes / ((uint64_t)m->page_size << m->pmd_order) : 0;

	return m->pmd_order > 0 && n > s->folios[m->pmd_order] ? s->folios[m->pmd_order] : n;
}

static void sum_text(const struct fol_maps *m, const struct fol_maps_sum *s, FILE *f)
{
	uint64_t all = anon_bytes(s);
	char sz[16];

	for (int o = 0; o <= FOL_MAX_ORDER; o++) {
		if (!s->folios[o])
			continue;
		fprintf(f, "  %6s  %9" PRIu64 " folios %12" PRIu64 " kB %5.1f%%", fol_order_size(o, m->page_size, sz, sizeof(sz)),
			s->folios[o], s->bytes[o] >> 10, all ? 100.0 * (double)s->bytes[o] / (double)all : 0);
		if (o == m->pmd_order)
			fprintf(f, "  %" PRIu64 " PMD-mapped, %" PRIu64 " PTE-mapped", pmd_folios(m, s),
				s->folios[o] - pmd_folios(m, s));
		if (s->partial[o])
			fprintf(f, "  %" PRIu64 " partially mapped", s->partial[o]);
		if (s->unaligned[o])
			fprintf(f, "  %" PRIu64 " not naturally aligned", s->unaligned[o]);
		fputc('\n', f);
	}
	if (s->swapped_bytes)
		fprintf(f, "  %6s  %29" PRIu64 " kB\n", "swap", s->swapped_bytes >> 10);
	if (s->zero_bytes)
		fprintf(f, "  %6s  %29" PRIu64 " kB (the zero page)\n", "zero", s->zero_bytes >> 10);
}

void fol_maps_text(const struct fol_maps *m, int all_vmas, FILE *f)
{
	char esc[256];

	if (all_vmas)
		for (int i = 0; i < m->nvmas; i++) {
			const struct fol_maps_vma *v = &m->vmas[i];

			if (!anon_bytes(&v->sum) && !v->sum.swapped_bytes)
				continue;
			fprintf(f, "%012" PRIx64 "-%012" PRIx64 " %s %s\n", v->start, v->end, v->perms,
				fol_escape(v->name, esc, sizeof(esc)));
			sum_text(m, &v->sum, f);
		}
	fprintf(f, "%sanonymous memory of pid %d: %" PRIu64 " kB\n", all_vmas ? "\n" : "", m->pid,
		anon_bytes(&m->total) >> 10);
	sum_text(m, &m->total, f);
}

static cJSON *sum_json(const struct fol_maps *m, const struct fol_maps_sum *s)
{
	cJSON *j = cJSON_CreateObject(), *orders = cJSON_AddArrayToObject(j, "orders");

	for (int o = 0; o <= FOL_MAX_ORDER; o++) {
		cJSON *e;

		if (!s->folios[o])
			continue;
		e = cJSON_CreateObject();
		cJSON_AddNumberToObject(e, "order", o);
		cJSON_AddNumberToObject(e, "size_bytes", (double)((uint64_t)m->page_size << o));
		cJSON_AddNumberToObject(e, "folios", (double)s->folios[o]);
		cJSON_AddNumberToObject(e, "bytes", (double)s->bytes[o]);
		cJSON_AddNumberToObject(e, "partially_mapped", (double)s->partial[o]);
		cJSON_AddNumberToObject(e, "unaligned", (double)s->unaligned[o]);
		cJSON_AddItemToArray(orders, e);
	}
	cJSON_AddNumberToObject(j, "anon_bytes", (double)anon_bytes(s));
	cJSON_AddNumberToObject(j, "pmd_mapped_bytes", (double)s->pmd_bytes);
	cJSON_AddNumberToObject(j, "pmd_mapped_folios", (double)pmd_folios(m, s));
	cJSON_AddNumberToObject(j, "swapped_bytes", (double)s->swapped_bytes);
	cJSON_AddNumberToObject(j, "zero_page_bytes", (double)s->zero_bytes);
	return j;
}

cJSON *fol_maps_json(const struct fol_maps *m)
{
	cJSON *j = cJSON_CreateObject(), *vmas;
	char hex[32], esc[256];

	cJSON_AddStringToObject(j, "schema", "foliostat/maps/v1");
	cJSON_AddNumberToObject(j, "pid", m->pid);
	cJSON_AddNumberToObject(j, "page_size", m->page_size);
	cJSON_AddNumberToObject(j, "pmd_order", m->pmd_order);
	cJSON_AddItemToObject(j, "total", sum_json(m, &m->total));
	vmas = cJSON_AddArrayToObject(j, "vmas");
	for (int i = 0; i < m->nvmas; i++) {
		const struct fol_maps_vma *v = &m->vmas[i];
		cJSON *e;

		if (!anon_bytes(&v->sum) && !v->sum.swapped_bytes)
			continue;
		e = sum_json(m, &v->sum);
		snprintf(hex, sizeof(hex), "0x%" PRIx64, v->start);
		cJSON_AddStringToObject(e, "start", hex);
		snprintf(hex, sizeof(hex), "0x%" PRIx64, v->end);
		cJSON_AddStringToObject(e, "end", hex);
		cJSON_AddStringToObject(e, "perms", v->perms);
		cJSON_AddStringToObject(e, "name", fol_escape(v->name, esc, sizeof(esc)));
		cJSON_AddItemToArray(vmas, e);
	}
	return j;
}

cJSON *fol_maps_seed_json(const struct fol_maps *m, uint64_t *unaligned)
{
	cJSON *runs = cJSON_CreateArray(), *run = NULL;
	uint64_t next = 0, n = 0;
	int order = -1;
	char hex[32];

	*unaligned = 0;
	for (size_t i = 0; runs && i <= m->nfolios; i++) {
		const struct fol_maps_folio *f = i < m->nfolios ? &m->folios[i] : NULL;

		if (f && !f->aligned) {
			(*unaligned)++;
			continue;
		}
		if (f && run && f->order == order && f->va == next) {
			n++;
			next += (uint64_t)m->page_size << order;
			continue;
		}
		if (run)
			cJSON_AddNumberToObject(run, "n", (double)n);
		if (!f)
			break;
		run = cJSON_CreateObject();
		snprintf(hex, sizeof(hex), "0x%" PRIx64, f->va);
		cJSON_AddStringToObject(run, "start", hex);
		cJSON_AddNumberToObject(run, "order", f->order);
		cJSON_AddItemToArray(runs, run);
		order = f->order;
		n = 1;
		next = f->va + ((uint64_t)m->page_size << order);
	}
	return runs;
}
