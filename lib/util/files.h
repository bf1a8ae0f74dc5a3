/* SPDX-License-Identifier: GPL-2.0-only */
/* Whether two paths name one file: a recording compared with itself, an archive written
 * over its recording. */
#ifndef FOL_FILES_H
#define FOL_FILES_H

/* 1 when both exist and are one file (its device and inode), else 0. */
int fol_same_file(const char *a, const char *b);

#endif
