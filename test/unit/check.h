/* SPDX-License-Identifier: GPL-2.0 */
/* The unit tests' one assertion: print what failed, count it, go on. */
#ifndef TEST_UNIT_CHECK_H
#define TEST_UNIT_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);	\
		failures++;						\
	}								\
} while (0)

/* The last line every unit test prints; its exit status follows. */
static inline int check_report(void)
{
	printf("%s: %d failure%s\n", failures ? "FAILED" : "ok", failures,
	       failures == 1 ? "" : "s");
	return failures ? 1 : 0;
}

#endif
