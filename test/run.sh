#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The test command: build what the tests use (the host with ASan/UBSan),
# find KVM (here, or the nested kernel under QEMU), run every bats file,
# print where the time went, and end with "N passed, N failed".
#
#   test/run.sh [FILE.bats...]
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
: "${ARCH:=$(uname -m | sed -e 's/aarch64/arm64/')}"
export ARCH
declare -A took
clock() { date +%s.%N; }
since() { echo "$(clock) - $1" | bc; }

t=$(clock)
if ! make -s -j"$(nproc)" all unit SANITIZE=1 >/tmp/mmub-test-build.log 2>&1; then
	tail -n 30 /tmp/mmub-test-build.log
	echo "0 passed, 1 failed"
	exit 1
fi
took[build]=$(since "$t")

# KVM: direct if this machine has it, else the nested kernel (built once
# and cached outside the checkout); if neither, KVM tests skip and say why.
t=$(clock)
if [[ -r /dev/kvm && -w /dev/kvm ]]; then
	export MMUB_KVM_MODE=direct
elif kernel=$(ci/kernel/build.sh --arch "$ARCH" 2>/tmp/mmub-kernel.log | tail -n1) &&
     [[ -f $kernel ]]; then
	export MMUB_KVM_MODE=nested
else
	export MMUB_KVM_MODE=none
	export MMUB_KVM_WHY="no /dev/kvm here, and the nested kernel did not build: $(tail -n1 /tmp/mmub-kernel.log)"
fi
took[kvm-setup]=$(since "$t")
echo "# KVM for the tests: $MMUB_KVM_MODE${MMUB_KVM_WHY:+ ($MMUB_KVM_WHY)}"

pass=0 fail=0 skip=0

# build_series ARCH SERIES: the patched kernel an effect test boots, an
# incremental build on top of the original (about a minute).  A series
# that no longer applies or builds is a failure, with its log's end.
build_series() {
	local t log=/tmp/mmub-kernel-$2-$1.log
	t=$(clock)
	if ci/kernel/build.sh --arch "$1" --series "$2" >"$log" 2>&1; then
		echo "# kernel $1/$2: ready"
	else
		echo "# kernel $1/$2: FAILED:"
		tail -n 15 "$log" | sed -e 's/^/#   /'
		fail=$((fail + 1))
	fi
	took[kernel-$2]=$(since "$t")
}

# The effect tests of the x86 series (seeds 001 and 002) boot these.
if [[ $MMUB_KVM_MODE == nested && $ARCH == x86_64 && -z ${MMUB_NO_SERIES:-} ]]; then
	build_series x86_64 tdp-mmu-unlink-empty-leaf-tables
	build_series x86_64 x86-nx-skip-dirty-tracked-recovery
fi

# The arm64 series (seed 000) builds on the original arm64 kernel, which
# is only there if someone built it (about 30 min): test/seed000_init_set.bats.
if [[ -f ${MMUBENCH_CACHE:-$HOME/.cache/mmubench}/kernel/trees/original-arm64/build/arch/arm64/boot/Image &&
      -z ${MMUB_NO_SERIES:-} ]]; then
	build_series arm64 arm64-dirty-log-init-set-valid-entries
fi

files=("$@")
((${#files[@]})) || files=(test/*.bats)
for f in "${files[@]}"; do
	t=$(clock)
	log=$(mktemp)
	bats --tap "$f" | tee "$log"
	pass=$((pass + $(grep -cE '^ok [0-9]+ ' "$log" | tr -d ' ') - $(grep -cE '^ok [0-9]+ .*# skip' "$log")))
	skip=$((skip + $(grep -cE '^ok [0-9]+ .*# skip' "$log")))
	fail=$((fail + $(grep -cE '^not ok [0-9]+ ' "$log")))
	# A file that crashed before reporting its plan counts as a failure.
	grep -qE '^1\.\.[0-9]+' "$log" || fail=$((fail + 1))
	rm -f "$log"
	took[$(basename "$f")]=$(since "$t")
done

echo "# where the time went (seconds):"
for k in "${!took[@]}"; do
	printf '#   %-46s %8.1f\n' "$k" "${took[$k]}"
done | sort -k3 -rn
echo "$pass passed, $fail failed, $skip skipped"
((fail == 0))
