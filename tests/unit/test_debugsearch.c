// SPDX-License-Identifier: GPL-2.0-only
/* Separate debug files looked for under a symfs only (debugsearch.h): this test's own
 * binary, stripped by objcopy and given hostile .gnu_debuglink and .gnu_debugaltlink
 * sections, looked up under a symfs next to a directory outside it. */
#include <errno.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "symbols/symbols.h"

static char top[] = "/tmp/foliostat-debugsearch.XXXXXX";
static char self[4096];

/* What the lookups name: a function only the full symbol table knows. */
static __attribute__((noinline)) int debugsearch_marker(int x)
{
	return x * 3 + 1;
}

static void run(const char *fmt, ...)
{
	char cmd[16384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd))
		fail_msg("failed: %s", cmd);
}

static uint32_t file_crc(const char *path)
{
	static char buf[1 << 16];
	uint32_t crc = 0;
	int fd = open(path, O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		crc = libdeflate_crc32(crc, buf, (size_t)n);
	close(fd);
	return crc;
}

/* A section's contents in a file: bytes, NUL, padding to 4, then tail (tlen bytes). */
static void section_file(const char *path, const char *bytes, const void *tail, size_t tlen)
{
	size_t n = strlen(bytes) + 1;
	FILE *f = fopen(path, "w");
	static const char zero[4];

	assert_non_null(f);
	fwrite(bytes, 1, n, f);
	fwrite(zero, 1, (4 - n % 4) % 4, f);
	fwrite(tail, 1, tlen, f);
	assert_int_equal(fclose(f), 0);
}

/* This binary under root as /bin/NAME: stripped, no build-id, its debug link saying link
 * with the CRC of the file at crc_of. */
static void stripped(const char *name, const char *link, const char *crc_of)
{
	char sec[4200];
	uint32_t crc = file_crc(crc_of);

	snprintf(sec, sizeof(sec), "%s/link.bin", top);
	section_file(sec, link, &crc, sizeof(crc));
	run("objcopy --strip-all --remove-section=.note.gnu.build-id --remove-section=.gnu_debuglink "
	    "--add-section .gnu_debuglink=%s '%s' '%s/root/bin/%s'", sec, self, top, name);
}

static int found_self(struct dl_phdr_info *info, size_t size, void *data)
{
	uint64_t *off = data;
	uint64_t vaddr = (uint64_t)(uintptr_t)debugsearch_marker - info->dlpi_addr;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && vaddr >= ph->p_vaddr && vaddr < ph->p_vaddr + ph->p_filesz)
			*off = vaddr - ph->p_vaddr + ph->p_offset;
	}
	return 1; /* the first object is the program */
}

/* What the symfs's /bin/NAME says of the marker's offset: 1 when it is named. */
static int named(const char *name)
{
	char root[4200], path[300], sym[512], src[512];
	struct fol_symbols_cache *c;
	uint64_t off = 0;

	dl_iterate_phdr(found_self, &off);
	assert_true(off > 0);
	snprintf(root, sizeof(root), "%s/root", top);
	snprintf(path, sizeof(path), "/bin/%s", name);
	c = fol_symbols_new(NULL, root, 0);
	assert_non_null(c);
	fol_symbols_lookup(c, path, NULL, 0, off, sym, sizeof(sym), src, sizeof(src));
	fol_symbols_free(c);
	return !strncmp(sym, "debugsearch_marker", 18);
}

static int setup(void **state)
{
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	(void)state;
	if (n <= 0 || !mkdtemp(top))
		return -1;
	self[n] = 0;
	setenv("FOLIOSTAT_NO_CACHE", "1", 1);
	run("mkdir -p %s/root/bin/.debug %s/outside && mkfifo %s/outside/fifo %s/root/bin/fifo.debug", top,
	    top, top, top);
	run("objcopy --only-keep-debug '%s' %s/outside/evil.debug", self, top);
	run("cp %s/outside/evil.debug %s/root/bin/.debug/good.debug", top, top);
	/* A FIFO blocks its opener until a writer comes: none ever will. */
	alarm(60);
	return debugsearch_marker(0) - 1;
}

static int teardown(void **state)
{
	(void)state;
	alarm(0);
	run("rm -rf %s", top);
	return 0;
}

/* A bare debug link is found in the file's .debug/ under the symfs. */
static void test_link_found(void **state)
{
	char debug[4200];

	(void)state;
	snprintf(debug, sizeof(debug), "%s/root/bin/.debug/good.debug", top);
	stripped("good", "good.debug", debug);
	assert_true(named("good"));
	/* ... and not with another file's CRC. */
	stripped("badcrc", "good.debug", self);
	run("cp %s %s/root/bin/.debug/badcrc.debug", debug, top);
	assert_false(named("badcrc"));
}

/* "../" twelve times and a path: libdwfl's own search joined it to the file's directory
 * and opened the debug file outside the symfs (which named the marker). */
static void test_link_escape(void **state)
{
	char link[4300], debug[4200];

	(void)state;
	snprintf(debug, sizeof(debug), "%s/outside/evil.debug", top);
	snprintf(link, sizeof(link), "../../../../../../../../../../../..%s", debug);
	stripped("evil", link, debug);
	assert_false(named("evil"));
	/* A link is a file name (binutils writes the debug file's basename): one with a
	 * directory in it is refused even where it stays under the symfs. */
	snprintf(debug, sizeof(debug), "%s/root/bin/.debug/good.debug", top);
	stripped("sub", ".debug/good.debug", debug);
	assert_false(named("sub"));
	/* A FIFO named by a bare link, under the symfs: not opened, nothing blocks. */
	stripped("fifo", "fifo.debug", self);
	assert_false(named("fifo"));
}

/* A debug file's .gnu_debugaltlink naming a FIFO outside the symfs, absolute and by "..":
 * libdwfl's search opened it and blocked. The debug file itself is still used. */
static void test_altlink_escape(void **state)
{
	static const char *alts[] = { "%s/outside/fifo", "../../../../../../../../../../../..%s/outside/fifo" };
	static const uint8_t bid[20] = { 0xfe, 0xed };

	(void)state;
	for (size_t i = 0; i < sizeof(alts) / sizeof(alts[0]); i++) {
		char alt[4300], sec[4200], debug[4200];

		snprintf(alt, sizeof(alt), alts[i], top);
		snprintf(sec, sizeof(sec), "%s/alt.bin", top);
		snprintf(debug, sizeof(debug), "%s/root/bin/.debug/alt.debug", top);
		section_file(sec, alt, bid, sizeof(bid));
		run("objcopy --remove-section=.gnu_debugaltlink --add-section .gnu_debugaltlink=%s "
		    "%s/outside/evil.debug %s", sec, top, debug);
		stripped("alt", "alt.debug", debug);
		assert_true(named("alt"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_found),
		cmocka_unit_test(test_link_escape),
		cmocka_unit_test(test_altlink_escape),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
