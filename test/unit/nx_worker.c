// SPDX-License-Identifier: GPL-2.0
/*
 * host/kvm/nx_worker.c's runtime read against a stand-in schedstat, for
 * test/unit.bats on any machine: the first field in ns, and a read that
 * fails (the thread gone, a file without the field) is -1 with a reason
 * naming the file, never a value.
 *
 *   nx-worker-test
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kvm/nx_worker.h"
#include "check.h"
#include "standin.h"

int main(void)
{
	char dir[PATH_MAX], why[PATH_MAX + 64] = "";
	struct nx_worker w;
	u64 ns = 7;

	/* Short: the path must fit the worker's own, sized for /proc. */
	standin_dir(dir, sizeof(dir), "nxw");
	memset(&w, 0, sizeof(w));
	CHECK(nx_worker_runtime(&w, &ns, why, sizeof(why)) == -1);
	CHECK(strstr(why, "not found") && ns == 7);

	if ((size_t)snprintf(w.path, sizeof(w.path), "%s/schedstat", dir) >=
	    sizeof(w.path)) {
		fprintf(stderr, "%s/schedstat: longer than the worker's %zu "
			"bytes: a shorter TMPDIR\n", dir, sizeof(w.path));
		return 1;
	}
	put(w.path, "730123456 2000 17\n");
	CHECK(!nx_worker_runtime(&w, &ns, why, sizeof(why)));
	CHECK(ns == 730123456ULL);

	put(w.path, "gone\n");
	ns = 7;
	CHECK(nx_worker_runtime(&w, &ns, why, sizeof(why)) == -1);
	CHECK(strstr(why, w.path) && strstr(why, "no runtime") && ns == 7);

	unlink(w.path);
	CHECK(nx_worker_runtime(&w, &ns, why, sizeof(why)) == -1);
	CHECK(strstr(why, w.path) && strstr(why, "No such file") && ns == 7);
	printf("why: %s\n", why);
	rmdir(dir);
	return check_report();
}
