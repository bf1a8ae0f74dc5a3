// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: ELF files as an archive unpacks them under a symfs, looked up by the report
 * (symbols.c, debugsearch.c): a binary, its debug file, a dwz file, the input's three parts
 * between "FOLS" markers, each mutated with its .gnu_debuglink, .gnu_debugaltlink and
 * build-id notes. FIFOs wait outside the symfs (where the seeds' hostile links point) and
 * inside it: opening one blocks for good, so a search that leaves the symfs or opens what
 * is not a regular file is a timeout. Seeds: make's build-fuzz/seeds/debuglink/. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "symbols/symbols.h"
#include "harness.h"

#define OUTSIDE "/tmp/foliostat-fuzz-outside"

static char root[64];

static void cleanup(void)
{
	static const char *const made[] = { "/bin/fifo.debug", "/bin/.debug", "/bin", "" };
	char p[128];

	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", root, made[i]);
		remove(p);
	}
}

static void once(void)
{
	char p[128];

	setenv("FOLIOSTAT_NO_CACHE", "1", 1);
	mkdir(OUTSIDE, 0755);
	mkfifo(OUTSIDE "/fifo", 0644);
	mkfifo(OUTSIDE "/m.debug", 0644);
	snprintf(root, sizeof(root), "/tmp/foliostat-fuzz-dl.%d", getpid());
	mkdir(root, 0755);
	snprintf(p, sizeof(p), "%s/bin", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/bin/.debug", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/bin/fifo.debug", root);
	mkfifo(p, 0644);
	atexit(cleanup);
}

static void put_file(const char *rel, const uint8_t *p, size_t n)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w <= 0)
			break;
		p += w;
		n -= (size_t)w;
	}
	close(fd);
}

static void drop_file(const char *rel)
{
	char path[128];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const where[] = { "/bin/m", "/bin/.debug/m.debug", "/alt.dwz" };
	static const uint64_t offs[] = { 0, 0x40, 0x1000, 0x1040, 0x1100, 0x1180, 0x2000 };
	struct fol_symbols_cache *c;
	const uint8_t *p = data, *end = data + size;

	if (!root[0])
		once();
	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		const uint8_t *m = memmem(p, (size_t)(end - p), "FOLS", 4);
		const uint8_t *stop = m ? m : end;

		put_file(where[i], p, (size_t)(stop - p));
		p = m ? m + 4 : end;
	}
	c = fol_symbols_new(NULL, root, 0);
	for (size_t i = 0; c && i < sizeof(offs) / sizeof(offs[0]); i++) {
		char sym[256], src[256];

		fol_symbols_lookup(c, "/bin/m", NULL, 0, offs[i], sym, sizeof(sym), src, sizeof(src));
	}
	fol_symbols_free(c);
	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++)
		drop_file(where[i]);
	return 0;
}
