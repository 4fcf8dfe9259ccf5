#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a command inside a self-built Linux (6.1 or 6.12) booted under QEMU TCG, where
# /dev/kvm has the TDP MMU (x86_64) or stage 2 (arm64): the nested way to
# test KVM and its patched kernels, on any machine.
#
#   lib/nested/run.sh [--arch x86_64|arm64] [--kernel IMAGE [--modules DIR] [--kernel-id FILE]]
#                    [--base B] [--series NAME]
#                    [--smp N] [--mem SIZE] [--cpu MODEL] [--append ARGS]...
#                    [--timeout SEC] [--clock host|icount[:SHIFT]]
#                    [--file SRC[:DEST]]... [--disk FILE]... [-v]
#                    [-- CMD [ARGS...]]
#
# The command's stdout and stderr come back on ours, and its exit status
# is ours.  Our own failures: 124 timeout, 125 the L1 kernel did not boot,
# has no /dev/kvm, or died mid-run; 1 bad setup; 2 usage.  Without CMD the
# guest's shell is on this terminal.  -v shows the console on stderr.
# A kernel of the modules kind (lib/kernel/modules.sh) has its modules in
# mmubench-modules beside its build's arch/, which /init loads; --modules
# DIR names them for an IMAGE elsewhere.
# The booted kernel must report the GNU build ids lib/kernel/build.sh
# recorded (build/.mmubench-id beside the image; --kernel-id FILE, the
# copy a run took with the kernel): another kernel is a failure (1)
# naming both, and the command's output is not passed on.  A kernel this
# script builds (--base, --series) is held for the boot.
# --smp N (2) is the command's CPUs; an x86_64 L1 has one more, CPU 0,
# which the command never runs on (see below).
# --disk FILE is a raw virtio-blk disk of L1 (/dev/vda, /dev/vdb, ... in
# order), read and written in place.  A kernel that L1 kexecs into prints
# its own markers: those of the last kernel are the command's.
# --clock icount[:SHIFT] makes L1's clocks count instructions (QEMU's
# -icount, one TCG thread, 2^SHIFT ns an instruction, SHIFT 0..10,
# default 4): a run's times no longer depend on the host's load.  The
# x86_64 L1 has one CPU there unless --smp says more, which needs a QEMU
# of 8.1 or later (the backports', lib/fetch-qemu.sh): one CPU repeats
# to a fraction of a per cent, several within tens of per cent
# (docs/findings/deterministic-time.md).  host (the default) is
# multi-threaded TCG on the host's clock.
set -euo pipefail

prog=lib/nested/run.sh
# shellcheck source=lib/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/../preamble.sh"
# shellcheck source=../kernel/source.sh
source "$repo/lib/kernel/source.sh"	# kernel_bases, kernel_base
# shellcheck source=qemu.sh
source "$here/qemu.sh"
arch=x86_64 kernel='' modules='' kernel_id='' base=6.1 series=original smp=2 mem=2G cpu=max timeout=600 clock=host
append='' verbose='' smp_given=''
files=()
disks=()
cmd=()


usage() { # [STATUS]: 0 for --help, on stdout
	local fd=2
	[[ ${1:-2} != 0 ]] || fd=1
	{ printf "usage: "; sed -n '/^#   lib\/nested\/run.sh/,/CMD \[ARGS/s/^#   //p' "${BASH_SOURCE[0]}"; } >&$fd
	exit "${1:-2}"
}

while (($#)); do
	case $1 in
	--arch|--kernel|--modules|--kernel-id|--base|--series|--smp|--mem|--cpu|--append|--timeout|--file|--disk|--clock)
		(($# >= 2)) || die "$1 needs a value" 2 ;;&
	--arch) arch=$2 ;;
	--kernel) kernel=$2 ;;
	--modules) modules=$2 ;;
	--kernel-id) [[ -f $2 ]] || die "--kernel-id $2: no such file (build/.mmubench-id of a kernel)" 2
		kernel_id=$2 ;;
	--base) base=$2 ;;
	--series) series=$2 ;;
	--smp) smp=$2 smp_given=1 ;;
	--mem) mem=$2 ;;
	--cpu) cpu=$2 ;;
	--append) append+=" $2" ;;
	--timeout) timeout=$2 ;;
	--clock) clock=$2 ;;
	--file) files+=(--file "$2") ;;
	--disk) [[ -f $2 ]] || die "--disk $2: no such file" 2
		disks+=(-drive "file=${2//,/,,},format=raw,if=virtio") ;;
	-h|--help) usage 0 ;;
	-v|--verbose) verbose=1; shift; continue ;;
	--) shift; cmd=("$@"); break ;;
	*) usage ;;
	esac
	shift 2
