/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-vCPU shared memory between the host and one guest vCPU.
 *
 * Exits cost 25-35 us on some hosts, so nothing in a pass exits: the host
 * posts a command by writing cmd/cmd_arg and then bumping cmd_seq (release);
 * the guest runs it and publishes ack_seq = cmd_seq (release) when done.
 * The host polls ack_seq, heartbeat and state.  Only printing, a guest
 * exception, the park before the first command and the final "done"
 * leave the guest (the doorbell).
 */
#ifndef MMUBENCH_MAILBOX_H
#define MMUBENCH_MAILBOX_H

#include <mmubench/types.h>
#include <mmubench/histogram.h>

enum mmub_cmd {
	MMUB_CMD_NONE = 0,
	MMUB_CMD_PASS = 1,	/* one pass over the slice; cmd_arg = generation */
	MMUB_CMD_LOOP = 2,	/* passes until stop != 0; cmd_arg = first generation */
	MMUB_CMD_EXIT = 3,	/* leave the engine and ring MMUB_DB_DONE */
	MMUB_CMD_FILL = 4,	/* write every 4K page of the slice once; cmd_arg = generation */
	MMUB_CMD_COLD = 5,	/* write the slice's cold pages (cold.h); cmd_arg = generation */
};

enum mmub_state {
	MMUB_STATE_BOOT = 0,	/* not yet in the engine */
	MMUB_STATE_IDLE = 1,	/* waiting for a command */
	MMUB_STATE_BUSY = 2,	/* running a command */
	MMUB_STATE_DONE = 3,	/* left the engine */
	MMUB_STATE_FAULT = 4,	/* took an exception; see fault[] */
};

/* What a doorbell (an exit) asks of the host. */
enum mmub_doorbell {
	MMUB_DB_PRINT = 1,	/* print_len bytes are in print_buf */
	MMUB_DB_FAULT = 2,	/* exception details are in fault */
	MMUB_DB_DONE = 3,	/* the vCPU is finished */
	MMUB_DB_PARK = 4,	/* idle before its first command: block it */
};

/* Filled by the CPL0 (EL1) exception handler before MMUB_DB_FAULT. */
struct mmub_fault {
	u64 vector;	/* x86 vector, or arm64 exception class */
	u64 error;	/* x86 error code, or arm64 ESR */
	u64 pc;		/* RIP / ELR */
	u64 addr;	/* CR2 / FAR */
	u64 sp;
	u64 flags;	/* RFLAGS / SPSR */
	u64 cs;		/* CS selector (privilege of the faulting code) */
	u64 kind;	/* MMUB_FAULT_* */
};

/*
 * An exception, or (x86 --nested-guest) the guest's L2 exited to the
 * guest: vector is then the SVM exit code, error and addr EXITINFO1 and
 * EXITINFO2, pc, sp, flags and cs the L2's.
 */
enum mmub_fault_kind {
	MMUB_FAULT_EXCEPTION = 0,
	MMUB_FAULT_L2_EXIT = 1,
};

/* One record per pass, written by the guest before it acks. */
struct mmub_pass {
	u64 generation;
	u64 clk_start;	/* guest clock: TSC or CNTVCT */
	u64 clk_end;
	u64 accesses;
	u64 writes;
	/* MMUB_WL_CHECK: what the old contents said about each write */
	u64 zero_reads;	/* found zero: refaulted after an invalidation */
	u64 violations;	/* found neither zero nor our own stamp */
	u64 zero_lo;	/* lowest and highest test-memory offset read as zero */
	u64 zero_hi;
	u64 bad_addr;	/* first violation: address and what was there */
	u64 bad_value;
	u64 shared_reads; /* MMUB_WL_CONVERT: the host's shared word found */
};

#define MMUB_PRINT_BUF	1024

/*
 * The 8-byte stamp the guest writes at each written stride: its epoch
 * lets the dirty-log oracle tell writes before a harvest from writes
 * after it (see host/framework/oracle.c).
 */
#define MMUB_STAMP(gen, epoch, cpu) \
	(((u64)(gen) << 40) | ((u64)((epoch) & 0xffffffffU) << 8) | ((cpu) + 1))
#define MMUB_STAMP_EPOCH(stamp)	(((stamp) >> 8) & 0xffffffffU)

/* Accesses between two looks at the mailbox (heartbeat, stop, epoch). */
#define MMUB_BATCH	4096

struct mmub_mailbox {
	/* host -> guest */
	u64 cmd_seq;
	u32 cmd;
	u32 cmd_arg;
	u64 stop;
	u64 epoch;	/* stamped into writes; read once per batch */
	u64 host_pad[4];

	/* guest -> host, on its own cache line */
	u64 ack_seq;
	u32 state;
	u32 error;
	u64 heartbeat;	/* bumped at least every MMUB_BATCH accesses */
	u64 passes_done;
	u64 accesses;	/* since boot, all passes */
	u64 epoch_seen;	/* every write with an older epoch is done */
	u64 guest_pad[2];

	struct mmub_fault fault;

	/* results of the last completed pass (or loop) */
	struct mmub_pass last;
	struct mmub_hist lat;	/* reset by the guest at each command */

	u32 print_len;
	u32 print_pad;
	char print_buf[MMUB_PRINT_BUF];
} __attribute__((aligned(MMUB_CACHELINE)));

MMUB_STATIC_ASSERT(offsetof(struct mmub_mailbox, ack_seq) == 64);
MMUB_STATIC_ASSERT(offsetof(struct mmub_mailbox, fault) == 128);

#endif
