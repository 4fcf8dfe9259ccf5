#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The kernel cache shared by runs at once (lib/kernel/build.sh,
# lib/kernel/hold.sh, lib/kernel/cache.sh): each kernel in a folder named
# by the key of its content, held by every run from its build to its
# last boot, each boot checked against the build ids recorded when the
# run took the kernel, and a prune that removes only what no run holds.
load helpers

SERIES=tdp-mmu-unlink-empty-leaf-tables
CONTROL=tdp-mmu-no-unlink-control
ZAP_ARGS=(zap --zap same4 -v 1 -b 16m --zap-count 20)
TARBALL=/usr/src/linux-source-6.12.tar.xz

# A fake cache: KERNEL-DIR SIZE-MIB DAYS-SINCE-USE SOURCE, made under C.
fake_kernel() { # DIR MIB DAYS SRC
	mkdir -p "$1/build"
	echo key >"$1/build/.mmubench-key"
	echo $(($2 << 20)) >"$1/.mmubench-size"
	echo "$4" >"$1/.mmubench-src"
	touch -d "$3 days ago" "$1/.mmubench-hold"
}

@test "cache prune: by age, then the least recently used beyond the size; never a held kernel" {
	local c=$BATS_TEST_TMPDIR/cache k t pid
	k=$c/kernel/trees/6.1
	mkdir -p "$c/kernel/src/tar-1234" "$c/kernel/src/git-5678" "$k/old-x86_64/build"
	fake_kernel "$k/a-x86_64.000000000000000a" 100 40 "$c/kernel/src/tar-1234"
	fake_kernel "$k/b-x86_64.000000000000000b" 10 40 "$c/kernel/src/git-5678"
	fake_kernel "$k/c-x86_64.000000000000000c" 30 2 "$c/kernel/src/git-5678"
	fake_kernel "$k/d-x86_64.000000000000000d" 30 0 "$c/kernel/src/git-5678"
	ln -s b-x86_64.000000000000000b "$k/b-x86_64"
	ln -s a-x86_64.000000000000000a "$k/a-x86_64"
	# A run holds b.
	flock -s "$k/b-x86_64.000000000000000b/.mmubench-hold" sleep 60 3>&- &
	pid=$!
	sleep 0.3
	MMUBENCH_CACHE=$c run --separate-stderr "$ROOT/lib/kernel/cache.sh" list
	assert_success
	assert_line --regexp '^ +10M  [0-9: -]+  held +trees/6\.1/b-x86_64\.000000000000000b$'
	assert_line "  4 kernels, 170M of their own"
	assert_line "  old layout (prune removes it): trees/6.1/old-x86_64"
	MMUBENCH_CACHE=$c run --separate-stderr "$ROOT/lib/kernel/cache.sh" prune --max-size 50M
	kill "$pid"
	assert_success
	assert_line --regexp "^lib/kernel/cache.sh: removed trees/6\\.1/a-x86_64\\.000000000000000a: last used .*, more than 30 days ago$"
	assert_line --regexp "^lib/kernel/cache.sh: kept trees/6\\.1/b-x86_64\\.000000000000000b: held by a run \\(it would go: last used .*, more than 30 days ago\\)$"
	assert_line --regexp "^lib/kernel/cache.sh: removed trees/6\\.1/c-x86_64\\.000000000000000c: the least recently used \\(last .*\\), and the kernels' 70M exceed 50M$"
	assert_line "lib/kernel/cache.sh: removed trees/6.1/old-x86_64: a folder of the layout before keys, which build.sh no longer reads"
	assert_line "lib/kernel/cache.sh: removed src/tar-1234: no kernel left is built from it"
	for t in a-x86_64.000000000000000a c-x86_64.000000000000000c old-x86_64 a-x86_64; do
		[[ ! -e $k/$t && ! -L $k/$t ]] || fail "$t is still in the cache"
	done
	assert_dir_exists "$k/b-x86_64.000000000000000b"
	assert_dir_exists "$k/d-x86_64.000000000000000d"
	assert_dir_exists "$c/kernel/src/git-5678"
	assert_dir_not_exists "$c/kernel/src/tar-1234"
	# Bad limits: one line, exit 2.
	MMUBENCH_CACHE=$c run --separate-stderr "$ROOT/lib/kernel/cache.sh" prune --max-size 20X
	assert_equal "$status" 2
	assert_equal "$stderr" "lib/kernel/cache.sh: error: --max-size 20X: the kernels' own size at most, a number with K, M, G or T (20G)"
	MMUBENCH_CACHE=$c run --separate-stderr "$ROOT/lib/kernel/cache.sh" prune "$BATS_TEST_TMPDIR"
	assert_equal "$status" 2
	assert_equal "$stderr" "lib/kernel/cache.sh: error: prune $BATS_TEST_TMPDIR: not a kernel of $(realpath "$c")/kernel/trees (GROUP/NAME-ARCH.KEY)"
}

