// SPDX-License-Identifier: GPL-2.0-only
#include "symbols/ksyms.h"

#include "util/cache.h"
#include "util/indexed.h"
#include "util/grow.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The chunk: magic, the text's length (u64, little-endian like the file's other binary
 * fields), then the text raw-deflated (libdeflate). The text is kallsyms' own lines. */
#define MAGIC "FKS1"
#define HDR 16
#define NAME_MAX_LEN 255

struct ksym {
	uint64_t addr;
	uint32_t name; /* offset into names */
	uint32_t zero; /* (written to the cache as it is) */
};

struct fol_ksyms {
	int refs;
	int loaded;
	char *path;		/* a kallsyms file, read at the first lookup */
	unsigned char *chunk;	/* or a chunk's payload */
	size_t chunk_len;
	struct ksym *v;
	size_t n;
	char *names;
	size_t names_len;
	void *map;		/* v and names are a kept table's mapping (cache.h) */
	size_t map_len;
};

/* A chunk's table as the user's cache keeps it: this header, v, names. The chunk's hash
 * and length name the file and are checked again. A recording's kallsyms differs from the
 * last one's by the BPF programs loaded since: only the tables of the few recordings
 * reported last are kept (5 MB each). */
#define KEPT_TABLES 4
/* A table is ~5 MB (120,000 symbols); the kept ones take 64 MB at most together. */
#define KEPT_BYTES (64ull << 20)
#define KEPT_MAGIC "FKSYMS01"
struct kept {
	char magic[8];
	uint64_t n, names_len, chunk_hash, chunk_len;
};

/* Notes are 4-byte aligned: namesz, descsz, type, name, desc. */
static int note_build_id(const unsigned char *p, size_t len, char *hex, size_t hexlen)
{
	size_t off = 0;

	while (off + 12 <= len) {
		uint32_t nsz, dsz, type;
		size_t name, desc;

		memcpy(&nsz, p + off, 4);
		memcpy(&dsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		name = off + 12;
		desc = name + (((size_t)nsz + 3) & ~(size_t)3);
		if (desc > len || dsz > len - desc)
			return -ENOENT;
		if (type == 3 /* NT_GNU_BUILD_ID */ && nsz == 4 && !memcmp(p + name, "GNU", 4) &&
		    dsz > 0 && dsz <= 64 && 2 * dsz < hexlen) {
			for (uint32_t i = 0; i < dsz; i++)
				snprintf(hex + 2 * i, 3, "%02x", p[desc + i]);
			return (int)dsz;
		}
		off = desc + (((size_t)dsz + 3) & ~(size_t)3);
	}
	return -ENOENT;
}

int fol_kernel_build_id(const char *notes, char *hex, size_t len)
{
	unsigned char buf[4096];
	int fd = open(notes, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -ENOENT;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n > 0 ? note_build_id(buf, (size_t)n, hex, len) : -ENOENT;
}

/* One kallsyms line (s to its end, the newline or the text's end): its address and name
 * when it is a text symbol (t or T) at a non-zero address (kptr_restrict shows zeros).
 * Parsed by hand: sscanf() took a tenth of a small report's time reading kallsyms; the
 * name's end is found by memchr(), a kallsyms text being 120,000 lines. */
static int text_symbol(const char *s, const char *end, uint64_t *addr, const char **name,
		       size_t *namelen)
{
	uint64_t a = 0;
	const char *p = s, *tab, *space;
	int digits = 0;

	for (; p < end && digits < 17; p++, digits++) {
		unsigned v = (unsigned char)*p - (unsigned)'0';

		if (v > 9) {
			v = ((unsigned char)*p | 0x20u) - (unsigned)'a';
			if (v > 5)
				break;
			v += 10;
		}
		a = a << 4 | v;
	}
	if (!digits || digits > 16 || !a || end - p < 4 || p[0] != ' ' || (p[1] | 0x20) != 't' ||
	    p[2] != ' ')
		return 0;
	p += 3;
	*name = p;
	tab = memchr(p, '\t', (size_t)(end - p));
	space = memchr(p, ' ', (size_t)((tab ? tab : end) - p));
	*namelen = (size_t)((space ? space : tab ? tab : end) - p);
	*addr = a;
	return *namelen > 0 && *namelen <= NAME_MAX_LEN;
}

/* The end of the line at p: its newline, or end for the last one without. */
static char *line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return (char *)(nl ? nl : end);
}

/* A regular file only (/proc/kallsyms is one): opened without blocking and checked
 * before anything is read, so that a FIFO or a device named by --kallsyms, or put in
 * its place after report checked it, is refused here, where it is read. */
static FILE *open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	FILE *f;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "r"))) {
		close(fd);
		return NULL;
	}
	return f;
}

static char *read_file(const char *path, size_t max, size_t *len)
{
	FILE *f = open_regular(path);
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap);

	while (f && buf) {
		size_t got;

		if (n == cap && (cap >= max || FOL_GROW(buf, cap, cap + 1, 0)))
			break;
		got = fread(buf + n, 1, cap - n, f);
		if (!got)
			break;
		n += got;
	}
	if (f)
		fclose(f);
	if (!f || !buf || n == cap) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

