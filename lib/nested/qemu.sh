# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Which QEMU runs a nested kernel, sourced by lib/nested/run.sh,
# tools/ab.sh and ci/nightly (these to refuse before they build).
#
#   nested_qemu ARCH         the system's binary: qemu-system-x86_64 or
#                            qemu-system-aarch64
#   icount_cpus ARCH [SMP]   the L1 CPUs a run under icount gets: SMP if
#                            given, else 1 on x86_64 and 2 on arm64
#   icount_qemu ARCH         a QEMU that shares time between CPUs under
#                            icount, on stdout: the system's if it is
#                            8.1 or later, else lib/fetch-qemu.sh's;
#                            returns 1 with neither
#   icount_qemu_refusal ARCH CPUS [GIVEN]
#                            the one line that says what is missing;
#                            GIVEN non-empty when --smp said CPUS
#
# Under icount one TCG thread runs the CPUs in turn.  QEMU 7.2 gives each
# CPU the time left to the next deadline when its turn comes, so one
# that neither pauses nor halts leaves the others none: 6.1's x86
# do_boot_cpu() waits for a CPU so, and its boot never finishes; past a
# boot, how long a CPU runs before the next gets a turn is up to the
# guest (arm64 zap_total_ms 33 to 2104 ms over 9 boots, 95 to 462 on
# 10.0.2).  8.1 splits the time evenly (83ecdb18eb65).

nested_qemu() {
	case $1 in
	x86_64) echo qemu-system-x86_64 ;;
	arm64) echo qemu-system-aarch64 ;;
	esac
}

icount_cpus() {
	if [[ ${2:-} ]]; then
		echo "$2"
	elif [[ $1 == x86_64 ]]; then
		echo 1
	else
		echo 2
	fi
}

# qemu_version BIN: its version, "1.2.3", or nothing.
qemu_version() {
	{ "$1" --version 2>/dev/null || true; } | awk 'NR == 1 { print $4 }'
}

# version_at_least A B: dotted version A >= B.
version_at_least() {
	[[ $(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1) == "$2" ]]
}

icount_qemu() {
	local q fetched

	q=$(nested_qemu "$1")
	fetched=${MMUBENCH_CACHE:-$HOME/.cache/mmubench}/qemu/bin/$q
	if version_at_least "$(qemu_version "$q")" 8.1; then
		echo "$q"
	elif [[ -x $fetched ]]; then
		echo "$fetched"
	else
		return 1
	fi
}

icount_qemu_refusal() {
	local what="--smp $2" ver

	[[ ${3:-} ]] || what="$1's $2 CPUs (--smp 1: one)"
	ver=$(qemu_version "$(nested_qemu "$1")")
	echo "$what with --clock icount: needs QEMU 8.1 or later, whose icount shares time between CPUs (this is ${ver:-no QEMU}); lib/fetch-qemu.sh unpacks the backports' (ci/deps.sh does)"
}
