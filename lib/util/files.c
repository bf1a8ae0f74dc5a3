// SPDX-License-Identifier: GPL-2.0-only
#include "util/files.h"

#include <sys/stat.h>

int fol_same_file(const char *a, const char *b)
{
	struct stat x, y;

	return !stat(a, &x) && !stat(b, &y) && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}
