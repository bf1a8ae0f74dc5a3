// SPDX-License-Identifier: GPL-2.0-only
/* symtab.c names code addresses without libdwfl's linear search, and must name them as
 * libdwfl does: on real files (this machine's libc, libm, and the large C++ libraries
 * with sizeless aliases and stripped static code where present), every sampled offset of
 * their code looked up through fol_symbols_lookup against dwfl_module_addrinfo directly.
 * And the rule on a synthetic table. */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "symbols/symbols.h"
#include "symbols/symtab.h"

static const Dwfl_Callbacks cb = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* libdwfl's own source line for addr, formatted as fol_symbols_lookup does. */
static void dwfl_src(Dwfl_Module *mod, Dwarf_Addr addr, char *src, size_t len)
{
	Dwfl_Line *line = dwfl_module_getsrc(mod, addr);
	int lineno = 0;
	const char *file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
	const char *base = file ? strrchr(file, '/') : NULL;

	src[0] = '\0';
	if (file)
		snprintf(src, len, "%s:%d", base ? base + 1 : file, lineno);
}

/* libdwfl's own answer for file offset off, formatted as fol_symbols_lookup does, and
 * its source line. */
static int dwfl_answer(Dwfl_Module *mod, uint64_t off, const char *path, char *out, size_t len,
		       char *src, size_t srclen)
{
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	size_t n;

	snprintf(out, len, "%s+0x%" PRIx64, path, off);
	if (!elf || elf_getphdrnum(elf, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && off >= ph.p_offset &&
		    off < ph.p_offset + ph.p_filesz) {
			GElf_Off soff;
			GElf_Sym s;
			const char *name = dwfl_module_addrinfo(mod, off - ph.p_offset + ph.p_vaddr + bias, &soff, &s,
							       NULL, NULL, NULL);

			if (!name)
				return -1;
			snprintf(out, len, "%s+0x%" PRIx64, name, (uint64_t)soff);
			dwfl_src(mod, off - ph.p_offset + ph.p_vaddr + bias, src, srclen);
			return 0;
		}
	}
	return -1;
}

/* Every step-th offset of path's executable segments, at most max: the two answers,
 * source lines included (libdwfl reading the distribution's compressed debug file itself;
 * symbols.c, through debugfile.c, its copy inflated). How many had a line: *lines. */
static int compare_file(const char *path, uint64_t step, int max, int *lines)
{
	Dwfl *dwfl = dwfl_begin(&cb);
	int fd = open(path, O_RDONLY), checked = 0;
	Dwfl_Module *mod = fd >= 0 ? dwfl_report_offline(dwfl, path, path, fd) : NULL;
	struct fol_symbols_cache *c = fol_symbols_new(NULL, NULL, 0);
	Dwarf_Addr bias;
	Elf *elf;
	size_t n;

	if (!mod) {
		dwfl_end(dwfl);
		fol_symbols_free(c);
		return 0;
	}
	dwfl_report_end(dwfl, NULL, NULL);
	elf = dwfl_module_getelf(mod, &bias);
	assert_non_null(c);
	assert_int_equal(elf_getphdrnum(elf, &n), 0);
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		for (uint64_t off = ph.p_offset; off < ph.p_offset + ph.p_filesz && checked < max; off += step) {
			char want[512], got[512], wsrc[256] = "", gsrc[256];
			int w = dwfl_answer(mod, off, path, want, sizeof(want), wsrc, sizeof(wsrc));
			int g = fol_symbols_lookup(c, path, NULL, 0, off, got, sizeof(got), gsrc, sizeof(gsrc));

			if ((w == 0) != (g == 0) || strcmp(want, got) || (!w && strcmp(wsrc, gsrc)))
				fail_msg("%s+0x%" PRIx64 ": symbols.c says %s %s (%d), libdwfl %s %s (%d)", path, off,
					 got, gsrc, g, want, wsrc, w);
			*lines += !w && wsrc[0];
			checked++;
		}
	}
	dwfl_end(dwfl);
	fol_symbols_free(c);
	return checked;
}

