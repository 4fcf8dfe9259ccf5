#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Scenario "dirty-log": every mode, the oracle, first-harvest accounting.
# The nested runs of a kernel share its boot (batch_add, test/helpers.bash);
# the oracle's long sweeps (1000 rounds a mode) are the nightly's
# (test/nightly/oracle.bats), their short twins here.
load helpers

MODES="get clear clear-init-set ring ring-acq-rel"

# 2 vCPUs write half their memory while logging goes live and while the
# host harvests, 20 rounds per mode (the nightly's 1000:
# test/nightly/oracle.bats).  Harvests: the first, 2 at rest (-i), 20
# concurrent, 1 final at rest.
ROUNDS=20
oracle_sh() { # PREFIX
	local m
	for m in $MODES; do
		echo "one $1$m dirty-log -v 2 -b 4m -i 2 --fraction 0.5 --mode $m --verify --rounds $ROUNDS"
	done
}

# -w 50: a page a pass only reads is not written again, so a chunk or
# slot that is not re-protected shows, as false positives.
CHUNKED_SH='
o="dirty-log -v 2 -b 4m -i 2 -w 50 --verify --rounds '"$ROUNDS"'"
one clear-k64-x4 $o --mode clear -k 64 -x 4
one clear-k512 $o --mode clear -k 512
one init-set-k64-x4 $o --mode clear-init-set -k 64 -x 4
one init-set-k512 $o --mode clear-init-set -k 512
one get-x4 $o --mode get -x 4
one ring-x4 $o --mode ring -x 4
one ring-acq-rel-x4 $o --mode ring-acq-rel -x 4'

# drop_sh PREFIX MODES: lose, in harvest 5 (the third round while the
# vCPUs write; -i 2 makes harvests 0 to 2), one page that a vCPU wrote
# once in that window, and let its later writes be logged as usual: the
# loss a kernel can make that a rewrite hides on any other page.
drop_sh() { # PREFIX MODES
	local m
	for m in $2; do
		echo "one $1$m dirty-log -v 2 -b 4m -i 2 --mode $m --verify --rounds 20 --debug-drop-dirty 5"
	done
}

# One cold page (written before logging, never since) lost from the
# first harvest of clear-init-set, as a kernel would lose it.
COLD_SH='one cold-drop dirty-log -v 2 -b 4m -i 2 --mode clear-init-set --verify --rounds 20 --debug-drop-cold'

# The runs of "some KVM": this machine's, or the nested 6.1 x86_64 one
# (then in the same boot as the nested tests').
KVM_SH='
oneo ring4k dirty-log -v 2 -b 8m -i 2 --mode ring --ring-size 4k --verify --rounds 20
for m in '"$MODES"'; do
	one drop1-$m dirty-log -v 2 -b 4m -i 2 --mode $m --verify --rounds 20 --debug-drop-dirty 1
done
one nothing dirty-log -v 2 -b 4m -i 2 -w 0 --mode clear --verify --rounds 2 --debug-drop-dirty 1
for m in get clear clear-init-set ring; do
	one first-$m dirty-log -v 2 -b 8m -i 1 --fraction 0.25 --mode $m
done
oneo enable dirty-log --table enable -b 64m
oneo table-modes dirty-log --table enable --table-modes clear-init-set,clear -b 16m'

setup_file() {
	# This machine's KVM, where it has one: the oracle there too.
	[[ $MMUB_DIRECT != 1 ]] || KVM_SH+=$'\n'"$(oracle_sh k-)"
	batch_add kvm -- "$KVM_SH"
	batch_add x86-61 --nested -- "$(oracle_sh '')
$CHUNKED_SH
$(drop_sh w5- "$MODES")
$COLD_SH"
	batch_add x86-612 --base 6.12 -- "$(oracle_sh '')
$COLD_SH"
	batch_add a64-612 --arch arm64 --base 6.12 -- "
one ring-acq-rel dirty-log -v 2 -b 4m -i 2 --fraction 0.5 --mode ring-acq-rel --verify --rounds $ROUNDS
one ring dirty-log -v 2 -b 4m -i 2 --mode ring
$(drop_sh w5- ring-acq-rel)
$COLD_SH"
	batch_add a64-61 --arch arm64 --base 6.1 -- "
one ring-acq-rel-61 dirty-log -v 1 -b 4m --mode ring-acq-rel
$(drop_sh w5- "get clear clear-init-set")
$COLD_SH"
	batch_boots
}

