// SPDX-License-Identifier: GPL-2.0
/* KVM module parameters, set for a run and restored; see params.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "util/cleanup.h"
#include "util/util.h"
#include "kvm/params.h"

#define KPARAM_MAX	8

/* Where the parameters are; test/unit/params.c points it elsewhere. */
static const char *kparam_dir = "/sys/module/kvm/parameters/";

/* Parameters already set once: their first value is the one restored. */
struct kparam_saved {
	char name[48];
	int undo;		/* its cleanup handle */
};

static struct kparam_saved saved[KPARAM_MAX];
static unsigned int nr_saved;

static void param_path(char *path, size_t len, const char *name)
{
	snprintf(path, len, "%s%s", kparam_dir, name);
}

int kparam_read(const char *name, char *buf, size_t len)
{
	char path[128];
	FILE *f;
	bool ok;

	param_path(path, sizeof(path), name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int param_write(const char *name, const char *val)
{
	char path[128];
	FILE *f;
	int ret;

	param_path(path, sizeof(path), name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ret = fputs(val, f) < 0;
	/* sysfs reports a rejected value at the write, seen at close. */
	ret |= fclose(f) != 0;
	return ret ? -1 : 0;
}

static bool is_saved(const char *name)
{
	for (unsigned int i = 0; i < nr_saved; i++)
		if (!strcmp(saved[i].name, name))
			return true;
	return false;
}

void kparam_use_dir(const char *dir)
{
	kparam_dir = dir;
}

int kparam_set(const char *name, const char *val, char *why, size_t len)
{
	bool fresh = !is_saved(name);
	char old[64];

	cleanup_hold_host("kvm parameters");
	if (kparam_read(name, old, sizeof(old))) {
		snprintf(why, len, "kvm.%s: %s (this kernel's KVM does not "
			 "have it)", name, strerror(errno));
		return -1;
	}
	/* The first value seen is the one to put back, on every way out. */
	if (fresh) {
		char path[128];

		if (nr_saved == KPARAM_MAX)
			die("kparam_set: too many parameters (bug)");
		snprintf(saved[nr_saved].name, sizeof(saved[0].name), "%s",
			 name);
		param_path(path, sizeof(path), name);
		saved[nr_saved].undo = cleanup_push(CLEANUP_WRITE, path, old);
		nr_saved++;
	}
	if (param_write(name, val)) {
		int err = errno;

		/*
		 * A first write that failed changed nothing: putting the old
		 * value back would fail the same way, and say so at exit
		 * about a setting this run never touched.
		 */
		if (fresh)
			cleanup_forget(saved[--nr_saved].undo);
		snprintf(why, len, "kvm.%s cannot be set to %s: %s (needs "
			 "root and a writable parameter; else boot with "
			 "kvm.%s=%s)", name, val, strerror(err), name, val);
		return -1;
	}
	return 0;
}