static int found_lib(struct dl_phdr_info *info, size_t size, void *data)
{
	const char **want = data;

	(void)size;
	if (strstr(info->dlpi_name, want[0]))
		want[1] = strdup(info->dlpi_name);
	return want[1] != NULL;
}

/* The path this process loaded a library from (libc: "libc.so"). */
static char *loaded(const char *name)
{
	const char *want[2] = { name, NULL };

	dl_iterate_phdr(found_lib, want);
	return (char *)want[1];
}

static void test_like_libdwfl(void **state)
{
	const char *big[] = { "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1", "/usr/lib/llvm-14/lib/libclang-cpp.so.14",
			      "/usr/lib/aarch64-linux-gnu/libLLVM-14.so.1" };
	char *libc = loaded("libc.so"), *libm = loaded("libm.so");
	int n = 0, k, lines = 0;

	char cache[] = "/tmp/foliostat-test-cache.XXXXXX", kept[256];
	struct stat st;

	(void)state;
	assert_non_null(libc);
	/* The inflated debug files are kept in a cache of this test's own. */
	assert_non_null(mkdtemp(cache));
	setenv("XDG_CACHE_HOME", cache, 1);
	/* Small steps over libc: every function, its aliases, its sizeless labels. */
	n += k = compare_file(libc, 97, 20000, &lines);
	print_message("# %s: %d offsets, %d with a source line\n", libc, k, lines);
	/* libc6-dbg (make deps) holds libc's lines, its DWARF compressed. */
	if (lines <= k / 2)
		fail_msg("%d of %d libc offsets with a source line: is libc6-dbg (make deps) libc's version?",
			 lines, k);
	/* ... and its copy, kept, names them the same the next time. */
	snprintf(kept, sizeof(kept), "%s/foliostat/debug", cache);
	assert_int_equal(stat(kept, &st), 0);
	lines = 0;
	k = compare_file(libc, 997, 2000, &lines);
	print_message("# %s again, from the kept copy: %d offsets, %d with a source line\n", libc, k, lines);
	assert_true(lines > k / 2);
	snprintf(kept, sizeof(kept), "rm -rf %s", cache);
	assert_int_equal(system(kept), 0);
	unsetenv("XDG_CACHE_HOME");
	if (libm) {
		n += k = compare_file(libm, 37, 8000, &lines);
		print_message("# %s: %d offsets\n", libm, k);
	}
	/* Large C++ libraries (dynsym only): thousands of bytes apart. */
	for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++)
		if (access(big[i], R_OK) == 0) {
			n += k = compare_file(big[i], 40009, 300, &lines);
			print_message("# %s: %d offsets\n", big[i], k);
		}
	print_message("# %d offsets named as libdwfl names them\n", n);
	assert_true(n > 10000);
	free(libc);
	free(libm);
}

/* No file there: the name is its path and offset, as snprintf() writes it, cut to fit. */
static void test_no_file(void **state)
{
	struct fol_symbols_cache *c = fol_symbols_new(NULL, NULL, 0);
	const char *path = "/nonexistent/lib.so";
	const uint64_t offs[] = { 0, 0x9, 0x1a2b3c, UINT64_MAX };

	(void)state;
	assert_non_null(c);
	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
		for (size_t len = 1; len < 48; len++) {
			char got[48], want[48];

			memset(got, 'x', sizeof(got));
			assert_int_equal(fol_symbols_lookup(c, path, NULL, 0, offs[i], got, len, NULL, 0), -ENOENT);
			snprintf(want, len, "%s+0x%" PRIx64, path, offs[i]);
			assert_string_equal(got, want);
		}
	fol_symbols_free(c);
}

