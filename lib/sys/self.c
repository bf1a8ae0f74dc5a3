// SPDX-License-Identifier: GPL-2.0-only
#include "sys/self.h"

#include "util/u64map.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static int resident(struct fol_self *s)
{
	FILE *f = fopen("/proc/self/statm", "re");
	unsigned long long size, pages;
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%llu %llu", &size, &pages) == 2;
	fclose(f);
	if (!ok)
		return -EINVAL;
	s->resident_bytes = pages * (uint64_t)sysconf(_SC_PAGESIZE);
	return 0;
}

/* A descriptor's fdinfo: a BPF map's says map_type, map_id and memlock (the kernel's
 * memory of the map: its map_mem_usage since 6.4, the size reserved before). */
static void map_of(int dirfd, const char *name, struct fol_u64map *seen, struct fol_self *s)
{
	char line[256];
	unsigned long long id = 0, memlock = 0;
	int is_map = 0, fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "re");
	int created = 0;

	if (!f) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		is_map |= !strncmp(line, "map_type:", 9);
		sscanf(line, "map_id: %llu", &id);
		sscanf(line, "memlock: %llu", &memlock);
	}
	fclose(f);
	if (!is_map || !fol_u64map_put(seen, id, &created) || !created)
		return;
	s->bpf_maps++;
	s->bpf_map_bytes += memlock;
}

static int bpf_maps(struct fol_self *s)
{
	DIR *d = opendir("/proc/self/fdinfo");
	struct fol_u64map *seen = fol_u64map_new(1);
	struct dirent *e;
	int ret = 0;

	if (!d || !seen) {
		ret = d ? -ENOMEM : -errno;
		goto out;
	}
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			map_of(dirfd(d), e->d_name, seen, s);
out:
	if (d)
		closedir(d);
	fol_u64map_free(seen);
	return ret;
}

int fol_self_read(struct fol_self *s)
{
	struct mallinfo2 mi = mallinfo2();
	struct rusage ru;
	int ret = 0, r;

	memset(s, 0, sizeof(*s));
	s->heap_in_use_bytes = mi.uordblks + mi.hblkhd;
	s->heap_free_bytes = mi.fordblks;
	if (!getrusage(RUSAGE_SELF, &ru))
		s->cpu_seconds = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
				 (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	if ((r = resident(s)))
		ret = r;
	if ((r = bpf_maps(s)) && !ret)
		ret = r;
	return ret;
}
