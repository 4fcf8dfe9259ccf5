# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# The results device of tools/kexec-ab.sh: where each step's result survives
# the kexec back to the machine's own kernel.  POSIX sh with busybox's
# tools (the kernel under test has nothing else) and GNU's alike: sourced
# by tools/kexec/step.sh in that kernel and by tools/kexec-ab.sh on the host.
#
# No filesystem, blocks of 4 KiB:
#   block 0      the header, text, zero-padded:
#                  mmubench-kexec-results 1
#                  slot-mib M
#                  job ID        ("none" until a job starts)
#   slot N       at N * M MiB (N >= 1; the first M MiB are the header's):
#                  its first block, one line, zero-padded:
#                  mmubench-kexec-slot 1 job=ID step=N state=S [rc=N]
#                      [len=BYTES sha256=HEX] [why=WORDS_WITH_UNDERSCORES]
#                  then, from its second block, len bytes: a tar of
#                  identity, stdout, stderr and result.json (if any)
# S is started (written before the kexec into the step's kernel), done
# (the scenario ran and exited 0) or failed.  A slot of another job, or
# none, is empty.  The payload is written and flushed before the line
# that points at it, so a step cut short leaves "started", never a torn
# result.

KX_MAGIC='mmubench-kexec-results 1'
KX_SLOT='mmubench-kexec-slot 1'

kx_block() { # DEV BLOCK: that 4 KiB block's text (up to its first zero)
	dd if="$1" bs=4096 skip="$2" count=1 2>/dev/null | tr -d '\000'
}

kx_is_ours() { # DEV: its header is ours
	[ "$(kx_block "$1" 0 | head -n1)" = "$KX_MAGIC" ]
}

kx_field() { # DEV KEY: the header's value of KEY
	kx_block "$1" 0 | sed -n "s/^$2 //p" | head -n1
}

kx_write_block() { # DEV BLOCK: standard input, zero-padded to the block
	# fullblock: a read of a pipe may return less than the block.
	dd of="$1" bs=4096 seek="$2" count=1 iflag=fullblock conv=notrunc,sync 2>/dev/null
}

kx_write_header() { # DEV SLOT_MIB JOB
	printf '%s\nslot-mib %s\njob %s\n' "$KX_MAGIC" "$2" "$3" |
		kx_write_block "$1" 0 && sync
}

kx_size() { # DEV: its size in bytes (a block device or a file)
	blockdev --getsize64 "$1" 2>/dev/null || stat -L -c %s "$1"
}

kx_nslots() { # DEV: how many slots fit after the header
	kx_n=$(kx_field "$1" slot-mib)
	echo $(($(kx_size "$1") / (kx_n * 1048576) - 1))
}

kx_slot_block() { # DEV N: slot N's first block
	echo $(($2 * $(kx_field "$1" slot-mib) * 256))
}

kx_slot_line() { # DEV N: slot N's line
	kx_block "$1" "$(kx_slot_block "$1" "$2")" | head -n1
}

kx_word() { # LINE KEY: the value of KEY=VALUE in LINE
	for kx_w in $1; do
		case $kx_w in
		"$2"=*) echo "${kx_w#*=}"; return 0 ;;
		esac
	done
	return 1
}

kx_slot_state() { # DEV N JOB: slot N's state for JOB: empty, started, done or failed
	kx_l=$(kx_slot_line "$1" "$2")
	case $kx_l in
	"$KX_SLOT "*) ;;
	*) echo empty; return ;;
	esac
	if [ "$(kx_word "$kx_l" job)" != "$3" ] ||
	   [ "$(kx_word "$kx_l" step)" != "$2" ]; then
		echo empty
		return
	fi
	kx_word "$kx_l" state || echo empty
}

kx_mark() { # DEV N JOB STATE [WORDS]: slot N's line, no payload
	printf '%s job=%s step=%s state=%s%s\n' "$KX_SLOT" "$3" "$2" "$4" "${5:+ $5}" |
		kx_write_block "$1" "$(kx_slot_block "$1" "$2")" && sync
}

kx_store() { # DEV N JOB STATE FILE [WORDS]: FILE as slot N's payload, then its line
	kx_b=$(kx_slot_block "$1" "$2")
	kx_len=$(stat -L -c %s "$5")
	kx_max=$(($(kx_field "$1" slot-mib) * 1048576 - 4096))
	if [ "$kx_len" -gt "$kx_max" ]; then
		echo "slots.sh: step $2: $kx_len bytes, larger than a slot ($kx_max)" >&2
		return 1
	fi
	kx_sum=$(sha256sum <"$5" | cut -d' ' -f1)
	dd if="$5" of="$1" bs=4096 seek=$((kx_b + 1)) conv=notrunc 2>/dev/null &&
		sync &&
		kx_mark "$1" "$2" "$3" "$4" "len=$kx_len sha256=$kx_sum${6:+ $6}"
}

kx_payload() { # DEV N: slot N's payload on stdout; fails on a bad checksum
	kx_l=$(kx_slot_line "$1" "$2")
	kx_len=$(kx_word "$kx_l" len) || return 1
	kx_b=$(kx_slot_block "$1" "$2")
	kx_tmp=$(mktemp "${TMPDIR:-/tmp}/kx-payload.XXXXXX") || return 1
	dd if="$1" bs=4096 skip=$((kx_b + 1)) count=$(((kx_len + 4095) / 4096)) 2>/dev/null |
		head -c "$kx_len" >"$kx_tmp"
	if [ "$(sha256sum <"$kx_tmp" | cut -d' ' -f1)" != "$(kx_word "$kx_l" sha256)" ]; then
		rm -f "$kx_tmp"
		return 1
	fi
	cat "$kx_tmp"
	rm -f "$kx_tmp"
}

# A device as the command line names it: /dev/NAME, or PARTLABEL=LABEL
# (a GPT partition's name, found without udev).  Fails if absent.
kx_resolve() { # SPEC
	case $1 in
	PARTLABEL=*)
		for kx_u in /sys/class/block/*/uevent; do
			if grep -qxF "PARTNAME=${1#PARTLABEL=}" "$kx_u" 2>/dev/null; then
				kx_d=${kx_u%/uevent}
				echo "/dev/${kx_d##*/}"
				[ -b "/dev/${kx_d##*/}" ]
				return
			fi
		done
		return 1 ;;
	*)	echo "$1"
		[ -e "$1" ] ;;
	esac
}

# The running initramfs (its rootfs, less the mounts on it) as a newc
# cpio on stdout: the initrd of the next kexec when there is no file of
# it (the nested test: every kernel boots the same initramfs).  Not
# compressed: under TCG, gzip -1 of its 30 MB took 16 s, cpio 1 s.
kx_repack() {
	(cd / && find . -xdev | cpio -o -H newc 2>/dev/null)
}