/* The rule: a nearer start or a stronger binding wins only with the other; else ask. */
static void test_rule(void **state)
{
	const struct fol_sym v[] = {
		{ 0x1000, 0x100, 3, 5, 1, "outer" },	/* global, holds 0x1000-0x10ff */
		{ 0x1040, 0x20, 3, 6, 1, "inner" },	/* global, nearer */
		{ 0x1080, 0x40, 1, 7, 1, "local" },	/* nearer but local: ask */
		{ 0x2000, 0x10, 3, 8, 1, "a" },
		{ 0x2000, 0x10, 3, 9, 1, "b" },		/* an alias: the first in the table */
		{ 0x2000, 0x8, 3, 10, 1, "small" },	/* same start, smaller: it */
		{ 0x3000, 0, 3, 11, 1, "label" },	/* sizeless at 0x3000 */
		{ 0x10f0, 0, 3, 12, 1, "inside" },	/* sizeless, inside "outer" */
	};
	struct fol_symtab *t = fol_symtab_from(v, sizeof(v) / sizeof(v[0]), 0);
	const struct fol_sym *s;

	(void)state;
	assert_non_null(t);
	assert_int_equal(fol_symtab_find(t, 0x1010, 1, &s), 1);
	assert_string_equal(s->name, "outer");
	assert_int_equal(fol_symtab_find(t, 0x1050, 1, &s), 1);
	assert_string_equal(s->name, "inner");
	assert_int_equal(fol_symtab_find(t, 0x1090, 1, &s), 0);
	assert_int_equal(fol_symtab_find(t, 0x2004, 1, &s), 1);
	assert_string_equal(s->name, "small");
	assert_int_equal(fol_symtab_find(t, 0x200c, 1, &s), 1);
	assert_string_equal(s->name, "a");
	assert_int_equal(fol_symtab_find(t, 0x3000, 1, &s), 0);	/* a label at addr */
	assert_int_equal(fol_symtab_find(t, 0x10f0, 1, &s), 0);	/* ... even inside a function */
	assert_int_equal(fol_symtab_find(t, 0x10f8, 1, &s), 1);	/* past it, the function's */
	assert_string_equal(s->name, "outer");
	assert_int_equal(fol_symtab_find(t, 0x3010, 1, &s), 0);	/* a label of its section below */
	assert_int_equal(fol_symtab_find(t, 0x3010, 2, &s), -1);	/* another section's */
	assert_int_equal(fol_symtab_find(t, 0x2800, 1, &s), -1);	/* nothing holds it */
	assert_true(fol_symtab_stretch(t, 0x2800) != UINT64_MAX);
	assert_int_equal(fol_symtab_stretch(t, 0x2800), fol_symtab_stretch(t, 0x2900));
	assert_true(fol_symtab_stretch(t, 0x1010) == UINT64_MAX);
	fol_symtab_free(t);
}

/* libdwfl searches the globals (from first_global) first: a local that wins by start
 * and binding is its answer only when no global holds the address; and a label that a
 * symbol before it (in its phase) ends past is never taken. */
static void test_phases(void **state)
{
	const struct fol_sym v[] = {
		{ 0x1000, 0x100, 1, 1, 1, "loc" },	/* a local, before first_global */
		{ 0x1040, 0x20, 1, 2, 1, "inner" },	/* local too, nearer */
		{ 0x1000, 0x200, 1, 3, 1, "after" },	/* local binding, searched with globals */
		{ 0x2000, 0x100, 3, 4, 1, "f" },	/* a global function */
		{ 0x2010, 0, 3, 5, 1, "alias" },	/* a label inside it, after it: never taken */
		{ 0x3000, 0, 1, 0, 1, "early" },	/* a label before all (index 0) */
	};
	struct fol_symtab *t = fol_symtab_from(v, sizeof(v) / sizeof(v[0]), 3);
	const struct fol_sym *s;

	(void)state;
	assert_non_null(t);
	/* "inner" wins by start and binding, but "after" is searched first and holds it. */
	assert_int_equal(fol_symtab_find(t, 0x1050, 1, &s), 0);
	assert_int_equal(fol_symtab_find(t, 0x1150, 1, &s), 1);
	assert_string_equal(s->name, "after");
	/* Past "f": nothing holds it; "alias" cannot be taken ("f" is before it and ends past
	 * it), "early" is above. */
	assert_int_equal(fol_symtab_find(t, 0x2200, 1, &s), -1);
	assert_int_equal(fol_symtab_find(t, 0x3100, 1, &s), 0);	/* "early" may be taken */
	fol_symtab_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule),
		cmocka_unit_test(test_no_file),
		cmocka_unit_test(test_phases),
		cmocka_unit_test(test_like_libdwfl),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
