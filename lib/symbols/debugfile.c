// SPDX-License-Identifier: GPL-2.0-only
/*
 * The inflated copy is written by hand, not with libelf's writer: libelf inflates
 * compressed sections with zlib itself (the cost avoided here) and lays every section out
 * anew. Here the inflated sections and a new section header table are appended to the
 * file as it was, which keeps every other offset, program headers included, valid.
 */
#include "symbols/debugfile.h"

#include "util/cache.h"

#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Stated inflated sizes past this, alone or together, are not believed (libc's debug file
 * inflates to 10 MB). */
#define INFLATED_MAX (1ull << 31)

#if __BYTE_ORDER == __LITTLE_ENDIAN
#define NATIVE_DATA ELFDATA2LSB
#else
#define NATIVE_DATA ELFDATA2MSB
#endif

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* A section to inflate: where its compressed bytes are and where they go. */
struct zsec {
	size_t index, off, len;	/* in the image: header included */
	size_t to, size;	/* in the copy */
	uint64_t align;
};

static int by_offset(const void *a, const void *b)
{
	const struct zsec *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* The section headers of a 64-bit ELF image of this machine's byte order, copied. */
static Elf64_Shdr *section_headers(const unsigned char *p, size_t len, size_t *n)
{
	Elf64_Ehdr eh;
	Elf64_Shdr *sh;

	if (len < sizeof(eh))
		return NULL;
	memcpy(&eh, p, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != NATIVE_DATA || eh.e_shentsize != sizeof(*sh) || !eh.e_shnum ||
	    eh.e_shoff > len || eh.e_shnum > (len - eh.e_shoff) / sizeof(*sh))
		return NULL;
	sh = malloc(eh.e_shnum * sizeof(*sh));
	if (sh)
		memcpy(sh, p + eh.e_shoff, eh.e_shnum * sizeof(*sh));
	*n = eh.e_shnum;
	return sh;
}

/* The zlib-compressed sections of the image, sorted by offset, their copies placed from
 * `at` on: how many, or -errno. */
static ssize_t plan(const unsigned char *p, size_t len, const Elf64_Shdr *sh, size_t n,
		    struct zsec *z, size_t *at)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		Elf64_Chdr ch;

		if (!(sh[i].sh_flags & SHF_COMPRESSED) || sh[i].sh_type == SHT_NOBITS)
			continue;
		if (sh[i].sh_offset > len || sh[i].sh_size > len - sh[i].sh_offset ||
		    sh[i].sh_size < sizeof(ch))
			return -EINVAL;
		memcpy(&ch, p + sh[i].sh_offset, sizeof(ch));
		if (ch.ch_type != ELFCOMPRESS_ZLIB)
			continue; /* left for libelf */
		if (ch.ch_size > INFLATED_MAX || *at > INFLATED_MAX)
			return -EFBIG;
		z[k] = (struct zsec){ i, sh[i].sh_offset, sh[i].sh_size, *at, ch.ch_size,
				      ch.ch_addralign };
		*at += align8(ch.ch_size);
		k++;
	}
	qsort(z, k, sizeof(*z), by_offset);
	for (size_t i = 1; i < k; i++)
		if (z[i].off < z[i - 1].off + z[i - 1].len)
			return -EINVAL; /* overlapping sections */
	return (ssize_t)k;
}

/* The copy: the image's bytes outside its compressed sections (those stay holes, never
 * touched), the sections inflated after it, then the new section headers. */
static int fill(unsigned char *out, const unsigned char *p, size_t len, Elf64_Shdr *sh,
		size_t n, const struct zsec *z, size_t k, size_t shoff)
{
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	size_t from = 0;
	Elf64_Ehdr eh;

	if (!d)
		return -ENOMEM;
	for (size_t i = 0; i < k; i++) {
		memcpy(out + from, p + from, z[i].off - from);
		from = z[i].off + z[i].len;
		if (libdeflate_zlib_decompress(d, p + z[i].off + sizeof(Elf64_Chdr),
					       z[i].len - sizeof(Elf64_Chdr), out + z[i].to,
					       z[i].size, NULL) != LIBDEFLATE_SUCCESS) {
			libdeflate_free_decompressor(d);
			return -EINVAL;
		}
		sh[z[i].index].sh_offset = z[i].to;
		sh[z[i].index].sh_size = z[i].size;
		sh[z[i].index].sh_flags &= ~(uint64_t)SHF_COMPRESSED;
		sh[z[i].index].sh_addralign = z[i].align;
	}
	libdeflate_free_decompressor(d);
	memcpy(out + from, p + from, len - from);
	memcpy(out + shoff, sh, n * sizeof(*sh));
	memcpy(&eh, out, sizeof(eh));
	eh.e_shoff = shoff;
	memcpy(out, &eh, sizeof(eh));
	return 0;
}

int fol_debugfile_inflate_image(const void *image, size_t len)
{
	const unsigned char *p = image;
	size_t n = 0, at = align8(len), total;
	Elf64_Shdr *sh = section_headers(p, len, &n);
	struct zsec *z = sh ? malloc(n * sizeof(*z)) : NULL;
	ssize_t k = z ? plan(p, len, sh, n, z, &at) : -EINVAL;
	unsigned char *out = MAP_FAILED;
	int fd = -1, ret = k < 0 ? (int)k : k == 0 ? -ENODATA : 0;

	total = at + n * sizeof(Elf64_Shdr);
	if (!ret && (fd = memfd_create("foliostat-debuginfo", MFD_CLOEXEC)) < 0)
		ret = -errno;
	if (!ret && ftruncate(fd, (off_t)total))
		ret = -errno;
	if (!ret && (out = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED)
		ret = -errno;
	if (!ret)
		ret = fill(out, p, len, sh, n, z, (size_t)k, at);
	if (out != MAP_FAILED)
		munmap(out, total);
	if (ret && fd >= 0)
		close(fd);
	free(z);
	free(sh);
	return ret ? ret : fd;
}

int fol_debugfile_inflated(int fd)
{
	struct stat st;
	void *p;
	int ret;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr))
		return -EINVAL;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	ret = fol_debugfile_inflate_image(p, (size_t)st.st_size);
	munmap(p, (size_t)st.st_size);
	return ret;
}

/* The data of in (its holes skipped, SEEK_DATA) into out at the same offsets. */
static int copy_data(int in, int out, off_t size)
{
	char buf[1 << 16];
	off_t at = 0;

	while (at < size) {
		off_t data = lseek(in, at, SEEK_DATA), hole;

		if (data < 0)
			return errno == ENXIO ? 0 : -errno;
		hole = lseek(in, data, SEEK_HOLE);
		if (hole < 0)
			return -errno;
		for (at = data; at < hole;) {
			size_t want = (size_t)(hole - at) < sizeof(buf) ? (size_t)(hole - at) : sizeof(buf);
			ssize_t n = pread(in, buf, want, at);

			if (n <= 0)
				return n < 0 ? -errno : -EIO;
			ssize_t w = pwrite(out, buf, (size_t)n, at);

			if (w != n)
				return w < 0 ? -errno : -EIO;
			at += n;
		}
	}
	return 0;
}

int fol_debugfile_keep(int inflated, const char *path)
{
	char tmp[PATH_MAX];
	struct stat st;
	int out;

	if (fstat(inflated, &st))
		return -errno;
	out = fol_cache_begin(path, tmp, sizeof(tmp));
	if (out < 0)
		return out;
	return fol_cache_end(out, tmp, path,
			     ftruncate(out, st.st_size) ? -errno : copy_data(inflated, out, st.st_size));
}
