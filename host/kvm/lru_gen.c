// SPDX-License-Identifier: GPL-2.0
/*
 * The multi-gen LRU's debugfs interface: see lru_gen.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "util/util.h"
#include "util/cleanup.h"
#include "kvm/lru_gen.h"

int lru_gen_status(char *why, size_t len)
{
	if (access(LRU_GEN_SYSFS, W_OK)) {
		snprintf(why, len, "%s: %s (the kernel has no CONFIG_LRU_GEN)",
			 LRU_GEN_SYSFS, strerror(errno));
		return -1;
	}
	if (access(LRU_GEN_DEBUGFS, W_OK)) {
		snprintf(why, len, "%s: %s (needs CONFIG_DEBUG_FS and debugfs "
			 "mounted: mount -t debugfs none /sys/kernel/debug)",
			 LRU_GEN_DEBUGFS, strerror(errno));
		return -1;
	}
	return 0;
}

static int read_caps(unsigned int *caps, char *text, size_t tlen)
{
	char *t = read_text(LRU_GEN_SYSFS);
	int ret = -1;

	if (t && sscanf(t, "%i", caps) == 1) {
		snprintf(text, tlen, "%s", t);
		text[strcspn(text, "\n")] = 0;
		ret = 0;
	}
	free(t);
	return ret;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;
	int err;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	err = errno;
	close(fd);
	errno = err;
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/* Its three capabilities: the LRU itself, the mm walk, non-leaf PMDs. */
#define LRU_GEN_ALL	0x7u

int lru_gen_on(char *why, size_t len)
{
	unsigned int caps;
	char old[32];
	int undo;

	cleanup_hold_host("lru_gen");
	if (read_caps(&caps, old, sizeof(old))) {
		snprintf(why, len, "%s: cannot be read", LRU_GEN_SYSFS);
		return -1;
	}
	if ((caps & LRU_GEN_ALL) == LRU_GEN_ALL)
		return 0;
	undo = cleanup_push(CLEANUP_WRITE, LRU_GEN_SYSFS, old);
	if (write_str(LRU_GEN_SYSFS, "y")) {
		snprintf(why, len, "%s cannot be set to y (it is %s): %s",
			 LRU_GEN_SYSFS, old, strerror(errno));
		cleanup_forget(undo);
		return -1;
	}
	return 0;
}

/* This process's cgroup v2 path ("0::/path"), "/" if none is mounted. */
static void own_cgroup(char *path, size_t len)
{
	char *t = read_text("/proc/self/cgroup"), *l = NULL;

	if (t)
		l = !strncmp(t, "0::", 3) ? t : strstr(t, "\n0::");

	snprintf(path, len, "/");
	if (l) {
		l += *l == '\n' ? 4 : 3;
		snprintf(path, len, "%.*s", (int)strcspn(l, "\n"), l);
	}
	free(t);
}

/*
 * The listing, for each memcg "memcg ID PATH", then for each node
 * " node NID", then a line a generation: "SEQ AGE_MS ANON FILE".
 */
static int parse(struct lru_gen_memcg *m, const char *text, bool find)
{
	bool ours = false;
	char l[256];
	int ni = -1;

	if (find)
		m->nr_nodes = 0;
	while (*text) {
		size_t n = strcspn(text, "\n");
		char path[128] = "";
		unsigned long long seq, age, anon;
		int id, nid;

		snprintf(l, sizeof(l), "%.*s", (int)mmub_min(n, 255), text);
		text += n + (text[n] == '\n');

		if (sscanf(l, "memcg %d %127s", &id, path) >= 1) {
			ours = find ? !strcmp(path[0] ? path : "/", m->path) :
				      id == m->id;
			if (ours)
				m->id = id;
			ni = -1;
		} else if (ours && sscanf(l, " node %d", &nid) == 1) {
			ni = -1;
			for (u32 i = 0; i < m->nr_nodes; i++)
				if (m->node[i] == nid)
					ni = (int)i;
			if (ni < 0 && find && m->nr_nodes < LRU_GEN_NODES) {
				ni = (int)m->nr_nodes++;
				m->node[ni] = nid;
			}
			if (ni >= 0)
				m->max_seq[ni] = 0;
		} else if (ours && ni >= 0 &&
			   sscanf(l, " %llu %llu %llu", &seq, &age,
				  &anon) == 3 && seq >= m->max_seq[ni]) {
			m->max_seq[ni] = seq;
			m->youngest[ni] = anon;
		}
	}
	return m->nr_nodes ? 0 : -1;
}

static int list(struct lru_gen_memcg *m, bool find, char *why, size_t len)
{
	char *t = read_text(LRU_GEN_DEBUGFS);
	int ret;

	if (!t) {
		snprintf(why, len, "reading %s: %s", LRU_GEN_DEBUGFS,
			 strerror(errno));
		return -1;
	}
	ret = parse(m, t, find);
	free(t);
	if (ret)
		snprintf(why, len, "%s lists no memcg %s with a node (ours, "
			 "from /proc/self/cgroup)", LRU_GEN_DEBUGFS, m->path);
	return ret;
}

int lru_gen_find(struct lru_gen_memcg *m, char *why, size_t len)
{
	memset(m, 0, sizeof(*m));
	own_cgroup(m->path, sizeof(m->path));
	return list(m, true, why, len);
}

int lru_gen_read(struct lru_gen_memcg *m, char *why, size_t len)
{
	return list(m, false, why, len);
}

int lru_gen_age(const struct lru_gen_memcg *m, char *why, size_t len)
{
	char cmd[64 * LRU_GEN_NODES];
	size_t n = 0;

	/* swappiness 1: anon folios are aged although there is no swap. */
	for (u32 i = 0; i < m->nr_nodes; i++)
		n += (size_t)snprintf(cmd + n, sizeof(cmd) - n,
				      "%s+ %d %d %llu 1 1", i ? ";" : "",
				      m->id, m->node[i],
				      (unsigned long long)m->max_seq[i]);
	if (write_str(LRU_GEN_DEBUGFS, cmd)) {
		snprintf(why, len, "writing \"%s\" to %s: %s", cmd,
			 LRU_GEN_DEBUGFS, strerror(errno));
		return -1;
	}
	return 0;
}