done
[[ $timeout =~ ^[0-9]+$ && $smp =~ ^[0-9]+$ ]] || die "--timeout and --smp take a number" 2
kernel_base "$base" 2>/dev/null ||
	die "--base $base: accepted: ${kernel_bases[*]} (Debian's linux-source-BASE)" 2
icount=
case $clock in
host) ;;
icount) icount=4 ;;
icount:*) icount=${clock#icount:}
	[[ $icount =~ ^([0-9]|10)$ ]] ||
		die "--clock $clock: SHIFT is 0..10 (2^SHIFT ns an instruction)" 2 ;;
*) die "--clock $clock: accepted: host, icount, icount:SHIFT (SHIFT 0..10)" 2 ;;
esac

# One host thread per vCPU (MTTCG): -smp 2 uses both cores.
#
# x86_64: QEMU's TCG clears IGNNE in the *first* CPU's hflags2 from
# whichever vCPU thread restores x87 state (FXRSTOR, XRSTOR), with an
# unlocked read-modify-write.  When that first CPU is entering or leaving
# an L2 guest at the same moment, its nested-paging and GIF bits are
# lost or brought back, and L1 and L2 state mix (docs/findings/
# nested-qemu-failures.md has the evidence).  So the command never runs on L1
# CPU 0: it gets CPUs 1..N of an L1 with N + 1 CPUs, and CPU 0's hflags2
# never changes, which makes the lost update harmless.
qsmp=$smp cpus=
case $arch in
x86_64)
	qemu=("$(nested_qemu x86_64)" -accel 'tcg,thread=multi' -M pc) console=ttyS0 pkg=qemu-system-x86
	qsmp=$((smp + 1)) cpus=1-$smp ;;
arm64)
	qemu=("$(nested_qemu arm64)" -accel 'tcg,thread=multi'
	      -M 'virt,virtualization=on,gic-version=3')
	console=ttyAMA0 pkg=qemu-system-arm ;;
*) die "--arch must be x86_64 or arm64" 2 ;;
esac

# Deterministic time: one TCG thread that counts instructions, the RTC on
# that clock too, and no sleeping: idle time jumps to the next timer.
# The TCG race above needs two threads, so no CPU is set aside.
if [[ $icount ]]; then
	qemu[2]=tcg,thread=single
	qemu+=(-icount "shift=$icount,sleep=off,align=off" -rtc clock=vm)
	cpus=
	# An x86_64 L1 has one CPU unless asked: its figures repeat to a
	# fraction of a per cent; those of several CPUs are what CPUs
	# share (lock waits, remote flushes), within tens of per cent
	# (docs/findings/deterministic-time.md).  arm64 keeps its 2.
	smp=$(icount_cpus "$arch" "${smp_given:+$smp}")
	qsmp=$smp
	if ((qsmp > 1)); then
		qemu[0]=$(icount_qemu "$arch") ||
			die "$(icount_qemu_refusal "$arch" "$smp" "$smp_given")" 2
	fi
fi
# An x86_64 L1 boots on CPU 0 alone and /init brings the others up once
# kvm-hold is in place (mkinitramfs.sh): a kernel text rewrite while
# another TCG thread runs the site can leave that CPU looping on a stale
# int3 (docs/findings/nested-qemu-failures.md), and the boot, the module
# loads and the hold's own set-up are such rewrites.  Without IPI
# shorthands the hotplug rewrites nothing (apic_use_ipi_shorthand).
if [[ $arch == x86_64 ]] && ((qsmp > 1)); then
	append=" maxcpus=1 no_ipi_broadcast=1$append"
fi
# TCG's TSC runs a fraction of a per cent off the TSC frequency the L1
# calibrated, so the first loaded run made the clocksource watchdog mark
# the TSC unstable, every boot (skew 0.5 to 0.9 ms over 480 ms against
# the HPET): sched_clock's key then turned with every CPU running it,
# and KVM went on without a stable TSC.  The TSC is one counter for all
# of QEMU's vCPUs: tsc=reliable keeps it, unwatched.
if [[ $arch == x86_64 ]]; then
	append=" tsc=reliable$append"
