#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The peers, side by side: one of the kernel's own selftests
# (tools/testing/selftests/kvm of the linux-source-BASE the nested kernel
# is built from) and the mmubench scenario that measures the same, with
# the same sizes, alternating in one boot of the nested kernel, then
# "mmubench compare" of the two (A the peer, B mmubench), with B/A and
# significance:
#
#   dirty_log_perf_test  "mmubench dirty-log" with the same -v, -b, -i and
#                        mode: populate, enable, dirty memory time per
#                        iteration, get, clear and disable
#   demand_paging_test   "mmubench demand-paging" with the same -v, -b, -s
#                        and userfaultfd mode: the demand pass's time and
#                        its paging rate (the guest's 4K pages over it)
#
#   tools/peer.sh [--test T] [--kernel 6.1|6.12] [--arch x86_64|arm64] [-v N] [-b SIZE] [-i N] [--mode M] [-g]
#              [--uffd-mode M] [-s BACKING] [--runs R] [--out DIR] [--mem SIZE] [--timeout SEC] [--build-only]
#
#   --test T        dirty_log_perf_test (default) or demand_paging_test
#   --kernel BASE   the base: its selftest beside its nested kernel (6.1)
#   -v N            vCPUs (2)
#   -b SIZE         memory per vCPU, k/m/g suffix (64m)
#   -i N            iterations after populating, 2 or more as the peer
#                   requires (2)
#   --mode M        clear-init-set: the peer's default, manual protect with
#                   KVM_DIRTY_LOG_INITIALLY_SET (default); get: the peer's -g
#   -g              the same as --mode get
#   --uffd-mode M   demand_paging_test: missing (default) or minor, the
#                   peer's -u MISSING|MINOR
#   -s BACKING      demand_paging_test: the backing, as both name it
#                   (anonymous; minor needs shmem or shared_hugetlb)
#   --runs R        runs of each, alternating peer, mmubench (4: Mann-Whitney
#                   needs 4 a side to reach 95 %)
#   --out DIR       the files (default ./peer-ARCH-DATE)
#   --mem SIZE, --timeout SEC   ci/nested/run.sh's (2G, 600 + 120 a run)
#   --build-only    build the peer (cached) and print its path
#
# mmubench runs with --no-populate and --no-latency: the peer neither
# pre-faults host memory nor times each access.  On arm64 the peer tests
# one guest mode, its default -m 5 (40-bit IPA, 4K pages), not every one
# the CPU offers.  -i, --mode and -g are dirty_log_perf_test's, -s and
# --uffd-mode demand_paging_test's.
#
# DIR holds runs/peer-I.txt (the peer's output), runs/mmubench-I.{txt,json},
# peer.json (tools/peer/TEST.awk, after common.awk, of the peer's runs),
# mmubench.json (merged), compare.txt and compare.json ("mmubench
# compare"), boot.log (the boot's stderr) and make.log.
#
# The peer is built statically (aarch64-linux-gnu-gcc for arm64) in
# ${MMUBENCH_CACHE:-~/.cache/mmubench}/kernel/peer-ARCH: a `cp -al` of the
# pristine source (ci/kernel/source.sh), every output in its ./build;
# rebuilt when the source, the compiler or the recipe below changes.
# MMUBENCH_KVM=direct runs both on this machine's /dev/kvm instead.
set -euo pipefail

prog=tools/peer.sh
# shellcheck source=ci/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../ci/lib.sh"
# shellcheck source=ci/kernel/source.sh
source "$repo/ci/kernel/source.sh"	# kernel_base, kernel_source (sets src_id)
# shellcheck source=ci/retry.sh
source "$repo/ci/retry.sh"
cache=${MMUBENCH_CACHE:-$HOME/.cache/mmubench}/kernel
host_arch=$(uname -m | sed -e 's/aarch64/arm64/')
arch=$host_arch vcpus=2 size=64m iterations=2 mode=clear-init-set runs=4
test=dirty_log_perf_test uffd_mode=missing backing=anonymous
kernel_base 6.1
out='' timeout='' build_only=0
run_opts=()

bad() { die "$1" 2; }
usage() { # [STATUS]: 0 for --help (stdout), 2 for bad usage (stderr)
	usage_exit "${1:-2}" '/^#   tools\/peer.sh/,/^#   --build-only/s/^#//p'
}

