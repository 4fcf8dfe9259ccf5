#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# tools/kexec-ab.sh: A/B by kexec.  Its results device (tools/kexec/slots.sh)
# on files, its bad input, and the whole of it in the nested setup: the
# L1 original kernel kexecs into each step's kernel and back, and both
# sides' JSONs arrive with the identity the kernels report themselves.
# Nothing here kexecs this machine: only L1 does, under QEMU.
load helpers

K=tools/kexec-ab.sh
SERIES=tdp-mmu-unlink-empty-leaf-tables

# bad ARGS...: exit 2, one line, the expected text, nothing made.
bad() { # EXPECTED ARGS...
	local want=$1
	shift
	run "$ROOT/$K" --out "$BATS_TEST_TMPDIR/out" "$@"
	assert_equal "$status" 2
	assert_equal "${#lines[@]}" 1
	assert_output "$K: error: $want"
	assert_not_exist "$BATS_TEST_TMPDIR/out"
}

@test "kexec-ab: bad input is one line, exit 2, before anything is built or kexec'd" {
	bad "--series NAME is required (a folder of patches/BASE, or original for A/A), or --kernel-src SRC --sides ..." \
		--results /dev/null -- zap
	bad "--series nope: no such series for base 6.1 (a folder of $ROOT/patches/6.1, or original for A/A)" \
		--series nope -- zap
	bad "--repeat x: expected a number >= 1" --series original --repeat x -- zap
	bad "--repeat 0: expected a number >= 1" --nested --series original --repeat 0 -- zap
	bad "no scenario after --: e.g. -- zap --zap same4 -v 2 -b 32m" --series original
	bad "--json: kexec-ab.sh writes each run's JSON and passes the guest itself" \
		--series original -- zap --json x.json
	bad "--results DEV is required (a partition marked by --format-results)" \
		--series original -- zap
	bad "--results /nonexistent/disk: no such device" \
		--series original --results /nonexistent/disk -- zap
	bad "--frob: unknown option (tools/kexec-ab.sh --help lists them)" --frob
	bad "--kernel 5.15: the base kernel, one of: 6.1 6.12 (Debian's linux-source-BASE)" \
		--kernel 5.15 --series original -- zap
	bad "--results x: not with --nested (its disk is made here)" \
		--nested --results x --series original -- zap
	bad "--resume kexecs this machine: add --yes-kexec-this-machine" --resume /nonexistent
	local repo=$BATS_TEST_TMPDIR/tiny
	git init -q "$repo"
	git -C "$repo" -c user.name=t -c user.email=t@invalid commit -q --allow-empty -m tiny
	bad "--sides a=HEAD,b=HEAD,c=HEAD: two sides, A and B, for a kexec A/B" \
		--nested --kernel-src "$repo" --sides a=HEAD,b=HEAD,c=HEAD -- zap
	bad "--sides: only with --kernel-src (Debian's bases take --series)" \
		--nested --sides a=HEAD,b=HEAD -- zap
	bad "--series and --kernel-src: one of them (the sides of --kernel-src are --sides)" \
		--nested --kernel-src "$repo" --sides a=HEAD,b=HEAD --series x -- zap
}

@test "kexec-ab: no kexec of this machine without --yes-kexec-this-machine" {
	local img=$BATS_TEST_TMPDIR/r.img
	truncate -s 16M "$img"
	run "$ROOT/$K" --format-results "$img"
	assert_success
	bad "--results $img: this kexecs the machine's own kernel; add --yes-kexec-this-machine" \
		--series original --results "$img" -- zap
}

@test "kexec-ab: --format-results marks an empty device and refuses one with a filesystem" {
	local img=$BATS_TEST_TMPDIR/r.img fs=$BATS_TEST_TMPDIR/fs.img
	truncate -s 20M "$img"
	run "$ROOT/$K" --format-results "$img"
	assert_success
	assert_output "$K: $img: a results device of 4 slots of 4 MiB (--repeat up to 2)"
	assert_equal "$(head -c 24 "$img")" "mmubench-kexec-results 1"
	# Ours already: marked again.
	run "$ROOT/$K" --format-results "$img" --slot-mib 2
	assert_success
	assert_output "$K: $img: a results device of 9 slots of 2 MiB (--repeat up to 4)"
	truncate -s 20M "$fs"
	mke2fs -q -F "$fs"
	run "$ROOT/$K" --format-results "$fs"
	assert_equal "$status" 2
	assert_output "$K: error: --format-results $fs: holds ext2 (a filesystem or partition table signature); wipefs it first if its data is not needed"
	# Not touched.
	run blkid -p -o value -s TYPE "$fs"
	assert_output ext2
	run "$ROOT/$K" --format-results "$BATS_TEST_TMPDIR/none"
	assert_equal "$status" 2
	assert_output "$K: error: --format-results $BATS_TEST_TMPDIR/none: no such device or file"
}

