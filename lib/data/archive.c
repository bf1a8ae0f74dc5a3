// SPDX-License-Identifier: GPL-2.0-only
#include "data/archive.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "util/errors.h"
#include "data/file.h"
#include "symbols/symbols.h"
#include "util/grow.h"

/* A piece's header in its chunk, then the file's name, then the deflated bytes. A layout
 * of our own, not tar's: the chunked file already checksums and resynchronises, and one
 * reader serves recordings and archives. */
#define PIECE_MAGIC "FAR1"
struct piece {
	char magic[4];
	uint32_t name_len;
	uint64_t size;	 /* the whole file's bytes */
	uint64_t offset; /* this piece's place in it */
	uint32_t len;	 /* its bytes, uncompressed */
	uint32_t zlen;	 /* deflated, after the name */
};

#define NAME_MAX_LEN 4096

/* A recorded file and where its bytes are on this machine (NULL: not found). */
struct entry {
	char *path, *hex, *file, *debug;
};

struct fol_archive_plan {
	struct entry *v;
	size_t n, cap;
	size_t bad;		/* build-ids passed over: not hex */
};

void fol_archive_plan_free(struct fol_archive_plan *l)
{
	for (size_t i = 0; l && i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].hex);
		free(l->v[i].file);
		free(l->v[i].debug);
	}
	if (l)
		free(l->v);
	free(l);
}

/* A build-id as the recorder writes it: 2 to 128 lower-case hex digits, an even count.
 * Anything else would be formatted into a lookup path ("../../../../etc/shadow"). */
static int hex_ok(const char *hex)
{
	size_t n = strspn(hex, "0123456789abcdef");

	return !hex[n] && n >= 2 && n <= 128 && n % 2 == 0;
}

static int plan_add(struct fol_archive_plan *l, const char *path, const char *hex)
{
	if (FOL_GROW(l->v, l->cap, l->n + 1, 16))
		return -ENOMEM;
	l->v[l->n] = (struct entry){ .path = strdup(path), .hex = strdup(hex) };
	if (!l->v[l->n].path || !l->v[l->n].hex) {
		l->n++;
		return -ENOMEM;
	}
	l->n++;
	return 0;
}

static int by_path_hex(const void *x, const void *y)
{
	const struct entry *a = x, *b = y;
	int c = strcmp(a->path, b->path);

	return c ? c : strcmp(a->hex, b->hex);
}

/* Each (path, build-id) once, in their order: sorted, not searched at every add (25,000
 * recorded build-ids took 3.95 s, 200,000 more than 120 s). */
static void plan_unique(struct fol_archive_plan *l)
{
	size_t n = 0;

	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), by_path_hex);
	for (size_t i = 0; i < l->n; i++) {
		if (n && !by_path_hex(&l->v[n - 1], &l->v[i])) {
			free(l->v[i].path);
			free(l->v[i].hex);
			continue;
		}
		l->v[n++] = l->v[i];
	}
	l->n = n;
}

/* Every (path, build-id) of the recording's END chunks (one a run); a build-id that is
 * not hex is not one the recorder wrote, and is passed over (counted in *bad). */
static int collect(const char *recording, struct fol_archive_plan *l, size_t *bad)
{
	struct fol_reader *r;
	const void *buf;
	uint32_t type;
	size_t len;
	int ret = fol_reader_open(&r, recording);

	while (!ret && (ret = fol_reader_next(r, &type, &buf, &len)) == 1) {
		cJSON *end, *b, *f;

		ret = 0;
		if (type != FOL_CHUNK_END || !(end = cJSON_ParseWithLength(buf, len)))
			continue;
		b = cJSON_GetObjectItemCaseSensitive(end, "build_ids");
		cJSON_ArrayForEach(f, b) {
			if (ret || !f->string || f->string[0] != '/' || !cJSON_IsString(f))
				continue;
			if (hex_ok(f->valuestring))
				ret = plan_add(l, f->string, f->valuestring);
			else
				(*bad)++;
		}
		cJSON_Delete(end);
	}
	if (r)
		fol_reader_close(r);
	if (ret >= 0)
		plan_unique(l);
	return ret < 0 ? ret : l->n ? 0 : -ENODATA;
}

/* 1 when the ELF file at path has the build-id hex. */
static int has_build_id(const char *path, const char *hex)
{
	uint8_t id[64];
	char h[129];
	int n = fol_symbols_file_build_id(path, id, sizeof(id));

	for (int i = 0; i < n; i++)
		snprintf(h + 2 * i, 3, "%02x", id[i]);
	return n > 0 && !strcmp(h, hex);
}

/* Where the report would find e's file, and its separate debug info. */
static int locate(struct entry *e)
{
	const char *home = getenv("HOME");
	char alt[NAME_MAX_LEN + 256];

	if (strlen(e->hex) < 4)
		return 0;
	if (has_build_id(e->path, e->hex)) {
		e->file = strdup(e->path);
	} else if (home) {
		snprintf(alt, sizeof(alt), "%s/.debug/.build-id/%.2s/%s/elf", home, e->hex, e->hex + 2);
		if (has_build_id(alt, e->hex))
			e->file = strdup(alt);
	}
	snprintf(alt, sizeof(alt), "/usr/lib/debug/.build-id/%.2s/%s.debug", e->hex, e->hex + 2);
	if (has_build_id(alt, e->hex))
		e->debug = strdup(alt);
	return 0;
}

