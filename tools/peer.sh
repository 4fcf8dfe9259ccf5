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
#   pre_fault_memory_test  (6.12, x86_64) "mmubench touch --prefault" of the
#                        test's own size, one vCPU and 2 MiB + 4 KiB: the
#                        KVM_PRE_FAULT_MEMORY time of that memory (the
#                        test prints none: its ioctls are timed by kprobes
#                        on kvm_vcpu_ioctl, see below)
#   memslot_perf_test    "mmubench memslot" with one vCPU and the same
#                        slot size (-b, 16m): the peer's move tests
#                        (-f 3 -e 4, -l 1), its 512 MiB in slots of -b;
#                        mmubench's three slots of -b, the vCPU's, the
#                        moved one and its hole: a move's mean time,
#                        active and inactive
#   access_tracking_perf_test  "mmubench aging --method page_idle -i 2"
#                        with the same -v and -b:
#                        the time to mark all memory idle (page_idle,
#                        twice, summed), and the vCPUs' write pass over
#                        populated memory and over idle memory (6.1 builds
#                        it for x86_64 only, 6.12 for arm64 too)
#
#   tools/peer.sh [--test T] [--kernel 6.1|6.12] [--arch x86_64|arm64] [-v N] [-b SIZE] [-i N] [--mode M] [-g] [-e]
#              [--uffd-mode M] [-s BACKING] [--runs R] [--out DIR] [--mem SIZE] [--timeout SEC] [--build-only]
#
#   --test T        dirty_log_perf_test (default), demand_paging_test,
#                   pre_fault_memory_test, memslot_perf_test or
#                   access_tracking_perf_test; a base whose selftests
#                   do not build T for the arch (pre_fault_memory_test:
#                   6.12 on x86_64 only; access_tracking_perf_test on
#                   arm64: 6.12 only) is refused before any boot
#   --kernel BASE   the base: its selftest beside its nested kernel (6.1)
#   -v N            vCPUs (2; pre_fault_memory_test, memslot_perf_test:
#                   their one, not settable)
#   -b SIZE         memory per vCPU, k/m/g suffix (64m; pre_fault_memory_test:
#                   its 2 MiB + 4 KiB, not settable; memslot_perf_test: the
#                   slot size, 16m, dividing its 512 MiB into 2 or more)
#   -i N            iterations after populating, 2 or more as the peer
#                   requires (2)
#   --mode M        clear-init-set: the peer's default, manual protect with
#                   KVM_DIRTY_LOG_INITIALLY_SET (default); get: the peer's -g
#   -g              the same as --mode get
#   -e              both disable logging while the vCPUs write: the
#                   peer's -e, mmubench dirty-log's -e
#   --uffd-mode M   demand_paging_test: missing (default) or minor, the
#                   peer's -u MISSING|MINOR
#   -s BACKING      demand_paging_test: the backing, as both name it
#                   (anonymous; minor needs shmem or shared_hugetlb)
#   --runs R        runs of each, alternating peer, mmubench (4: Mann-Whitney
#                   needs 4 a side to reach 95 %)
#   --out DIR       the files (default ./peer-ARCH-DATE)
#   --mem SIZE, --timeout SEC   lib/nested/run.sh's (2G, 600 + 120 a run)
#   --build-only    build the peer (cached) and print its path
#
# mmubench runs with --no-populate and --no-latency: the peer neither
# pre-faults host memory nor times each access.  On arm64 the peer tests
# one guest mode, its default -m 5 (40-bit IPA, 4K pages), not every one
# the CPU offers.  -i, --mode, -g and -e are dirty_log_perf_test's, -s and
# --uffd-mode demand_paging_test's; each is refused with another test.
#
# pre_fault_memory_test takes no options and prints no time.  It maps its
# 2 MiB + 4 KiB with KVM_PRE_FAULT_MEMORY (and checks the -ENOENT past
# the memslot) in up to three VMs, the default type, then
# KVM_X86_SW_PROTECTED_VM with shared and with private (guest_memfd)
# memory, each read once by its one vCPU.  Each of its runs is traced: a
# kprobe on kvm_vcpu_ioctl's entry, filtered on KVM_PRE_FAULT_MEMORY,
# with the range asked, and a kretprobe on its return, in a trace
# instance of their own, removed after the run.  The peer's prefault_ms
# is the sum, in the default VM, of its ioctls that mapped memory (entry
# to return: the kernel's side of the ioctl), checked to cover exactly
# the test's 2 MiB + 4 KiB; mmubench's ("touch -v 1 -b 2052k --prefault
# --no-populate -i 0 -w 0": one pass that reads, as the peer's vCPU) is
# the wall time of its own loop of the ioctl over the same amount (the
# kernel's side and the syscalls').  Neither populates host memory first.
#
# DIR holds runs/peer-I.txt (the peer's output), runs/mmubench-I.{txt,json},
# peer.json (tools/peer/TEST.awk, after common.awk, of the peer's runs),
# mmubench.json (merged), compare.txt and compare.json ("mmubench
# compare"), boot.log (the boot's stderr) and make.log.
#
# The peer is built statically (aarch64-linux-gnu-gcc for arm64) in
# ${MMUBENCH_CACHE:-~/.cache/mmubench}/kernel/peer-ARCH: a `cp -al` of the
# pristine source (lib/kernel/source.sh), every output in its ./build;
# rebuilt when the source, the compiler or the recipe below changes.
# MMUBENCH_KVM=direct runs both on this machine's /dev/kvm instead.
set -euo pipefail

