/* Messages shared by the subcommands that read a recording. */
#ifndef FOL_CMD_UTIL_H
#define FOL_CMD_UTIL_H

struct fol_session;

void print_open_error(const char *cmd, const char *path, int err);
/* Warn about a truncated or damaged file; 1 when data was damaged (exit non-zero). */
int print_read_status(const char *cmd, const char *path, const struct fol_session *s);

#endif