@test "hold: a kernel build.sh hands on stays held until the run's process ends" {
	local d=$BATS_TEST_TMPDIR/k.0123456789abcdef pid
	die() { echo "$*" >&2; return 1; }
	# shellcheck source=lib/kernel/hold.sh
	source "$ROOT/lib/kernel/hold.sh"
	sleep 2 &
	pid=$!
	hold_for "$pid" "$d" 3>&-
	! free_to_remove "$d" || fail "held for process $pid, yet free to remove"
	wait "$pid"
	sleep 1.5
	free_to_remove "$d" || fail "process $pid ended 1.5 s ago, and the kernel is still held"
}

# ab DIR SIDES [--repeat R]: tools/ab.sh on Debian's 6.12 tarball.
ab() { # OUT SIDES [ARGS...]
	local o=$1 s=$2
	shift 2
	"$ROOT/tools/ab.sh" --kernel-src "$TARBALL" --sides "$s" --arch x86_64 --repeat 1 \
		--out "$o" --mmubench "$MMUBENCH" --guest "$GUEST" "$@" -- "${ZAP_ARGS[@]}"
}

freed() { json_val "$1" .results.runs[0].zap.kernel_tables_freed; }

# wait_for FILE PID LOG: until FILE exists (300 s at most) while the run
# PID, logging to LOG, goes on.
wait_for() { # FILE PID LOG
	local i
	for ((i = 0; i < 1500; i++)); do
		[[ -e $1 ]] && return
		kill -0 "$2" 2>/dev/null || { tail -n 20 "$3"; fail "the run ended with no $1"; }
		sleep 0.2
	done
	fail "no $1 after 300 s"
}

# The test-only kernel test 4 changes under its runs, and its link: gone
# before (a killed run leaves it, changed) and after it.
drop_replaced() {
	rm -rf "$CACHE"/kernel/trees/tar-*/test-replaced-x86_64{,.????????????????}
}

teardown() {
	[[ $BATS_TEST_DESCRIPTION != "a kernel replaced"* ]] || drop_replaced
}

