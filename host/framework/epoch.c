// SPDX-License-Identifier: GPL-2.0
/* The epochs and sentinel pages of the guest's write stamps; see epoch.h. */
#include <stdio.h>
#include <unistd.h>
#include <mmubench/sentinel.h>
#include "framework/epoch.h"

int epoch_wait(struct vm *vm, u64 epoch)
{
	struct vm_watch w;
	char what[64];
	u32 behind;

	snprintf(what, sizeof(what), "reaching epoch %llu",
		 (unsigned long long)epoch);
	vm_watch_init(vm, &w);
	do {
		if (vm_check(vm))
			return -1;
		behind = 0;
		for (u32 i = 0; i < vm->p.nr_vcpus; i++) {
			struct mmub_mailbox *mb = vm->vcpus[i].mb;

			/* An idle vCPU has acked: its writes are all done. */
			if (mmub_load_acquire(&mb->epoch_seen) >= epoch ||
			    mmub_load_acquire(&mb->ack_seq) == vm->seq)
				continue;
			behind++;
			if (vm_watch_vcpu(vm, &w, i, what))
				return -1;
		}
		if (behind)
			usleep(20);
	} while (behind);
	return 0;
}

int epoch_set(struct vm *vm, u64 epoch)
{
	for (u32 i = 0; i < vm->p.nr_vcpus; i++)
		mmub_store_release(&vm->vcpus[i].mb->epoch, epoch);
	return epoch_wait(vm, epoch);
}

u64 epoch_newest(const struct vm *vm)
{
	u64 e = 0;

	for (u32 i = 0; i < vm->p.nr_vcpus; i++)
		e = mmub_max(e, vm->vcpus[i].mb->epoch);
	return e;
}

void epoch_sentinels(const struct vm *vm, u64 epoch, u64 *map)
{
	struct mmub_sentinels s = mmub_sentinels_of(vm_strides_selected(vm),
						    epoch);

	if (!(vm->p.wl.flags & MMUB_WL_SENTINEL))
		s.n = 0;
	vm_map_strides(vm, s.first, s.n, map);
}
