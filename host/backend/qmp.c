// SPDX-License-Identifier: GPL-2.0
/*
 * QMP from C: connect, greeting, qmp_capabilities, then commands and
 * their replies, each a JSON object on its own line (QEMU writes no
 * newline inside a message unless told to pretty-print).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include "util/util.h"
#include "migrate/wire.h"
#include "backend/qmp.h"

/* Retry while QEMU has not created its socket yet. */
static int try_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The next message, parsed; NULL after saying why. */
static json_t *read_msg(struct qmp *q, double deadline)
{
	json_error_t err;
	json_t *j;
	char *nl;
	ssize_t n;

	while (!(nl = memchr(q->buf, '\n', q->len))) {
		struct pollfd p = { .fd = q->fd, .events = POLLIN };
		int left = (int)(deadline - now_ms());

		if (q->len == sizeof(q->buf)) {
			err_msg("QMP: %s sent a message over %zu bytes",
				q->who, sizeof(q->buf));
			return NULL;
		}
		if (left <= 0 || poll(&p, 1, left) == 0) {
			err_msg("QMP: no answer from %s in time (--watchdog)",
				q->who);
			return NULL;
		}
		n = read(q->fd, q->buf + q->len, sizeof(q->buf) - q->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err_msg("QMP: %s closed the connection", q->who);
			return NULL;
		}
		q->len += (size_t)n;
	}
	j = json_loadb(q->buf, (size_t)(nl - q->buf), 0, &err);
	q->len -= (size_t)(nl + 1 - q->buf);
	memmove(q->buf, nl + 1, q->len);
	if (!j)
		err_msg("QMP: %s sent what is not JSON: %s", q->who, err.text);
	return j;
}

int qmp_open(struct qmp *q, const char *who, const char *path, pid_t pid,
	     double deadline)
{
	json_t *greeting, *r;

	q->who = who;
	q->len = 0;
	while ((q->fd = try_connect(path)) < 0) {
		if (waitpid(pid, NULL, WNOHANG) == pid) {
			err_msg("QMP: %s exited before it listened on %s", who,
				path);
			return -1;
		}
		if (now_ms() > deadline) {
			err_msg("QMP: %s: cannot connect to %s: %s", who, path,
				strerror(errno));
			return -1;
		}
		usleep(20000);
	}
	greeting = read_msg(q, deadline);
	if (!greeting || !json_object_get(greeting, "QMP")) {
		if (greeting)
			err_msg("QMP: %s greeted with no \"QMP\" member", who);
		json_decref(greeting);
		return -1;
	}
	json_decref(greeting);
	r = qmp_exec(q, "qmp_capabilities", NULL, deadline);
	json_decref(r);
	return r ? 0 : -1;
}

json_t *qmp_exec(struct qmp *q, const char *cmd, json_t *args,
		 double deadline)
{
	json_t *req = json_pack("{s:s}", "execute", cmd), *msg, *ret;
	char *text;

	if (args)
		json_object_set_new(req, "arguments", args);
	text = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	if (!text)
		die("out of memory");
	if (wire_write(q->fd, text, strlen(text)) ||
	    wire_write(q->fd, "\n", 1)) {
		err_msg("QMP: %s: %s: %s", q->who, cmd, strerror(errno));
		free(text);
		return NULL;
	}
	free(text);
	/* Events ("event" members) may come first; the reply has neither. */
	while ((msg = read_msg(q, deadline)) && json_object_get(msg, "event"))
		json_decref(msg);
	if (!msg)
		return NULL;
	ret = json_incref(json_object_get(msg, "return"));
	if (!ret) {
		json_t *e = json_object_get(msg, "error");

		err_msg("QMP: %s: %s: %s (%s)", q->who, cmd,
			json_string_value(json_object_get(e, "desc")) ?: "?",
			json_string_value(json_object_get(e, "class")) ?: "?");
	}
	json_decref(msg);
	return ret;
}

void qmp_close(struct qmp *q)
{
	if (q->fd >= 0)
		close(q->fd);
	q->fd = -1;
}