# 2 x 4 MiB, 2048 pages in 32 words of the bitmap: 32 cold pages, 16 of
# them in the written half, which its passes leave alone (1008 touched).
oracle_all_modes() { # BATCH [PREFIX]: the runs oracle_sh PREFIX made
	local m p=${2:-} req
	batch "$1"
	assert_success
	for m in $MODES; do
		assert_line "RESULT $p$m rc=0"
		# Nothing missed, nothing reported that was not written; every
		# cold page in init-set's first harvest, none reported in any
		# other harvest or mode.
		[[ $m == clear-init-set ]] && req=32 || req=0
		result_json "$p$m" | assert_json - '.results.runs[0].dirty_log.verify |
			.harvests == $n + 4 and .changed > 0 and .missed == 0 and
			.false_positives == 0 and .sentinels > 0 and
			.cold_pages == 32 and .cold_required == $req and
			.cold_missed == 0 and .cold_false_reports == 0' \
			--argjson n "$ROUNDS" --argjson req "$req"
	done
	# The first harvest: exact, but with KVM_DIRTY_LOG_INITIALLY_SET
	# every page of the 2 x 4 MiB, half of them and the cold ones never
	# written since.
	for m in get clear ring ring-acq-rel; do
		result_json "$p$m" | assert_json - '.results.runs[0].dirty_log |
			.guest_touched == 1008 and .verify.first_harvest_false_positives == 0'
	done
	result_json "${p}clear-init-set" | assert_json - '.results.runs[0].dirty_log |
		.guest_touched == 1008 and .first_harvest_reported == 2048 and
		.verify.first_harvest_false_positives == 1040'
	# The ring modes kick every vCPU out of guest mode before a harvest
	# (Intel PML); the bitmap modes leave that to KVM.
	for m in ring ring-acq-rel; do
		result_json "$p$m" | assert_json - '.results.runs[0].dirty_log.iterations |
			length == 2 and all(.kick_ms > 0)'
	done
	result_json "${p}get" | assert_json - '.results.runs[0].dirty_log.iterations |
		length == 2 and all(.kick_ms == 0)'
}

@test "the oracle finds no missed page in any mode (20 concurrent rounds each), this machine's KVM" {
	[[ $MMUB_DIRECT == 1 ]] || skip "$MMUB_DIRECT (the nested test below runs anyway)"
	oracle_all_modes kvm k-
}

@test "the oracle finds no missed page in any mode (20 concurrent rounds each), nested TDP MMU" {
	require_nested
	oracle_all_modes x86-61
}

@test "the oracle finds no missed page in any mode (20 concurrent rounds each), nested TDP MMU, 6.12" {
	require_series original x86_64 6.12
	oracle_all_modes x86-612
}

