/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny QMP client: QEMU's JSON machine protocol on a Unix socket, one
 * command at a time.  QEMU sends one message per line; events that
 * arrive between a command and its reply are skipped.
 */
#ifndef HOST_BACKEND_QMP_H
#define HOST_BACKEND_QMP_H

#include <stddef.h>
#include <sys/types.h>
#include <jansson.h>

struct qmp {
	int fd;
	const char *who;	/* for messages: "the source QEMU" */
	char buf[65536];
	size_t len;
};

/*
 * Connect to @path, which QEMU (@pid) creates once it runs, read its
 * greeting and leave capabilities negotiation.  Gives up when @pid exits
 * or at @deadline (now_ms()).  0, or -1 after saying why.
 */
int qmp_open(struct qmp *q, const char *who, const char *path, pid_t pid,
	     double deadline);
/*
 * Run @cmd with @args (taken; may be NULL): its "return" value (a new
 * reference), or NULL after saying why (QEMU's error class and desc).
 */
json_t *qmp_exec(struct qmp *q, const char *cmd, json_t *args,
		 double deadline);
void qmp_close(struct qmp *q);

#endif
