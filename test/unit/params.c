// SPDX-License-Identifier: GPL-2.0
/*
 * host/kvm/params.c against a directory of stand-in parameters, for
 * test/unit.bats on any machine (no KVM, no root-only sysfs): a value
 * set is put back at exit, and a parameter that cannot be written is
 * reported and left alone, with nothing to restore at exit.
 *
 *   params-test
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kvm/params.h"
#include "util/cleanup.h"
#include "standin.h"

static int failures;

static void check(int ok, const char *what)
{
	printf("%s: %s\n", ok ? "ok" : "FAIL", what);
	failures += !ok;
}

int main(void)
{
	/* Room in path for the directory and a stand-in's name. */
	char dir[PATH_MAX - 16], path[PATH_MAX], buf[64];
	char why[256];

	standin_dir(dir, sizeof(dir), "params-test");
	snprintf(path, sizeof(path), "%s/", dir);
	kparam_use_dir(strdup(path));

	snprintf(path, sizeof(path), "%s/ratio", dir);
	put(path, "60\n");
	check(!kparam_set("ratio", "10", why, sizeof(why)), "a writable parameter is set");
	check(!kparam_read("ratio", buf, sizeof(buf)) && !strcmp(buf, "10"), "it reads back 10");
	check(!kparam_set("ratio", "0", why, sizeof(why)), "set again");

	/* Read-only even for root: a proc file has no write method. */
	snprintf(path, sizeof(path), "%s/locked", dir);
	if (symlink("/proc/self/stat", path)) {
		perror(path);
		return 1;
	}
	check(kparam_set("locked", "1", why, sizeof(why)) == -1, "a read-only parameter is refused");
	check(strstr(why, "kvm.locked cannot be set to 1") != NULL, why);
	check(kparam_set("missing", "1", why, sizeof(why)) == -1 &&
	      strstr(why, "does not have it") != NULL, why);

	/* At exit: ratio back to 60 (its first value); locked untouched. */
	cleanup_run();
	check(!kparam_read("ratio", buf, sizeof(buf)) && !strcmp(buf, "60"), "ratio restored to its first value, 60");

	unlink(path);
	snprintf(path, sizeof(path), "%s/ratio", dir);
	unlink(path);
	rmdir(dir);
	printf("params-test: %d failures\n", failures);
	return failures != 0;
}
