# SPDX-License-Identifier: GPL-2.0
# Shared by every bats file: paths, the KVM runner, and skip rules.
bats_load_library bats-support
bats_load_library bats-assert
bats_load_library bats-file

ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
: "${O:=$ROOT/build}"
: "${ARCH:=$(uname -m | sed -e 's/aarch64/arm64/')}"
# The tests use the ASan/UBSan build of the harness.
: "${MMUBENCH:=$O/san/mmubench}"
: "${GUEST:=$O/$ARCH/guest.elf}"
export MMUBENCH_KVM=${MMUB_KVM_MODE:-auto}

# test/run.sh decides once whether KVM is reachable (here, or in the
# nested kernel) and says why not; a test that needs it skips with that.
require_kvm() {
	case ${MMUB_KVM_MODE:-} in
	direct|nested) ;;
	*) skip "${MMUB_KVM_WHY:-no /dev/kvm here and no nested kernel (make kernel)}" ;;
	esac
}

# Under QEMU TCG the nested L2 guest has been seen to triple-fault or
# stall (stale nested-paging translations; see README), most in the dirty
# ring modes: a fresh-clone CI run saw one run fail three boots in a row.
# Those symptoms, and only in nested mode, earn up to NESTED_RETRIES
# retries, each said on the output.
# The L1 kernel itself has also been seen to die once (no panic on its
# console); a real panic of a patched kernel would repeat on the retry.
NESTED_FLAKES='triple fault|did not reach epoch|made no progress|the L1 guest died while the command ran'
NESTED_RETRIES=4

# The symptom that failed this try; "FLAKE:" lines are mmubench_retry's
# own retries inside the boot, which already succeeded or failed below.
flake_line() {
	grep -v '^FLAKE: ' <<<"$output" | grep -m1 -E "$NESTED_FLAKES"
}

nested_flake() {
	[[ $MMUBENCH_KVM == nested ]] && flake_line >/dev/null
}

retry_note() {
	echo "# retried: nested QEMU failure: $(flake_line)" >&3
}

# In an mmub_sh script: "mmubench_retry ARGS..." runs mmubench, and again
# (at most twice more, in the same boot) if it failed with a nested-QEMU
# symptom, printing "FLAKE: <symptom>" for each retry; the output of the
# last try is in /tmp/o, its status is returned.
MMUB_RETRY_FN='
mmubench_retry() {
	for try in 1 2 3; do
		mmubench "$@" >/tmp/o 2>&1
		rc=$?
		[ $rc = 0 ] && return 0
		[ $try = 3 ] && return $rc
		grep -qE "'"$NESTED_FLAKES"'" /tmp/o || return $rc
		echo "FLAKE: $(grep -m1 -E "'"$NESTED_FLAKES"'" /tmp/o)"
	done
}
'

# Announce the in-boot retries of mmubench_retry on the test's output.
flake_notes() {
	grep '^FLAKE: ' <<<"$output" | sed -e 's/^FLAKE: /# retried: nested QEMU failure: /' >&3 || true
}

# mmub SCENARIO [OPTIONS...]: mmubench on KVM, through bats' run.
mmub() {
	local try

	run "$ROOT/ci/kvm-exec.sh" --arch "$ARCH" "$MMUBENCH" "$GUEST" "$@"
	for ((try = 0; try < NESTED_RETRIES; try++)); do
		nested_flake && [[ " $* " != *" --debug-action hang "* ]] || break
		retry_note
		run "$ROOT/ci/kvm-exec.sh" --arch "$ARCH" "$MMUBENCH" "$GUEST" "$@"
	done
}

# mmub_sh SCRIPT: several runs in one boot; "mmubench" is a function.
mmub_sh() {
	local try

	run "$ROOT/ci/kvm-exec.sh" --arch "$ARCH" --sh "$1" "$MMUBENCH" "$GUEST"
	for ((try = 0; try < NESTED_RETRIES; try++)); do
		nested_flake || break
		retry_note
		run "$ROOT/ci/kvm-exec.sh" --arch "$ARCH" --sh "$1" "$MMUBENCH" "$GUEST"
	done
}

# The change of a VM or vCPU stat in a phase of the first run.
json_stat() { # FILE PHASE vm|vcpu NAME
	jq -e --arg p "$2" --arg k "$3_stats" --arg n "$4" \
		'.results.runs[0].phases[] | select(.name == $p) | .[$k][$n]' "$1"
}

# The kernel image ci/kernel/build.sh makes for a series (may not exist).
series_image() { # SERIES [ARCH]
	local a=${2:-$ARCH} img=arch/x86/boot/bzImage
	[[ $a == arm64 ]] && img=arch/arm64/boot/Image
	echo "${MMUBENCH_CACHE:-$HOME/.cache/mmubench}/kernel/trees/$1-$a/build/$img"
}