# arm64 has dirty rings since 6.2, with acquire/release ordering only
# (KVM_CAP_DIRTY_LOG_RING is x86's): the 6.12 base has them, 6.1 not.
# The guest writes only from its vCPUs, so no dirty bitmap beside the
# ring is needed (KVM_CAP_DIRTY_LOG_RING_WITH_BITMAP: for the GIC ITS
# tables, written without a running vCPU).
@test "arm64 6.12: the oracle finds no missed page in the ring (20 concurrent rounds); 6.1 and plain ring name the capability" {
	require_series original arm64 6.12
	require_series original arm64 6.1
	batch a64-612
	assert_success
	assert_line "RESULT ring-acq-rel rc=0"
	result_json ring-acq-rel | assert_json - '.env.kernel_base == "6.12" and
		(.results.runs[0].dirty_log | .guest_touched == 1008 and
		 .verify.first_harvest_false_positives == 0 and
		 (.verify | .harvests == $n + 4 and .changed > 0 and .missed == 0 and
		  .false_positives == 0 and .sentinels > 0))' --argjson n "$ROUNDS"
	assert_line "RESULT ring rc=2"
	assert_line "mmubench: --mode ring: this kernel lacks KVM_CAP_DIRTY_LOG_RING"
	batch a64-61
	assert_line "RESULT ring-acq-rel-61 rc=2"
	assert_line "mmubench: --mode ring-acq-rel: this kernel lacks KVM_CAP_DIRTY_LOG_RING_ACQ_REL"
}

@test "the oracle with chunked clears (-k 64, -k 512) and 4 slots, every mode that has them, nested TDP MMU" {
	require_nested
	batch x86-61
	assert_success
	local t
	for t in clear-k64-x4 clear-k512 init-set-k64-x4 init-set-k512 get-x4 \
		 ring-x4 ring-acq-rel-x4; do
		assert_line "RESULT $t rc=0"
		result_json "$t" | assert_json - '.results.runs[0] |
			.dirty_log.verify.harvests == $n + 4 and
			.dirty_log.verify.changed > 0 and
			.dirty_log.verify.missed == 0 and
			.dirty_log.verify.false_positives == 0' --argjson n "$ROUNDS"
	done
	result_json clear-k64-x4 | assert_json - '.config |
		.clear_chunk == 64 and .slots == 4'
}

@test "a small dirty ring fills, the vCPUs wait, and nothing is lost" {
	require_kvm
	batch kvm
	assert_line "RESULT ring4k rc=0"
	result_lines ring4k | grep -qE "^  dirty ring: 256 entries per vCPU, [1-9][0-9]* ring-full exits" ||
		fail "no ring-full exits: $(result_lines ring4k)"
	result_lines ring4k | grep -qE "^  verify: 24 harvests checked, [1-9][0-9]* pages changed, 0 missed" ||
		fail "not 24 harvests with nothing missed: $(result_lines ring4k)"
}

# Harvest 1 is the first of -i 2, with the vCPUs at rest: the drop
# cannot be hidden by a rewrite.
@test "the oracle catches a page the harvest layer loses, in every mode, naming slot and gfn" {
	require_kvm
	batch kvm
	local m
	for m in $MODES; do
		assert_drop_caught "drop1-$m" 1 \
			"oracle: slot 1 gfn GFN changed but was not reported dirty \(written before the harvest, round 1\)" \
			"--verify: 1 page missed, first slot 1 gfn GFN"
	done
	# Nothing written, nothing reported, nothing to drop: an error too.
	assert_line "RESULT nothing rc=1"
	result_lines nothing | grep -qF -- "--debug-drop-dirty 1: no harvest from it on reported a page, so none was dropped" ||
		fail "no error for a drop that never happened: $(result_lines nothing)"
}

# drop_caught BATCH MODES: each mode's run of drop_sh failed, naming the
# page, its window and round.
drop_caught() {
	local m
	batch "$1"
	for m in $2; do
		assert_drop_caught "w5-$m" 5 \
			"oracle: slot 1 gfn GFN changed but was not reported dirty \(written once in window [0-9]+, a sentinel, which no later write refreshes, round 5\)" \
			"--verify: 1 page missed, first slot 1 gfn GFN"
	done
}

@test "a page written once and lost in a round while the vCPUs write is caught, every mode, x86 (6.1 TDP MMU)" {
	require_nested
	drop_caught x86-61 "$MODES"
}

