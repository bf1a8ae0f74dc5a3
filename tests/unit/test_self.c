// SPDX-License-Identifier: GPL-2.0-only
/* What serve says of its own memory (sys/self.h), against what the test did to it: a
 * malloc'ed and touched block grows the heap in use and the resident memory by its size,
 * freed it leaves; a BPF map created here is counted once (twice open), with at least its
 * entries' bytes (needs root: skipped without). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/bpf.h>
#include <sys/syscall.h>

#include "sys/self.h"

#define BLOCK (32u << 20)

/* Under AddressSanitizer malloc is its allocator, not glibc's: mallinfo2 does not see it
 * (serve is never built so for users). */
#ifdef __SANITIZE_ADDRESS__
#define MALLINFO_SEES_MALLOC 0
#else
#define MALLINFO_SEES_MALLOC 1
#endif

static void test_heap(void **state)
{
	struct fol_self before, held, after;
	char *p;

	(void)state;
	assert_int_equal(fol_self_read(&before), 0);
	p = malloc(BLOCK);
	assert_non_null(p);
	memset(p, 1, BLOCK);
	assert_int_equal(fol_self_read(&held), 0);
	assert_true(held.resident_bytes >= before.resident_bytes + BLOCK - (BLOCK >> 3));
	assert_true(held.cpu_seconds > 0);
	free(p);
	assert_int_equal(fol_self_read(&after), 0);
	if (!MALLINFO_SEES_MALLOC)
		return;
	assert_true(held.heap_in_use_bytes >= before.heap_in_use_bytes + BLOCK);
	assert_true(after.heap_in_use_bytes < held.heap_in_use_bytes - BLOCK + (BLOCK >> 3));
}

/* Through the system call: the cross build has no libbpf. */
static int array_map(unsigned value_size, unsigned entries)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = value_size;
	a.max_entries = entries;
	return (int)syscall(SYS_bpf, BPF_MAP_CREATE, &a, sizeof(a));
}

static void test_bpf_map(void **state)
{
	struct fol_self before, open1, open2, closed;
	int fd, dup_fd;

	(void)state;
	assert_int_equal(fol_self_read(&before), 0);
	fd = array_map(1024, 4096);
	if (fd < 0) {
		print_message("# skipped: no BPF map could be made (%s)\n", strerror(errno));
		skip();
	}
	assert_int_equal(fol_self_read(&open1), 0);
	assert_int_equal(open1.bpf_maps, before.bpf_maps + 1);
	assert_true(open1.bpf_map_bytes >= before.bpf_map_bytes + 4096u * 1024u);
	dup_fd = dup(fd);
	assert_true(dup_fd >= 0);
	assert_int_equal(fol_self_read(&open2), 0);
	assert_int_equal(open2.bpf_maps, open1.bpf_maps);
	assert_int_equal(open2.bpf_map_bytes, open1.bpf_map_bytes);
	close(dup_fd);
	close(fd);
	assert_int_equal(fol_self_read(&closed), 0);
	assert_int_equal(closed.bpf_maps, before.bpf_maps);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_heap),
		cmocka_unit_test(test_bpf_map),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