# prune_held DIR PID N: once run N (PID, in DIR) has its first boot's
# JSON and not its second's, a prune of its v2 keeps it, held; prints
# the kernel's folder.  Nothing before; an error (on stdout) otherwise.
prune_held() { # DIR PID N
	local k out want
	if [[ ! -e $1/runs/A-1.json ]]; then
		kill -0 "$2" 2>/dev/null && return 0
		echo "run $3 ended with no $1/runs/A-1.json: $(tail -n 5 "$BATS_TEST_TMPDIR/$3.log")"
		return 1
	fi
	[[ ! -e $1/runs/B-1.json ]] || { echo "run $3 booted its v2 before this saw its first boot"; return 1; }
	k=$(tail -n1 "$1/build-v2.log")
	k=${k%/build/*}
	out=$("$ROOT/lib/kernel/cache.sh" prune --max-age 0 --max-size 0 "$k" 2>&1) ||
		{ echo "prune failed: $out"; return 1; }
	want="^lib/kernel/cache.sh: kept ${k#"$(realpath "$CACHE")"/kernel/}: held by a run \(it would go: last used [0-9: -]+, more than 0 days ago\)$"
	[[ $out =~ $want ]] ||
		{ echo "run $3's v2, pruned while the run boots it: $out"; return 1; }
	echo "$k"
}

@test "two A/Bs at once with the same side name and different series: each its own kernel and effect" {
	[[ $ARCH == x86_64 ]] || skip "an x86 TDP MMU series"
	require_series original x86_64 6.12
	local o1=$BATS_TEST_TMPDIR/ab1 o2=$BATS_TEST_TMPDIR/ab2 v2=$BATS_TEST_TMPDIR/v2.mbox
	local ctl=$BATS_TEST_TMPDIR/control.mbox p1 p2 rc1=0 rc2=0 k1='' k2='' f1 f2 t
	cat "$ROOT/patches/6.12/$SERIES"/*.patch >"$v2"
	cat "$ROOT/patches/6.12/$CONTROL"/*.patch >"$ctl"
	ab "$o1" "original=,v2=$v2" >"$BATS_TEST_TMPDIR/1.log" 2>&1 3>&- &
	p1=$!
	ab "$o2" "original=,v2=$ctl" >"$BATS_TEST_TMPDIR/2.log" 2>&1 3>&- &
	p2=$!
	# A prune of each run's v2 the moment its first boot is done (its v2
	# still to boot): kept, as held.  Whichever run gets there first: on
	# a cold cache one builds while the other boots, and may be done
	# before the other's first boot (a CI run's: its v2 was pruned).
	for ((t = 0; t < 1500 && (${#k1} == 0 || ${#k2} == 0); t++)); do
		[[ $k1 ]] || k1=$(prune_held "$o1" "$p1" 1) || fail "$k1"
		[[ $k2 ]] || k2=$(prune_held "$o2" "$p2" 2) || fail "$k2"
		sleep 0.2
	done
	[[ $k1 && $k2 ]] || fail "no first boot of both runs after 300 s"
	[[ $k1 != "$k2" ]] || fail "both runs' v2 is $k1"
	wait "$p1" || rc1=$?
	wait "$p2" || rc2=$?
	((rc1 == 0 && rc2 == 0)) || { tail -n 20 "$BATS_TEST_TMPDIR"/[12].log; fail "exit $rc1 and $rc2"; }
	f1=$(freed "$o1/runs/B-1.json") f2=$(freed "$o2/runs/B-1.json")
	echo "# at once: tables freed: v2 (the series) $f1, v2 (the control) $f2" >&3
	# The series frees, the control never (0 in every run so far); the
	# count is of tdp_mmu_free_sp_rcu_callback() calls inside the zap
	# phase, and was 1 once with both A/Bs and another file running (2
	# to 4 in 30 runs of test/unlink_empty_tables.bats, whose threshold
	# is 2): a callback can run after the probes stop, RCU's grace
	# period being later under load (not measured).
	((f1 >= 1)) || fail "the series' v2 freed $f1 tables, expected >= 1"
	assert_equal "$f2" 0
	assert_dir_exists "$k1"
	assert_dir_exists "$k2"
}

@test "a kernel replaced or removed under a running A/B fails that run, naming it, and writes no result" {
	[[ $ARCH == x86_64 ]] || skip "an x86 TDP MMU series"
	require_series original x86_64 6.12
	local o=$BATS_TEST_TMPDIR/ab v2=$BATS_TEST_TMPDIR/v2.mbox p rc=0 k a id rec
	cat "$ROOT/patches/6.12/$SERIES"/*.patch >"$v2"
	drop_replaced
	# Replaced: B's kvm.ko becomes the original's after B's first boot.
	ab "$o" "original=,test-replaced=$v2" --repeat 2 >"$BATS_TEST_TMPDIR/r.log" 2>&1 3>&- &
	p=$!
	wait_for "$o/runs/B-1.json" "$p" "$BATS_TEST_TMPDIR/r.log"
	k=$(tail -n1 "$o/build-test-replaced.log") a=$(tail -n1 "$o/build-original.log")
	k=${k%/build/*} a=${a%/build/*}
	cp "$a/build/mmubench-modules/kvm.ko" "$k/build/mmubench-modules/kvm.ko"
	id=$(awk '$1 == "kvm" { print $2 }' "$a/build/.mmubench-id")
	rec=$(awk '$1 == "kvm" { print $2 }' "$o/build-test-replaced.id")
	wait "$p" || rc=$?
	assert_equal "$rc" 1
	run cat "$BATS_TEST_TMPDIR/r.log"
	assert_line --regexp "^lib/nested/run.sh: error: the booted kernel is not the one this run took: its kvm has build id $id, expected $rec \\($k, as its build/.mmubench-id said when the run took it; booted release [^)]*\\): was the kernel's folder replaced under this run\\?$"
	assert_line "tools/ab.sh: error: run B 2/2 (test-replaced) failed (exit 1); see $o/runs/B-2.log"
	assert_file_not_exists "$o/runs/B-2.json"
	assert_file_not_exists "$o/compare.json"
	# The next build of it finds it changed and builds it again, not a
	# cache hit.  Removed: the folder gone after B's first boot.
	rm -rf "$o"
	rc=0
	ab "$o" "original=,test-replaced=$v2" --repeat 2 >"$BATS_TEST_TMPDIR/d.log" 2>&1 3>&- &
	p=$!
	wait_for "$o/runs/B-1.json" "$p" "$BATS_TEST_TMPDIR/d.log"
	rm -rf "$k"
	wait "$p" || rc=$?
	assert_equal "$rc" 1
	run cat "$o/build-test-replaced.log"
	assert_line "lib/kernel/build.sh: $k: build/mmubench-modules/kvm.ko has build id $id, its build recorded $rec: built again"
	run cat "$BATS_TEST_TMPDIR/d.log"
	assert_line "lib/nested/run.sh: error: no kernel image at $k/build/arch/x86/boot/bzImage"
	assert_file_not_exists "$o/runs/B-2.json"
	assert_file_not_exists "$o/compare.json"
}
