// SPDX-License-Identifier: GPL-2.0
/* Find KVM's NX recovery worker and read its CPU time; see nx_worker.h. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kvm/nx_worker.h"

#define NX_WORKER_COMM	"kvm-nx-lpage-re"

static bool is_worker(const char *dir, const char *pid)
{
	char path[300], comm[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/comm", dir, pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = 0;
	fclose(f);
	return !strncmp(comm, NX_WORKER_COMM, strlen(NX_WORKER_COMM));
}

static bool known(const struct nx_worker *w, pid_t pid)
{
	for (u32 i = 0; i < w->nr_known; i++)
		if (w->known[i] == pid)
			return true;
	return false;
}

/*
 * Call @fn for each worker under @dir (/proc or /proc/self/task) that is
 * not known; returns how many.
 */
static u32 scan(struct nx_worker *w, const char *dir,
		void (*fn)(struct nx_worker *, const char *, pid_t))
{
	struct dirent *de;
	DIR *d = opendir(dir);
	u32 n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		pid_t pid = (pid_t)atoi(de->d_name);

		if (pid <= 0 || known(w, pid) || !is_worker(dir, de->d_name))
			continue;
		fn(w, dir, pid);
		n++;
	}
	closedir(d);
	return n;
}

static void remember(struct nx_worker *w, const char *dir, pid_t pid)
{
	(void)dir;
	if (w->nr_known < NX_WORKER_KNOWN)
		w->known[w->nr_known++] = pid;
}

static void take(struct nx_worker *w, const char *dir, pid_t pid)
{
	snprintf(w->path, sizeof(w->path), "%s/%d/schedstat", dir, (int)pid);
}

void nx_worker_init(struct nx_worker *w)
{
	memset(w, 0, sizeof(*w));
	scan(w, "/proc", remember);
}

int nx_worker_find(struct nx_worker *w, char *why, size_t len)
{
	u32 n = scan(w, "/proc/self/task", take);

	if (!n)
		n = scan(w, "/proc", take);
	if (n == 1)
		return 0;
	w->path[0] = 0;
	if (!n)
		snprintf(why, len, "no %s* thread appeared for this VM "
			 "(kvm.nx_huge_pages off, or a kernel that names it "
			 "differently)", NX_WORKER_COMM);
	else
		snprintf(why, len, "%u new %s* threads: another VM started "
			 "meanwhile, so ours is ambiguous", n, NX_WORKER_COMM);
	return -1;
}

int nx_worker_runtime(const struct nx_worker *w, u64 *ns, char *why,
		      size_t len)
{
	unsigned long long v;
	FILE *f;
	int ok;

	if (!w->path[0]) {
		snprintf(why, len, "the worker was not found");
		return -1;
	}
	f = fopen(w->path, "r");
	if (!f) {
		snprintf(why, len, "%s: %s (the worker exited?)", w->path,
			 strerror(errno));
		return -1;
	}
	ok = fscanf(f, "%llu", &v) == 1;
	fclose(f);
	if (!ok) {
		snprintf(why, len, "%s: no runtime in its first field",
			 w->path);
		return -1;
	}
	*ns = v;
	return 0;
}
