/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in files (kvm parameters, schedstat) for the unit tests. */
#ifndef TEST_UNIT_STANDIN_H
#define TEST_UNIT_STANDIN_H

#include <stdio.h>
#include <stdlib.h>

/* Write @text to @path, or end the test: nothing after it would mean much. */
static inline void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
}

#endif