@test "kexec-ab: a slot gives back what was stored, and nothing of another job or a torn write" {
	local img=$BATS_TEST_TMPDIR/r.img d=$BATS_TEST_TMPDIR/d
	truncate -s 20M "$img"
	mkdir -p "$d"
	echo '{"x": 1}' >"$d/result.json"
	tar -C "$d" -cf "$d/p.tar" result.json
	# shellcheck source=../tools/kexec/slots.sh
	source "$ROOT/tools/kexec/slots.sh"
	kx_write_header "$img" 4 J1
	assert_equal "$(kx_slot_state "$img" 1 J1)" empty
	kx_mark "$img" 1 J1 started
	assert_equal "$(kx_slot_state "$img" 1 J1)" started
	kx_store "$img" 1 J1 done "$d/p.tar" rc=0
	assert_equal "$(kx_slot_state "$img" 1 J1)" done
	assert_equal "$(kx_slot_state "$img" 1 J2)" empty
	assert_equal "$(kx_slot_state "$img" 2 J1)" empty
	run bash -c "source '$ROOT/tools/kexec/slots.sh'; kx_payload '$img' 1 | tar -xO"
	assert_success
	assert_output '{"x": 1}'
	# One byte of the payload changed: the checksum refuses it.
	printf 'y' | dd of="$img" bs=1 seek=$((4 * 1048576 + 4096 + 520)) conv=notrunc 2>/dev/null
	run bash -c "source '$ROOT/tools/kexec/slots.sh'; kx_payload '$img' 1"
	assert_failure
	assert_output ''
	# Larger than a slot: refused, the slot unchanged.
	head -c $((4 * 1048576)) /dev/zero >"$d/big"
	run bash -c "source '$ROOT/tools/kexec/slots.sh'; kx_store '$img' 2 J1 done '$d/big'"
	assert_failure
	assert_output "slots.sh: step 2: 4194304 bytes, larger than a slot (4190208)"
	assert_equal "$(kx_slot_state "$img" 2 J1)" empty
}

# The nested run: L1 boots the original, kexecs into A (the original)
# and B (the series) in turn, each time back into itself; results read
# from its disk here.
@test "kexec-ab --nested: the original kexecs into the patched kernel and back; both sides' results with the kernels' own identity" {
	[[ $ARCH == x86_64 ]] || skip "--nested is x86_64 only (the arm64 L1 has no disk driver)"
	require_series original
	require_series "$SERIES"
	local out=$BATS_TEST_TMPDIR/kx
	run "$ROOT/$K" --nested --series "$SERIES" --repeat 1 --out "$out" \
		--mmubench "$MMUBENCH" --guest "$GUEST" -- zap --zap same4 -v 1 -b 16m
	sed -n '/^where the time went/,$p' <<<"$output" | sed 's/^/# /' >&3
	assert_success
	# Both steps' kernels, as they report themselves (Debian's 6.1 image
	# and the kvm.ko of each side: mmubench's env, and the step's
	# identity), not as planned.
	assert_json "$out/runs/A-1.json" '.scenario == "zap" and
		(.env | .kernel_base == "6.1" and .kvm_module == "mmub-original" and
		 .kernel_series == "original")'
	assert_json "$out/runs/B-1.json" '.scenario == "zap" and
		(.env | .kernel_base == "6.1" and .kvm_module == "mmub-" + $s and
		 .kernel_series == $s)' --arg s "$SERIES"
	assert_file_contains "$out/runs/A-1.identity" '^release 6\.1\.[0-9]*-[0-9]*-cloud-amd64$'
	assert_file_contains "$out/runs/B-1.identity" '^release 6\.1\.[0-9]*-[0-9]*-cloud-amd64$'
	assert_file_contains "$out/runs/A-1.identity" '^kvm_module mmub-original$'
	assert_file_contains "$out/runs/B-1.identity" "^kvm_module mmub-$SERIES\$"
	# B freed the tables A kept: the series' own effect, so B's kvm.ko
	# was the one that ran.
	assert_json "$out/runs/A-1.json" '.results.runs[0].zap.kernel_tables_freed == 0'
	assert_json "$out/runs/B-1.json" '.results.runs[0].zap.kernel_tables_freed > 0'
	assert_file_contains "$out/runs/B-1.identity" ' mmubench.step=2 mmubench.side=B '
	# L1 came back after each step: the last word is its own.
	run cat "$out/l1.log"
	assert_line "$K: all 2 steps stored on /dev/vda"
	assert_json "$out/compare.json" '.a.label == "original" and .b.label == $s and
		(.rows[] | select(.metric == "zap_total_ms") | .row == "same4")' --arg s "$SERIES"
	run cat "$out/compare.txt"
	assert_line --regexp '^  same4 +1 +1 '
	run cat "$out/time.txt"
	assert_line --regexp '^  runs A \(original\) +[0-9.]+  \(1 boot, '
	assert_line --regexp "^  runs B \\($SERIES\\) +[0-9.]+  \\(1 boot, "
	assert_line --regexp '^  total +[0-9.]+$'
	for f in A.json B.json command.txt; do assert_file_exists "$out/$f"; done
}

# A step whose scenario fails: its reason comes back from the slot, and
# the job ends there.
@test "kexec-ab --nested: a step's failure is reported with the step's own error" {
	[[ $ARCH == x86_64 ]] || skip "--nested is x86_64 only (the arm64 L1 has no disk driver)"
	require_series original
	local out=$BATS_TEST_TMPDIR/kx
	run "$ROOT/$K" --nested --series original --repeat 1 --out "$out" \
		--mmubench "$MMUBENCH" --guest "$GUEST" -- zap --zap nosuch -v 1 -b 16m
	assert_failure
	assert_line --partial "| mmubench: --zap nosuch: "
	assert_line --regexp "^tools/kexec-ab.sh: error: step 1 \\(A 1/1, kernel original\\): mmubench exited 2$"
	assert_line "$K: error: L1 failed (exit 1); see $out/l1.log"
	assert_not_exist "$out/runs/A-1.json"
}

