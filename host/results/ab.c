// SPDX-License-Identifier: GPL-2.0
/*
 * "mmubench ab ...": the A/B experiment is kernel builds and nested
 * boots, which is shell work; this runs ci/ab.sh with the arguments,
 * and this binary as the harness it boots with.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/util.h"
#include "results/commands.h"

/* ci/ab.sh in the tree this binary was built in (build/, build/san/). */
static bool find_script(const char *exe, char *out, size_t len)
{
	char dir[PATH_MAX];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", exe);
	for (int up = 0; up < 4; up++) {
		slash = strrchr(dir, '/');
		if (!slash)
			break;
		*slash = 0;
		snprintf(out, len, "%s/ci/ab.sh", dir[0] ? dir : "/");
		if (!access(out, X_OK))
			return true;
	}
	snprintf(out, len, "ci/ab.sh");
	return !access(out, X_OK);
}

int cmd_ab(int argc, char **argv)
{
	char exe[PATH_MAX], script[PATH_MAX + 16];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char **args;

	if (n <= 0)
		die("ab: cannot find this binary (/proc/self/exe): %m");
	exe[n] = 0;
	if (!find_script(exe, script, sizeof(script)))
		die("ab: ci/ab.sh not found above %s nor in the current "
		    "directory; run it from an mmubench source tree", exe);
	args = calloc((size_t)argc + 3, sizeof(*args));
	if (!args)
		die("out of memory");
	args[0] = script;
	args[1] = "--mmubench";
	args[2] = exe;
	for (int i = 1; i < argc; i++)
		args[i + 2] = argv[i];
	execv(script, args);
	die("ab: cannot run %s: %m", script);
}