@test "a page written once and lost in a round while the vCPUs write is caught, every mode, arm64 (6.1; rings on 6.12)" {
	require_series original arm64 6.1
	require_series original arm64 6.12
	drop_caught a64-61 "get clear clear-init-set"
	drop_caught a64-612 "ring-acq-rel"
}

# The fault a kernel makes that no write hides: a page written before
# logging and never again, not in KVM_DIRTY_LOG_INITIALLY_SET's first
# harvest.  Only that mode's first harvest must report cold pages (the
# others' exit 2 on the option, below).
@test "a cold page lost from init-set's first harvest is caught, naming slot, gfn and bitmap word: x86 and arm64, 6.1 and 6.12" {
	cold_caught_everywhere "dirty-log oracle: slot 1 gfn GFN, bitmap word 0 bit 1, a cold page \(written before logging, never since\), is not in the first harvest: KVM_DIRTY_LOG_INITIALLY_SET must report it, and a migration in this mode would never send it" \
		"mmubench: --verify: 1 page missed, first slot 1 gfn GFN"
}

@test "first harvest: init-set reports every page, get/clear/ring only written ones" {
	require_kvm
	batch kvm
	local m
	# A quarter of 2 x 8 MiB is touched: 1024 of 4096 pages.
	for m in get clear ring; do
		assert_line "RESULT first-$m rc=0"
		result_json "first-$m" | assert_json - '.results.runs[0].dirty_log |
			.first_harvest_reported == 0 and .guest_touched == 1024'
	done
	# Stock kernels set every bit; the arm64 series changes exactly this.
	assert_line "RESULT first-clear-init-set rc=0"
	result_json first-clear-init-set | assert_json - '.results.runs[0].dirty_log |
		.first_harvest_reported == 4096 and .guest_touched == 1024'
}

# Not a timing: the mechanism, as KVM counts it.  With
# KVM_DIRTY_LOG_INITIALLY_SET the enable write-protects nothing, so it
# flushes no TLB; get and clear write-protect every 4K mapping and flush.
# The times are printed, as a benchmark would, not asserted.
@test "the enable: clear-init-set write-protects nothing on 4K pages (no TLB flush), get and clear do" {
	require_kvm
	batch kvm
	assert_line "RESULT enable rc=0"
	result_lines enable | grep -qE "^  4K +[0-9.]+ +[0-9.]+ +[0-9.]+$" ||
		fail "no 4K row: $(result_lines enable)"
	result_lines enable | grep -qE "^  1G +(n/a: .+|[0-9.]+ +[0-9.]+ +[0-9.]+)$" ||
		fail "no 1G row: $(result_lines enable)"
	result_json enable >"$BATS_TEST_TMPDIR/t.json"
	local j=$BATS_TEST_TMPDIR/t.json get init
	assert_json "$j" '[.results.runs[] | select(.page == "4K") |
		{(.mode): (.phases[] | select(.name == "enable") |
			   .vm_stats.remote_tlb_flush_requests)}] | add as $f |
		$f.get >= 1 and $f.clear >= 1 and $f["clear-init-set"] == 0'
	get=$(json_val "$j" '.results.runs[] | select(.page == "4K" and .mode == "get") | .enable_ms')
	init=$(json_val "$j" '.results.runs[] | select(.page == "4K" and .mode == "clear-init-set") | .enable_ms')
	echo "# enable 4K: get ${get} ms, clear-init-set ${init} ms, ratio $(echo "scale=2; $get / $init" | bc)" >&3
}

@test "--table-modes: only the columns asked for, in their order" {
	require_kvm
	batch kvm
	assert_line "RESULT table-modes rc=0"
	result_lines table-modes | grep -qxF "  page size   clear-init-set           clear" ||
		fail "not the columns asked for: $(result_lines table-modes)"
	result_lines table-modes | grep -qE "^  4K +[0-9.]+ +[0-9.]+$" ||
		fail "no 4K row of two columns: $(result_lines table-modes)"
	result_json table-modes | assert_json - '.config.table_modes == ["clear-init-set", "clear"] and
		([.results.runs[] | select(.na == null) | .mode] | unique) == ["clear", "clear-init-set"] and
		([.results.runs[] | select(.page == "4K")] | length) == 2'
}

