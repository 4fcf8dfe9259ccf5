#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# experiments.conf, the experiments' manifest (ci/manifest.sh): the
# nightly's steps are its stanzas, one more stanza is one more experiment
# in the nightly, LAVA's list and the night's page, and a bad manifest is
# one line and exit 2 before anything runs.
load helpers

setup() {
	cd "$ROOT" || return 1
	export MMUBENCH_EXPERIMENTS=$BATS_TEST_TMPDIR/experiments.conf
	cp "$ROOT/experiments.conf" "$MMUBENCH_EXPERIMENTS"
	OUT=$BATS_TEST_TMPDIR/night
}

# One experiment more, as a user would add it.
ZAP_ROLLING='
[zap-rolling]
# Rolling invalidations of 4 chunks, v2 against the original.
arch = x86_64
series = tdp-mmu-unlink-empty-leaf-tables
run = zap --zap c4 -v $VCPUS -b $MEM
default = yes
about = rolling invalidations of 4 chunks
headline = madvise_p50_us
threshold = madvise_p50_us lower 50'

@test "manifest: the nightly's default steps are the stanzas marked default, in order, as tools/ab.sh commands" {
	run ci/nightly --dry-run --out "$OUT"
	assert_success
	local ab="tools/ab.sh --kernel 6.1 --series"
	assert_output "build: build
kernels: kernels
tests: make test
sweeps: test/run.sh test/nightly/ab.bats test/nightly/kexec.bats test/nightly/oracle.bats test/nightly/patch_checks.bats test/nightly/peer.bats test/nightly/resolution.bats
first-harvest-init-set: $ab arm64-dirty-log-init-set-valid-entries --arch arm64 --clock host --repeat 5 --runs --out $OUT/first-harvest-init-set -- dirty-log --mode clear-init-set -v 2 -b 64m -i 1 --fraction 0.25
migrate-init-set: $ab arm64-dirty-log-init-set-valid-entries --arch arm64 --mem 4G --clock host --repeat 5 --runs --out $OUT/migrate-init-set -- migrate --mode clear-init-set -v 2 -b 1g --ranges 0+24m,1g+24m --idle --bandwidth 8m
zap-patterns: $ab tdp-mmu-unlink-empty-leaf-tables --arch x86_64 --clock host --repeat 5 --runs --out $OUT/zap-patterns -- zap --table -v 2 -b 64m
nx-recovery: $ab x86-nx-skip-dirty-tracked-recovery --arch x86_64 --clock host --repeat 5 --runs --out $OUT/nx-recovery -- nx-recovery -v 2 -b 64m -x 16 --reserve-hugepages
enable-init-set: $ab original --arch x86_64 --clock host --repeat 5 --runs --out $OUT/enable-init-set -- dirty-log --table enable -b 64m
resolution: tools/resolution.sh --grades 1,2,5,10,25,50 --repeat 10 --at 5,10 --clock icount:4 --out $OUT/resolution
peer: tools/peer.sh --kernel 6.1 --arch x86_64 -v 2 -b 64m --runs 5 --out $OUT/peer
report: ci/report/report.sh --out $OUT/report $OUT"
	assert_not_exists "$OUT"
	# The knobs: NIGHTLY_VCPUS/MEM, an env. knob, a series of 6.12.
	run env NIGHTLY_VCPUS=3 NIGHTLY_MEM=16m NIGHTLY_MIGRATE='-v 1 -b 8m' \
		ci/nightly --dry-run --out "$OUT" --only migrate-init-set,zap-patterns
	assert_line --partial "--out $OUT/migrate-init-set -- migrate --mode clear-init-set -v 1 -b 8m"
	assert_line --partial "--out $OUT/zap-patterns -- zap --table -v 3 -b 16m"
	run ci/nightly --dry-run --out "$OUT" --kernel 6.12 --only nx-recovery-full
	assert_line --regexp "^nx-recovery-full: tools/ab.sh --kernel 6.12 --series x86-nx-skip-dirty-tracked-recovery-revert --arch x86_64 --smp 4 --mem 3G --timeout 3600 .* --no-dirty-log$"
	# part_of: nx-recovery-full brings its logging twin.
	assert_line --regexp "^nx-recovery-full-logging: tools/ab.sh --kernel 6.12 "
	# --only '': nothing but the build and the page (test/workflows.bats
	# runs the nightly so where /dev/kvm runs no guest; until 2026-12-03
	# it took the default list, make test among it, recursively).
	run ci/nightly --dry-run --out "$OUT" --only ''
	assert_success
	assert_output "build: build
kernels: kernels
report: ci/report/report.sh --out $OUT/report $OUT"
}

