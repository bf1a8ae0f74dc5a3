// SPDX-License-Identifier: GPL-2.0-only
#include "symbols/recorded.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

static int openat2_(int dfd, const char *path, uint64_t flags)
{
	struct open_how how = { .flags = flags,
				.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };

	return (int)syscall(SYS_openat2, dfd, path, &how, sizeof(how));
}

/* 0 when fd is a regular file outside /proc and /sys. */
static int plain_file(int fd, struct stat *st)
{
	struct statfs fs;

	if (fstat(fd, st) || fstatfs(fd, &fs))
		return -errno;
	if (!S_ISREG(st->st_mode) || fs.f_type == PROC_SUPER_MAGIC || fs.f_type == SYSFS_MAGIC)
		return -EPERM;
	return 0;
}

int fol_open_recorded(const char *root, const char *path)
{
	int dfd = open(root && *root ? root : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	int pfd = dfd < 0 ? -1 : openat2_(dfd, path, O_PATH | O_CLOEXEC), fd = -1, ret;
	struct stat a, b;

	/* Looked at first through an O_PATH descriptor, which opens nothing: a FIFO would
	 * block, a device could act (a pty allocated by /dev/ptmx). */
	ret = pfd < 0 ? -errno : plain_file(pfd, &a);
	if (!ret) {
		fd = openat2_(dfd, path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		ret = fd < 0 ? -errno : plain_file(fd, &b);
		if (!ret && (a.st_dev != b.st_dev || a.st_ino != b.st_ino))
			ret = -EAGAIN; /* replaced in between */
	}
	if (ret && fd >= 0)
		close(fd);
	if (pfd >= 0)
		close(pfd);
	if (dfd >= 0)
		close(dfd);
	return ret ? ret : fd;
}
