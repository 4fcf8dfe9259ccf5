/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixed-width types and small helpers that both the freestanding guest
 * and the glibc host compile.  Everything in include/mmubench/ describes
 * memory that the host writes and the guest reads (or the reverse), so
 * every structure there has a fixed layout on x86_64 and arm64 alike.
 */
#ifndef MMUBENCH_TYPES_H
#define MMUBENCH_TYPES_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

#define MMUB_KIB	(1ULL << 10)
#define MMUB_MIB	(1ULL << 20)
#define MMUB_GIB	(1ULL << 30)

#define MMUB_SZ_4K	(4ULL * MMUB_KIB)
#define MMUB_SZ_2M	(2ULL * MMUB_MIB)
#define MMUB_SZ_1G	(1ULL * MMUB_GIB)

#define MMUB_CACHELINE	64

#define mmub_align_up(x, a)	(((x) + (a) - 1) & ~((u64)(a) - 1))
#define mmub_align_down(x, a)	((x) & ~((u64)(a) - 1))
#define mmub_is_aligned(x, a)	(((x) & ((u64)(a) - 1)) == 0)
#define mmub_min(a, b)		((a) < (b) ? (a) : (b))
#define mmub_max(a, b)		((a) > (b) ? (a) : (b))
#define MMUB_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define MMUB_STATIC_ASSERT(cond) _Static_assert(cond, #cond)

/*
 * Mailbox fields are written by one side and polled by the other.  The
 * guest may be an arm64 vCPU, so plain volatile is not enough: publish
 * with release and observe with acquire.
 */
#define mmub_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define mmub_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define mmub_load_relaxed(p)	__atomic_load_n((p), __ATOMIC_RELAXED)
#define mmub_store_relaxed(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

#endif