prog=tools/peer.sh
# shellcheck source=lib/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/preamble.sh"
# shellcheck source=lib/kernel/source.sh
source "$repo/lib/kernel/source.sh"	# kernel_base, kernel_source (sets src_id)
# shellcheck source=lib/retry.sh
source "$repo/lib/retry.sh"
cache=${MMUBENCH_CACHE:-$HOME/.cache/mmubench}/kernel
host_arch=$(uname -m | sed -e 's/aarch64/arm64/')
arch=$host_arch vcpus=2 size=64m iterations=2 mode=clear-init-set runs=4
test=dirty_log_perf_test uffd_mode=missing backing=anonymous sized='' given=''
# The selftests it runs, each with tools/peer/TEST.awk.
peer_tests=(dirty_log_perf_test demand_paging_test pre_fault_memory_test
	memslot_perf_test access_tracking_perf_test)
kernel_base 6.1
out='' timeout='' build_only=0 disable_writing=0
run_opts=()

bad() { die "$1" 2; }
usage() { # [STATUS]: 0 for --help (stdout), 2 for bad usage (stderr)
	usage_exit "${1:-2}" '/^#   tools\/peer.sh/,/^#   --build-only/s/^#//p'
}

while (($#)); do
	case $1 in
	-h|--help) usage 0 ;;
	-g) mode="get" given+=" -g"; shift; continue ;;
	-e) disable_writing=1 given+=" -e"; shift; continue ;;
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
	--uffd-mode) uffd_mode=$2 given+=" --uffd-mode" ;;
	-s) backing=$2 given+=" -s" ;;
	-v) vcpus=$2 sized+=" -v" ;;
	-b) size=$2 sized+=" -b" ;;
	-i) iterations=$2 given+=" -i" ;;
	--mode) mode=$2 given+=" --mode" ;;
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
# An option of another test would be taken and not used: the comparison
# would not be the one asked for.
for opt in $given; do
	case $opt in
	-s|--uffd-mode) owner=demand_paging_test ;;
	*) owner=dirty_log_perf_test ;;
	esac
	[[ $test == "$owner" ]] || bad "$opt: $owner's, not $test's"
done
[[ $mode == clear-init-set || $mode == get ]] ||
	bad "--mode $mode: unknown (accepted: clear-init-set, get)"
[[ " ${peer_tests[*]} " == *" $test "* ]] ||
	bad "--test $test: unknown (accepted: $(printf "%s, " "${peer_tests[@]}" | sed "s/, \$//"))"
# pre_fault_memory_test has one size, its own.
if [[ $test == pre_fault_memory_test ]]; then
	[[ -z $sized ]] ||
		bad "${sized# }: pre_fault_memory_test has its own size (one vCPU, 2 MiB + 4 KiB), not settable"
	vcpus=1 size=2052k bytes=$((2048 * 1024 + 4096))
fi
# memslot_perf_test has one vCPU and 512 MiB (and a page): -b is its slot size.
if [[ $test == memslot_perf_test ]]; then
	[[ $sized != *-v* ]] ||
		bad "-v: memslot_perf_test has its own vCPU, one, not settable"
	[[ $sized == *-b* ]] || size=16m bytes=$((16 << 20))
	((bytes % (1 << 20) == 0 && (512 << 20) % bytes == 0 && bytes <= (256 << 20))) ||
		bad "-b $size: memslot_perf_test's slot size must divide its 512 MiB into 2 slots or more, in MiB (1m, 2m, 4m ... 256m)"
	vcpus=1