int fol_ksyms_pack(const char *kallsyms, void **out, size_t *len)
{
	size_t n, used = 0, bound;
	char *text = read_file(kallsyms, FOL_KSYMS_TEXT_MAX, &n), *keep;
	struct libdeflate_compressor *c;
	unsigned char *buf;
	int ret = -ENOENT;

	if (!text)
		return -ENOENT;
	/* Only the text symbols' lines, in place (read_file() leaves room for the last
	 * one's newline). */
	keep = text;
	for (char *p = text, *nl; p < text + n; p = nl + 1) {
		const char *name;
		size_t nlen;
		uint64_t a;

		nl = line_end(p, text + n);
		if (text_symbol(p, nl, &a, &name, &nlen)) {
			memmove(keep + used, p, (size_t)(nl - p));
			used += (size_t)(nl - p);
			keep[used++] = '\n';
		}
	}
	c = used ? libdeflate_alloc_compressor(6) : NULL;
	bound = c ? libdeflate_deflate_compress_bound(c, used) : 0;
	buf = c ? malloc(HDR + bound) : NULL;
	if (buf) {
		uint64_t tl = used;
		size_t z = libdeflate_deflate_compress(c, keep, used, buf + HDR, bound);

		memcpy(buf, MAGIC, 4);
		memset(buf + 4, 0, 4);
		memcpy(buf + 8, &tl, 8);
		if (z) {
			*out = buf;
			*len = HDR + z;
			ret = 0;
		} else {
			free(buf);
		}
	} else if (used) {
		ret = -ENOMEM;
	}
	libdeflate_free_compressor(c);
	free(text);
	return ret;
}

static struct fol_ksyms *ksyms_new(void)
{
	struct fol_ksyms *k = calloc(1, sizeof(*k));

	if (k)
		k->refs = 1;
	return k;
}

struct fol_ksyms *fol_ksyms_from_chunk(const void *buf, size_t len)
{
	struct fol_ksyms *k = ksyms_new();

	if (k && !(k->chunk = malloc(len ? len : 1))) {
		free(k);
		return NULL;
	}
	if (k) {
		memcpy(k->chunk, buf, len);
		k->chunk_len = len;
	}
	return k;
}

struct fol_ksyms *fol_ksyms_from_file(const char *path)
{
	struct fol_ksyms *k = ksyms_new();

	if (k && !(k->path = strdup(path))) {
		free(k);
		return NULL;
	}
	return k;
}

struct fol_ksyms *fol_ksyms_get(struct fol_ksyms *k)
{
	if (k)
		k->refs++;
	return k;
}

void fol_ksyms_put(struct fol_ksyms *k)
{
	if (!k || --k->refs > 0)
		return;
	free(k->path);
	free(k->chunk);
	if (k->map) {
		munmap(k->map, k->map_len);
	} else {
		free(k->v);
		free(k->names);
	}
	free(k);
}

/* The chunk's text, or NULL when it is not one (wrong magic, a length past the bound, data
 * that does not inflate to exactly that length). */
