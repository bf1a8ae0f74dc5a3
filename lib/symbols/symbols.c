// SPDX-License-Identifier: GPL-2.0-only
#include "symbols/symbols.h"

#include "util/cache.h"
#include "symbols/debugsearch.h"
#include "symbols/recorded.h"
#include "util/indexed.h"
#include "symbols/ksyms.h"
#include "symbols/symtab.h"
#include "util/u64map.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <unistd.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A lookup's answer, kept: the same offset of a file is asked for again by every process
 * that maps it (a build's 410 address spaces, each with its own libc and cc1), and
 * libdwfl's address lookup was a third of a build report's time. */
struct answer {
	char *sym, *src;	/* "name+0x1a"; "file.c:42" or "" (NULL: not looked up) */
	int ret;
};

/* One ELF file, reported to its own Dwfl: modules of different processes never clash. */
struct dso {
	char *path;
	uint8_t bid[20];
	int bidlen;
	Dwfl *dwfl;
	Dwfl_Module *mod; /* NULL: no ELF file of that build-id was found */
	int stale;	  /* path is there, with another build-id */
	struct fol_u64map *answers; /* by file offset: struct answer */
	struct fol_symtab *tab; /* its symbols by address (symtab.h), once read */
	int tab_read;
	int tab_mixed;		/* some symbols come from another ELF file (debug info) */
	/* Stretches (symtab.h) of a section where libdwfl named nothing: keyed by stretch
	 * and section, no value. */
	struct fol_u64map *nothing;
};


struct fol_symbols_cache {
	char symfs[1024];	/* "" for / */
	int64_t recorded_at;
	/* By path and build-id: a recording may name 100,000 files, each looked up at
	 * every site of it (a list searched from its start was quadratic). */
	struct fol_indexed dsos;
	struct fol_ksyms *ksyms; /* the recording kernel's symbols, or NULL: none known */
	struct fol_debug_search search; /* every module's, under symfs */
};

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = fol_debug_search_find,
	.section_address = dwfl_offline_section_address,
};

struct fol_symbols_cache *fol_symbols_new(struct fol_ksyms *ksyms, const char *symfs,
					  int64_t recorded_at)
{
	struct fol_symbols_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	if (fol_indexed_init(&c->dsos, sizeof(struct dso))) {
		free(c);
		return NULL;
	}
	c->ksyms = fol_ksyms_get(ksyms);
	snprintf(c->symfs, sizeof(c->symfs), "%s", symfs ? symfs : "");
	c->search = (struct fol_debug_search){ .root = c->symfs, .inflate = 1 };
	c->recorded_at = recorded_at;
	return c;
}

static void free_answers(struct fol_u64map *m)
{
	struct answer *a;
	size_t pos = 0;
	uint64_t off;

	while (m && (a = fol_u64map_next(m, &pos, &off))) {
		free(a->sym);
		free(a->src);
	}
	fol_u64map_free(m);
}

void fol_symbols_free(struct fol_symbols_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->dsos.n; i++) {
		struct dso *d = FOL_INDEXED_AT(&c->dsos, struct dso, i);

		if (d->dwfl)
			dwfl_end(d->dwfl);
		free(d->path);
		free_answers(d->answers);
		fol_symtab_free(d->tab);
		fol_u64map_free(d->nothing);
	}
	fol_ksyms_put(c->ksyms);
	fol_indexed_free(&c->dsos);
	free(c);
}

/* Open file as the module of d when its build-id is d's (or, d having none, it has not
 * changed since the recording began): 1, else 0. */
