#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The test command: build what the tests use (the host with ASan/UBSan,
# both arches' guests, the arm64 harness), decide where KVM runs (this
# machine's /dev/kvm, and always the nested kernels, which
# test/kernels.bats builds first), run every bats file, print where the
# time went, and end with "N passed, N failed, N skipped".  Before it
# starts it says what it will build and about how long that takes
# (test/plan.sh).
#
#   test/run.sh [--check] [FILE.bats...]
#
# --check is make check, the edit loop: no kernel is built and none
# booted; the tests that need a nested kernel skip, saying so, and the
# rest run (on this machine's /dev/kvm where there is one).
#
# The files run side by side, one a CPU (MMUB_LANES), the slowest of the
# last whole run first, after test/kernels.bats alone; each file's TAP
# is printed whole, in the order they started.
#
# Counted as failed: a test that fails or times out (BATS_TEST_TIMEOUT,
# 900 s unless a file sets its own), a test of a file's plan that never
# reported, a file that exits non-zero without a failing test, and a
# suite with more than MMUB_MAX_RETRIES announced retries.  So is a file
# after which a setting of the host's that a test may change (hugetlb
# pools, kvm parameters, tracing: test/host_state.sh) differs from
# before it (before and after all of them, side by side), or that
# leaves in the kernel cache a test-only kernel (test/series) it did not
# find there.  JUnit XML for CI engines goes to build/test-results/,
# and each file's seconds of a whole run to build/test-results/times.tsv
# (the next run's estimate); the slowest nested boots and the slowest
# runs inside them are printed at the end.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 1
# --help, or bad input before anything builds; FILE is relative to the
# repository.
tier=test
args=()
for f in "$@"; do
	[[ $f == -h || $f == --help ]] && {
		echo "usage: test/run.sh [--check] [FILE.bats...] (every test/*.bats when none)"
		exit 0
	}
	[[ $f == --check ]] && { tier=check; continue; }
	[[ $f == *.bats && -f $f ]] || {
		echo "test/run.sh: $f: not a bats file of this repository (test/run.sh [--check] [FILE.bats...])" >&2
		exit 2
	}
	[[ $tier != check || $f != test/kernels.bats ]] || {
		echo "test/run.sh: --check builds no kernel: test/kernels.bats is make test's" >&2
		exit 2
	}
	args+=("$f")
done
set -- "${args[@]}"
MMUB_TIER=$tier
export MMUB_TIER
: "${ARCH:=$(uname -m | sed -e 's/aarch64/arm64/')}"
: "${MMUB_MAX_RETRIES:=3}"
: "${BATS_TEST_TIMEOUT:=900}"
export ARCH BATS_TEST_TIMEOUT
# Every kernel the suite builds stays held until the suite ends: another
# run's prune (lib/kernel/cache.sh) cannot take one away between tests.
MMUBENCH_HOLD_PID=$$
export MMUBENCH_HOLD_PID
# MMUB_RESULTS: test/runner.bats' own runs keep the suite's.
results=${MMUB_RESULTS:-$root/build/test-results}
logs=$(mktemp -d "${TMPDIR:-/tmp}/mmub-test.XXXXXX")
trap 'rm -rf "$logs"' EXIT
# Each nested boot's and each run's seconds in it (test/helpers.bash).
MMUB_RUNS_LOG=$logs/runs.tsv
export MMUB_RUNS_LOG
: >"$MMUB_RUNS_LOG"
# shellcheck source=test/host_state.sh
source "$root/test/host_state.sh"
# shellcheck source=test/test_kernels.sh
source "$root/test/test_kernels.sh"
# shellcheck source=test/plan.sh
source "$root/test/plan.sh"
declare -A took
order=()
clock() { date +%s.%N; }
since() { echo "$(clock) - $1" | bc; }
note_time() { # NAME START
	[[ -n ${took[$1]+x} ]] || order+=("$1")
	took[$1]=$(since "$2")
}
pass=0 fail=0 skip=0 retries=0

