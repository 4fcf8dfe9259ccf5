#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The nested kernels every KVM effect test boots, on each base: both
# arches' originals and each series of patches/BASE on top, from Debian's
# linux-source-BASE (lib/kernel/build.sh): on x86_64 Debian's own image
# with KVM built as its modules (cold: 2 to 4 min an original, under a
# minute a series), on arm64, where KVM cannot be a module, the whole
# kernel (7 to 12 min an original, about a minute a series).  test/run.sh
# runs this file first.  A kernel that does not build is a failure here,
# and the tests that boot it fail too: they never skip.  Cached: a second
# or two each.
load helpers

# A cold build on a loaded machine is slow; a hang still ends.
BATS_TEST_TIMEOUT=2400

# build BASE ARCH [SERIES]: lib/kernel/build.sh, its timings on the TAP output.
build() {
	local b=$1 a=$2 s=${3:-original}
	# A cold build takes minutes: say which one runs now.
	echo "# building $b $a $s ($(date +%H:%M:%S))" >&3
	run "$ROOT/lib/kernel/build.sh" --base "$b" --arch "$a" --series "$s"
	grep -E 'total|cache hit' <<<"$output" | sed -e 's/^/# /' >&3 || true
	assert_success
	assert_file_exists "$(series_image "$s" "$a" "$b")"
	# The last line of stdout is the image, in the folder of the build's
	# key that the name's link points to.
	[[ ${lines[-1]} =~ \.[0-9a-f]{16}/build/ ]] || fail "not a folder by key: ${lines[-1]}"
	assert_equal "$(readlink -f "${lines[-1]}")" "$(readlink -f "$(series_image "$s" "$a" "$b")")"
}

@test "kernel: the 6.1 x86_64 original builds" {
	build 6.1 x86_64
}

@test "kernel: the 6.1 arm64 original builds" {
	build 6.1 arm64
}

@test "kernel: 6.1 series tdp-mmu-unlink-empty-leaf-tables applies and builds (x86_64)" {
	build 6.1 x86_64 tdp-mmu-unlink-empty-leaf-tables
}

@test "kernel: 6.1 series tdp-mmu-no-unlink-control applies and builds (x86_64)" {
	build 6.1 x86_64 tdp-mmu-no-unlink-control
}

@test "kernel: 6.1 series x86-nx-skip-dirty-tracked-recovery applies and builds (x86_64)" {
	build 6.1 x86_64 x86-nx-skip-dirty-tracked-recovery
}

@test "kernel: 6.1 series arm64-dirty-log-init-set-valid-entries applies and builds (arm64)" {
	build 6.1 arm64 arm64-dirty-log-init-set-valid-entries
}

@test "kernel: the 6.12 x86_64 original builds" {
	build 6.12 x86_64
}

@test "kernel: the 6.12 arm64 original builds" {
	build 6.12 arm64
}

@test "kernel: 6.12 series tdp-mmu-unlink-empty-leaf-tables applies and builds (x86_64)" {
	build 6.12 x86_64 tdp-mmu-unlink-empty-leaf-tables
}

@test "kernel: 6.12 series tdp-mmu-no-unlink-control applies and builds (x86_64)" {
	build 6.12 x86_64 tdp-mmu-no-unlink-control
}

@test "kernel: 6.12 series x86-nx-skip-dirty-tracked-recovery-revert applies and builds (x86_64)" {
	build 6.12 x86_64 x86-nx-skip-dirty-tracked-recovery-revert
}

@test "kernel: 6.12 series arm64-dirty-log-init-set-valid-entries applies and builds (arm64)" {
	build 6.12 arm64 arm64-dirty-log-init-set-valid-entries
}

# Every series of every base is built above: a new folder in patches/
# without its test here would go unbuilt, and its effect test would fail
# naming a missing kernel rather than this file.
@test "kernel: every series of patches/ has its build test here" {
	local d built n=0
	built=$(awk '$1 == "build" && NF == 4 { print $2 "/" $4 }' "$BATS_TEST_FILENAME")
	for d in "$ROOT"/patches/*/*/; do
		d=${d%/}
		d=${d#"$ROOT"/patches/}
		grep -qxF "$d" <<<"$built" ||
			fail "patches/$d has no build test in test/kernels.bats"
		n=$((n + 1))
	done
	((n >= 8)) || fail "found $n series under patches/BASE/, expected the 8 ported"
}