static int try_file(struct fol_symbols_cache *c, struct dso *d, const char *name)
{
	const unsigned char *bits;
	char file[4096 + 1024];
	GElf_Addr vaddr;
	Dwfl_Module *mod;
	struct stat st;
	int n, fd = fol_open_recorded(c->symfs, name);

	if (fd < 0)
		return 0;
	if (!d->bidlen && c->recorded_at && !fstat(fd, &st) && st.st_mtime > c->recorded_at) {
		d->stale = 1;
		close(fd);
		return 0;
	}
	snprintf(file, sizeof(file), "%s%s", c->symfs, name);
	if (d->dwfl)
		dwfl_end(d->dwfl);
	d->dwfl = dwfl_begin(&callbacks);
	if (!d->dwfl) {
		close(fd);
		return 0;
	}
	/* The descriptor is the module's once reported; not when no module is made. */
	mod = dwfl_report_offline(d->dwfl, file, file, fd);
	dwfl_report_end(d->dwfl, NULL, NULL);
	if (!mod) {
		close(fd);
		return 0;
	}
	fol_debug_search_set(mod, &c->search);
	n = dwfl_module_build_id(mod, &bits, &vaddr);
	if (d->bidlen && (n != d->bidlen || memcmp(bits, d->bid, (size_t)n))) {
		d->stale |= !strcmp(name, d->path);
		return 0;
	}
	d->mod = mod;
	return 1;
}

/* The places a file of a build-id may be: the recorded path, the distribution's debug
 * files, perf's build-id cache. */
static void find_file(struct fol_symbols_cache *c, struct dso *d)
{
	char hex[41], alt[4200];
	const char *home = getenv("HOME");

	if (try_file(c, d, d->path) || !d->bidlen)
		return;
	for (int i = 0; i < d->bidlen; i++)
		snprintf(hex + 2 * i, 3, "%02x", d->bid[i]);
	snprintf(alt, sizeof(alt), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	if (try_file(c, d, alt))
		return;
	if (home) {
		snprintf(alt, sizeof(alt), "%s/.debug/.build-id/%.2s/%s/elf", home, hex, hex + 2);
		if (try_file(c, d, alt))
			return;
		snprintf(alt, sizeof(alt), "%s/.debug/.build-id/%.2s/%s", home, hex, hex + 2);
		try_file(c, d, alt);
	}
}

static int same_dso(const void *elem, const void *key)
{
	const struct dso *x = elem, *y = key;

	return !strcmp(x->path, y->path) && x->bidlen == y->bidlen &&
	       !memcmp(x->bid, y->bid, (size_t)x->bidlen);
}

static struct dso *dso_get(struct fol_symbols_cache *c, const char *path, const uint8_t *bid,
			   int bidlen)
{
	struct dso key = { .path = (char *)path }, *d;
	int created;

	if (bid && bidlen > 0 && bidlen <= 20) {
		memcpy(key.bid, bid, (size_t)bidlen);
		key.bidlen = bidlen;
	}
	d = fol_indexed_get(&c->dsos, fol_hash(fol_hash(FOL_HASH_INIT, path, strlen(path)), key.bid,
					      (size_t)key.bidlen), &key, same_dso, &created);
	if (!d || !created)
		return d;
	d->path = strdup(path);
	if (!d->path) {
		fol_indexed_unget(&c->dsos);
		return NULL;
	}
	/* Only a path names a file: "//anon", "[heap]" and the like are not opened. */
	if (path[0] == '/')
		find_file(c, d);
	return d;
}

/* A file offset (as the mapping's pgoff gives it) to the module's address: through the
 * PT_LOAD segment that holds it. */
static int offset_to_addr(Dwfl_Module *mod, uint64_t off, Dwarf_Addr *addr)
{
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	size_t n;

	if (!elf || elf_getphdrnum(elf, &n))
		return -ENOENT;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (off >= ph.p_offset && off < ph.p_offset + ph.p_filesz) {
			*addr = off - ph.p_offset + ph.p_vaddr + bias;
			return 0;
		}
	}
	return -ENOENT;
}

/* libdwfl's preference among bindings (dwfl_module_addrsym.c), higher is better. */
static int binding(const GElf_Sym *sym)
{
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL: return 3;
	case STB_WEAK: return 2;
	case STB_LOCAL: return 1;
	default: return 0;
	}
}

/* The symbols libdwfl's address lookup considers, sorted (symtab.h). Without memory or
 * symbols, none: every lookup asks libdwfl. */
