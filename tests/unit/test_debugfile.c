// SPDX-License-Identifier: GPL-2.0-only
/* debugfile.c hands libdwfl a debug file with its compressed sections inflated: on a
 * synthetic ELF file, libelf reads the copy's sections as the original's inflated; and no
 * damaged header, cut or overlapping section is read past its bounds (ASan builds). The
 * real files, libc's, are compared against libdwfl itself in test_symtab. */
#include <elf.h>
#include <errno.h>
#include <gelf.h>
#include <libdeflate.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "symbols/debugfile.h"

static const char shstr[] = "\0.debug_line\0.shstrtab\0.note";

/* An ELF file of four sections: null, .debug_line (payload compressed, or not), .shstrtab,
 * and a .note after them whose bytes must stay where they are. */
struct image {
	unsigned char buf[8192];
	size_t len;
	Elf64_Shdr *sh;	/* into buf */
	char payload[3000];
};

static void build(struct image *im, int compress)
{
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(6);
	Elf64_Ehdr eh = { .e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB,
				       EV_CURRENT },
			  .e_type = ET_EXEC, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
			  .e_ehsize = sizeof(eh), .e_shentsize = sizeof(Elf64_Shdr), .e_shnum = 4,
			  .e_shstrndx = 2 };
	Elf64_Chdr ch = { .ch_type = ELFCOMPRESS_ZLIB, .ch_size = sizeof(im->payload), .ch_addralign = 1 };
	Elf64_Shdr sh[4] = { { 0 } };
	size_t pos = sizeof(eh), zlen;

	assert_non_null(c);
	for (size_t i = 0; i < sizeof(im->payload); i++)
		im->payload[i] = (char)("line table "[i % 11] + i / 500);
	memset(im->buf, 0, sizeof(im->buf));
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_PROGBITS, .sh_offset = pos, .sh_addralign = 1 };
	if (compress) {
		sh[1].sh_flags = SHF_COMPRESSED;
		memcpy(im->buf + pos, &ch, sizeof(ch));
		zlen = libdeflate_zlib_compress(c, im->payload, sizeof(im->payload), im->buf + pos + sizeof(ch),
						sizeof(im->buf) / 2);
		assert_true(zlen > 0);
		sh[1].sh_size = sizeof(ch) + zlen;
	} else {
		memcpy(im->buf + pos, im->payload, sizeof(im->payload));
		sh[1].sh_size = sizeof(im->payload);
	}
	pos += sh[1].sh_size;
	sh[2] = (Elf64_Shdr){ .sh_name = 13, .sh_type = SHT_STRTAB, .sh_offset = pos,
			      .sh_size = sizeof(shstr), .sh_addralign = 1 };
	memcpy(im->buf + pos, shstr, sizeof(shstr));
	pos += sizeof(shstr);
	sh[3] = (Elf64_Shdr){ .sh_name = 23, .sh_type = SHT_NOTE, .sh_offset = pos, .sh_size = 8,
			      .sh_addralign = 1 };
	memcpy(im->buf + pos, "KEEPME!!", 8);
	pos += 8;
	pos = (pos + 7) & ~(size_t)7;
	eh.e_shoff = pos;
	memcpy(im->buf, &eh, sizeof(eh));
	memcpy(im->buf + pos, sh, sizeof(sh));
	im->sh = (Elf64_Shdr *)(im->buf + pos);
	im->len = pos + sizeof(sh);
	libdeflate_free_compressor(c);
}

/* The copy, read by libelf: .debug_line inflated and no longer marked compressed, the
 * other sections as they were. */
static void test_inflated(void **state)
{
	struct image im;
	int fd;
	Elf *e;
	Elf_Scn *scn;
	Elf_Data *d;
	GElf_Shdr sh;
	size_t strndx;

	(void)state;
	build(&im, 1);
	fd = fol_debugfile_inflate_image(im.buf, im.len);
	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	assert_int_equal(elf_getshdrstrndx(e, &strndx), 0);
	scn = elf_getscn(e, 1);
	assert_non_null(gelf_getshdr(scn, &sh));
	assert_string_equal(elf_strptr(e, strndx, sh.sh_name), ".debug_line");
	assert_int_equal(sh.sh_flags & SHF_COMPRESSED, 0);
	assert_int_equal(sh.sh_size, sizeof(im.payload));
	d = elf_getdata(scn, NULL);
	assert_non_null(d);
	assert_int_equal(d->d_size, sizeof(im.payload));
	assert_memory_equal(d->d_buf, im.payload, sizeof(im.payload));
	scn = elf_getscn(e, 3);
	assert_non_null(gelf_getshdr(scn, &sh));
	assert_int_equal(sh.sh_offset, im.sh[3].sh_offset);
	d = elf_getdata(scn, NULL);
	assert_memory_equal(d->d_buf, "KEEPME!!", 8);
	elf_end(e);
	close(fd);
}

