/* SPDX-License-Identifier: GPL-2.0-only */
/* foliostat's own error codes, for what a file or an argument is rather than what a
 * system call said. Returned negative, like errno codes, and above errno's range (the
 * kernel's are 1..4095), so one int carries either; fol_strerror() says both. */
#ifndef FOL_ERRORS_H
#define FOL_ERRORS_H

enum fol_error {
	FOL_E_NOT_RECORDING = 8192,	/* not a foliostat file (no magic) */
	FOL_E_DAMAGED_HEADER,		/* the file header is damaged (version 0) */
	FOL_E_NEWER_FORMAT,		/* written by a newer foliostat */
	FOL_E_NO_METADATA,		/* a recording without metadata or event descriptions */
	FOL_E_BAD_METADATA,		/* a metadata chunk that is not JSON of the right shape */
	FOL_E_BAD_FORMAT,		/* a tracepoint format (or policy file) that is not one */
	FOL_E_NOT_ARCHIVE,		/* a foliostat file with no archive in it */
	FOL_E_END
};

/* The text of a negative error: foliostat's own, else strerror's. */
const char *fol_strerror(int err);

#endif