fi
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

# The selftests of peer_tests that the base's Makefile builds for ARCH
# (TEST_GEN_PROGS_x86_64, or _aarch64 for arm64), from the pristine source.
base_tests() {
	local dir=${karch/arm64/aarch64} t
	for t in "${peer_tests[@]}"; do
		grep -qE "^TEST_GEN_PROGS_$dir \+= $t\$" \
			"$src/tools/testing/selftests/kvm/Makefile" && echo "$t"
	done
	return 0
}

# The recipe, part of the cache key: a change to it rebuilds.  Only the
# tests and what they link; headers_install writes to build/usr, kbuild's
# own files to build/kbuild, the selftests' objects to build/kvm.
peer_make() { # TREE TEST...
	local t=$1 b=$1/build
	shift
	nice -n "${MMUBENCH_NICE:-10}" make -C "$t" O="$b/kbuild" \
		ARCH="$karch" ${cross:+CROSS_COMPILE=$cross} \
		INSTALL_HDR_PATH="$b/usr" headers_install &&
	nice -n "${MMUBENCH_NICE:-10}" make -C "$t/tools/testing/selftests/kvm" \
		-j"$(nproc)" ARCH="$karch" ${cross:+CROSS_COMPILE=$cross} \
		OUTPUT="$b/kvm" KHDR_INCLUDES="-isystem $b/usr/include" \
		LDFLAGS="-static -pthread -no-pie" "${@/#/$b/kvm/}"
}

build_peer() {
	local tree=$cache/peer-$base-$arch key t0=$EPOCHREALTIME tests=()
	local bin=$tree/build/kvm/$test

	need make make
	need "${cross}gcc" "$([[ $cross ]] && echo gcc-aarch64-linux-gnu || echo gcc)"
	need rsync rsync
	need flock util-linux
	# shellcheck disable=SC2119 # no wrapper for the unpack
	kernel_source || die "no kernel source to build the peer from"
	# What the base has: a test it lacks is bad input, before any boot.
	mapfile -t tests < <(base_tests)
	[[ " ${tests[*]} " == *" $test "* ]] ||
		bad "--test $test: linux-source-$base's selftests do not build it for $arch (no 'TEST_GEN_PROGS_${karch/arm64/aarch64} += $test' in tools/testing/selftests/kvm/Makefile)"
	# mmubench is sized to the test's one size.
	[[ $test != pre_fault_memory_test ]] ||
		grep -qE "^#define TEST_SIZE[[:space:]]+\\(SZ_2M \\+ PAGE_SIZE\\)\$" \
			"$src/tools/testing/selftests/kvm/$test.c" ||
		die "$test.c of linux-source-$base: its TEST_SIZE is not (SZ_2M + PAGE_SIZE), the size mmubench runs with here"
	key=$({
		echo "$src_id $arch"
		echo "${tests[*]}"
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
	peer_make "$tree" "${tests[@]}" >"$tree/build/build.log" 2>&1 ||
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
# a run failed (its output says why).  The peer runs as "$peer_cmd".
peer_cmd="./$test" prelude=''
case $test in
dirty_log_perf_test)
	peer_args="-v $vcpus -b $size -i $iterations${peer_mode[*]:+ ${peer_mode[*]}}"
	[[ $mode == get ]] && peer_args+=" -g"
	if ((disable_writing)); then
		peer_args+=" -e"
		# 6.1's option switch falls through from -e into -g (no break,
		# fixed by 6.12): its -e turns manual protect off too.
		if grep -A1 'run_vcpus_while_disabling_dirty_logging = true;' \
			"$src/tools/testing/selftests/kvm/$test.c" |
			sed -n 2p | grep -q "case 'g':"; then
			note "linux-source-$base's $test -e also turns manual protect off (its -e falls through into -g): mmubench runs --mode get to match"
			mode="get"
		fi
	fi
	mmub_args="dirty-log -v $vcpus -b $size -i $iterations --mode $mode --no-populate --no-latency"
	if ((disable_writing)); then
		mmub_args+=" -e"
	fi
	;;
demand_paging_test)
	peer_args="-v $vcpus -b $size -s $backing -u ${uffd_mode^^}${peer_mode[*]:+ ${peer_mode[*]}}"
	mmub_args="demand-paging -v $vcpus -b $size -s $backing -u $uffd_mode -i 0 --no-latency"
	[[ $backing != *hugetlb* ]] || mmub_args+=" --reserve-hugepages"
	;;
access_tracking_perf_test)
	# Two rounds as the peer's (mark, write; mark, read), every page
	# touched; the peer times no single access.
	peer_args="-v $vcpus -b $size${peer_mode[*]:+ ${peer_mode[*]}}"
	mmub_args="aging --method page_idle -v $vcpus -b $size -i 2 --no-populate --no-latency"
	;;
