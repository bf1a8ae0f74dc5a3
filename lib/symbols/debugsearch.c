// SPDX-License-Identifier: GPL-2.0-only
#include "symbols/debugsearch.h"

#include "symbols/debugfile.h"
#include "symbols/recorded.h"
#include "util/cache.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEBUG_DIR "/usr/lib/debug"

void fol_debug_search_set(Dwfl_Module *mod, struct fol_debug_search *s)
{
	void **userdata = NULL;

	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	if (userdata)
		*userdata = s;
}

/* The path under root of a name given back by libdwfl (root + path), or NULL. */
static const char *under_root(const char *root, const char *name)
{
	size_t n = strlen(root);

	if (!name || strncmp(name, root, n) || name[n] != '/')
		return NULL;
	return name + n;
}

static int same_build_id(int fd, const void *bid, int len)
{
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *found;
	int ok = e && dwelf_elf_gnu_build_id(e, &found) == len && !memcmp(found, bid, (size_t)len);

	if (e)
		elf_end(e);
	return ok;
}

/* The CRC-32 of .gnu_debuglink (zlib's, which libdeflate computes) of the whole file. */
static int same_crc(int fd, GElf_Word want)
{
	enum { CHUNK = 1 << 16 };
	char *buf = malloc(CHUNK);
	uint32_t crc = 0;
	ssize_t n = -1;
	off_t at = 0;

	while (buf && (n = pread(fd, buf, CHUNK, at)) > 0) {
		crc = libdeflate_crc32(crc, buf, (size_t)n);
		at += n;
	}
	free(buf);
	return n == 0 && crc == want;
}

/* path under root, opened if it is the file wanted: of build-id bid (len > 0), else of the
 * link's crc (when not 0). A descriptor and its name (root + path), or -1. */
