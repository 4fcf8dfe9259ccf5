// SPDX-License-Identifier: GPL-2.0
/* Eager page splitting, set per run or per table column; eager_split.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/kvm.h>
#include <mmubench/workload.h>
#include "util/util.h"
#include "kvm/params.h"
#include "kvm/eager_split.h"
#include "kvm/kvm_dev.h"

static void add(struct eager_list *l, const char *opt, const char *arg,
		const struct eager_split *s)
{
	for (u32 i = 0; i < l->n; i++)
		if (l->s[i].on == s->on && l->s[i].chunk == s->chunk)
			die("%s %s: a setting named twice", opt, arg);
	if (l->n == EAGER_SPLIT_MAX)
		die("%s %s: at most %d settings", opt, arg, EAGER_SPLIT_MAX);
	l->s[l->n++] = *s;
}

void eager_parse_x86(struct eager_list *l, const char *arg)
{
	char buf[64], *save = NULL, *tok;

	if (l->n && l->s[0].kind != EAGER_X86)
		die("--eager-split: not with --eager-split-chunk (x86 and "
		    "arm64 split differently)");
	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		struct eager_split s = { .kind = EAGER_X86 };

		if (!strcmp(tok, "on"))
			s.on = true;
		else if (strcmp(tok, "off"))
			die("--eager-split %s: accepted: on, off, or both "
			    "joined by a comma", arg);
		add(l, "--eager-split", arg, &s);
	}
	if (!l->n)
		die("--eager-split %s: accepted: on, off, or both joined by a "
		    "comma", arg);
}

void eager_parse_chunk(struct eager_list *l, const char *arg)
{
	char buf[128], *save = NULL, *tok;

	if (l->n && l->s[0].kind != EAGER_ARM64_CHUNK)
		die("--eager-split-chunk: not with --eager-split (arm64 and "
		    "x86 split differently)");
	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		struct eager_split s = { .kind = EAGER_ARM64_CHUNK };

		if (mmub_parse_size(tok, &s.chunk) ||
		    (s.chunk & (s.chunk - 1)))
			die("--eager-split-chunk %s: bytes split under one "
			    "lock hold, a block size such as 2m or 1g, or 0 "
			    "(off), joined by commas", arg);
		s.on = s.chunk != 0;
		add(l, "--eager-split-chunk", arg, &s);
	}
	if (!l->n)
		die("--eager-split-chunk %s: a block size such as 2m, or 0 "
		    "(off)", arg);
}

static void preflight_x86(void)
{
	char val[16];
	struct stat st;

	if (kparam_read("eager_page_split", val, sizeof(val)))
		die("--eager-split: this kernel's KVM has no eager_page_split "
		    "parameter (x86 KVM since Linux 5.19; arm64 splits per VM: "
		    "--eager-split-chunk)");
	/* Root passes access(W_OK) on a read-only sysfs file: the mode says. */
	if (stat("/sys/module/kvm/parameters/eager_page_split", &st) ||
	    !(st.st_mode & S_IWUSR) || geteuid())
		die("--eager-split: kvm.eager_page_split cannot be set here "
		    "(%s): it needs root and a writable parameter; boot with "
		    "kvm.eager_page_split=Y or N instead, or leave the option out",
		    geteuid() ? "not root" : "the parameter is read-only");
}

static void preflight_chunk(const struct eager_list *l)
{
	long sizes;

	if (kvm_dev() < 0)
		return;
	/*
	 * The chunk's own capability answers its default, 0, on /dev/kvm
	 * whether or not the kernel has it; the block sizes, which came
	 * with it (6.5), are never 0 where it exists.
	 */
	sizes = kvm_dev_cap(KVM_CAP_ARM_SUPPORTED_BLOCK_SIZES);
	if (sizes <= 0)
		die("--eager-split-chunk: this kernel lacks "
		    "KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE (arm64 KVM since "
		    "Linux 6.5)");
	for (u32 i = 0; i < l->n; i++) {
		char a[32];

		if (l->s[i].chunk && !((u64)sizes & l->s[i].chunk))
			die("--eager-split-chunk %s: not a block size this "
			    "stage 2 maps (KVM_CAP_ARM_SUPPORTED_BLOCK_SIZES: "
			    "0x%lx)", fmt_size(l->s[i].chunk, a, sizeof(a)),
			    sizes);
	}
}

void eager_preflight(const struct eager_list *l)
{
	if (!l->n)
		return;
	if (l->s[0].kind == EAGER_X86)
		preflight_x86();
	else
		preflight_chunk(l);
}

const char *eager_name(const struct eager_split *s, char *buf, size_t len)
{
	switch (s->kind) {
	case EAGER_X86:
		snprintf(buf, len, "%s", s->on ? "on" : "off");
		break;
	case EAGER_ARM64_CHUNK:
		if (s->chunk)
			fmt_size(s->chunk, buf, len);
		else
			snprintf(buf, len, "off");
		break;
	default:
		snprintf(buf, len, "default");
	}
	return buf;
}

void eager_apply_x86(const struct eager_split *s)
{
	char why[200];

	if (s->kind != EAGER_X86)
		return;
	if (kparam_set("eager_page_split", s->on ? "Y" : "N", why,
		       sizeof(why)))
		die("--eager-split: %s", why);
}