@test "manifest: one stanza adds an experiment to the nightly, LAVA's list, the page and the gate" {
	echo "$ZAP_ROLLING" >>"$MMUBENCH_EXPERIMENTS"
	run ci/nightly --dry-run --out "$OUT"
	assert_success
	assert_line "zap-rolling: tools/ab.sh --kernel 6.1 --series tdp-mmu-unlink-empty-leaf-tables --arch x86_64 --clock host --repeat 5 --runs --out $OUT/zap-rolling -- zap --zap c4 -v 2 -b 64m"
	# After enable-init-set, the last default stanza before it.
	assert_equal "$(grep -A1 '^enable-init-set: ' <<<"$output" | sed -n 2p | cut -d: -f1)" zap-rolling
	run ci/lava/run.sh --only nosuch
	assert_failure 2
	assert_output "ci/lava/run.sh: error: --only nosuch: unknown (accepted: tests, first-harvest-init-set, migrate-init-set, zap-patterns, nx-recovery, enable-init-set, zap-rolling, peer)"
	# The page says what it measures (a night with zap-patterns' runs under
	# its name), and names it missing where a night lacks it.
	cp -r "$ROOT/test/fixtures/report/night1" "$BATS_TEST_TMPDIR/n1"
	run ci/report/report.sh --out "$BATS_TEST_TMPDIR/report0" "$BATS_TEST_TMPDIR/n1"
	assert_success
	assert_file_contains "$BATS_TEST_TMPDIR/report0/index.html" 'zap-rolling: missing: not run this night'
	cp -r "$BATS_TEST_TMPDIR/n1/seed001" "$BATS_TEST_TMPDIR/n1/zap-rolling" # night1 predates the renames
	run ci/report/report.sh --out "$BATS_TEST_TMPDIR/report" "$BATS_TEST_TMPDIR/n1"
	assert_success
	assert_file_contains "$BATS_TEST_TMPDIR/report/index.html" 'x86_64, original against tdp-mmu-unlink-empty-leaf-tables: rolling invalidations of 4 chunks'
	# Its threshold is the gate's rule for it.
	run bash -c 'source ci/manifest.sh; manifest_load; manifest_thresholds zap-rolling'
	assert_success
	assert_output "| zap | madvise_p50_us | lower | 50 |"
}

# bad_manifest WANT SED: experiments.conf edited by SED must make
# ci/nightly fail with exactly WANT (after the file's path and line).
bad_manifest() {
	cp "$ROOT/experiments.conf" "$MMUBENCH_EXPERIMENTS"
	sed -i "$2" "$MMUBENCH_EXPERIMENTS"
	run --separate-stderr ci/nightly --dry-run --out "$OUT"
	assert_equal "$status" 2
	[[ $stderr =~ ^$MMUBENCH_EXPERIMENTS:[0-9]+:\ (.*)$ ]] || fail "stderr: $stderr"
	assert_equal "${BASH_REMATCH[1]}" "$1"
	assert_equal "$output" ""
}

