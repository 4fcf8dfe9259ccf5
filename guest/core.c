// SPDX-License-Identifier: GPL-2.0
/*
 * The architecture-independent start of every vCPU, in user mode (CPL3 on
 * x86_64).  From here on the guest only talks to the host through its
 * mailbox, or prints when it runs standalone.
 */
#include "guest.h"

struct mmub_boot_info *guest_bi;
static u32 print_lock;

/*
 * newlib's write() lands here.  Under the VMM the text goes through the
 * print buffer of mailbox 0 (one exit per chunk); the lock keeps vCPUs
 * from interleaving, and the host always reads mailbox 0 for MMUB_DB_PRINT.
 */
void guest_console_write(const char *s, size_t n)
{
	struct mmub_mailbox *mb;
	size_t chunk, i;

	while (__atomic_exchange_n(&print_lock, 1, __ATOMIC_ACQUIRE))
		arch_relax();
	if (!guest_bi || (guest_bi->flags & MMUB_BOOT_STANDALONE)) {
		arch_serial_write(s, n);
	} else {
		mb = (struct mmub_mailbox *)guest_bi->mailbox_gpa;
		while (n) {
			chunk = mmub_min(n, (size_t)MMUB_PRINT_BUF);
			for (i = 0; i < chunk; i++)
				mb->print_buf[i] = s[i];
			mmub_store_release(&mb->print_len, (u32)chunk);
			arch_doorbell(MMUB_DB_PRINT);
			s += chunk;
			n -= chunk;
		}
	}
	__atomic_store_n(&print_lock, 0, __ATOMIC_RELEASE);
}

void guest_main(struct mmub_boot_info *bi, u64 cpu)
{
	struct engine e;

	guest_bi = bi;
	engine_init(&e, bi, (u32)cpu);
	if (bi->wl.action == MMUB_ACT_FAULT || bi->wl.action == MMUB_ACT_HANG)
		engine_debug_action(&e);
	if (bi->flags & MMUB_BOOT_STANDALONE)
		engine_standalone(&e);
	engine_serve(&e);
}
