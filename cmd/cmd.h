/* SPDX-License-Identifier: GPL-2.0-only */
/* Subcommands: each parses its options, wires lib/ together, prints, returns the exit
 * status. */
#ifndef FOL_CMD_H
#define FOL_CMD_H

#define EXIT_USAGE 2

int cmd_record(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_tui(int argc, char **argv);
int cmd_workload(int argc, char **argv);
int cmd_workloads(int argc, char **argv);
int cmd_maps(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_archive(int argc, char **argv);

#endif
