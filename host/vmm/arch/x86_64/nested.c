// SPDX-License-Identifier: GPL-2.0
/*
 * --nested-guest on x86_64: what the guest needs to be a hypervisor (its
 * guest/arch/x86_64/svm.c): AMD's SVM with nested paging in its CPUID,
 * which KVM offers its guests only as kvm_amd with nested=1.  Asked of
 * /dev/kvm and sysfs before any VM exists; each missing piece is named.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "util/util.h"
#include "vmm/vmm.h"

#define KVM_AMD_NESTED	"/sys/module/kvm_amd/parameters/nested"

static bool loaded(const char *module)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/module/%s", module);
	return !stat(path, &st);
}

/* Which KVM this is, when it is not kvm_amd. */
static const char *other_kvm(void)
{
	static const char *const names[] = { "kvm_intel", "kvm_pvm" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (loaded(names[i]))
			return names[i];
	return NULL;
}

static bool kvm_amd_nested(char *why, size_t len)
{
	const char *other;
	char val[8] = "";
	FILE *f;

	f = fopen(KVM_AMD_NESTED, "r");
	if (!f && (other = other_kvm())) {
		snprintf(why, len, "needs AMD SVM: this KVM is %s, not "
			 "kvm_amd (%s is missing)%s", other, KVM_AMD_NESTED,
			 strcmp(other, "kvm_intel") ? "" :
			 "; the L2 runner has no VMX");
		return false;
	}
	if (!f) {
		snprintf(why, len, "needs AMD SVM: kvm_amd is not loaded (%s "
			 "is missing)", KVM_AMD_NESTED);
		return false;
	}
	if (!fgets(val, sizeof(val), f))
		val[0] = 0;
	fclose(f);
	if (val[0] == 'Y' || val[0] == '1')
		return true;
	snprintf(why, len, "kvm_amd.nested is %.*s: reload it with nested=1 "
		 "(modprobe -r kvm_amd && modprobe kvm_amd nested=1)",
		 (int)strcspn(val, "\n"), val);
	return false;
}

bool arch_supports_nested(int kvm_fd, u64 l2_page, char *why, size_t len)
{
	char page_why[160];

	if (!kvm_amd_nested(why, len))
		return false;
	if (!arch_cpuid_has_npt(kvm_fd)) {
		snprintf(why, len, "this KVM offers its guests no SVM with "
			 "nested paging (KVM_GET_SUPPORTED_CPUID: CPUID "
			 "0x80000001 ECX.SVM or 0x8000000A EDX.NP is absent)");
		return false;
	}
	if (!arch_supports_page(kvm_fd, l2_page, page_why, sizeof(page_why))) {
		snprintf(why, len, "--l2-page %s", page_why);
		return false;
	}
	return true;
}
