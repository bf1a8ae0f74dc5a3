// SPDX-License-Identifier: GPL-2.0-only
#include "cache.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
