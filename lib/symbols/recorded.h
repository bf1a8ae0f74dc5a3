/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef FOL_RECORDED_H
#define FOL_RECORDED_H

/* The one way to open a file that a recording or an archive names: a mapped file, its
 * separate debug file, debug link or dwz file (symbols, unwind, debugsearch). */

/* A file a recording names, opened for reading: only a regular file outside /proc and
 * /sys, path resolved with root (a symfs; NULL or "" for /) as its root directory, so that
 * no "..", absolute path or link leaves it. A FIFO, device or socket is never opened. The
 * descriptor, or -errno (-EPERM for a file of another kind). */
int fol_open_recorded(const char *root, const char *path);

#endif