static char *inflate_chunk(const struct fol_ksyms *k, size_t *len)
{
	struct libdeflate_decompressor *d;
	uint64_t tl;
	char *text;
	enum libdeflate_result res;

	if (k->chunk_len < HDR || memcmp(k->chunk, MAGIC, 4))
		return NULL;
	memcpy(&tl, k->chunk + 8, 8);
	/* /proc/kallsyms deflates 4 to 6 times: a chunk that claims more than
	 * FOL_KSYMS_RATIO times its size is forged or damaged (580 KB of one inflated to 64 MB
	 * of one-letter symbols, 356 MB of memory and a 154 MB table kept). */
	if (!tl || tl > FOL_KSYMS_TEXT_MAX || tl / FOL_KSYMS_RATIO > k->chunk_len)
		return NULL;
	text = malloc((size_t)tl);
	d = text ? libdeflate_alloc_decompressor() : NULL;
	res = d ? libdeflate_deflate_decompress(d, k->chunk + HDR, k->chunk_len - HDR, text,
						(size_t)tl, NULL)
		: LIBDEFLATE_BAD_DATA;
	libdeflate_free_decompressor(d);
	if (res != LIBDEFLATE_SUCCESS) {
		free(text);
		return NULL;
	}
	*len = (size_t)tl;
	return text;
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The text symbols of text into k's sorted table; names are copied into one block (the
 * text's own size bounds it). */
static void parse(struct fol_ksyms *k, const char *text, size_t n)
{
	size_t cap = 0, used = 0;
	int sorted = 1;

	k->names = malloc(n + 1);
	for (const char *p = text, *nl; k->names && p < text + n; p = nl + 1) {
		const char *name;
		size_t nlen;
		uint64_t a;

		nl = line_end(p, text + n);
		if (!text_symbol(p, nl, &a, &name, &nlen))
			continue;
		if (k->n >= FOL_KSYMS_MAX || FOL_GROW(k->v, cap, (size_t)k->n + 1, 65536))
			break;
		sorted &= !k->n || k->v[k->n - 1].addr <= a;
		k->v[k->n] = (struct ksym){ .addr = a, .name = (uint32_t)used, .zero = 0 };
		memcpy(k->names + used, name, nlen);
		k->names[used + nlen] = '\0';
		used += nlen + 1;
		k->n++;
	}
	/* The kernel lists its own symbols by address (modules' come after, in their own
	 * order): without modules, already in the order a stable sort leaves them, and the
	 * sort was 8% of a small report's time (glibc's merge sort, 120,000 symbols). */
	if (k->n && !sorted)
		qsort(k->v, k->n, sizeof(*k->v), ksym_cmp);
	k->names_len = used;
}

/* The kept table at path for the chunk of hash h: 0 and k's table mapped, or -1 when
 * there is none or it is not whole (every name inside, the addresses in order). */
static int load_kept(struct fol_ksyms *k, const char *path, uint64_t h)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok;
	struct stat st;
	struct kept hd;
	const struct ksym *v;
	const char *names;
	char *map;

	if (fd < 0)
		return -1;
	map = fstat(fd, &st) || st.st_size < (off_t)sizeof(hd) ? MAP_FAILED
		: mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	memcpy(&hd, map, sizeof(hd));
	ok = !memcmp(hd.magic, KEPT_MAGIC, 8) && hd.chunk_hash == h && hd.chunk_len == k->chunk_len &&
	     hd.n && hd.n <= ((uint64_t)st.st_size - sizeof(hd)) / sizeof(*v) && hd.names_len &&
	     hd.names_len <= (uint64_t)st.st_size &&
	     (uint64_t)st.st_size == sizeof(hd) + hd.n * sizeof(*v) + hd.names_len;
	v = (const struct ksym *)(map + sizeof(hd));
	names = (const char *)(v + (ok ? hd.n : 0));
	ok = ok && !names[hd.names_len - 1];
	for (uint64_t i = 0; ok && i < hd.n; i++)
		ok = v[i].name < hd.names_len && (!i || v[i - 1].addr <= v[i].addr);
	if (!ok) {
		munmap(map, (size_t)st.st_size);
		return -1;
	}
	k->map = map;
	k->map_len = (size_t)st.st_size;
	k->v = (struct ksym *)v;
	k->names = (char *)names;
	k->n = hd.n;
	k->names_len = hd.names_len;
	return 0;
}

static int write_all(int fd, const void *p, size_t n)
{
	for (const char *c = p; n;) {
		ssize_t w = write(fd, c, n);

		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* k's table kept at path for the next report of the same chunk. */
static void keep(const struct fol_ksyms *k, const char *path, uint64_t h)
{
	struct kept hd = { KEPT_MAGIC, k->n, k->names_len, h, k->chunk_len };
	char tmp[4096 + 32];
	int fd = fol_cache_begin(path, tmp, sizeof(tmp)), ret;

	if (fd < 0)
		return;
	ret = write_all(fd, &hd, sizeof(hd));
	if (!ret)
		ret = write_all(fd, k->v, k->n * sizeof(*k->v));
	if (!ret)
		ret = write_all(fd, k->names, k->names_len);
	fol_cache_end(fd, tmp, path, ret);
}

/* A recording's table is parsed once and kept (cache.h): the chunk inflated and parsed
 * was a fifth of a small report. A kallsyms file is read each time (it changes). */
static void load(struct fol_ksyms *k)
{
	size_t n = 0;
	char *text, name[64], kept[4096];
	uint64_t h = k->chunk ? fol_hash(FOL_HASH_INIT, k->chunk, k->chunk_len) : 0;
	int cached = 0;

	k->loaded = 1;
	if (k->chunk) {
		snprintf(name, sizeof(name), "%016" PRIx64 "-%zu", h, k->chunk_len);
		cached = !fol_cache_path("ksyms", name, kept, sizeof(kept));
	}
	if (cached && !load_kept(k, kept, h)) {
		fol_cache_used(kept);
		free(k->chunk);
		k->chunk = NULL;
		return;
	}
	text = k->path ? read_file(k->path, FOL_KSYMS_TEXT_MAX, &n) : inflate_chunk(k, &n);
	if (text)
		parse(k, text, n);
	free(text);
	if (cached && k->n) {
		keep(k, kept, h);
		fol_cache_prune("ksyms", KEPT_TABLES, KEPT_BYTES);
	}
	free(k->chunk);
	k->chunk = NULL;
}

size_t fol_ksyms_count(struct fol_ksyms *k)
{
	if (k && !k->loaded)
		load(k);
	return k ? k->n : 0;
}

int fol_ksyms_lookup(struct fol_ksyms *k, uint64_t addr, char *sym, size_t len)
{
	size_t lo = 0, hi;

	if (!fol_ksyms_count(k) || addr < k->v[0].addr)
		return -ENOENT;
	hi = k->n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->v[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	snprintf(sym, len, "%s+0x%" PRIx64, k->names + k->v[lo].name, addr - k->v[lo].addr);
	return 0;
}