plan_say "$root" "$tier"

t=$(clock)
build() {
	make -s -j"$(nproc)" all unit SANITIZE=1 &&
	make -s -j"$(nproc)" all &&
	make -s -j"$(nproc)" ARCH=arm64 guest host
}
if ! build >"$logs/build.log" 2>&1; then
	tail -n 30 "$logs/build.log"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
note_time build "$t"

# Direct KVM: this machine's /dev/kvm, if it runs a guest.  Where it
# does not, the tests that need "a KVM" run nested instead; nothing
# skips for want of it.
t=$(clock)
if [[ ! -e /dev/kvm ]]; then
	MMUB_DIRECT="no /dev/kvm on this machine"
elif [[ ! -r /dev/kvm || ! -w /dev/kvm ]]; then
	MMUB_DIRECT="/dev/kvm is not read-writable for $(id -un)"
elif ! probe=$(build/san/mmubench touch -v 1 -b 4m -i 0 2>&1); then
	MMUB_DIRECT="/dev/kvm does not run the guest: $(grep -m1 '^mmubench' <<<"$probe")"
else
	MMUB_DIRECT=1
fi
export MMUB_DIRECT
note_time "direct KVM probe" "$t"

files=("$@")
whole=0
if ((${#files[@]} == 0)); then
	whole=1
	# The kernels first: the nested tests boot them.
	[[ $tier == check ]] || files=(test/kernels.bats)
	for f in test/*.bats; do
		[[ $f == test/kernels.bats ]] || files+=("$f")
	done
fi

# The nested kernels are there if test/kernels.bats (or an earlier run)
# built them; otherwise every nested test fails naming the reason.
nested_state() {
	local x86=$HOME/.cache/mmubench
	x86=${MMUBENCH_CACHE:-$x86}/kernel/trees/6.1/original-x86_64/build/arch/x86/boot/bzImage
	if [[ $tier == check ]]; then
		echo "make check boots no nested kernel"
	elif [[ -f $x86 ]]; then
		echo 1
	else
		echo "the nested x86_64 kernel did not build (see test/kernels.bats)"
	fi
}

mkdir -p "$results"
rm -f "$results"/*.xml

# Files run side by side, one a CPU.  make check's boot nothing.  make
# test's nested boots leave a core idle much of the time: one by one, a
# warm run's files took 32.5 min on 2 cores and the run used 1.2 of them
# on average; two at a time 23.9 min and 1.9 (docs/findings/suite-time.md).
# Each boot takes its L1's 2 GiB, so no more lanes than memory holds at
# 3 GiB each.  A direct run that raises a hugetlb pool, sets a kvm
# parameter or places kprobes holds the host's lock until it has put
# them back (cleanup_hold_host), so two files never put back each
# other's; with several lanes the host's settings are compared once,
# around all the files.
lanes=$(nproc)
if [[ $tier == test ]]; then
	mem=$(awk '/^MemAvailable:/ { printf "%d", $2 / (3 * 1024 * 1024) }' /proc/meminfo)
	((mem >= 1)) || mem=1
	((lanes <= mem)) || lanes=$mem
fi
lanes=${MMUB_LANES:-$lanes}	# test/runner.bats

# run_file FILE: bats on it; its TAP in $logs/NAME.tap (on this terminal
# too when the files run one by one), bats' status in NAME.rc, its
# seconds in NAME.secs; side by side, a line when it ends.
run_file() {
	local f=$1 name t rc
	name=$(basename "$f" .bats)
	t=$(clock)
	mkdir -p "$logs/$name"
	if ((lanes == 1)); then
		bats --tap --timing --report-formatter junit -o "$logs/$name" "$f" | tee "$logs/$name.tap"
		rc=${PIPESTATUS[0]}
	else
		bats --tap --timing --report-formatter junit -o "$logs/$name" "$f" >"$logs/$name.tap" 2>&1
		rc=$?
	fi
	echo "$rc" >"$logs/$name.rc"
	# Whole or absent: print_done takes a file whose .secs exists as ended.
	since "$t" >"$logs/$name.secs.tmp" && mv "$logs/$name.secs.tmp" "$logs/$name.secs"
	# Side by side a file's TAP waits for those before it: say at once
	# that this one ended, for a run that goes on for minutes.
	((lanes == 1)) || printf '# %s done in %.0f s (bats exited %s)\n' "$name.bats" "$(cat "$logs/$name.secs")" "$rc"
}

# longest_first TIMES FILE...: the files, the slowest of the last whole
# run (TIMES, "NAME.bats<TAB>seconds" lines: its build/test-results/, or
# test/times.tsv before one) first and those it lacks before them, so
# that no long file starts last and runs alone.
longest_first() { # TIMES FILE...
	local times=$1 i=0 f
	shift
	[[ -r $times ]] || { printf '%s\n' "$@"; return; }
	for f in "$@"; do
		awk -F'\t' -v n="${f##*/}" -v i=$((i++)) -v f="$f" '
			$1 == n { s = $2 }
			END { printf "%s\t%06d\t%s\n", (s == "" ? 1e9 : s), i, f }' "$times"
	done | sort -t$'\t' -k1,1gr -k2,2n | cut -f3
}

# tally FILE: its tests counted into the totals, and a file that stopped
# early or failed without a failing test counted as one failure.
tally() {
	local f=$1 name log rc plan ok skipped bad
	name=$(basename "$f" .bats)
	log=$logs/$name.tap rc=$(cat "$logs/$name.rc")
	[[ -f $logs/$name/report.xml ]] && mv "$logs/$name/report.xml" "$results/$name.xml"
	plan=$(grep -m1 -oE '^1\.\.[0-9]+' "$log" | cut -d. -f3)
	ok=$(grep -cE '^ok [0-9]+ ' "$log")
	skipped=$(grep -cE '^ok [0-9]+ .*# skip' "$log")
	bad=$(grep -cE '^not ok [0-9]+ ' "$log")
	pass=$((pass + ok - skipped)) skip=$((skip + skipped)) fail=$((fail + bad))
	if [[ -z $plan ]]; then
		echo "# $f: no plan reported: counted as one failure"
		fail=$((fail + 1))
	elif ((ok + bad < plan)); then
		echo "# $f: $((plan - ok - bad)) of its $plan tests never reported: counted as failed"
		fail=$((fail + plan - ok - bad))
	elif ((rc != 0 && bad == 0)); then
		echo "# $f: bats exited $rc without a failing test: counted as one failure"
		fail=$((fail + 1))
	fi
	retries=$((retries + $(grep -cE '^# retried: ' "$log")))
	[[ -n ${took[$name.bats]+x} ]] || order+=("$name.bats")
	took[$name.bats]=$(cat "$logs/$name.secs")
}

# print_done: the TAP of each file from files[next] on that has ended,
# up to the first that runs still, tallied.
print_done() {
	local name
	while ((next < ${#pids[@]})); do
		name=$(basename "${files[next]}" .bats)
		[[ -f $logs/$name.secs ]] || return 0
		cat "$logs/$name.tap"
		tally "${files[next]}"
		next=$((next + 1))
	done
}

# check_left WHAT BEFORE_HOST BEFORE_KERNELS: one failure for each of a
# setting of the host's and a test-only kernel that WHAT left changed.
check_left() {
	local changed left
	changed=$(host_state_diff "$2" "$(host_state)")
	if [[ $changed ]]; then
		echo "# $1: left the host changed (counted as one failure):"
		sed 's/^/#   /' <<<"$changed"
		fail=$((fail + 1))
	fi
	left=$(LC_ALL=C comm -13 <(echo "$3") <(test_kernels))
	if [[ $left ]]; then
		echo "# $1: left test-only kernels in the kernel cache (counted as one failure):"
		sed 's/^/#   /' <<<"$left"
		fail=$((fail + 1))
	fi
}

announce() { # WHEN
	echo "# KVM for the tests: direct: ${MMUB_DIRECT/#1/yes}; nested: ${MMUB_NESTED/#1/yes}"
	echo "# host settings compared before and after $1: $(host_state | grep -c .) (test/host_state.sh)"
}

if ((lanes == 1)); then
	for f in "${files[@]}"; do
		MMUB_NESTED=$(nested_state)
		export MMUB_NESTED
		if [[ $(basename "$f") != kernels.bats && ${announced:-} != 1 ]]; then
			announced=1
			announce "each file"
		fi
		host_before=$(host_state)
		kernels_before=$(test_kernels)
		run_file "$f"
		tally "$f"
		check_left "$f" "$host_before" "$kernels_before"
	done
else
	# The kernels first and alone: the nested files boot them.
	if [[ ${files[0]} == test/kernels.bats ]]; then
		lanes_save=$lanes lanes=1
		run_file "${files[0]}"
		tally "${files[0]}"
		lanes=$lanes_save
		files=("${files[@]:1}")
	fi
	MMUB_NESTED=$(nested_state)
	export MMUB_NESTED
	announce "all the files (they run $lanes at a time)"
	host_before=$(host_state)
	kernels_before=$(test_kernels)
	times=$results/times.tsv
	[[ -f $times ]] || times=$root/test/times.tsv
	mapfile -t files < <(longest_first "$times" "${files[@]}")
	t=$(clock)
	# Each file's TAP is printed once it and those before it are done.
	pids=() next=0
	for ((i = 0; i < ${#files[@]}; i++)); do
		while (($(jobs -rp | wc -l) >= lanes)); do
			wait -n
			print_done
		done
		run_file "${files[i]}" &
		pids[i]=$!
	done
	for ((i = next; i < ${#files[@]}; i++)); do
		wait "${pids[i]}"
		print_done
	done
	check_left "the files" "$host_before" "$kernels_before"
	note_time "the files, $lanes at a time (wall)" "$t"
fi

echo "# where the time went (seconds):"
for k in "${order[@]}"; do
	printf '#   %-40s %8.1f\n' "$k" "${took[$k]}"
done
# A whole run's pace, for the next one's estimate (test/plan.sh).
if ((whole)) && [[ $tier == test ]]; then
	for k in "${order[@]}"; do
		[[ $k != *.bats && $k != "the files, "* ]] || printf '%s\t%s\n' "$k" "${took[$k]}"
	done >"$results/times.tsv.tmp" && mv "$results/times.tsv.tmp" "$results/times.tsv"
	cp "$MMUB_RUNS_LOG" "$results/runs.tsv.tmp" && mv "$results/runs.tsv.tmp" "$results/runs.tsv"
fi
echo "# slowest tests:"
cat "$logs"/*.tap | sed -nE 's/^(not )?ok [0-9]+ (.*) # in ([0-9]+) ?ms$/\3 \2/p' |
	sort -rn | head -n 8 | awk '{ t = $1 / 1000; $1 = ""; sub(/^ +/, ""); printf "#   %7.1f s  %s\n", t, $0 }'
# A boot's seconds include its runs'; a file's, its boots'.
for what in boot run; do
	echo "# slowest ${what}s (of a --sh script; FILE, the ${what}):"
	awk -F'\t' -v w="$what" 'index($2, w " ") == 1' "$MMUB_RUNS_LOG" | sort -t$'\t' -k3,3rn |
		head -n 8 | awk -F'\t' '{ printf "#   %7.1f s  %s: %s\n", $3, $1, substr($2, index($2, " ") + 1) }'
done
echo "# JUnit XML: $results/"
echo "retries: $retries (at most $MMUB_MAX_RETRIES)"
if ((retries > MMUB_MAX_RETRIES)); then
	echo "# more retries than $MMUB_MAX_RETRIES: counted as one failure"
	fail=$((fail + 1))
fi
echo "$pass passed, $fail failed, $skip skipped"
((fail == 0))
