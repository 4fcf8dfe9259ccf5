# SPDX-License-Identifier: GPL-2.0
# Shared by every bats file: paths, where KVM runs, the JSON assertions
# and the one retry rule.
bats_require_minimum_version 1.5.0
bats_load_library bats-support
bats_load_library bats-assert
bats_load_library bats-file

# The repository, from this file (test/nightly/ loads it too).
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
: "${O:=$ROOT/build}"
: "${ARCH:=$(uname -m | sed -e 's/aarch64/arm64/')}"
# The tests use the ASan/UBSan build of the harness.
: "${MMUBENCH:=$O/san/mmubench}"
: "${GUEST:=$O/$ARCH/guest.elf}"
# The arm64 harness is static and unsanitized: it runs in the nested
# arm64 kernel, where an ASan binary takes half a minute to start.
: "${A64_MMUBENCH:=$O/arm64/mmubench}"
: "${A64_GUEST:=$O/arm64/guest.elf}"
CACHE=${MMUBENCH_CACHE:-$HOME/.cache/mmubench}

# ---- where KVM runs --------------------------------------------------
#
# test/run.sh decides once, before any test:
#   MMUB_DIRECT  "1" when this machine's /dev/kvm runs the guest, else why not
#   MMUB_NESTED  "1" when the nested kernels are built, else why not
# Both can be true: then the tests that need only "a KVM" run directly,
# and the tests of the TDP MMU and of the series always run nested, so
# that every machine of this kind tests the same kernels.  A file run
# alone with bats decides here, the same way.
if [[ -z ${MMUB_DIRECT:-} ]]; then
	if [[ $(uname -m | sed -e 's/aarch64/arm64/') == "$ARCH" && -r /dev/kvm && -w /dev/kvm ]]; then
		MMUB_DIRECT=1
	else
		MMUB_DIRECT="no usable /dev/kvm for $ARCH here"
	fi
fi
if [[ -z ${MMUB_NESTED:-} ]]; then
	if [[ -f $CACHE/kernel/trees/6.1/original-x86_64/build/arch/x86/boot/bzImage ]]; then
		MMUB_NESTED=1
	else
		MMUB_NESTED="the nested kernel is not built (make kernel)"
	fi
fi

# MMUB_TIER=check (make check, test/run.sh --check): the edit loop, which
# builds no kernel and boots none; a test that needs a nested kernel
# skips there, saying so, and runs in make test.  Everywhere else the
# absence of KVM is a failure: a suite that skips every KVM test proves
# nothing.
: "${MMUB_TIER:=test}"
CHECK_SKIP="make check boots no nested kernel: make test runs this"

# not_in_check WHY: a test whose seconds go to a guest booted under QEMU
# or a page rendered in Chromium runs in make test; make check, the edit
# loop, skips it naming WHY.
not_in_check() { # WHY
	[[ $MMUB_TIER != check ]] || skip "make check $1: make test runs this"
}

# require_kvm: some KVM, here or nested.
require_kvm() {
	[[ $MMUB_DIRECT == 1 || $MMUB_NESTED == 1 ]] && return
	[[ $MMUB_TIER != check ]] || skip "$CHECK_SKIP"
	fail "no KVM for the test: $MMUB_DIRECT; $MMUB_NESTED"
}

# require_nested: the nested kernels (TDP MMU, stage 2, the series).
require_nested() {
	[[ $MMUB_NESTED == 1 ]] && return
	[[ $MMUB_TIER != check ]] || skip "$CHECK_SKIP"
	fail "nested KVM unavailable: $MMUB_NESTED"
}

# refused EXPECTED-LINE ARGS...: mmubench ARGS is bad input, one line
# "mmubench: EXPECTED-LINE" and exit 2.
refused() {
	local want=$1
	shift
	run "$MMUBENCH" "$@"
	assert_equal "$status" 2
	assert_output "mmubench: $want"
}

# kvm_mode: where "some KVM" runs: direct when it can, else nested.
kvm_mode() {
	if [[ $MMUB_DIRECT == 1 ]]; then echo direct; else echo nested; fi
}