@test "manifest: a bad stanza is one line naming the file, line and key; exit 2 before anything runs" {
	bad_manifest "[zap-patterns] aarch: no such key (experiments.conf says which)" \
		'/^\[zap-patterns\]$/a aarch = x86_64'
	bad_manifest "[zap-patterns] arch: given twice" '/^\[zap-patterns\]$/a arch = arm64'
	bad_manifest "[zap-patterns] arch riscv: x86_64 or arm64" \
		'/^\[zap-patterns\]$/,/^arch/s/^arch = x86_64$/arch = riscv/'
	bad_manifest "[zap-patterns] twice (first on line $(grep -n '^\[zap-patterns\]$' "$ROOT/experiments.conf" | cut -d: -f1))" '$a [zap-patterns]\narch = x86_64\nseries = original\nrun = touch'
	bad_manifest "[enable-init-set] needs arch, series and run" \
		'/^\[enable-init-set\]$/,/^run/{/^run = /d}'
	bad_manifest "[zap-patterns] default maybe: yes or no" \
		'/^\[zap-patterns\]$/,/^default/s/^default = yes$/default = maybe/'
	bad_manifest "[zap-patterns-full] smp four: a number" 's/^smp = 4$/smp = four/'
	bad_manifest '[migrate-init-set] figure: 9 fields between " | ", TABLE | ROW | BEFORE | AFTER | UNITS | METRIC | A | B | SOURCE' \
		's/^figure = migration | 4K | /figure = migration 4K | /'
	bad_manifest "[zap-patterns] threshold madvise_p50_us less 5: METRIC lower|higher PERCENT" \
		'/^\[zap-patterns\]$/a threshold = madvise_p50_us less 5'
	bad_manifest '"[bad name]": a stanza is [NAME], NAME a folder name' '1i [bad name]'
	bad_manifest '"arch = x86_64": a key before the first [NAME]' '1i arch = x86_64'
}

@test "manifest: an old name (alias) is taken for the experiment, and its results are found under it" {
	run --separate-stderr ci/nightly --dry-run --out "$OUT" --only seed001,enable-init-set,seed002-paper
	assert_success
	assert_equal "$stderr" "ci/nightly: --only seed001: now named zap-patterns (experiments.conf)
ci/nightly: --only seed002-paper: now named nx-recovery-full (experiments.conf)"
	assert_equal "$(cut -d: -f1 <<<"$output" | paste -sd' ')" \
		"build kernels zap-patterns enable-init-set nx-recovery-full nx-recovery-full-logging report"
	run --separate-stderr ci/lava/run.sh --only seed003 --results "$BATS_TEST_TMPDIR/none"
	assert_equal "$stderr" "ci/lava/run.sh: --only seed003: now named enable-init-set (experiments.conf)
ci/lava/run.sh: error: --results $BATS_TEST_TMPDIR/none: not a directory (a ci/nightly --direct --out folder)"
	# A night from before the rename: its folder under the old name.
	mkdir -p "$OUT/seed001" "$OUT/enable-init-set"
	run bash -c 'source ci/manifest.sh; manifest_load
		manifest_night_dir "$1" zap-patterns
		manifest_night_dir "$1" enable-init-set
		manifest_night_dir "$1" nx-recovery
		manifest_names_of nx-recovery-full-logging' _ "$OUT"
	assert_success
	assert_output "$OUT/seed001
$OUT/enable-init-set
$OUT/nx-recovery
nx-recovery-full-logging
seed002-paper-logging"
	# An old name is nobody else's, and no stanza's own.
	bad_manifest "[enable-init-set] alias seed001: already an alias of zap-patterns" \
		'/^\[enable-init-set\]$/a alias = seed001'
	# (a line further down: the alias is inserted above it)
	bad_manifest "[zap-patterns] alias nx-recovery: the name of the stanza on line $(($(grep -n '^\[nx-recovery\]$' "$ROOT/experiments.conf" | cut -d: -f1) + 1))" \
		'/^\[zap-patterns\]$/a alias = nx-recovery'
}
