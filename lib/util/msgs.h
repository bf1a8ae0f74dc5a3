/* SPDX-License-Identifier: GPL-2.0-only */
/* A growable list of messages (warnings) that lib/ hands to cmd/ to print. */
#ifndef FOL_MSGS_H
#define FOL_MSGS_H

struct fol_msgs {
	char **v;
	int n;
};

__attribute__((format(printf, 2, 3))) int fol_msgs_add(struct fol_msgs *m, const char *fmt, ...);
void fol_msgs_free(struct fol_msgs *m);

#endif
