// SPDX-License-Identifier: GPL-2.0
/*
 * host/util/progress.c driven alone, for test/progress.bats on any
 * machine (no KVM): STEPS steps of MS ms that print as a scenario does,
 * a line on stdout per step written in two parts across the line's
 * redraws, and a line on stderr, so that the test can compare what a
 * terminal keeps with what a pipe gets.
 *
 *   progress-test STEPS MS
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "util/progress.h"

static void sleep_ms(unsigned int ms)
{
	usleep(ms * 1000);
}

int main(int argc, char **argv)
{
	unsigned int steps = argc > 1 ? (unsigned int)atoi(argv[1]) : 5;
	unsigned int ms = argc > 2 ? (unsigned int)atoi(argv[2]) : 300;

	/* As main.c: a pipe gets stdout and stderr in the terminal's order. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	progress_init();
	printf("progress-test: %u steps of %u ms\n", steps, ms);
	progress_begin("progress-test", steps, steps);
	for (unsigned int k = 1; k <= steps; k++) {
		progress_step(1, "step %u of %u", k, steps);
		sleep_ms(ms / 2);
		progress_detail("second half");
		/* Half a line: the line must wait for its end. */
		printf("step %u: first half", k);
		fflush(stdout);
		sleep_ms(ms / 2);
		printf(", second half\n");
		fprintf(stderr, "progress-test: step %u on stderr\n", k);
	}
	progress_end();
	printf("progress-test: done\n");
	return 0;
}