while (($#)); do
	case $1 in
	-h|--help) usage 0 ;;
	-g) mode="get"; shift; continue ;;
	--build-only) build_only=1; shift; continue ;;
	--test|--kernel|--arch|-v|-b|-i|--mode|--uffd-mode|-s|--runs|--out|--mem|--timeout)
		(($# >= 2)) || bad "$1 needs a value" ;;
	*) bad "unknown option '$1' (see --help)" ;;
	esac
	case $1 in
	--kernel) kernel_base "$2" 2>/dev/null ||
		bad "--kernel $2: the base kernel, one of: ${kernel_bases[*]} (Debian's linux-source-BASE)" ;;
	--test) test=$2 ;;
	--arch) arch=$2 ;;
	--uffd-mode) uffd_mode=$2 ;;
	-s) backing=$2 ;;
	-v) vcpus=$2 ;;
	-b) size=$2 ;;
	-i) iterations=$2 ;;
	--mode) mode=$2 ;;
	--runs) runs=$2 ;;
	--out) out=$2 ;;
	--mem) run_opts+=(--mem "$2") ;;
	--timeout) timeout=$2 ;;
	esac
	shift 2
done

case $arch in
x86_64) cross='' karch=x86_64 peer_mode=() ;;
arm64) cross=aarch64-linux-gnu- karch=arm64 peer_mode=(-m 5) ;;
*) bad "--arch $arch: unknown (accepted: x86_64, arm64)" ;;
esac
if ! [[ $vcpus =~ ^[1-9][0-9]*$ ]] || ((vcpus > 64)); then
	bad "-v $vcpus: expected a number of vCPUs, 1..64"
fi
[[ ${size,,} =~ ^([1-9][0-9]*)([kmg]?)$ ]] ||
	bad "-b $size: expected a size with a k, m or g suffix, e.g. 64m"
case ${BASH_REMATCH[2]} in
k) bytes=$((BASH_REMATCH[1] << 10)) ;;
m) bytes=$((BASH_REMATCH[1] << 20)) ;;
g) bytes=$((BASH_REMATCH[1] << 30)) ;;
*) bytes=${BASH_REMATCH[1]} ;;
esac
if ! [[ $iterations =~ ^[0-9]+$ ]] || ((iterations < 2 || iterations > 1000)); then
	bad "-i $iterations: expected 2..1000 (the peer needs two iterations or more)"
fi
[[ $mode == clear-init-set || $mode == get ]] ||
	bad "--mode $mode: unknown (accepted: clear-init-set, get)"
[[ $test == dirty_log_perf_test || $test == demand_paging_test ]] ||
	bad "--test $test: unknown (accepted: dirty_log_perf_test, demand_paging_test)"
[[ $uffd_mode == missing || $uffd_mode == minor ]] ||
	bad "--uffd-mode $uffd_mode: unknown (accepted: missing, minor)"
# The backings both name alike (the peer's -s; mmubench's shmem is a memfd,
# as the selftests' is).
case $backing in
anonymous|anonymous_hugetlb_2mb|shmem|shared_hugetlb) ;;
*) bad "-s $backing: unknown (accepted: anonymous, anonymous_hugetlb_2mb, shmem, shared_hugetlb)" ;;
esac
[[ $uffd_mode == missing || $backing == shmem || $backing == shared_hugetlb ]] ||
	bad "--uffd-mode minor: -s $backing has no file (use shmem or shared_hugetlb)"
if ! [[ $runs =~ ^[1-9][0-9]*$ ]] || ((runs > 100)); then
	bad "--runs $runs: expected 1..100"
fi
[[ -z $timeout || $timeout =~ ^[1-9][0-9]*$ ]] ||
	bad "--timeout $timeout: expected seconds, a number >= 1"
: "${timeout:=$((600 + 120 * runs))}"

# ---- the peer, built from the pristine source ------------------------

need() { command -v "$1" >/dev/null || die "missing '$1': apt-get install $2"; }

# The recipe, part of the cache key: a change to it rebuilds.  Only the
# test and what it links; headers_install writes to build/usr, kbuild's
# own files to build/kbuild, the selftest's objects to build/kvm.
peer_make() { # TREE
	local t=$1 b=$1/build
	nice -n "${MMUBENCH_NICE:-10}" make -C "$t" O="$b/kbuild" \
		ARCH="$karch" ${cross:+CROSS_COMPILE=$cross} \
		INSTALL_HDR_PATH="$b/usr" headers_install &&
	nice -n "${MMUBENCH_NICE:-10}" make -C "$t/tools/testing/selftests/kvm" \
		-j"$(nproc)" ARCH="$karch" ${cross:+CROSS_COMPILE=$cross} \
		OUTPUT="$b/kvm" KHDR_INCLUDES="-isystem $b/usr/include" \
		LDFLAGS="-static -pthread -no-pie" "$b/kvm/dirty_log_perf_test" \
		"$b/kvm/demand_paging_test"
}

