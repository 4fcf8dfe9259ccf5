/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in files (kvm parameters, schedstat) for the unit tests. */
#ifndef TEST_UNIT_STANDIN_H
#define TEST_UNIT_STANDIN_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Write @text to @path, or end the test: nothing after it would mean much. */
static inline void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/*
 * A new directory @name.XXXXXX for the stand-ins, under $TMPDIR (/tmp
 * without it), or end the test.  test/unit.bats sets TMPDIR to the
 * test's own directory, which bats removes however the test ends.
 */
static inline void standin_dir(char *dir, size_t len, const char *name)
{
	const char *tmp = getenv("TMPDIR");

	if ((size_t)snprintf(dir, len, "%s/%s.XXXXXX", tmp && *tmp ? tmp : "/tmp",
			     name) >= len || !mkdtemp(dir)) {
		perror("mkdtemp");
		exit(1);
	}
}

#endif