pre_fault_memory_test)
	# The guest reads its memory once after the pre-fault, as the
	# peer's vCPU does (a write would fault again: the ioctl maps
	# memory not yet populated read-only, the zero page).
	peer_args=''
	mmub_args="touch -v $vcpus -b $size --prefault --no-populate -i 0 -w 0 --no-latency"
	peer_cmd="traced ./$test"
	# traced CMD...: CMD's output, then its KVM_PRE_FAULT_MEMORY ioctls
	# (kvm_vcpu_ioctl with the command _IOWR(KVMIO, 0xd5, 64 bytes)):
	# entry with the range asked, return with the ioctl's value; then
	# CMD's exit status.  The probes and their trace instance exist
	# only for CMD's run.
	# shellcheck disable=SC2016 # expanded by the guest's sh
	prelude='
traced() {
	T=/sys/kernel/tracing P=mmubench_peer
	I=$T/instances/$P
	echo "p:$P/pf_enter kvm_vcpu_ioctl cmd=\$arg2:x32 gpa=+u0(\$arg3):x64 size=+u8(\$arg3):x64" >>$T/kprobe_events &&
	echo "r:$P/pf_exit kvm_vcpu_ioctl ret=\$retval:s64" >>$T/kprobe_events &&
	mkdir $I && echo "cmd == 0xc040aed5" >$I/events/$P/pf_enter/filter &&
	echo 1 >$I/events/$P/enable ||
		{ echo "traced: the kprobes on kvm_vcpu_ioctl could not be set"; return 97; }
	"$@"
	rc=$?
	echo 0 >$I/events/$P/enable
	echo "@@ trace: KVM_PRE_FAULT_MEMORY, kprobes on kvm_vcpu_ioctl"
	grep -v "^#" $I/trace
	rmdir $I
	echo "-:$P/pf_enter" >>$T/kprobe_events
	echo "-:$P/pf_exit" >>$T/kprobe_events
	echo "@@ exit status $rc"
	return $rc
}'
	;;
memslot_perf_test)
	# Its move tests only (3 and 4), a second each: the other four
	# time MADV_DONTNEED and guest loops, not slot operations.  -s
	# counts its slot 0 too.
	peer_args="-s $(((512 << 20) / bytes + 1)) -f 3 -e 4 -l 1 -r 1"
	mmub_args="memslot -v 1 -b $((3 * bytes >> 20))m -x 3 --rounds 2"
	;;
esac
script="$prelude
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
	$peer_cmd${peer_args:+ $peer_args} >peer-\$i.txt 2>&1 ||
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
note "$runs runs each of $test${peer_args:+ $peer_args} and mmubench $mmub_args, alternating, in one boot ($MMUBENCH_KVM, $arch)"
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
case $test in
dirty_log_perf_test)
	awk_vars=(-v iterations="$iterations" -v mode="$mode")
	metrics=(
		'results.runs[].phases[name=populate].wall_ms'
		'results.runs[].dirty_log.enable_ms'
		'results.runs[].dirty_log.iterations[*].dirty_ms'
		'results.runs[].dirty_log.iterations[*].get_ms'
	)
	[[ $mode == get ]] || metrics+=('results.runs[].dirty_log.iterations[*].clear_ms')
	metrics+=('results.runs[].dirty_log.disable_ms')
	;;
demand_paging_test)
	awk_vars=(-v mode="$uffd_mode")
	metrics=(
		'results.runs[].demand_paging.demand_ms'
		'results.runs[].demand_paging.pages_per_s'
	)
	;;
pre_fault_memory_test)
	awk_vars=()
	metrics=('results.runs[].prefault_ms')
	;;
memslot_perf_test)
	awk_vars=()
	metrics=(
		'results.runs[].memslot.by_op.move_active.ms_mean'
		'results.runs[].memslot.by_op.move_inactive.ms_mean'
	)
	;;
access_tracking_perf_test)
	awk_vars=()
	metrics=(
		'results.runs[].phases[name=control].wall_ms'
		'results.runs[].aging.mark_idle_ms'
		'results.runs[].phases[name=aged1].wall_ms'
	)
	;;
esac
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
