/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The boot protocol's version, in a header the guests' assembly can
 * include too: the image carries it in an ELF note ("mmubench", type
 * MMUB_NOTE_VERSION) and the host refuses an image of another version.
 * Bump it whenever a structure in include/mmubench/ changes.
 */
#ifndef MMUBENCH_VERSION_H
#define MMUBENCH_VERSION_H

#define MMUB_BOOT_VERSION	4
#define MMUB_NOTE_VERSION	1

#endif