static void read_symtab(struct dso *d)
{
	int n = dwfl_module_getsymtab(d->mod), first;
	struct fol_sym *v = n > 0 ? malloc(sizeof(*v) * (size_t)n) : NULL;
	size_t k = 0;

	Dwarf_Addr bias;
	Elf *main = dwfl_module_getelf(d->mod, &bias);

	d->tab_read = 1;
	for (int i = 1; v && i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *elf = NULL;
		const char *name = dwfl_module_getsym_info(d->mod, i, &sym, &addr, &shndx, &elf, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (!name || !name[0] || sym.st_shndx == SHN_UNDEF || type == STT_SECTION ||
		    type == STT_FILE || type == STT_TLS)
			continue;
		d->tab_mixed |= elf != main;
		v[k++] = (struct fol_sym){ addr, sym.st_size, binding(&sym), i, shndx, name };
	}
	first = dwfl_module_getsymtab_first_global(d->mod);
	if (v && first >= 0)
		d->tab = fol_symtab_from(v, k, first);
	free(v);
}

/* The section of the module's main ELF file that holds addr, found as libdwfl finds it
 * for its sizeless symbols: the first whose range holds it, or SHN_ABS. */
static uint32_t section_of(const struct dso *d, Dwarf_Addr addr)
{
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(d->mod, &bias);
	Elf_Scn *scn = NULL;

	if (!elf || d->tab_mixed)
		return FOL_SYMTAB_ANY_SECTION;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && addr - bias >= sh.sh_addr && addr - bias < sh.sh_addr + sh.sh_size)
			return (uint32_t)elf_ndxscn(scn);
	}
	return SHN_ABS;
}

/* The module's answer for off: sym (as fol_symbols_lookup gives it) and, when src is not
 * NULL, the source line. */
static int resolve(struct dso *d, uint64_t off, char *sym, size_t symlen, char *src, size_t srclen)
{
	const struct fol_sym *fs;
	const char *name;
	uint64_t stretch, key;
	uint32_t shndx;
	int found, created;
	Dwarf_Addr addr;
	GElf_Off soff;
	GElf_Sym s;
	Dwfl_Line *line;

	if (offset_to_addr(d->mod, off, &addr))
		return -ENOENT;
	if (!d->tab_read)
		read_symtab(d);
	shndx = d->tab ? section_of(d, addr) : FOL_SYMTAB_ANY_SECTION;
	stretch = shndx != FOL_SYMTAB_ANY_SECTION ? fol_symtab_stretch(d->tab, addr) : UINT64_MAX;
	/* A stretch is below 2^32 (symbols counted), a section index too. */
	key = stretch << 32 | shndx;
	if (stretch != UINT64_MAX && d->nothing && fol_u64map_get(d->nothing, key))
		return -ENOENT;
	found = d->tab ? fol_symtab_find(d->tab, addr, shndx, &fs) : 0;
	if (found > 0) {
		name = fs->name;
		soff = addr - fs->value;
	} else {
		name = found < 0 ? NULL : dwfl_module_addrinfo(d->mod, addr, &soff, &s, NULL, NULL, NULL);
		if (!name && stretch < (1ull << 32) &&
		    (d->nothing || (d->nothing = fol_u64map_new(1))))
			fol_u64map_put(d->nothing, key, &created);
		if (!name)
			return -ENOENT;
	}
	snprintf(sym, symlen, "%s+0x%" PRIx64, name, (uint64_t)soff);
	line = src ? dwfl_module_getsrc(d->mod, addr) : NULL;
	if (line) {
		int lineno = 0;
		const char *file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
		const char *base = file ? strrchr(file, '/') : NULL;

		if (file)
			snprintf(src, srclen, "%s:%d", base ? base + 1 : file, lineno);
	}
	return 0;
}

/* A kept answer into the caller's buffer, cut to fit as snprintf() cuts: snprintf() of
 * one string costs a thousand instructions, and a build's report copies 85,000. */
static void copy(char *to, size_t len, const char *from)
{
	size_t n = strlen(from);

	if (!len)
		return;
	if (n >= len)
		n = len - 1;
	memcpy(to, from, n);
	to[n] = '\0';
}

