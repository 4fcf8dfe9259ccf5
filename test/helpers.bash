# SPDX-License-Identifier: GPL-2.0
# Shared by every bats file: paths, where KVM runs, the JSON assertions
# and the one retry rule.
bats_require_minimum_version 1.5.0
bats_load_library bats-support
bats_load_library bats-assert
bats_load_library bats-file

ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
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

# require_kvm: some KVM, here or nested.  Its absence is a failure: a
# suite that skips every KVM test proves nothing.
require_kvm() {
	[[ $MMUB_DIRECT == 1 || $MMUB_NESTED == 1 ]] ||
		fail "no KVM for the test: $MMUB_DIRECT; $MMUB_NESTED"
}

# require_nested: the nested kernels (TDP MMU, stage 2, the series).
require_nested() {
	[[ $MMUB_NESTED == 1 ]] || fail "nested KVM unavailable: $MMUB_NESTED"
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

# The kernel image ci/kernel/build.sh makes for a series of a base.
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
kernel_repo() {
	local src=$CACHE/kernel/src/linux-6.12 p
	local id=(-c user.name=mmubench -c user.email=mmubench@invalid)
	[[ -f $src/Makefile ]] || fail "no unpacked 6.12 source at $src (test/kernels.bats unpacks it)"
	cp -al "$src" "$1"
	git -C "$1" init -q
	git -C "$1" -c core.looseCompression=0 add -A -f
	git -C "$1" "${id[@]}" commit -q -m "linux-source-6.12"
	for p in "$ROOT/patches/6.12/$2"/*.patch; do
		git -C "$1" apply --cached "$p"
	done
	git -C "$1" "${id[@]}" commit -q -m "$2, ported to 6.12"
}

# ---- running mmubench on KVM -----------------------------------------
#
# mmub [--nested] [--arch A] [--base B] [--series S] [--append KARGS] [--mem SIZE]
#      [--sh SCRIPT | SCENARIO OPTIONS...]
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
}

# ---- the retry rule ------------------------------------------------------
#
# ci/retry.sh: only the failure that ci/README.md ("Nested QEMU failures")
# attributes to the nested setup, on the marker line ci/nested/run.sh
# prints for exactly it, and never with an error of mmubench's own.
# shellcheck source=../ci/retry.sh
source "$ROOT/ci/retry.sh"

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
	[[ $1 != ring* ]] || how="a ring entry, reset unread"
	gfn=$(grep -oE "dropped slot 1 gfn 0x[0-9a-f]+ from harvest $2 on purpose \($how\)" <<<"$out" |
		grep -oE '0x[0-9a-f]+') || fail "$1: no drop in harvest $2: $out"
	grep -qE "${3//GFN/$gfn}" <<<"$out" ||
		fail "$1: the dropped page ($gfn) was not named: $out"
	grep -qF -- "${4//GFN/$gfn}" <<<"$out" ||
		fail "$1: not exactly the dropped page ($gfn) lost: $out"
}

# result_json TAG: the document a --sh script printed as "JSON TAG {...}".
# Every script prints such lines only for a run that exited 0.
result_json() {
	local line
	line=$(grep -m1 "^JSON $1 " <<<"$output") ||
		fail "no JSON line for $1 in the output (the run failed?)" || return
	printf '%s\n' "${line#JSON "$1" }"
}

# For --sh scripts: "one TAG ARGS..." runs mmubench with --json TAG.json
# in the script's working directory and prints "RESULT TAG rc=N", then
# "JSON TAG {document}" on success or mmubench's error lines, so that
# each figure a test checks is tied to its run.
ONE_SH='
one() {
	tag=$1
	shift
	mmubench "$@" --json "$tag.json" >"$tag.out" 2>&1
	rc=$?
	echo "RESULT $tag rc=$rc"
	if [ $rc = 0 ] && [ -s "$tag.json" ]; then
		echo "JSON $tag $(tr -d "\n" <"$tag.json")"
	else
		grep "^mmubench" "$tag.out"
	fi
	return $rc
}
'