int fol_archive_put(struct fol_writer *w, const char *name, uint64_t size, uint64_t off,
		    const void *data, uint32_t len)
{
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(6);
	size_t nl = strlen(name), bound = c ? libdeflate_deflate_compress_bound(c, len) : 0, z;
	struct piece h = { .name_len = (uint32_t)nl, .size = size, .offset = off, .len = len };
	char *buf = c ? malloc(sizeof(h) + nl + bound) : NULL;
	int ret = -ENOMEM;

	if (buf) {
		z = libdeflate_deflate_compress(c, data, len, buf + sizeof(h) + nl, bound);
		memcpy(h.magic, PIECE_MAGIC, 4);
		h.zlen = (uint32_t)z;
		memcpy(buf, &h, sizeof(h));
		memcpy(buf + sizeof(h), name, nl);
		ret = !z && len ? -EIO : fol_writer_chunk_buf(w, FOL_CHUNK_ARCHIVE, buf, sizeof(h) + nl + z);
	}
	free(buf);
	libdeflate_free_compressor(c);
	return ret;
}

/* The file at src, packed under name, piece by piece. */
static int pack_file(struct fol_writer *w, const char *name, const char *src,
		     struct fol_archive_stats *st)
{
	char *data = malloc(FOL_ARCHIVE_PIECE);
	int fd = open(src, O_RDONLY | O_CLOEXEC), ret = 0;
	uint64_t off = 0;
	struct stat sb;

	if (!data || fd < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode) ||
	    (uint64_t)sb.st_size > FOL_ARCHIVE_FILE_MAX)
		ret = !data ? -ENOMEM : fd < 0 ? -errno : -EFBIG;
	while (!ret && (off < (uint64_t)sb.st_size || !off)) {
		ssize_t n = pread(fd, data, FOL_ARCHIVE_PIECE, (off_t)off);

		if (n < 0) {
			ret = -errno;
			break;
		}
		ret = fol_archive_put(w, name, (uint64_t)sb.st_size, off, data, (uint32_t)n);
		off += (uint64_t)n;
		if (!n)
			break;
	}
	if (!ret) {
		st->files++;
		st->bytes += off;
	}
	if (fd >= 0)
		close(fd);
	free(data);
	return ret;
}

int fol_archive_plan(const char *recording, struct fol_archive_plan **p)
{
	struct fol_archive_plan *l = calloc(1, sizeof(*l));
	int ret = l ? collect(recording, l, &l->bad) : -ENOMEM;

	for (size_t i = 0; i < (l ? l->n : 0) && !ret; i++)
		ret = locate(&l->v[i]);
	if (ret) {
		fol_archive_plan_free(l);
		l = NULL;
	}
	*p = l;
	return ret;
}

size_t fol_archive_plan_count(const struct fol_archive_plan *p)
{
	return p->n;
}

size_t fol_archive_plan_bad(const struct fol_archive_plan *p)
{
	return p->bad;
}

const char *fol_archive_plan_file(const struct fol_archive_plan *p, size_t i, const char **hex,
				  const char **file, const char **debug)
{
	*hex = p->v[i].hex;
	*file = p->v[i].file;
	*debug = p->v[i].debug;
	return p->v[i].path;
}

int fol_archive_pack(const struct fol_archive_plan *l, const char *out, struct fol_archive_stats *st)
{
	struct fol_writer *w = NULL;
	size_t found = 0;
	int ret;

	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < l->n; i++)
		found += l->v[i].file || l->v[i].debug;
	if (!found)
		return -ENODATA;
	ret = fol_writer_open(&w, out);
	for (size_t i = 0; i < l->n && !ret; i++) {
		const struct entry *e = &l->v[i];

		if (e->file)
			ret = pack_file(w, e->path, e->file, st);
		if (!ret && e->debug)
			ret = pack_file(w, e->debug, e->debug, st);
	}
	if (!ret)
		ret = fol_writer_commit(w);
	if (w) {
		int r2 = fol_writer_close(w);

		ret = ret ? ret : r2;
	}
	return ret;
}

/* An absolute path of plain components: no empty, "." or ".." one. */
/* A recorded path is far shorter (a debug file under /usr/lib/debug/.build-id is ~80
 * characters, a Nix store path ~200): one of 4,093 characters made 2,000 directories,
 * past PATH_MAX once under the private directory, where their removal stopped. */
#define PIECE_NAME_MAX 1024
#define PIECE_DEPTH_MAX 64

static int name_ok(const char *name, size_t len)
{
	size_t i = 0;
	int depth = 0;

	if (!len || len > PIECE_NAME_MAX || name[0] != '/' || memchr(name, '\0', len))
		return 0;
	while (i < len) {
		size_t j = ++i;

		while (j < len && name[j] != '/')
			j++;
		if (j == i || (j - i == 1 && name[i] == '.') ||
		    (j - i == 2 && name[i] == '.' && name[i + 1] == '.') || ++depth > PIECE_DEPTH_MAX)
			return 0;
		i = j;
	}
	return 1;
}

