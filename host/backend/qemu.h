/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The QEMU backend: the guest image alone under QEMU (TCG), the workload
 * on its command line, its results read back from the serial port.  It
 * takes the same struct vm_params as the VMM and knows no scenario.
 */
#ifndef HOST_BACKEND_QEMU_H
#define HOST_BACKEND_QEMU_H

#include <jansson.h>
#include "vmm/vmm.h"

struct qemu_result {
	const char *arch;	/* the guest image's: "x86_64", "arm64" */
	const char *machine;	/* QEMU's -M */
	json_t *passes;		/* one object per pass and vCPU */
	double boot_ms;		/* QEMU started until the guest's first line */
};

/*
 * A QEMU command line for @p's guest, told to run @passes passes: the
 * arch's argv (chosen by the image's ELF machine), to which a caller may
 * add arguments.  The strings live in the struct.
 */
/*
 * x86_64's machine: microvm boots the PVH entry with no firmware (57-98
 * ms to the engine against 109-173 ms through pc's SeaBIOS, measured
 * alternating on a loaded machine); the migration checks read RAM at
 * pc's guest-physical layout.
 */
enum qemu_x86_machine {
	QEMU_X86_MICROVM,
	QEMU_X86_PC,
};

struct qemu_cmd {
	char words[512], mem[32], smp[16];
	char *argv[64];		/* QEMU_ARGV_MAX */
	int argc;
	const char *arch;	/* the guest image's: "x86_64", "arm64" */
	const char *package;	/* Debian's, for the missing binary */
	u64 ram_bytes;		/* -m */
	u64 ram_base;		/* guest-physical address of RAM offset 0 */
};

void qemu_cmd_init(struct qemu_cmd *q, const struct vm_params *p, u32 passes,
		   enum qemu_x86_machine x86);
void qemu_cmd_add(struct qemu_cmd *q, const char *arg);
/* Dies naming the Debian package if argv[0] is not on $PATH. */
void qemu_cmd_check(const struct qemu_cmd *q);
/* --backend kvm|qemu: true for qemu; anything else dies naming both. */
bool qemu_parse_backend(const char *arg);
/* Dies if @p asks for what only mmubench's VMM has (memslots, pinning). */
void qemu_check_params(const struct vm_params *p);

/*
 * Boot @p's guest for @passes passes and print their table; fills @res.
 * 0 if the guest finished and reported every pass, 1 if not (after
 * saying why).
 */
int qemu_run(const struct vm_params *p, u32 passes, struct qemu_result *res);

/*
 * @passes (qemu_result's, taken) as a document's phases: "populate",
 * "iter1"..., each with its vCPUs, as a KVM run has them.
 */
json_t *qemu_phases(json_t *passes);

/*
 * QEMU command lines per guest architecture, chosen by the image's ELF
 * machine: any host can run either guest under TCG.
 */
void qemu_argv_x86_64(const struct vm_params *p, char **argv, int max,
		      const char *words, const char *mem, const char *smp,
		      enum qemu_x86_machine machine);
void qemu_argv_arm64(const struct vm_params *p, char **argv, int max,
		     const char *words, const char *mem, const char *smp);

#endif