/* The answer for off, looked up once (and once more for a source line not asked for the
 * first time). Out of memory, it is looked up every time. */
static int answer(struct dso *d, uint64_t off, char *sym, size_t symlen, char *src, size_t srclen)
{
	char s[512], l[256] = "";
	struct answer *a;
	int created, ret;

	if (!d->answers)
		d->answers = fol_u64map_new(sizeof(struct answer));
	a = d->answers ? fol_u64map_put(d->answers, off, &created) : NULL;
	if (a && !created && (a->src || !src)) {
		if (a->sym)
			copy(sym, symlen, a->sym);
		if (src)
			copy(src, srclen, a->src);
		return a->ret;
	}
	ret = resolve(d, off, s, sizeof(s), src ? l : NULL, sizeof(l));
	if (!ret)
		snprintf(sym, symlen, "%s", s);
	if (src)
		snprintf(src, srclen, "%s", l);
	if (!a)
		return ret;
	free(a->sym);
	free(a->src);
	a->sym = ret ? NULL : strdup(s);
	a->src = src ? strdup(l) : NULL;
	a->ret = ret;
	if ((!ret && !a->sym) || (src && !a->src)) { /* out of memory: not kept */
		free(a->sym);
		free(a->src);
		fol_u64map_del(d->answers, off, NULL);
	}
	return ret;
}

/* "path+0x1a", as snprintf() would write it, by hand: most of a build's sites are in
 * files without symbols (cc1), named so. */
static void path_offset(char *out, size_t len, const char *path, uint64_t off)
{
	char tail[20] = "+0x", digits[16];
	int n = 0;

	do
		digits[n++] = "0123456789abcdef"[off & 15];
	while (off >>= 4);
	for (int i = 0; i < n; i++)
		tail[3 + i] = digits[n - 1 - i];
	tail[3 + n] = '\0';
	copy(out, len, path);
	if (len)
		copy(out + strlen(out), len - strlen(out), tail);
}

static int lookup(struct fol_symbols_cache *c, const char *path, const uint8_t *bid, int bidlen,
		  uint64_t off, char *sym, size_t symlen, char *src, size_t srclen)
{
	struct dso *d;

	if (!strcmp(path, "[kernel]"))
		return fol_ksyms_lookup(c->ksyms, off, sym, symlen);
	d = dso_get(c, path, bid, bidlen);
	if (d && !d->mod && d->stale)
		return -ESTALE;
	if (!d || !d->mod)
		return -ENOENT;
	return answer(d, off, sym, symlen, src, srclen);
}

int fol_symbols_lookup(struct fol_symbols_cache *c, const char *path, const uint8_t *bid,
		       int bidlen, uint64_t off, char *sym, size_t symlen, char *src, size_t srclen)
{
	int ret;

	if (src)
		src[0] = '\0';
	ret = lookup(c, path, bid, bidlen, off, sym, symlen, src, srclen);
	if (ret)
		path_offset(sym, symlen, path, off);
	return ret;
}

/* The NT_GNU_BUILD_ID note of one note segment, or 0. */
static int note_build_id(Elf_Data *d, uint8_t *out, size_t max)
{
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off, next;

	while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((const char *)d->d_buf + name_off, "GNU", 4) && nh.n_descsz <= max) {
			memcpy(out, (const char *)d->d_buf + desc_off, nh.n_descsz);
			return (int)nh.n_descsz;
		}
		off = next;
	}
	return 0;
}

int fol_symbols_file_build_id(const char *path, uint8_t *out, size_t max)
{
	int fd = fol_open_recorded(NULL, path), n = 0;
	size_t nph = 0;
	Elf *e;

	if (fd < 0)
		return -ENOENT;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (e && !elf_getphdrnum(e, &nph))
		for (size_t i = 0; i < nph && !n; i++) {
			GElf_Phdr ph;
			Elf_Data *d;

			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_NOTE)
				continue;
			d = elf_getdata_rawchunk(e, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR);
			if (d)
				n = note_build_id(d, out, max);
		}
	if (e)
		elf_end(e);
	close(fd);
	return n > 0 ? n : -ENOENT;
}
