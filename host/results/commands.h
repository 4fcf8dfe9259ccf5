/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Subcommands that work on results rather than on a VM: each takes its
 * own arguments (argv[0] is the subcommand) and returns the exit status.
 */
#ifndef HOST_COMMANDS_H
#define HOST_COMMANDS_H

/* mmubench compare A.json B.json [--metric PATH]... [--json FILE] */
int cmd_compare(int argc, char **argv);
/* mmubench merge OUT.json IN.json...: the runs of IN... in one document */
int cmd_merge(int argc, char **argv);
/* mmubench metrics [SCENARIO]: the metrics the scenarios declare */
int cmd_metrics(int argc, char **argv);

#endif
