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

@test "manifest: the nightly's default steps are the stanzas marked default, in order, as ci/ab.sh commands" {
	run ci/nightly --dry-run --out "$OUT"
	assert_success
	local ab="ci/ab.sh --kernel 6.1 --series"
	assert_output "build: build
kernels: kernels
tests: make test
seed000: $ab arm64-dirty-log-init-set-valid-entries --arch arm64 --clock host --repeat 5 --runs --out $OUT/seed000 -- dirty-log --mode clear-init-set -v 2 -b 64m -i 1 --fraction 0.25
seed000-migration: $ab arm64-dirty-log-init-set-valid-entries --arch arm64 --mem 4G --clock host --repeat 5 --runs --out $OUT/seed000-migration -- migrate --mode clear-init-set -v 2 -b 1g --ranges 0+24m,1g+24m --idle --bandwidth 8m
seed001: $ab tdp-mmu-unlink-empty-leaf-tables --arch x86_64 --clock host --repeat 5 --runs --out $OUT/seed001 -- zap --table -v 2 -b 64m
seed002: $ab x86-nx-skip-dirty-tracked-recovery --arch x86_64 --clock host --repeat 5 --runs --out $OUT/seed002 -- nx-recovery -v 2 -b 64m -x 16 --reserve-hugepages
seed003: $ab original --arch x86_64 --clock host --repeat 5 --runs --out $OUT/seed003 -- dirty-log --table enable -b 64m
resolution: ci/resolution.sh --grades 1,2,5,10,25,50 --repeat 10 --at 5,10 --clock icount:4 --out $OUT/resolution
peer: ci/peer.sh --kernel 6.1 --arch x86_64 -v 2 -b 64m --runs 5 --out $OUT/peer
report: ci/report/report.sh --out $OUT/report $OUT"
	assert_not_exists "$OUT"
	# The knobs: NIGHTLY_VCPUS/MEM, an env. knob, a series of 6.12.
	run env NIGHTLY_VCPUS=3 NIGHTLY_MEM=16m NIGHTLY_MIGRATE='-v 1 -b 8m' \
		ci/nightly --dry-run --out "$OUT" --only seed000-migration,seed001
	assert_line --partial "--out $OUT/seed000-migration -- migrate --mode clear-init-set -v 1 -b 8m"
	assert_line --partial "--out $OUT/seed001 -- zap --table -v 3 -b 16m"
	run ci/nightly --dry-run --out "$OUT" --kernel 6.12 --only seed002-paper
	assert_line --regexp "^seed002-paper: ci/ab.sh --kernel 6.12 --series x86-nx-skip-dirty-tracked-recovery-revert --arch x86_64 --smp 4 --mem 3G --timeout 3600 .* --no-dirty-log$"
	# part_of: seed002-paper brings its logging twin.
	assert_line --regexp "^seed002-paper-logging: ci/ab.sh --kernel 6.12 "
}

@test "manifest: one stanza adds an experiment to the nightly, LAVA's list, the page and the gate" {
	echo "$ZAP_ROLLING" >>"$MMUBENCH_EXPERIMENTS"
	run ci/nightly --dry-run --out "$OUT"
	assert_success
	assert_line "zap-rolling: ci/ab.sh --kernel 6.1 --series tdp-mmu-unlink-empty-leaf-tables --arch x86_64 --clock host --repeat 5 --runs --out $OUT/zap-rolling -- zap --zap c4 -v 2 -b 64m"
	# After seed003, the last default stanza before it.
	assert_equal "$(grep -A1 '^seed003: ' <<<"$output" | sed -n 2p | cut -d: -f1)" zap-rolling
	run ci/lava/run.sh --only nosuch
	assert_failure 2
	assert_output "ci/lava/run.sh: error: --only nosuch: unknown (accepted: tests, seed000, seed000-migration, seed001, seed002, seed003, zap-rolling, peer)"
	# The page says what it measures (a night with seed001's runs under
	# its name), and names it missing where a night lacks it.
	cp -r "$ROOT/test/fixtures/report/night1" "$BATS_TEST_TMPDIR/n1"
	run ci/report/report.sh --out "$BATS_TEST_TMPDIR/report0" "$BATS_TEST_TMPDIR/n1"
	assert_success
	assert_file_contains "$BATS_TEST_TMPDIR/report0/index.html" 'zap-rolling: missing: not run this night'
	cp -r "$BATS_TEST_TMPDIR/n1/seed001" "$BATS_TEST_TMPDIR/n1/zap-rolling"
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
	bad_manifest "[seed001] aarch: no such key (experiments.conf says which)" \
		'/^\[seed001\]$/a aarch = x86_64'
	bad_manifest "[seed001] arch: given twice" '/^\[seed001\]$/a arch = arm64'
	bad_manifest "[seed001] arch riscv: x86_64 or arm64" \
		'/^\[seed001\]$/,/^arch/s/^arch = x86_64$/arch = riscv/'
	bad_manifest "[seed001] twice (first on line $(grep -n '^\[seed001\]$' "$ROOT/experiments.conf" | cut -d: -f1))" '$a [seed001]\narch = x86_64\nseries = original\nrun = touch'
	bad_manifest "[seed003] needs arch, series and run" \
		'/^\[seed003\]$/,/^run/{/^run = /d}'
	bad_manifest "[seed001] default maybe: yes or no" \
		'/^\[seed001\]$/,/^default/s/^default = yes$/default = maybe/'
	bad_manifest "[seed001-paper] smp four: a number" 's/^smp = 4$/smp = four/'
	bad_manifest '[seed000-migration] figure: 9 fields between " | ", TABLE | ROW | BEFORE | AFTER | UNITS | METRIC | A | B | SOURCE' \
		's/^figure = migration | 4K | /figure = migration 4K | /'
	bad_manifest "[seed001] threshold madvise_p50_us less 5: METRIC lower|higher PERCENT" \
		'/^\[seed001\]$/a threshold = madvise_p50_us less 5'
	bad_manifest '"[bad name]": a stanza is [NAME], NAME a folder name' '1i [bad name]'
	bad_manifest '"arch = x86_64": a key before the first [NAME]' '1i arch = x86_64'
}
