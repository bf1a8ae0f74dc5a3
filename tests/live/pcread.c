// SPDX-License-Identifier: GPL-2.0-only
/* live 18's reader: maps each FILE privately, reads a byte of each page in order (file
 * faults on pages in the page cache), then prints where it mapped each and the order of
 * the folio behind each of its pages, from its own page tables (/proc/self/pagemap) and
 * /proc/kpageflags, as the kernel's tools/mm/thpmaps reads them:
 *   map PATH START PAGES
 *   ORDER (one line a page; -1: not mapped)
 * Then it waits for a line on standard input (or its end), the mappings still in place. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define KPF_HEAD (1ull << 15)
#define KPF_TAIL (1ull << 16)

static int pagemap, kpageflags;

static uint64_t word(int fd, uint64_t i)
{
	uint64_t v = 0;

	if (pread(fd, &v, sizeof(v), (off_t)(i * sizeof(v))) != sizeof(v))
		return 0;
	return v;
}

/* The order of the folio holding frame pfn: its head found, its tails counted. */
static int order_of(uint64_t pfn)
{
	uint64_t f = word(kpageflags, pfn), head = pfn, n = 1;
	int order = 0;

	if (!(f & (KPF_HEAD | KPF_TAIL)))
		return 0;
	while ((word(kpageflags, head) & KPF_TAIL) && pfn - head < 4096)
		head--;
	while ((word(kpageflags, head + n) & KPF_TAIL) && n < 8192)
		n++;
	while ((1ull << order) < n)
		order++;
	return order;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile unsigned sum = 0;

	pagemap = open("/proc/self/pagemap", O_RDONLY);
	kpageflags = open("/proc/kpageflags", O_RDONLY);
	if (pagemap < 0 || kpageflags < 0)
		return perror("pagemap, kpageflags"), 1;
	for (int a = 1; a < argc; a++) {
		int fd = open(argv[a], O_RDONLY);
		struct stat st;
		char *p;
		uint64_t pages;

		if (fd < 0 || fstat(fd, &st) < 0)
			return perror(argv[a]), 1;
		pages = (uint64_t)st.st_size / (uint64_t)page;
		p = mmap(NULL, pages * page, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED)
			return perror("mmap"), 1;
		for (uint64_t i = 0; i < pages; i++)
			sum += (unsigned char)p[i * page];
		printf("map %s %#lx %llu\n", argv[a], (unsigned long)p, (unsigned long long)pages);
		for (uint64_t i = 0; i < pages; i++) {
			uint64_t e = word(pagemap, (uintptr_t)(p + i * page) / page);

			printf("%d\n", (e >> 63) && (e & ((1ull << 55) - 1)) ? order_of(e & ((1ull << 55) - 1)) : -1);
		}
	}
	fflush(stdout);
	(void)getchar();
	return 0;
}