build_peer() {
	local tree=$cache/peer-$base-$arch key t0=$EPOCHREALTIME
	local bin=$tree/build/kvm/$test

	need make make
	need "${cross}gcc" "$([[ $cross ]] && echo gcc-aarch64-linux-gnu || echo gcc)"
	need rsync rsync
	need flock util-linux
	# shellcheck disable=SC2119 # no wrapper for the unpack
	kernel_source || die "no kernel source to build the peer from"
	key=$({
		echo "$src_id $arch"
		"${cross}gcc" --version | sed -n 1p
		declare -f peer_make
	} | sha256sum | cut -d' ' -f1)
	mkdir -p "$cache"
	exec 7>"$cache/.lock-peer-$base-$arch"
	flock 7
	if [[ -x $bin && $(cat "$tree/build/.mmubench-key" 2>/dev/null) == "$key" ]]; then
		note "peer $arch: cache hit, $bin"
		exec 7>&-
		peer=$bin
		return
	fi
	# A new source tarball: a new tree (its mtimes are the archive's).
	if [[ $(cat "$tree/.mmubench-src" 2>/dev/null) != "$src_id" ]]; then
		rm -rf "$tree"
		cp -al "$src" "$tree"
		echo "$src_id" >"$tree/.mmubench-src"
	fi
	rm -rf "$tree/build"
	mkdir -p "$tree/build"
	peer_make "$tree" >"$tree/build/build.log" 2>&1 ||
		{ tail -n 20 "$tree/build/build.log" >&2
		  die "the peer did not build; full log: $tree/build/build.log"; }
	echo "$key" >"$tree/build/.mmubench-key"
	exec 7>&-
	note "$(printf 'peer %s: built in %.1f s, %s' "$arch" \
		"$(echo "$EPOCHREALTIME - $t0" | bc)" "$bin")"
	peer=$bin
}

t_all=$EPOCHREALTIME
build_peer
if ((build_only)); then
	echo "$peer"
	exit 0
fi
t_built=$EPOCHREALTIME

: "${out:=./peer-$arch-$(date +%Y%m%d-%H%M%S)}"
if [[ -e $out ]] && [[ -n $(ls -A "$out") ]]; then
	bad "--out $out: exists and is not empty (runs of two experiments must not mix)"
fi
mkdir -p "$out/runs"
out=$(cd "$out" && pwd)

# mmubench for ARCH, and this machine's for merge and compare.
build() {
	make -s -C "$repo" ARCH="$arch" all &&
		if [[ $arch != "$host_arch" ]]; then make -s -C "$repo" host; fi
}
if ! build >"$out/make.log" 2>&1; then
	tail -n 20 "$out/make.log" >&2
	die "make failed; see $out/make.log"
fi
tool=$repo/build/mmubench bin=$tool
[[ $arch == "$host_arch" ]] || bin=$repo/build/$arch/mmubench
guest=$repo/build/$arch/guest.elf

# Inside: R rounds of peer then mmubench, every output in a file; then
# the files on stdout, each after a "@@PEER-FILE NAME@@" line, also when
# a run failed (its output says why).
if [[ $test == dirty_log_perf_test ]]; then
	peer_args="-v $vcpus -b $size -i $iterations${peer_mode[*]:+ ${peer_mode[*]}}"
	[[ $mode == get ]] && peer_args+=" -g"
	mmub_args="dirty-log -v $vcpus -b $size -i $iterations --mode $mode --no-populate --no-latency"
else
	peer_args="-v $vcpus -b $size -s $backing -u ${uffd_mode^^}${peer_mode[*]:+ ${peer_mode[*]}}"
	mmub_args="demand-paging -v $vcpus -b $size -s $backing -u $uffd_mode -i 0 --no-latency"
	[[ $backing != *hugetlb* ]] || mmub_args+=" --reserve-hugepages"
