/* SPDX-License-Identifier: GPL-2.0-only */
/* What this machine allows foliostat to record, and how to fix what is missing. */
#ifndef FOL_CHECK_H
#define FOL_CHECK_H

enum fol_check_state { FOL_CHECK_OK, FOL_CHECK_WARN, FOL_CHECK_MISSING, FOL_CHECK_INFO };

struct fol_check_item {
	char section[32];
	char what[96];
	enum fol_check_state state;
	char detail[160];
	char fix[200];
};

/* Fills *items (caller frees); returns the count or a negative error. */
int fol_check_run(struct fol_check_item **items);

#endif
