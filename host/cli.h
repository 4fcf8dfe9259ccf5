/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command line: the options every VM scenario shares, and the
 * scenario's own, which its file declares.  Every bad value is one line
 * naming the option and what it accepts, exit status 2, before any VM
 * exists.
 */
#ifndef HOST_CLI_H
#define HOST_CLI_H

#include <stdio.h>
#include "framework/scenario.h"

/*
 * Parse argv (argv[0] is the scenario's name) for @s: the common options
 * into @c, @s's own to s->parse(); an option of another of the @nr
 * scenarios @all is named as such.  Then s->validate() and the common
 * checks.
 */
void cli_parse(const struct scenario *s, const struct scenario *const *all,
	       size_t nr, struct common *c, int argc, char **argv);

/* The usage's lines are at most this wide. */
#define CLI_COLUMNS 80

/*
 * @text from column @col on, its words wrapped within CLI_COLUMNS, each
 * further line indented by @indent; no newline after the last word.
 */
void cli_wrap(FILE *f, const char *text, int indent, int col);
/* The common options' names, three a line (mmubench --help). */
void cli_usage_common_names(FILE *f);
/* The options section of the usage: the common ones, then @s's own. */
void cli_usage_options(FILE *f, const struct scenario *s);
/* @s's own options. */
void cli_usage_scenario(FILE *f, const struct scenario *s);

#endif