@test "dirty-log options are checked before any VM exists" {
	local m
	run "$MMUBENCH" dirty-log --mode foo
	assert_equal "$status" 2
	assert_output --partial "--mode foo: unknown (accepted: get, clear, clear-init-set, ring, ring-acq-rel)"
	run "$MMUBENCH" dirty-log -g -k 64
	assert_equal "$status" 2
	assert_output --partial "-k 64: only with --mode clear or clear-init-set, not get"
	run "$MMUBENCH" dirty-log --mode ring --ring-size 5000
	assert_equal "$status" 2
	assert_output --partial "--ring-size 5000: must be a power of two"
	run "$MMUBENCH" dirty-log --mode clear --ring-size 4k
	assert_equal "$status" 2
	assert_output --partial "--ring-size: only with --mode ring or ring-acq-rel, not clear"
	run "$MMUBENCH" dirty-log -k 100
	assert_equal "$status" 2
	assert_output --partial "-k 100: must be a multiple of 64 pages"
	run "$MMUBENCH" dirty-log --debug-drop-dirty 1
	assert_equal "$status" 2
	assert_output --partial "--debug-drop-dirty: needs --verify"
	run "$MMUBENCH" dirty-log -i 2 --verify --rounds 10 --debug-drop-dirty 14
	assert_equal "$status" 2
	assert_output "mmubench: --debug-drop-dirty 14: past the last harvest (accepted: 0..13, as -i 2 and --rounds 10 make 14 harvests)"
	for m in get clear ring ring-acq-rel; do
		run "$MMUBENCH" dirty-log --mode "$m" --verify --debug-drop-cold
		assert_equal "$status" 2
		assert_output "mmubench: --debug-drop-cold: only with --mode clear-init-set, whose first harvest must report every cold page; that of $m reports none, so there is none to drop"
	done
	run "$MMUBENCH" dirty-log --mode clear-init-set --debug-drop-cold
	assert_equal "$status" 2
	assert_output "mmubench: --debug-drop-cold: needs --verify, whose oracle must catch the dropped page"
	run "$MMUBENCH" dirty-log --mode clear-init-set --verify --no-cold --debug-drop-cold
	assert_equal "$status" 2
	assert_output "mmubench: --debug-drop-cold: drops a cold page; not with --no-cold"
	run "$MMUBENCH" touch --verify
	assert_equal "$status" 2
	assert_output "mmubench: --verify: belongs to the dirty-log scenario, not touch"
	run "$MMUBENCH" dirty-log --table frob
	assert_equal "$status" 2
	assert_output --partial "--table frob: unknown (accepted: enable)"
	run "$MMUBENCH" dirty-log --table-modes clear
	assert_equal "$status" 2
	assert_output "mmubench: --table-modes: only with --table enable"
	run "$MMUBENCH" dirty-log --table enable --table-modes clear,ring
	assert_equal "$status" 2
	assert_output "mmubench: --table-modes clear,ring: unknown mode 'ring' (accepted: get, clear, clear-init-set)"
	run "$MMUBENCH" dirty-log --table enable --table-modes get,get
	assert_equal "$status" 2
	assert_output "mmubench: --table-modes get,get: get twice"
	run "$MMUBENCH" dirty-log --table enable -e
	assert_equal "$status" 2
	assert_output "mmubench: --table enable: measures enabling only; not with -e"
	run "$MMUBENCH" dirty-log --table enable --page-steps
	assert_equal "$status" 2
	assert_output "mmubench: --table enable: measures enabling only; not with --page-steps"
}