# The kernel image lib/kernel/build.sh makes for a series of a base.
series_image() { # SERIES [ARCH [BASE]]
	local a=${2:-$ARCH} img=arch/x86/boot/bzImage
	[[ $a == arm64 ]] && img=arch/arm64/boot/Image
	echo "$CACHE/kernel/trees/${3:-6.1}/$1-$a/build/$img"
}

# require_series SERIES [ARCH [BASE]]: its kernel is built
# (test/kernels.bats builds every series first; a series that does not
# build fails there).
require_series() {
	require_nested
	[[ -f $(series_image "$@") ]] ||
		fail "the ${3:-6.1} ${2:-$ARCH} kernel of series $1 is not built (test/kernels.bats failed?)"
}

# kernel_repo DIR SERIES: a git tree of Debian's 6.12 source (its first
# commit) and patches/6.12/SERIES (its second), committed from the index
# only: the work tree is a hard-linked copy of the cache's pristine
# source and is never written.  The --kernel-src tests' user tree.
# Only the blobs mmubench reads are written: the top Makefile (the
# version) and the files the series changes (git apply, git diff); the
# others are in the index by their ids alone (update-index --info-only),
# which is what makes the tree's id Debian's.  Writing all 80,000 took
# a minute here, the ids alone 10 s.
kernel_repo() {
	local src=$CACHE/kernel/src/linux-6.12 p f c
	local id=(-c user.name=mmubench -c user.email=mmubench@invalid)
	[[ -f $src/Makefile ]] || fail "no unpacked 6.12 source at $src (test/kernels.bats unpacks it)"
	cp -al "$src" "$1"
	git -C "$1" init -q
	(cd "$1" && find . \( -type f -o -type l \) ! -path './.git/*' -printf '%P\0' |
		git update-index --add --info-only -z --stdin)
	for f in Makefile $(cat "$ROOT/patches/6.12/$2"/*.patch |
			sed -n 's|^--- a/\([^[:space:]]*\).*|\1|p' | sort -u); do
		git -C "$1" hash-object -w -- "$f" >/dev/null
	done
	# Plumbing: git commit will not build a tree of missing blobs.
	c=$(git -C "$1" "${id[@]}" commit-tree -m "linux-source-6.12" \
		"$(git -C "$1" write-tree --missing-ok)")
	for p in "$ROOT/patches/6.12/$2"/*.patch; do
		git -C "$1" apply --cached "$p"
	done
	c=$(git -C "$1" "${id[@]}" commit-tree -p "$c" -m "$2, ported to 6.12" \
		"$(git -C "$1" write-tree --missing-ok)")
	git -C "$1" update-ref HEAD "$c"
}

# ---- running mmubench on KVM -----------------------------------------
#
# mmub [--nested] [--arch A] [--base B] [--series S] [--append KARGS] [--mem SIZE]
#      [--timeout SEC] [--sh SCRIPT | SCENARIO OPTIONS...]
#
# Through bats' run: $status and $output.  Without --nested it runs
# where kvm_mode says; --base, --series, --append and --mem imply --nested.
# With --sh, SCRIPT (POSIX sh) runs with a function "mmubench", several
# runs in one boot.  A run that failed with a signature proven to be the
# nested setup (nested_infra_failure, below) is run again, at most
# NESTED_RETRIES times, and each retry is announced on its own line
# ("# retried: ..."), which test/run.sh counts.  Never in direct mode.
NESTED_RETRIES=1
: "${KVM_EXEC:=$ROOT/tools/kvm-exec.sh}"

mmub() {
	local mode arch=$ARCH bin=$MMUBENCH guest=$GUEST try why
	local kvm=() args=()

	mode=$(kvm_mode)
	while (($#)); do
		case $1 in
		--nested) mode=nested; shift ;;
		--arch) arch=$2; shift 2 ;;
		--base|--series|--append|--mem) mode=nested kvm+=("$1" "$2"); shift 2 ;;
		--timeout) kvm+=("$1" "$2"); shift 2 ;;
		--sh) kvm+=(--sh "$2"); shift 2 ;;
		*) break ;;
		esac
	done
	args=("$@")
	if [[ $arch == arm64 && $(uname -m) != aarch64 ]]; then
		mode=nested bin=$A64_MMUBENCH guest=$A64_GUEST
	fi
	[[ $mode == direct ]] || require_nested
	for ((try = 0; ; try++)); do
		MMUBENCH_KVM=$mode run "$KVM_EXEC" --arch "$arch" \
			"${kvm[@]}" "$bin" "$guest" "${args[@]}"
		((status != 0)) && [[ $mode == nested ]] && ((try < NESTED_RETRIES)) ||
			break
		why=$(nested_infra_failure <<<"$output") || break
		echo "# retried: nested-infra: $why" >&3
	done
	run_times
}

# The TIME lines of a --sh script's runs (ONE_SH) go to the suite's log,
# MMUB_RUNS_LOG (test/run.sh prints the slowest), not to the test.
run_times() {
	[[ $output == *TIME\ * ]] || return 0
	[[ -z ${MMUB_RUNS_LOG:-} ]] ||
		awk -v f="${BATS_TEST_FILENAME##*/}" '$1 == "TIME" && NF == 4 {
			printf "%s\trun %s\t%.2f\n", f, $2, $4 - $3 }' <<<"$output" >>"$MMUB_RUNS_LOG"
	output=$(grep -v '^TIME ' <<<"$output" || true)
	# As bats' run splits them: empty lines dropped.
	IFS=$'\n' read -d '' -r -a lines <<<"$output" || true
}