fi
# Each CPU /init brings up calibrates its delay loop by timing it, which
# under TCG took 6.12 about 1.5 s a CPU and then failed ("failed to get
# a good estimate for loops_per_jiffy"): 3 of a boot's 8 s.  A preset
# lpj skips it; its value matters only to delay loops, which x86 runs on
# the TSC: the host's MHz over the kernels' HZ (250).
if [[ $arch == x86_64 ]] && ((qsmp > 1)); then
	lpj=$(awk -F: '/^cpu MHz/ { printf "%d", $2 * 1e6 / 250; exit }' /proc/cpuinfo)
	append=" lpj=${lpj:-10000000}$append"
fi
# The clock L1's times are on and the QEMU, for mmubench's env.clock and
# env.qemu.
append+=" mmubench.clock=${icount:+icount:}${icount:-host}"
command -v "${qemu[0]}" >/dev/null || die "missing ${qemu[0]}: apt-get install $pkg"
append+=" mmubench.qemu=$(qemu_version "${qemu[0]}")"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mmubench-run.XXXXXX")
qpid=
cleanup() {
	[[ -z $qpid ]] || kill "$qpid" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Our stderr is the command's: keep build.sh's chatter out of it unless -v
# (a cold build is then silent for half an hour).
if [[ -z $kernel ]]; then
	log=$tmp/build.err
	[[ -z $verbose ]] || log=/dev/stderr
	if ! kernel=$("$repo/lib/kernel/build.sh" --base "$base" --arch "$arch" --series "$series" \
			--hold-for $$ 2>"$log" | tail -n1); then
		[[ $verbose ]] || cat "$log" >&2
		die "could not build the $arch kernel (lib/kernel/build.sh --base $base --arch $arch --series $series)"
	fi
fi
[[ -f $kernel ]] || die "no kernel image at $kernel"
# The ids to expect, taken now: a folder replaced during the boot (or,
# with --kernel-id, since the run took the kernel) is then caught.
if [[ -z $kernel_id && -f ${kernel%/arch/*}/.mmubench-id ]]; then
	kernel_id=$tmp/kernel-id
	cp "${kernel%/arch/*}/.mmubench-id" "$kernel_id"
fi
if [[ -z $modules && -f ${kernel%/arch/*}/mmubench-modules/load ]]; then
	modules=${kernel%/arch/*}/mmubench-modules
fi
[[ -z $modules || -f $modules/load ]] ||
	die "--modules $modules: not a kernel's modules (no file 'load')" 2

if ! "$here/mkinitramfs.sh" --arch "$arch" --out "$tmp/initrd.cpio.gz" \
		${cpus:+--cpus "$cpus"} ${modules:+--modules "$modules"} "${files[@]}" \
		${cmd[@]+-- "${cmd[@]}"} 2>"$tmp/mkinitramfs.err"; then
	cat "$tmp/mkinitramfs.err" >&2
	die "could not make the initramfs"
fi

# loglevel=2: the console stays quiet but for oopses and panics, which
# then end L1 at once (oops=panic) and are shown by tail_log below.
qemu+=(-cpu "$cpu" -smp "$qsmp" -m "$mem" -nodefaults -display none -no-reboot
       "${disks[@]}"
       -kernel "$kernel" -initrd "$tmp/initrd.cpio.gz"
       -append "console=$console rdinit=/init panic=-1 oops=panic quiet loglevel=2$append")

if ((${#cmd[@]} == 0)); then
	# Interactive: the guest's shell on this terminal; Ctrl-A X quits.
	"${qemu[@]}" -serial mon:stdio
	exit
fi

t0=$EPOCHREALTIME
: >"$tmp/console"
timeout -k 5 "$timeout" "${qemu[@]}" -serial "file:$tmp/console" -monitor none \
	2>"$tmp/qemu.err" &
qpid=$!
tpid=
if [[ $verbose ]]; then
	tail -F -n +1 --pid="$qpid" "$tmp/console" >&2 2>/dev/null &
	tpid=$!
fi
qrc=0
wait "$qpid" || qrc=$?
qpid=
[[ -z $tpid ]] || wait "$tpid" || true
secs=$(echo "$EPOCHREALTIME - $t0" | bc)

tr -d '\r' <"$tmp/console" >"$tmp/log"
# The last kernel's markers are the command's (an L1 that kexecs prints
# a set per kernel); the first /init's start is the boot time.
awk '/^@@MMUBENCH:BOOTED@@/ { n = NR } { line[NR] = $0 }
     END { for (i = n ? n : 1; i <= NR; i++) print line[i] }' "$tmp/log" >"$tmp/last"
mark() { grep -m1 "^@@MMUBENCH:$1" "$tmp/last" || true; }
booted=$(grep -m1 "^@@MMUBENCH:BOOTED" "$tmp/log" || true)
[[ -z $verbose ]] || cat "$tmp/qemu.err" >&2
[[ -z $verbose ]] || echo "$prog: qemu ran ${secs} s; /init started at ${booted#* } s guest uptime" >&2

# Context for a failure: QEMU's complaints and the end of the console.
tail_log() {
	{ cat "$tmp/qemu.err"; grep -v '^@@MMUBENCH' "$tmp/log" | tail -n 15; } |
		sed 's/^/| /' >&2 || true
}

# QEMU itself ended by signal N.  A crash of the emulator (abort, a bad
# access, an illegal instruction) may be provoked by what the guest runs,
# a patched L1 KVM for one: a failure like any other, never retried.  A
# signal sent from outside (KILL before the timeout: the OOM killer or a
# user; TERM, HUP) is not the guest's doing: the one failure the tests
# may retry, on exactly the nested-infra marker (ci/README.md).
signal_death() { # N
	local name s
	name=$(kill -l "$1" 2>/dev/null || echo unknown)
	s=$(printf '%.1f' "$secs")
	tail_log
	case $name in
	ABRT|SEGV|BUS|ILL|FPE|TRAP|SYS)
		echo "$prog: error: QEMU crashed (signal $1, $name) after $s s: an emulator failure, which the guest's code may have provoked (not retried)" >&2 ;;
	KILL)	echo "$prog: nested-infra: QEMU was killed (signal 9, KILL) after $s s, before the $timeout s timeout: by the OOM killer (dmesg) or a user" >&2 ;;
	*)	echo "$prog: nested-infra: QEMU was ended by signal $1 ($name) from outside after $s s" >&2 ;;
	esac
}

# timeout(1) says 124, or 137 when its KILL (-k 5) ended QEMU; a KILL
# well before the timeout came from elsewhere (the OOM killer, a user).
if ((qrc == 124 || (qrc == 137 && $(echo "$secs >= $timeout" | bc)))); then
	die "timed out after $timeout s ($([[ $booted ]] && echo 'L1 booted, command still running' || echo 'L1 kernel never reached /init')); -v shows the console" 124
fi
if ((qrc > 128)); then
	signal_death "$((qrc - 128))"
	exit 125
fi
if [[ -z $booted ]]; then
	tail_log
	die "the $arch L1 kernel did not boot (qemu exit $qrc, no /init marker on the console): $kernel" 125
fi
# The kernel that booted is the one built, by every build id recorded.
if [[ $kernel_id ]]; then
	kmark=$(mark KERNEL)
	# No marker and no end: the checks below say how the guest died.
	[[ $kmark || -z $(mark EXIT=) ]] ||
		die "the booted kernel did not report its build ids (no KERNEL marker): $kernel" 1
	while read -r n want; do
		got=$(tr ' ' '\n' <<<"${kmark#* }" | sed -n "s/^$n=//p")
		[[ $got != "$want" ]] || continue
		rel=$(tr ' ' '\n' <<<"${kmark#* }" | sed -n 's/^release=//p')
		die "the booted kernel is not the one this run took: its $n has build id ${got:-(none)}, expected $want (${kernel%/build/*}, as its build/.mmubench-id said when the run took it; booted release $rel): was the kernel's folder replaced under this run?" 1
	done <"$kernel_id"
fi
nokvm=$(mark NOKVM)
if [[ $nokvm ]]; then
	die "/dev/kvm is absent inside the $arch L1 guest (--cpu $cpu; L1 dmesg: ${nokvm#*@@ }): needs CONFIG_KVM and a CPU with svm/vmx or EL2" 125
fi
exitmark=$(mark EXIT=)
if [[ -z $exitmark ]]; then
	tail_log
	die "the L1 guest died while the command ran (no exit marker: an oops or panic, shown above, or a reset after a triple fault; qemu exit $qrc)" 125
fi

# Only base64 lines between the markers: a stray kernel line cannot leak in.
section() {
	awk -v want="@@MMUBENCH:$1@@" '
		/^@@MMUBENCH:/ { on = ($0 == want); next }
		on && /^[A-Za-z0-9+\/=]+$/' "$tmp/last" | base64 -d
}
section STDOUT
section STDERR >&2
rc=${exitmark#@@MMUBENCH:EXIT=}
exit "${rc%@@}"
