/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_CLI_H
#define HOST_CLI_H

#include <stdio.h>
#include "mmubench.h"

/* argv[0] is the scenario name. */
void cli_parse(struct run_config *cfg, int argc, char **argv);
void cli_usage(FILE *f);

#endif
