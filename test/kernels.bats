#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The nested kernels every KVM effect test boots: both arches' originals
# (Debian's linux-source-6.1 + ci/kernel/ARCH.config) and each series of
# patches/ on top.  test/run.sh runs this file first.  A kernel that does
# not build is a failure here, and the tests that boot it fail too: they
# never skip.  Cold: about 4 min for x86_64, 3 to 5 for arm64, 15 s a
# series; cached: under a second each.
load helpers

# A cold build on a loaded machine is slow; a hang still ends.
BATS_TEST_TIMEOUT=2400

# build ARCH [SERIES]: ci/kernel/build.sh, its timings on the TAP output.
build() {
	local a=$1 s=${2:-original}
	run "$ROOT/ci/kernel/build.sh" --arch "$a" --series "$s"
	grep -E 'total|cache hit' <<<"$output" | sed -e 's/^/# /' >&3 || true
	assert_success
	assert_file_exists "$(series_image "$s" "$a")"
	# The last line of stdout is the image.
	assert_equal "${lines[-1]}" "$(series_image "$s" "$a")"
}

@test "kernel: the x86_64 original builds" {
	build x86_64
}

@test "kernel: the arm64 original builds" {
	build arm64
}

@test "kernel: series tdp-mmu-unlink-empty-leaf-tables applies and builds (x86_64)" {
	build x86_64 tdp-mmu-unlink-empty-leaf-tables
}

@test "kernel: series tdp-mmu-no-unlink-control applies and builds (x86_64)" {
	build x86_64 tdp-mmu-no-unlink-control
}

@test "kernel: series x86-nx-skip-dirty-tracked-recovery applies and builds (x86_64)" {
	build x86_64 x86-nx-skip-dirty-tracked-recovery
}

@test "kernel: series arm64-dirty-log-init-set-valid-entries applies and builds (arm64)" {
	build arm64 arm64-dirty-log-init-set-valid-entries
}
