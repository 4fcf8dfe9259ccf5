/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KVM module parameters under /sys/module/kvm/parameters: read, and set
 * for the length of a run.  Every value set is put back at exit (normal,
 * die() or a signal), as the kernel's nx_huge_pages_test.sh does, so a
 * benchmark never leaves the host configured differently.
 */
#ifndef HOST_KVM_PARAMS_H
#define HOST_KVM_PARAMS_H

#include <stddef.h>

/* The value of kvm.@name without the newline; -1 if there is none. */
int kparam_read(const char *name, char *buf, size_t len);

/*
 * Set kvm.@name to @val; the old value comes back on every way out
 * (util/cleanup.h).  -1 with the reason (naming the parameter, the
 * errno and the fix) in @why.
 */
int kparam_set(const char *name, const char *val, char *why, size_t len);

/* Parameters under @dir instead (test/unit/params.c). */
void kparam_use_dir(const char *dir);

#endif
