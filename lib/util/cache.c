// SPDX-License-Identifier: GPL-2.0-only
#include "util/cache.h"
#include "util/grow.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int fol_cache_path(const char *kind, const char *name, char *out, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;

	if (getenv("FOLIOSTAT_NO_CACHE"))
		return -1;
	if (xdg && xdg[0] == '/')
		n = snprintf(out, len, "%s/foliostat/%s/%s", xdg, kind, name);
	else if (home && home[0] == '/')
		n = snprintf(out, len, "%s/.cache/foliostat/%s/%s", home, kind, name);
	else
		return -1;
	return n > 0 && (size_t)n < len ? 0 : -1;
}

/* Every directory above path, made where missing (0700: a user's cache). */
static int make_dirs(const char *path)
{
	char dir[PATH_MAX];

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	for (char *p = dir + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(dir, 0700) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

int fol_cache_begin(const char *path, char *tmp, size_t tmplen)
{
	int ret, fd;

	/* Two reports at once write two files; the later rename wins, both whole. */
	if (snprintf(tmp, tmplen, "%s.%d.tmp", path, (int)getpid()) >= (int)tmplen)
		return -ENAMETOOLONG;
	ret = make_dirs(path);
	if (ret)
		return ret;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	return fd < 0 ? -errno : fd;
}

int fol_cache_end(int fd, const char *tmp, const char *path, int ret)
{
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

void fol_cache_used(const char *path)
{
	utimensat(AT_FDCWD, path, NULL, 0);
}

struct aged {
	struct timespec mtime;
	uint64_t bytes;
	char name[256];
};

static int newest_first(const void *a, const void *b)
{
	const struct timespec *x = &((const struct aged *)a)->mtime, *y = &((const struct aged *)b)->mtime;

	if (x->tv_sec != y->tv_sec)
		return x->tv_sec < y->tv_sec ? 1 : -1;
	return x->tv_nsec < y->tv_nsec ? 1 : x->tv_nsec > y->tv_nsec ? -1 : 0;
}

void fol_cache_prune(const char *kind, int keep, uint64_t max_bytes)
{
	uint64_t total = 0;
	char dir[PATH_MAX];
	struct aged *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	DIR *d;

	if (fol_cache_path(kind, "", dir, sizeof(dir)) || !(d = opendir(dir)))
		return;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		struct stat st;

		/* Not the dot entries, nor another report's file still being written. */
		if (e->d_name[0] == '.' || len >= sizeof(v->name) ||
		    (len > 4 && !strcmp(e->d_name + len - 4, ".tmp")) ||
		    fstatat(dirfd(d), e->d_name, &st, 0) || !S_ISREG(st.st_mode))
			continue;
		if (FOL_GROW(v, cap, n + 1, 16))
			break;
		v[n].mtime = st.st_mtim;
		v[n].bytes = (uint64_t)st.st_size;
		memcpy(v[n++].name, e->d_name, len + 1);
	}
	qsort(v, n, sizeof(*v), newest_first);
	/* The newest first, as many as fit in both bounds; the rest go. */
	for (size_t i = 0; i < n; i++) {
		total += v[i].bytes;
		if (i >= (size_t)keep || total > max_bytes)
			unlinkat(dirfd(d), v[i].name, 0);
	}
	closedir(d);
	free(v);
}
