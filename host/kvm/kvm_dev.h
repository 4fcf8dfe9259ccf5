/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/kvm for the questions asked before a VM exists: the capabilities
 * and page sizes an option needs, checked so that bad input or a kernel
 * without the feature is one line and exit 2 before anything runs.
 *
 * One rule for every such check: without /dev/kvm the check passes, and
 * creating the VM then says what is missing and how to get it (vm.c), so
 * a machine without KVM gets that one message whatever the options.
 */
#ifndef HOST_KVM_KVM_DEV_H
#define HOST_KVM_KVM_DEV_H

/* /dev/kvm, opened once and kept for the process; -1 without it. */
int kvm_dev(void);

/* KVM_CHECK_EXTENSION @cap on /dev/kvm; -1 without /dev/kvm. */
long kvm_dev_cap(long cap);

#endif