/* Nothing to inflate, or not an ELF file of this machine: -errno, and the caller reads
 * the file itself. */
static void test_left_alone(void **state)
{
	struct image im;
	Elf64_Ehdr *eh = (Elf64_Ehdr *)im.buf;

	(void)state;
	build(&im, 0);
	assert_int_equal(fol_debugfile_inflate_image(im.buf, im.len), -ENODATA);
	build(&im, 1);
	eh->e_ident[EI_CLASS] = ELFCLASS32;
	assert_true(fol_debugfile_inflate_image(im.buf, im.len) < 0);
	build(&im, 1);
	eh->e_shentsize = 40;
	assert_true(fol_debugfile_inflate_image(im.buf, im.len) < 0);
	assert_true(fol_debugfile_inflate_image("not an ELF file at all, not at all", 34) < 0);
	assert_true(fol_debugfile_inflate_image(im.buf, 10) < 0);
	assert_true(fol_debugfile_inflated(-1) < 0);
}

/* Damaged: a section past the end, sections overlapping, a stated size the data does not
 * inflate to, one too large to believe, a section table past the end. */
static void test_damaged(void **state)
{
	struct image im;
	Elf64_Chdr *ch;

	(void)state;
	build(&im, 1);
	ch = (Elf64_Chdr *)(im.buf + im.sh[1].sh_offset);
	im.sh[1].sh_size = im.len;
	assert_int_equal(fol_debugfile_inflate_image(im.buf, im.len), -EINVAL);
	build(&im, 1);
	im.sh[2].sh_flags = SHF_COMPRESSED;
	im.sh[2].sh_offset = im.sh[1].sh_offset;
	im.sh[2].sh_size = im.sh[1].sh_size;
	assert_int_equal(fol_debugfile_inflate_image(im.buf, im.len), -EINVAL);
	build(&im, 1);
	ch->ch_size += 1;
	assert_int_equal(fol_debugfile_inflate_image(im.buf, im.len), -EINVAL);
	build(&im, 1);
	ch->ch_size -= 1;
	assert_int_equal(fol_debugfile_inflate_image(im.buf, im.len), -EINVAL);
	build(&im, 1);
	ch->ch_size = UINT64_MAX;
	assert_int_equal(fol_debugfile_inflate_image(im.buf, im.len), -EFBIG);
	build(&im, 1);
	im.buf[im.sh[1].sh_offset + sizeof(*ch) + 5] ^= 0x55;
	assert_true(fol_debugfile_inflate_image(im.buf, im.len) < 0);
	build(&im, 1);
	((Elf64_Ehdr *)im.buf)->e_shnum = 400;
	assert_true(fol_debugfile_inflate_image(im.buf, im.len) < 0);
}

/* Every cut of the file: an error or a readable copy, never a read past the cut. */
static void test_cut(void **state)
{
	struct image im;

	(void)state;
	build(&im, 1);
	for (size_t n = 0; n < im.len; n++) {
		unsigned char *p = malloc(n ? n : 1);
		int fd;

		memcpy(p, im.buf, n);
		fd = fol_debugfile_inflate_image(p, n);
		if (fd >= 0)
			close(fd);
		free(p);
	}
}

/* A copy kept: its directories made, the same bytes, nothing else left beside it; and
 * where it cannot be made (a file where a directory should be), nothing at all. */
static void test_keep(void **state)
{
	char dir[] = "/tmp/foliostat-keep.XXXXXX", path[256], cmd[700];
	struct image im;
	struct stat a, b;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	build(&im, 1);
	fd = fol_debugfile_inflate_image(im.buf, im.len);
	assert_true(fd >= 0);
	snprintf(path, sizeof(path), "%s/x/y/z.debug", dir);
	assert_int_equal(fol_debugfile_keep(fd, path), 0);
	assert_int_equal(stat(path, &b), 0);
	assert_int_equal(fstat(fd, &a), 0);
	assert_int_equal(a.st_size, b.st_size);
	snprintf(cmd, sizeof(cmd), "cmp -s /proc/%d/fd/%d %s && test $(ls %s/x/y | wc -l) = 1", (int)getpid(), fd,
		 path, dir);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/x/y/z.debug/under-a-file.debug", dir);
	assert_true(fol_debugfile_keep(fd, path) < 0);
	snprintf(cmd, sizeof(cmd), "test $(ls %s/x/y | wc -l) = 1 && rm -rf %s", dir, dir);
	assert_int_equal(system(cmd), 0);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inflated),
		cmocka_unit_test(test_left_alone),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_keep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