# ---- one boot for several tests --------------------------------------
#
# A nested boot costs 5 to 10 s before its first run starts.  A file
# whose tests boot the same kernel boots it once, in setup_file, with
# the runs of all its tests in one --sh script (ONE_SH's "one TAG ..."
# lines, each TAG once in the file), and each test reads that boot's
# output as if it had made the runs itself:
#
#   setup_file() {
#	batch_add NAME [mmub options] -- SCRIPT	# one a group of runs
#	...
#	batch_boots				# each kernel booted once
#   }
#   @test "..." { batch NAME; assert_line "RESULT tag rc=0"; ... }
#
# Groups that land on the same kernel share its boot: without a usable
# /dev/kvm, "some KVM" is the nested 6.1 x86_64 kernel too.  batch_boots
# boots nothing in make check, nor a kernel that is not built; batch then
# skips or fails as require_nested would.  A script ends in ":" so that
# the boot's status is its own (a test's runs say theirs on RESULT lines).
BATCH_NAMES=() BATCH_KEYS=() BATCH_ARGS=() BATCH_SCRIPTS=()

batch_add() { # NAME [MMUB-OPTIONS...] -- SCRIPT
	local name=$1 opts=() nested=0 arch=$ARCH base=6.1 series=original key
	local more=''
	shift
	while (($#)) && [[ $1 != -- ]]; do
		case $1 in
		--nested) nested=1 opts+=("$1") ;;
		--arch) arch=$2 opts+=("$1" "$2"); shift ;;
		--base) nested=1 base=$2 opts+=("$1" "$2"); shift ;;
		--series) nested=1 series=$2 opts+=("$1" "$2"); shift ;;
		--append|--mem) nested=1 more+=" $1=$2" opts+=("$1" "$2"); shift ;;
		# A boot's limit (lib/nested/run.sh's, 600 s unless given).
		--timeout) opts+=("$1" "$2"); shift ;;
		*) echo "batch_add $name: $1: not an option of mmub" >&2; return 1 ;;
		esac
		shift
	done
	[[ ${1:-} == -- && $# == 2 ]] || { echo "batch_add $name: -- SCRIPT expected" >&2; return 1; }
	[[ $arch == "$(uname -m | sed -e 's/aarch64/arm64/')" ]] || nested=1
	[[ $MMUB_DIRECT == 1 ]] || nested=1
	key=direct
	((!nested)) || key="nested $arch $base $series$more"
	BATCH_NAMES+=("$name") BATCH_KEYS+=("$key")
	BATCH_ARGS+=("$(printf '%q ' --arch "$arch" "${opts[@]}")") BATCH_SCRIPTS+=("$2")
}

batch_boots() {
	local i j key script args t0 secs
	local -A done_=()
	for i in "${!BATCH_KEYS[@]}"; do
		key=${BATCH_KEYS[i]}
		[[ -z ${done_[$key]+x} ]] || continue
		done_[$key]=1
		[[ $key == direct || $MMUB_NESTED == 1 ]] || continue
		[[ $MMUB_TIER != check || $key == direct ]] || continue
		script=$ONE_SH
		for j in "${!BATCH_KEYS[@]}"; do
			[[ ${BATCH_KEYS[j]} == "$key" ]] || continue
			script+=$'\n'"${BATCH_SCRIPTS[j]}"
		done
		t0=$EPOCHREALTIME
		eval "args=(${BATCH_ARGS[i]})"
		# shellcheck disable=SC2154 # args, set by eval
		mmub "${args[@]}" --sh "$script"$'\n:'
		secs=$(echo "$EPOCHREALTIME - $t0" | bc)
		printf '# one boot (%s): %.0f s\n' "$key" "$secs" >&3
		[[ -z ${MMUB_RUNS_LOG:-} ]] ||
			printf '%s\tboot %s\t%.2f\n' "${BATS_TEST_FILENAME##*/}" "$key" "$secs" >>"$MMUB_RUNS_LOG"
		for j in "${!BATCH_KEYS[@]}"; do
			[[ ${BATCH_KEYS[j]} == "$key" ]] || continue
			printf '%s\n' "$output" >"$BATS_FILE_TMPDIR/batch-${BATCH_NAMES[j]}.out"
			echo "$status" >"$BATS_FILE_TMPDIR/batch-${BATCH_NAMES[j]}.status"
		done
	done
}

# batch NAME: status, output and lines of the boot that ran NAME's runs.
batch() { # NAME
	local f=$BATS_FILE_TMPDIR/batch-$1
	if [[ ! -f $f.status ]]; then
		require_nested
		fail "batch $1: its boot did not run (a kernel not built? test/kernels.bats)"
		return
	fi
	status=$(<"$f.status")
	output=$(<"$f.out")
	batch_output=$output
	# As bats' run splits them: empty lines dropped.
	IFS=$'\n' read -d '' -r -a lines <<<"$output" || true
}

# batch_run NAME TAG: status, output and lines of the run TAG of NAME's
# boot (an "oneo TAG ..." line), as `run` would have left them for that
# run alone; its document is result_json TAG's.
batch_run() { # NAME TAG
	local rc
	batch "$1" || return
	rc=$(sed -n "s/^RESULT $2 rc=\([0-9]*\)\$/\1/p" <<<"$output")
	[[ $rc ]] || { fail "no run $2 in $1's boot: ${output:0:3000}"; return; }
	output=$(result_lines "$2" | grep -v "^JSON $2 ")
	status=$rc
	# As bats' run splits them: empty lines dropped.
	IFS=$'\n' read -d '' -r -a lines <<<"$output" || true
}

# ---- tools/peer.sh (test/peer.bats, test/nightly/peer.bats) ----------

# The table's rows, "METRIC|ROW|nA|nB|B/A", from compare's output.
table_rows() { # FILE
	awk '/^results\.runs/ { m = $1; next }
	     m && /^  [a-z]/ && $1 != "row" {
		row = $1; i = 2
		if ($2 ~ /^iterations\[/) { row = row " " $2; i = 3 }
		print m "|" row "|" $i "|" $(i + 1) "|" $(i + 4)
	     }
	     /^$/ { m = "" }' "$1"
}

# peer_ratios_sane DIR: every row of DIR/compare.json has a B/A within
# 300-fold either way.  The peer and mmubench time the same operation on
# the same kernel: the ratios measured lay within 0.019 and 32 (x86_64
# 6.1, -v 1 -b 8m, three runs each of -g and -e, 2026-12-07); a unit read
# wrong (s for ms) is a thousandfold, a side that did nothing 0 or none.
peer_ratios_sane() { # DIR
	assert_json "$1/compare.json" '(.rows | length) > 0 and
		all(.rows[]; (.ratio | type) == "number" and .ratio > 1 / 300 and
		    .ratio < 300)'
}

# peer_run ARGS...: tools/peer.sh, its nested-infra redo announced as the
# suite's retries are (test/run.sh counts them).
peer_run() {
	run "$ROOT/tools/peer.sh" "$@"
	if [[ $output == *"tools/peer.sh: redone once: nested-infra: "* ]]; then
		echo "# retried: $(grep -m1 'redone once: nested-infra' <<<"$output")" >&3
	fi
}

# ---- the retry rule ------------------------------------------------------
#
# lib/retry.sh: only the failure that ci/README.md ("What is retried")
# attributes to the nested setup, on the marker line lib/nested/run.sh
# prints for exactly it, and never with an error of mmubench's own.
# shellcheck source=../lib/retry.sh
source "$ROOT/lib/retry.sh"

# tools/ab.sh end to end: kernels, alternating boots, merge, compare.
ab_run() { # SERIES
	require_series "$1"
	local out=$BATS_TEST_TMPDIR/ab
	run "$ROOT/tools/ab.sh" --series "$1" --arch "$ARCH" --repeat 2 --out "$out" \
		--mmubench "$MMUBENCH" --guest "$GUEST" \
		-- zap --zap same4 -v 1 -b 8m --zap-count 20 --no-kprobes
	assert_success
	ab_redone "$out"
	local f
	for f in A-1 B-1 A-2 B-2; do
		assert_file_exists "$out/runs/$f.json"
		assert_file_exists "$out/runs/$f.log"
	done
	assert_json "$out/A.json" '.scenario == "zap" and (.results.runs | length == 2)'
	assert_json "$out/B.json" '.scenario == "zap" and (.results.runs | length == 2)'
	assert_json "$out/compare.json" '.a.label == "original" and .b.runs == 2 and
		(.rows[] | select(.metric == "zap_total_ms") | .row == "same4")'
	run cat "$out/compare.txt"
	assert_line --regexp '^  same4 +2 +2 '
	run cat "$out/time.txt"
	assert_line --regexp '^  runs A \(original\) +[0-9.]+  \(2 boots, '
	assert_line --regexp '^  total +[0-9.]+$'
}

# ab_redone DIR: tools/ab.sh redoes a run once on that rule; each redo in
# its DIR/time.txt is announced as a retry, which test/run.sh counts
# against the same budget.  A time.txt without the count fails.
ab_redone() { # DIR
	local t=$1/time.txt n
	n=$(sed -n 's/^runs redone for the nested setup.s own failures: \([0-9][0-9]*\)$/\1/p' "$t" 2>/dev/null)
	[[ $n =~ ^[0-9]+$ ]] || { fail "$t: no count of the runs redone"; return; }
	(($(grep -c '^  .*: nested-infra: ' "$t") == n)) ||
		{ fail "$t: $n runs redone, not as many named"; return; }
	sed -n 's/^  \(.*: nested-infra: .*\)$/# retried: ab.sh: \1/p' "$t" >&3
}

# ---- test-only kernels ---------------------------------------------------
#
# The series of test/series (a zap walk made slower on purpose) are built
# into the kernel cache that the user's own kernels share, because they
# are incremental on its original.  A file that builds them takes
# test_kernels in setup_file and calls test_kernels_put_back with it in
# teardown_file: the trees it added are removed, those that were there
# before (a user's tools/resolution.sh) stay.  test/run.sh fails a file that
# leaves a new one.
# shellcheck source=test/test_kernels.sh
source "$ROOT/test/test_kernels.sh"

# ---- JSON assertions -----------------------------------------------------
#
# Each reads a file, or standard input for "-", and fails on a missing
# or empty document: a check that passes on no input checks nothing.

_json_doc() { # FILE|-
	local doc
	if [[ $1 == - ]]; then
		doc=$(cat)
	else
		[[ -s $1 ]] || { echo "JSON document $1 is missing or empty" >&2; return 1; }
		doc=$(<"$1")
	fi
	[[ -n ${doc//[[:space:]]/} ]] || { echo "empty JSON input" >&2; return 1; }
	jq -e . >/dev/null 2>&1 <<<"$doc" || { echo "not JSON: ${doc:0:200}" >&2; return 1; }
	printf '%s' "$doc"
}

# assert_json FILE|- EXPR [JQ OPTIONS...]: EXPR is exactly true.
assert_json() {
	local src=$1 expr=$2 doc got
	shift 2
	doc=$(_json_doc "$src" 2>&1) || fail "assert_json '$expr': $doc" || return
	got=$(jq "$@" "$expr" <<<"$doc" 2>&1) ||
		fail "assert_json: jq failed on '$expr': $got" || return
	[[ $got == true ]] ||
		fail "assert_json: '$expr' is ${got:-nothing}, not true, in: ${doc:0:600}" || return
}

# json_val FILE|- EXPR [JQ OPTIONS...]: print the value; a missing, null
# or empty value fails.
json_val() {
	local src=$1 expr=$2 doc got
	shift 2
	doc=$(_json_doc "$src" 2>&1) || fail "json_val '$expr': $doc" || return
	got=$(jq -r "$@" "$expr" <<<"$doc" 2>&1) ||
		fail "json_val: jq failed on '$expr': $got" || return
	[[ -n $got && $got != null ]] ||
		fail "json_val: '$expr' is ${got:-missing} in: ${doc:0:600}" || return
	printf '%s\n' "$got"
}

# assert_json_eq FILE|- EXPR VALUE [JQ OPTIONS...]
assert_json_eq() {
	local src=$1 expr=$2 want=$3 got
	shift 3
	got=$(json_val "$src" "$expr" "$@") || return
	[[ $got == "$want" ]] ||
		fail "assert_json_eq: '$expr' is $got, expected $want" || return
}

# The change of a VM or vCPU stat in a phase of the first run.
json_stat() { # FILE PHASE vm|vcpu NAME
	json_val "$1" '.results.runs[0].phases[] | select(.name == $p) | .[$k][$n]' \
		--arg p "$2" --arg k "$3_stats" --arg n "$4"
}

# result_lines TAG: the lines a --sh script printed for run TAG (ONE_SH).
result_lines() {
	awk -v t="RESULT $1 " 'index($0, t) == 1 { on = 1; next }
		/^RESULT / { on = 0 } on' <<<"$output"
}

# assert_drop_caught TAG H NAMED ONLY: run TAG of a --sh script (ONE_SH)
# failed on its --debug-drop-dirty H, and named exactly the page it
# dropped.  NAMED is an extended regex of the line that names it, ONLY a
# fixed string saying it alone was lost; in both, GFN stands for the
# dropped page's gfn.  The harvest layer says how it dropped the page:
# a bitmap bit in the bitmap modes, a ring entry in the ring modes.
assert_drop_caught() {
	local out gfn how="a bit of KVM_GET_DIRTY_LOG's bitmap"
	assert_line "RESULT $1 rc=1"
	out=$(result_lines "$1")
	[[ $1 != *ring* ]] || how="a ring entry, reset unread"
	gfn=$(grep -oE "dropped slot 1 gfn 0x[0-9a-f]+ from harvest $2 on purpose \($how\)" <<<"$out" |
		grep -oE '0x[0-9a-f]+') || fail "$1: no drop in harvest $2: $out"
	grep -qE "${3//GFN/$gfn}" <<<"$out" ||
		fail "$1: the dropped page ($gfn) was not named: $out"
	grep -qF -- "${4//GFN/$gfn}" <<<"$out" ||
		fail "$1: not exactly the dropped page ($gfn) lost: $out"
}

# assert_cold_caught TAG LINE [EXACT...]: the run TAG of --debug-drop-cold
# failed, the page it dropped from the first harvest (the lowest cold
# page: word 0, bit 1) named in LINE, a regular expression, and each
# EXACT line printed whole; in both GFN stands for its gfn.
assert_cold_caught() {
	local out gfn l
	assert_line "RESULT $1 rc=1"
	out=$(result_lines "$1")
	gfn=$(grep -oE "debug-drop-cold: dropped slot 1 gfn 0x[0-9a-f]+ from harvest 0 on purpose \(a cold page's bit of the first KVM_GET_DIRTY_LOG, cleared in KVM unreported\)" <<<"$out" |
		grep -oE '0x[0-9a-f]+') || fail "$1: no cold page dropped from the first harvest: $out"
	grep -qE "${2//GFN/$gfn}" <<<"$out" ||
		fail "$1: the dropped cold page ($gfn) was not named: $out"
	for l in "${@:3}"; do
		grep -qxF -- "${l//GFN/$gfn}" <<<"$out" || fail "$1: no line '${l//GFN/$gfn}': $out"
	done
}

# cold_caught_everywhere LINE [EXACT...]: assert_cold_caught cold-drop in
# the boots of nested x86_64 and arm64, 6.1 and 6.12 (the batches
# x86-61, x86-612, a64-61, a64-612).
cold_caught_everywhere() {
	local b
	require_nested
	require_series original x86_64 6.12
	require_series original arm64 6.1
	require_series original arm64 6.12
	for b in x86-61 x86-612 a64-61 a64-612; do
		batch "$b"
		assert_cold_caught cold-drop "$@"
	done
}

# result_json TAG: the document a --sh script printed as "JSON TAG {...}".
# Every script prints such lines only for a run that exited 0.
result_json() {
	local line
	# After batch_run, the boot's output has the run's document.
	line=$(grep -m1 "^JSON $1 " <<<"$output" || grep -m1 "^JSON $1 " <<<"${batch_output:-}") ||
		fail "no JSON line for $1 in the output (the run failed?)" || return
	printf '%s\n' "${line#JSON "$1" }"
}

# For --sh scripts: "one TAG ARGS..." runs mmubench with --json TAG.json
# in the script's working directory and prints "RESULT TAG rc=N", then
# "JSON TAG {document}" on success or mmubench's error lines, so that
# each figure a test checks is tied to its run.
ONE_SH='
# one_run TAG ARGS...: the run, its TIME line (uptime before and after,
# which mmub takes out of the output for the suite'"'"'s log), its RESULT
# line and, if it passed, its JSON line; its output stays in TAG.out.
one_run() {
	tag=$1
	shift
	t0=$(cut -d" " -f1 /proc/uptime)
	mmubench "$@" --json "$tag.json" >"$tag.out" 2>&1
	rc=$?
	echo "TIME $tag $t0 $(cut -d" " -f1 /proc/uptime)"
	echo "RESULT $tag rc=$rc"
	[ $rc != 0 ] || [ ! -s "$tag.json" ] || echo "JSON $tag $(tr -d "\n" <"$tag.json")"
	return $rc
}
one() {
	one_run "$@"
	rc=$?
	[ $rc = 0 ] && [ -s "$tag.json" ] || grep "^mmubench" "$tag.out"
	return $rc
}
# oneo TAG ARGS...: as one, then the run'"'"'s whole output (stdout and
# stderr), for a test that reads its text (batch_run).
oneo() {
	one_run "$@"
	rc=$?
	cat "$tag.out"
	return $rc
}
'

# ---- hand-made documents (compare.bats, baseline.bats) -------------------

# fake_zap FILE PATTERN VALUE...: a well-formed zap document, one run per
# value (zap_total_ms = VALUE, fault_p999_us = VALUE / 10).
fake_zap() {
	local f=$1 pat=$2 v runs=
	shift 2
	for v in "$@"; do
		runs+="${runs:+,}{\"boot_ms\":12.5,\"phases\":[{\"name\":\"populate\",\"wall_ms\":3}],
			\"zap\":{\"pattern\":\"$pat\",\"calls\":100,\"zap_total_ms\":$v,
			\"fault_p999_us\":$(awk "BEGIN { print $v / 10 }"),
			\"kernel_zap_total_ms\":null,\"kernel_fwait_p999_us\":null}}"
	done
	cat >"$f" <<EOF
{"scenario":"zap","config":{"vcpus":2,"vcpu_bytes":33554432,"backing":"anonymous"},
 "env":{"kernel":"6.1.192","mmu":"tdp_mmu"},"results":{"runs":[$runs]}}
EOF
}

# with_counters FILE FLUSHES ZEROS: FILE's runs (fake_zap) get a phase
# "zap" with VM stats no zap metric declares: remote_tlb_flush from
# FLUSHES (one a run), pages_4k 512 and mmu_recycled 0 1 2 0 1 ... in
# every run; and ZEROS as the scenario's refaults_zero.
with_counters() { # FILE FLUSHES ZEROS
	jq --argjson f "[${2// /,}]" --argjson z "$3" '.results.runs |= [to_entries[] |
		.value.phases += [{name: "zap", wall_ms: 100, vm_stats: {
			remote_tlb_flush: $f[.key], pages_4k: 512,
			mmu_recycled: (.key % 3)}}] |
		.value.zap.refaults_zero = $z | .value]' "$1" >"$1.tmp" &&
		mv "$1.tmp" "$1"
}