/* The file name (checked by name_ok) under the directory dfd, its directories made on the
 * way, none followed if it is a symbolic link: an open descriptor, or -errno. */
static int open_under(int dfd, const char *name)
{
	char *copy = strdup(name + 1), *comp = copy, *slash;
	int fd = copy ? dup(dfd) : -1;

	if (fd < 0) {
		free(copy);
		return copy ? -errno : -ENOMEM;
	}
	while (fd >= 0 && (slash = strchr(comp, '/'))) {
		int next = -1;

		*slash = '\0';
		if (!mkdirat(fd, comp, 0700) || errno == EEXIST)
			next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		next = next < 0 ? -errno : next;
		close(fd);
		fd = next;
		comp = slash + 1;
	}
	if (fd >= 0) {
		int f = openat(fd, comp, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

		close(fd);
		fd = f < 0 ? -errno : f;
	}
	free(copy);
	return fd;
}

/* One chunk's piece, checked, written under dfd: 0, or 1 when it was refused. */
static int extract_piece(int dfd, struct libdeflate_decompressor *d, const char *buf, size_t len,
			 struct fol_archive_stats *st)
{
	const char *name = buf + sizeof(struct piece);
	char path[NAME_MAX_LEN];
	struct piece h;
	char *data;
	int fd, bad;

	if (len < sizeof(h))
		return 1;
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, PIECE_MAGIC, 4) || h.name_len >= NAME_MAX_LEN ||
	    len != sizeof(h) + h.name_len + (size_t)h.zlen || h.size > FOL_ARCHIVE_FILE_MAX ||
	    h.len > FOL_ARCHIVE_PIECE || h.offset > h.size || h.len > h.size - h.offset ||
	    !name_ok(name, h.name_len))
		return 1;
	if (h.len > st->limit - st->bytes)
		return -EFBIG;
	memcpy(path, name, h.name_len);
	path[h.name_len] = '\0';
	data = malloc(h.len ? h.len : 1);
	if (!data)
		return -ENOMEM;
	bad = libdeflate_deflate_decompress(d, name + h.name_len, h.zlen, data, h.len, NULL) !=
	      LIBDEFLATE_SUCCESS;
	fd = bad ? -1 : open_under(dfd, path);
	if (!bad && fd >= 0) {
		ssize_t n = ftruncate(fd, (off_t)h.size) ? -1 : pwrite(fd, data, h.len, (off_t)h.offset);

		/* A full disk is the machine's, not the piece's: said as such (ENOSPC was
		 * reported as "27 pieces with a bad name or size"). */
		bad = n < 0 && (errno == ENOSPC || errno == EDQUOT || errno == EIO) ? -errno
		      : n != (ssize_t)h.len;
		close(fd);
	}
	free(data);
	if (fd == -ENOMEM || bad < 0)
		return fd == -ENOMEM ? fd : bad;
	if (bad || fd < 0)
		return 1;
	st->files += !h.offset;
	st->bytes += h.len;
	return 0;
}

/* The default bound of what an archive unpacks under the directory dfd. */
static uint64_t default_limit(const char *archive, int dfd)
{
	uint64_t limit = UINT64_MAX;
	struct statvfs fs;
	struct stat st;

	if (!stat(archive, &st))
		limit = (uint64_t)st.st_size * FOL_ARCHIVE_RATIO + FOL_ARCHIVE_SLACK;
	if (!fstatvfs(dfd, &fs) && (uint64_t)fs.f_bavail * fs.f_frsize / 10 * 9 < limit)
		limit = (uint64_t)fs.f_bavail * fs.f_frsize / 10 * 9;
	return limit;
}

int fol_archive_extract(const char *archive, const char *dir, uint64_t max_bytes,
			struct fol_archive_stats *st)
{
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), seen = 0, ret;
	struct fol_reader *r = NULL;
	const void *buf;
	uint32_t type;
	size_t len;

	memset(st, 0, sizeof(*st));
	ret = !d ? -ENOMEM : dfd < 0 ? -errno : fol_reader_open(&r, archive);
	if (!ret)
		st->limit = max_bytes ? max_bytes : default_limit(archive, dfd);
	while (!ret && (ret = fol_reader_next(r, &type, &buf, &len)) == 1) {
		ret = 0;
		if (type != FOL_CHUNK_ARCHIVE)
			continue;
		seen = 1;
		ret = extract_piece(dfd, d, buf, len, st);
		if (ret > 0) {
			st->refused++;
			ret = 0;
		}
	}
	if (r)
		fol_reader_close(r);
	if (dfd >= 0)
		close(dfd);
	libdeflate_free_decompressor(d);
	return ret < 0 ? ret : seen ? 0 : -FOL_E_NOT_ARCHIVE;
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path) ? -errno : 0;
}

int fol_archive_remove(const char *dir)
{
	int ret = nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);

	return ret > 0 ? 0 : ret < 0 ? (ret == -1 ? -errno : ret) : 0;
}