static int open_checked(const char *root, const char *path, const void *bid, int len,
			GElf_Word crc, char **name)
{
	int fd = fol_open_recorded(root, path);

	if (fd < 0)
		return -1;
	if ((len > 0 && !same_build_id(fd, bid, len)) || (len <= 0 && crc && !same_crc(fd, crc)) ||
	    asprintf(name, "%s%s", root, path) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void hex_of(const unsigned char *bid, int len, char hex[129])
{
	hex[0] = 0;
	for (int i = 0; i < len && i < 64; i++)
		snprintf(hex + 2 * i, 3, "%02x", bid[i]);
}

static void build_id_path(const unsigned char *bid, int len, char *out, size_t outlen)
{
	char hex[129];

	hex_of(bid, len, hex);
	snprintf(out, outlen, DEBUG_DIR "/.build-id/%.2s/%s.debug", hex, hex + 2);
}

/* The build-id's debug file, inflated: libdw would inflate every compressed section itself
 * the first time a source line is asked for, three times slower (debugfile.h). The copy is
 * kept in the user's cache and taken from there the next time: libc's took 19 ms to
 * inflate, a fifth of a small report. fd is the file found, given up here. */
static int inflated(int fd, const unsigned char *bid, int len)
{
	char hex[129], file[160], kept[4096];
	int keep, out = -1;

	hex_of(bid, len, hex);
	snprintf(file, sizeof(file), "%s.debug", hex);
	keep = !fol_cache_path("debug", file, kept, sizeof(kept));
	if (keep && (out = open(kept, O_RDONLY | O_CLOEXEC)) >= 0 && !same_build_id(out, bid, len)) {
		close(out);
		out = -1;
	}
	if (out < 0 && (out = fol_debugfile_inflated(fd)) >= 0 && keep)
		fol_debugfile_keep(out, kept); /* or not: the next report inflates it */
	if (out < 0)
		return fd;
	close(fd);
	return out;
}

/* The module's own debug file: by build-id, then by its .gnu_debuglink. */
static int find_own(const struct fol_debug_search *s, const char *root, Dwfl_Module *mod,
		    const char *file, const char *link, GElf_Word crc, char **name)
{
	const unsigned char *bid;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(mod, &bid, &vaddr), fd;
	const char *rel = under_root(root, file), *slash;
	const char *const forms[] = { "%.*s/%s", "%.*s/.debug/%s", DEBUG_DIR "%.*s/%s" };
	char path[4096 + 256];

	if (len > 0) {
		build_id_path(bid, len, path, sizeof(path));
		fd = open_checked(root, path, bid, len, 0, name);
		if (fd >= 0)
			return s && s->inflate ? inflated(fd, bid, len) : fd;
	}
	if (!link || !*link || strchr(link, '/') || !rel || !(slash = strrchr(rel, '/')))
		return -1;
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		snprintf(path, sizeof(path), forms[i], (int)(slash - rel), rel, link);
		fd = open_checked(root, path, bid, len, crc, name);
		if (fd >= 0)
			return fd;
	}
	return -1;
}

/* The name and build-id in the .gnu_debugaltlink of the file at path under root: the
 * build-id's length (its bytes copied to bid), or -1. */
static int altlink(const char *root, const char *path, char *alt, size_t altlen, unsigned char *bid)
{
	int fd = fol_open_recorded(root, path), len = -1;
	Elf *e = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Elf_Scn *scn = NULL;
	size_t shstr;

	if (e && !elf_getshdrstrndx(e, &shstr))
		while ((scn = elf_nextscn(e, scn)) && len < 0) {
			GElf_Shdr sh;
			const char *n = gelf_getshdr(scn, &sh) ? elf_strptr(e, shstr, sh.sh_name) : NULL;
			Elf_Data *d = n && !strcmp(n, ".gnu_debugaltlink") ? elf_getdata(scn, NULL) : NULL;
			const char *nul = d && d->d_buf ? memchr(d->d_buf, 0, d->d_size) : NULL;
			size_t at = nul ? (size_t)(nul - (const char *)d->d_buf) + 1 : 0;

			if (nul && at < d->d_size && d->d_size - at <= 64 && at <= altlen) {
				memcpy(alt, d->d_buf, at);
				len = (int)(d->d_size - at);
				memcpy(bid, (const char *)d->d_buf + at, (size_t)len);
			}
		}
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	return len;
}

/* The dwz file that the debug file at file names. */
static int find_alt(const char *root, const char *file, char **name)
{
	const char *rel = under_root(root, file), *slash;
	char alt[4096], path[8192 + 256];
	unsigned char bid[64];
	int len = rel ? altlink(root, rel, alt, sizeof(alt), bid) : -1, fd;

	if (len <= 0)
		return -1;
	build_id_path(bid, len, path, sizeof(path));
	fd = open_checked(root, path, bid, len, 0, name);
	if (fd >= 0 || !alt[0])
		return fd;
	if (alt[0] == '/')
		snprintf(path, sizeof(path), "%s", alt);
	else if ((slash = strrchr(rel, '/')))
		snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - rel), rel, alt);
	else
		return -1;
	return open_checked(root, path, bid, len, 0, name);
}

int fol_debug_search_find(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	const struct fol_debug_search *s = *userdata;
	const char *root = s && s->root ? s->root : "", *own = NULL;
	GElf_Word own_crc = 0;
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);

	(void)modname;
	(void)base;
	if (strlen(root) == 1 && root[0] == '/')
		root = "";
	/* libdwfl asks twice: for the module's debug file with the main file's own link, and
	 * for a dwz file with the debug file's name and the name its altlink gives, CRC 0. */
	if (elf)
		own = dwelf_elf_gnu_debuglink(elf, &own_crc);
	if (!debuglink_file || (own && !strcmp(own, debuglink_file) && own_crc == debuglink_crc))
		return find_own(s, root, mod, file_name, debuglink_file, debuglink_crc,
				debuginfo_file_name);
	return find_alt(root, file_name, debuginfo_file_name);
}