fi
script="
emit() {
	uname -r >kernel.txt
	for f in kernel.txt peer-*.txt mmubench-*; do
		[ -f \"\$f\" ] || continue
		echo \"@@PEER-FILE \$f@@\"
		cat \"\$f\"
		[ -z \"\$(tail -c1 \"\$f\")\" ] || echo
	done
	return 0
}
i=1
while [ \$i -le $runs ]; do
	./$test $peer_args >peer-\$i.txt 2>&1 ||
		{ rc=\$?; emit; echo \"peer run \$i failed (exit \$rc)\" >&2; exit \$rc; }
	mmubench $mmub_args --json mmubench-\$i.json >mmubench-\$i.txt 2>&1 ||
		{ rc=\$?; emit; echo \"mmubench run \$i failed (exit \$rc)\" >&2; exit \$rc; }
	i=\$((i + 1))
done
emit"

: "${MMUBENCH_KVM:=nested}"
export MMUBENCH_KVM
# The selftest of the base beside the base's kernel (direct: this machine's).
[[ $MMUBENCH_KVM == direct ]] || run_opts+=(--base "$base")
note "$runs runs each of $test $peer_args and mmubench $mmub_args, alternating, in one boot ($MMUBENCH_KVM, $arch)"
stream=$out/boot.out
for try in 1 2; do
	rc=0
	"$here/kvm-exec.sh" --arch "$arch" "${run_opts[@]}" --timeout "$timeout" \
		--sh "$script" --file "$peer" "$bin" "$guest" \
		>"$stream" 2>"$out/boot.log" || rc=$?
	((rc)) || break
	if ((try == 1)) && why=$(nested_infra_failure "$out/boot.log"); then
		note "redone once: nested-infra: $why"
		continue
	fi
	break
done
t_ran=$EPOCHREALTIME

# The stream into DIR/runs/, one file per marker.
awk -v dir="$out/runs" '
	/^@@PEER-FILE [A-Za-z0-9._-]+@@$/ {
		if (f)
			close(f)
		f = dir "/" substr($0, 13, length($0) - 14)
		printf "" >f
		next
	}
	f { print >f }' "$stream"
if ((rc)); then
	tail -n 15 "$out/boot.log" >&2
	for f in "$out"/runs/*.txt; do
		[[ -f $f && $f != */kernel.txt ]] || continue
		grep -qiE 'error|fail|assert' "$f" && tail -n 8 "$f" | sed "s|^|${f##*/}: |" >&2
	done
	die "the runs failed (exit $rc); see $out/boot.log and $out/runs/"
fi

peer_files=() mmub_files=()
for ((i = 1; i <= runs; i++)); do
	peer_files+=("$out/runs/peer-$i.txt")
	mmub_files+=("$out/runs/mmubench-$i.json")
done
"$tool" merge "$out/mmubench.json" "${mmub_files[@]}" >/dev/null ||
	die "mmubench merge of the runs failed"
mmu=$(awk -F'"' '/^ *"mmu": "/ { print $4; exit }' "$out/mmubench.json")
# The peer's lines as the scenario's document (tools/peer/TEST.awk), and
# the figures both sides have.
if [[ $test == dirty_log_perf_test ]]; then
	awk_vars=(-v iterations="$iterations" -v mode="$mode")
	metrics=(
		'results.runs[].phases[name=populate].wall_ms'
		'results.runs[].dirty_log.enable_ms'
		'results.runs[].dirty_log.iterations[*].dirty_ms'
		'results.runs[].dirty_log.iterations[*].get_ms'
	)
	[[ $mode == get ]] || metrics+=('results.runs[].dirty_log.iterations[*].clear_ms')
	metrics+=('results.runs[].dirty_log.disable_ms')
else
	awk_vars=(-v mode="$uffd_mode")
	metrics=(
		'results.runs[].demand_paging.demand_ms'
		'results.runs[].demand_paging.pages_per_s'
	)
fi
awk -v runs="$runs" -v vcpus="$vcpus" -v bytes="$bytes" "${awk_vars[@]}" \
	-v kernel="$(cat "$out/runs/kernel.txt" 2>/dev/null)" -v mmu="$mmu" \
	-f "$here/peer/common.awk" -f "$here/peer/$test.awk" "${peer_files[@]}" \
	>"$out/peer.json.tmp" ||
	die "the peer's output did not convert (tools/peer/$test.awk); see $out/runs/"
mv "$out/peer.json.tmp" "$out/peer.json"

args=()
for m in "${metrics[@]}"; do args+=(--metric "$m"); done
rc=0
"$tool" compare "$out/peer.json" "$out/mmubench.json" "${args[@]}" \
	--labels "$test,mmubench" --json "$out/compare.json" \
	>"$out/compare.txt" || rc=$?
cat "$out/compare.txt"
((rc == 0)) || die "mmubench compare failed (exit $rc)"
printf '%s: time: peer build %.1f s, make and %d+%d runs in one boot %.1f s, total %.1f s; files in %s\n' \
	"$prog" "$(echo "$t_built - $t_all" | bc)" "$runs" "$runs" \
	"$(echo "$t_ran - $t_built" | bc)" "$(echo "$EPOCHREALTIME - $t_all" | bc)" "$out" >&2
