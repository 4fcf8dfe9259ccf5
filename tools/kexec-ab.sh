#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A/B by kexec: what tools/ab.sh does in QEMU, on the machine itself.  Each
# run boots its kernel by kexec, the original (A) and the one with
# patches/NAME (B) alternating A B A B, with the nested runner's
# initramfs (lib/nested/mkinitramfs.sh); its /init runs the scenario,
# stores the JSON and the kernel's identity on a results device
# (tools/kexec/slots.sh), then kexecs back into the machine's own kernel, or
# reboots, where a systemd unit resumes the job.  At the end the runs are
# merged and compared as ab.sh does, into the same files.
#
#   tools/kexec-ab.sh --format-results DEV [--slot-mib M]
#   tools/kexec-ab.sh --install-unit
#   tools/kexec-ab.sh [--kernel 6.1|6.12] --series NAME --results DEV --yes-kexec-this-machine
#                  | --kernel-src SRC --sides A=WHAT,B=WHAT --results DEV --yes-kexec-this-machine
#                  [--repeat R] [--append KARGS] [--back kexec|reboot]
#                  [--out DIR] [--runs] [--mmubench BIN] [--guest FILE]
#                  -- SCENARIO OPTIONS...
#   tools/kexec-ab.sh --resume [JOB_DIR] --yes-kexec-this-machine
#   tools/kexec-ab.sh --nested [--kernel 6.1|6.12] --series NAME | --kernel-src SRC --sides A=WHAT,B=WHAT
#                  [--repeat R] [--append KARGS]
#                  [--mem SIZE] [--timeout SEC] [-v] [--out DIR] [--runs]
#                  [--mmubench BIN] [--guest FILE] -- SCENARIO OPTIONS...
#
# --format-results marks DEV (a partition, or a file for tests) as a
# results device: a header, then slots of M MiB (4) each, two per
# --repeat.  Nothing else is ever written to a device without that header,
# and DEV is refused if it holds a filesystem or partition table.
# --install-unit installs and enables tools/kexec/mmubench-kexec-ab.service,
# which runs "--resume" at boot while a job is in progress.
# --kernel-src SRC --sides A=WHAT,B=WHAT: the user's own kernel at two
# refs of a git tree, or a tarball and its patches, as tools/ab.sh takes
# them (two sides here), instead of --series.
# --series ... --results DEV starts a job on this machine (as root): the
# kernels and the harness are built, then the machine kexecs into the
# first step's kernel.  Nothing kexecs without --yes-kexec-this-machine.
# DEV as the kernels see it: /dev/NAME or /dev/disk/by-partlabel/LABEL
# (found by the partition's name in the kernel under test, without udev).
# --back kexec (the default where /boot/vmlinuz-$(uname -r) is readable)
# packs this kernel, its initrd and command line into the step's
# initramfs, which kexecs back into them; --back reboot reboots instead.
# --resume goes on with the job in JOB_DIR (default: the one named in
# /var/lib/mmubench/kexec-ab.job): the next step, or the end.
# --nested is the same in the nested setup (x86_64): lib/nested/run.sh
# boots the original kernel with a results disk; inside, "--resume"
# kexecs into each step's kernel and back; the results are read here.
#
# DIR (default ./kexec-ab-NAME-DATE) holds what ab.sh leaves:
#   runs/A-1.json runs/A-1.log ...  every run
#   runs/A-1.identity ...           the kernel's own report (uname -r, /proc/version)
#   A.json B.json compare.txt compare.json command.txt time.txt
# and job/ (kernels, initramfs, the plan), l1.log (--nested: L1's output).
set -euo pipefail

prog=tools/kexec-ab.sh
# shellcheck source=lib/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/preamble.sh"
# shellcheck source=lib/ab-common.sh
source "$repo/lib/ab-common.sh"
# shellcheck source=tools/kexec/slots.sh
source "$here/kexec/slots.sh"
# shellcheck source=lib/kernel/source.sh
source "$repo/lib/kernel/source.sh"	# kernel_bases, kernel_base
host_arch=$(uname -m | sed -e 's/aarch64/arm64/')
arch=$host_arch
kernel_base 6.1
state_file=/var/lib/mmubench/kexec-ab.job
unit=mmubench-kexec-ab.service
mode='' series='' repeat=5 out='' bin='' guest='' results='' back='' dev=''
slot_mib=4 yes=0 mem=2G timeout='' verbose='' job='' collect=''
kargs=() ksrc_arg='' sides_arg='' kernel_given=0
# The kernels of sides A and B: original and the series, or --sides'.
name_a=original name_b=''

say() { echo "$prog: $*" >&2; }
usage() { # [STATUS]: 0 for --help (stdout), 2 for bad usage (stderr)
	usage_exit "${1:-2}" '/^#   tools\/kexec-ab.sh --format/,/--guest FILE\] -- SCENARIO/s/^#//p'
}
set_mode() {
	[[ -z $mode || $mode == "$1" ]] ||
		die "--$1 and --$mode: one of them" 2
	mode=$1
}

while (($#)); do
	case $1 in
	--kernel|--series|--repeat|--append|--back|--out|--mmubench|--guest|--results|--slot-mib|--mem|--timeout|--format-results|--kernel-src|--sides)
		(($# >= 2)) || die "$1 needs a value" 2 ;;&
	--kernel) kernel_given=1
		kernel_base "$2" 2>/dev/null ||
		die "--kernel $2: the base kernel, one of: ${kernel_bases[*]} (Debian's linux-source-BASE)" 2 ;;
	--series) series=$2 ;;
	--kernel-src) ksrc_arg=$2 ;;
	--sides) sides_arg=$2 ;;
	--repeat) repeat=$2 ;;
	--append) kargs+=("$2") ;;
	--back) back=$2 ;;
	--out) out=$2 ;;
	--mmubench) bin=$2 ;;
	--guest) guest=$2 ;;
	--results) results=$2 ;;
	--slot-mib) slot_mib=$2 ;;
	--mem) mem=$2 ;;
	--timeout) timeout=$2 ;;
	--format-results) set_mode format; results=$2 ;;
	--install-unit) set_mode install; shift; continue ;;
	--nested) set_mode nested; shift; continue ;;
	--resume)
		set_mode resume
		if (($# >= 2)) && [[ $2 != -* ]]; then job=$2; shift; fi
		shift
		continue ;;
	--yes-kexec-this-machine) yes=1; shift; continue ;;
	--runs) compare_opts+=(--runs); shift; continue ;;
	-v) verbose=-v; shift; continue ;;
	-h|--help) usage 0 ;;
	--) shift; break ;;
	*) die "$1: unknown option (tools/kexec-ab.sh --help lists them)" 2 ;;
	esac
	shift 2
done
[[ -n $mode ]] || mode=start

# ---- the results device ----------------------------------------------

# A device named as the kernels under test see it.
results_spec() { # DEV
	case $1 in
	/dev/disk/by-partlabel/*) echo "PARTLABEL=${1#/dev/disk/by-partlabel/}" ;;
	*) echo "$1" ;;
	esac
}

format_results() {
	local sig
	[[ $slot_mib =~ ^[1-9][0-9]*$ ]] || die "--slot-mib $slot_mib: expected a number of MiB >= 1" 2
	[[ -e $results ]] || die "--format-results $results: no such device or file" 2
	[[ -b $results || -f $results ]] ||
		die "--format-results $results: not a block device or a file" 2
	if ! kx_is_ours "$results"; then
		command -v blkid >/dev/null || die "missing blkid: apt-get install util-linux" 2
		sig=$(blkid -p -o export "$results" 2>/dev/null |
			sed -n 's/^\(PT\)\{0,1\}TYPE=//p' | head -n1) || true
		[[ -z $sig ]] ||
			die "--format-results $results: holds $sig (a filesystem or partition table signature); wipefs it first if its data is not needed" 2
	fi
	(($(kx_size "$results") >= 3 * slot_mib * 1048576)) ||
		die "--format-results $results: smaller than 3 slots of $slot_mib MiB" 2
	kx_write_header "$results" "$slot_mib" none || die "--format-results $results: cannot write it"
	say "$results: a results device of $(kx_nslots "$results") slots of $slot_mib MiB (--repeat up to $(($(kx_nslots "$results") / 2)))"
}

# ---- the unit ----------------------------------------------------------

install_unit() {
	((EUID == 0)) || die "--install-unit: run as root" 2
	[[ -d /run/systemd/system ]] || die "--install-unit: systemd is not running here" 2
	sed -e "s|@REPO@|$repo|g" "$here/kexec/$unit" >"/etc/systemd/system/$unit.tmp"
	mv "/etc/systemd/system/$unit.tmp" "/etc/systemd/system/$unit"
	systemctl daemon-reload
	systemctl enable "$unit"
	say "installed /etc/systemd/system/$unit (ExecStart $repo/tools/kexec-ab.sh --resume)"
}

# ---- a step ----------------------------------------------------------

side_of() { (($1 % 2)) && echo A || echo B; }
index_of() { echo $((($1 + 1) / 2)); }
kernel_of() { [[ $(side_of "$1") == A ]] && echo "$name_a" || echo "$name_b"; }

# The step kernel's command line: this kernel's console and panic words,
# ours, the user's, and the step.
step_cmdline() { # N
	local w words=() panic=panic=10
	for w in $(</proc/cmdline); do
		case $w in
		console=*|earlycon*|earlyprintk=*) words+=("$w") ;;
		# The nested runner's: the step boots on one CPU too, its
		# /init brings the others up without timing their delay
		# loops, its TSC unwatched (run.sh says why).
		maxcpus=*|no_ipi_broadcast=*|tsc=*|lpj=*) words+=("$w") ;;
		panic=*) panic=$w ;;
		esac
	done
	words+=("$panic" oops=panic loglevel=2 "${kargs[@]}"
		"mmubench.results=$results" "mmubench.job=$job_id"
		"mmubench.step=$1" "mmubench.side=$(side_of "$1")"
		"mmubench.kernel=$(kernel_of "$1")")
	# Its KVM modules, where its initramfs has them (write_job).
	[[ ! -d $job/modules-$(side_of "$1") ]] ||
		words+=("mmubench.modules=/root/job/modules-$(side_of "$1")")
	echo "${words[*]}"
}

# Boot step N's kernel.  Does not return.
start_step() { # N
	local n=$1 side kernel cmdline rd
	side=$(side_of "$n")
	kernel=$job/kernel-$side
	cmdline=$(step_cmdline "$n")
	rd=$initrd
	if [[ -z $rd ]]; then
		# Every kernel boots this same initramfs: repack the running
		# one, with where to come back to.
		cat /proc/cmdline >"$job/back/cmdline"
		rd=/tmp/kexec-ab-initrd.cpio
		kx_repack >"$rd"
	fi
	say "step $n/$((2 * repeat)): $side $(index_of "$n")/$repeat ($(kernel_of "$n")): kexec $kernel"
	kx_mark "$dev" "$n" "$job_id" started "at=$(date +%s)" ||
		die "step $n: cannot write its slot on $dev"
	kexec -l "$kernel" --initrd="$rd" --append="$cmdline" ||
		fail_job "step $n: kexec -l $kernel failed"
	sync
	if [[ -d /run/systemd/system ]]; then
		systemctl --no-block kexec
		exit 0
	fi
	kexec -e
	fail_job "step $n: kexec -e returned"
}

# The job is over: the unit stops resuming it.
fail_job() { # MESSAGE
	[[ $collect != here ]] || rm -f "$state_file"
	die "$1"
}

# What a failed step left: its reason and the end of its output.
step_failure() { # N STATE
	local n=$1 line why d
	line=$(kx_slot_line "$dev" "$n")
	why=$(kx_word "$line" why 2>/dev/null | tr _ ' ') || true
	case $2 in
	started) why="its kernel stored nothing (a panic, a hang, a reset: its console says which)" ;;
	failed) ;;
	*) why="state $2" ;;
	esac
	d=$(mktemp -d "${TMPDIR:-/tmp}/kexec-ab.XXXXXX")
	if kx_payload "$dev" "$n" >"$d/slot.tar" 2>/dev/null && tar -xf "$d/slot.tar" -C "$d" 2>/dev/null; then
		tail -n 15 "$d/stderr" | sed 's/^/| /' >&2
	fi
	rm -rf "$d"
	fail_job "step $n ($(side_of "$n") $(index_of "$n")/$repeat, kernel $(kernel_of "$n")): $why"
}

# --resume: the next step, or the end.
resume() {
	local n total st
	dev=$(kx_resolve "$results") || fail_job "results device $results: absent"
	if ! kx_is_ours "$dev" || [[ $(kx_field "$dev" job) != "$job_id" ]]; then
		fail_job "results device $dev: not the one of job $job_id (formatted again?)"
	fi
	total=$((2 * repeat))
	for ((n = 1; n <= total; n++)); do
		st=$(kx_slot_state "$dev" "$n" "$job_id")
		case $st in
		done) continue ;;
		empty) start_step "$n" ;;
		*) step_failure "$n" "$st" ;;
		esac
	done
	say "all $total steps stored on $dev"
	[[ $collect == here ]] || return 0
	finish
	rm -f "$state_file"
}

# ---- the end: slots to runs/, merge, compare ---------------------------

took_add() { # NAME SECONDS
	[[ -n ${took[$1]+x} ]] || order+=("$1")
	took[$1]=$(echo "${took[$1]:-0} + $2" | bc)
}

collect() {
	local n side i name d release kvm up0 up1
	for ((n = 1; n <= 2 * repeat; n++)); do
		side=$(side_of "$n") i=$(index_of "$n") name=$(kernel_of "$n")
		[[ $(kx_slot_state "$dev" "$n" "$job_id") == "done" ]] ||
			die "step $n ($side $i/$repeat): its slot holds no result"
		d=$(mktemp -d "${TMPDIR:-/tmp}/kexec-ab.XXXXXX")
		kx_payload "$dev" "$n" >"$d/slot.tar" ||
			die "step $n ($side $i/$repeat): its slot does not match its checksum"
		tar -xf "$d/slot.tar" -C "$d"
		# The kernel's own word for what it is, not the plan's: a
		# whole build's release, or on Debian's image its kvm.ko.
		release=$(sed -n 's/^release //p' "$d/identity")
		kvm=$(sed -n 's/^kvm_module //p' "$d/identity")
		[[ $release == "$base".* && ( $release == *-mmub-"$name" || $kvm == "mmub-$name" ) ]] ||
			die "step $n ($side $i/$repeat): meant to boot $name on $base, but the kernel reports release '$release', kvm.ko '${kvm:-built in}'"
		cp "$d/identity" "$out/runs/$side-$i.identity"
		cat "$d/stdout" "$d/stderr" >"$out/runs/$side-$i.log"
		cp "$d/result.json" "$out/runs/$side-$i.json.tmp"
		mv "$out/runs/$side-$i.json.tmp" "$out/runs/$side-$i.json"
		up0=$(sed -n 's/^uptime_start //p' "$d/identity")
		up1=$(sed -n 's/^uptime_end //p' "$d/identity")
		took_add "kexec boots to the step (kernel uptime)" "$up0"
		took_add "runs $side" "$(echo "$up1 - $up0" | bc)"
		printf '%s: run %s %d/%d (%s): %s, %.1f s\n' "$prog" "$side" "$i" "$repeat" \
			"$name" "$release" "$(echo "$up1 - $up0" | bc)" >&2
		rm -rf "$d"
	done
}

finish() {
	collect
	ab_merge_compare
	{
		ab_time_table
		echo "every run's JSON, output and kernel identity: $out/runs/"
	} | tee "$out/time.txt"
}

# ---- checks of a new job ------------------------------------------------

check_job_args() {
	ab_source_opts
	if [[ $ksrc_arg ]]; then
		ab_check_kernel_src "$ksrc_arg" "$sides_arg"
		((${#side_names[@]} == 2)) ||
			die "--sides $sides_arg: two sides, A and B, for a kexec A/B" 2
		name_a=${side_names[0]} name_b=${side_names[1]}
		series=$name_a+$name_b
	else
		[[ $series =~ ^[A-Za-z0-9._-]+$ && ${#series} -le 48 ]] ||
			die "--series $series: not a series name (letters, digits, . _ -; 48 at most)" 2
		ab_check_series "$series"
		name_b=$series
	fi
	# How command.txt names the kernels.
	if [[ $ksrc ]]; then
		source_args=(--kernel-src "$ksrc" --sides "$sides_arg")
	else
		source_args=(--kernel "$base" --series "$series")
	fi
	[[ $repeat =~ ^[1-9][0-9]*$ ]] || die "--repeat $repeat: expected a number >= 1" 2
	(($# > 0)) || die "no scenario after --: e.g. -- zap --zap same4 -v 2 -b 32m" 2
	ab_check_scenario "$@"
	local a
	for a in "$@"; do
		[[ $a != *$'\n'* ]] || die "a scenario word with a newline: not passed to a kernel" 2
	done
}

write_job() { # SCENARIO...
	local a s k
	mkdir -p "$job/back"
	for s in A B; do
		[[ $s == A ]] && k=${kernel_image[$name_a]} || k=${kernel_image[$name_b]}
		cp "$k" "$job/kernel-$s"
		# KVM as modules on Debian's image: each kernel boots with its
		# own (mmubench.modules, lib/nested/mkinitramfs.sh).
		rm -rf "$job/modules-$s"
		[[ ! -f ${k%/arch/*}/mmubench-modules/load ]] ||
			cp -a "${k%/arch/*}/mmubench-modules" "$job/modules-$s"
	done
	# For step.sh (busybox sh): the scenario's words, single-quoted.
	for a in "$@"; do printf "'%s' " "${a//\'/\'\\\'\'}"; done >"$job/scenario"
	echo 'exec sh /root/tools/kexec/step.sh --back' >"$job/then"
	t_start=$EPOCHREALTIME
	declare -p job_id base series repeat results collect initrd kargs compare_opts \
		name_a name_b ksrc ksrc_kind side_names side_what \
		out arch bin guest tool t_start >"$job/job.conf"
	declare -p took order >"$job/took.sh"
}

# Both kernels built; with --kernel-src the base is theirs (ab_kernel).
job_kernels() {
	ab_kernel "$name_a"
	[[ $name_b == "$name_a" ]] || ab_kernel "$name_b"
	[[ -z $ksrc ]] || ab_sides_txt >"$out/sides.txt"
}

# The job's paths outlive this directory (--resume after a boot).
absolute() {
	bin=$(realpath "$bin") guest=$(realpath "$guest") tool=$(realpath "$tool")
}

new_job_id() {
	echo "$(date +%Y%m%d%H%M%S)-$$-$RANDOM"
}

# ---- --nested ------------------------------------------------------------

nested() {
	local img rc=0 t0 disp modules_a=''
	[[ $arch == x86_64 ]] ||
		die "--nested: x86_64 only (this machine is $host_arch; the arm64 L1 has no disk driver)" 2
	[[ -z $timeout || $timeout =~ ^[1-9][0-9]*$ ]] || die "--timeout $timeout: expected seconds" 2
	command -v kexec >/dev/null || die "missing kexec: apt-get install kexec-tools" 2
	: "${timeout:=$((300 + 240 * repeat))}"
	: "${out:=./kexec-ab-$series-$(date +%Y%m%d-%H%M%S)}"
	ab_out "$out"
	job=$out/job
	printf '%q ' "$0" --nested "${source_args[@]}" --repeat "$repeat" -- "$@" >"$out/command.txt"
	echo >>"$out/command.txt"
	export MMUBENCH_KVM=nested
	ab_harness
	absolute
	job_kernels

	job_id=$(new_job_id) results=/dev/vda collect=outside initrd=''
	write_job "$@"
	ln -s ../kernel-A "$job/back/kernel"
	[[ ! -d $job/modules-A ]] || modules_a=$job/modules-A
	: >"$job/back/repack"
	img=$out/results.img
	truncate -s $(((2 * repeat + 1) * slot_mib))M "$img"
	kx_write_header "$img" "$slot_mib" "$job_id" || die "$img: cannot write it"

	# One initramfs for every kernel: L1's, each step's, L1's again.
	disp='if grep -q "mmubench\.step=" /proc/cmdline; then exec sh /root/tools/kexec/step.sh; fi
exec bash /root/tools/kexec-ab.sh --resume /root/job --yes-kexec-this-machine'
	say "L1 ($series, $((2 * repeat)) kexec steps): lib/nested/run.sh, output in $out/l1.log"
	t0=$EPOCHREALTIME
	"$repo/lib/nested/run.sh" --arch x86_64 --kernel "$job/kernel-A" \
		${modules_a:+--modules "$modules_a"} \
		--mem "$mem" --timeout "$timeout" ${verbose:+"$verbose"} --disk "$img" \
		--file "$bin:/root/mmubench" --file "$guest:/root/guest.elf" \
		--file "$(command -v kexec):/root/kexec" --file /bin/bash:/bin/bash \
		--file "$repo/tools/kexec-ab.sh:/root/tools/kexec-ab.sh" \
		--file "$repo/lib/preamble.sh:/root/lib/preamble.sh" \
		--file "$repo/lib/ab-common.sh:/root/lib/ab-common.sh" \
		--file "$repo/lib/kernel/source.sh:/root/lib/kernel/source.sh" \
		--file "$repo/lib/kernel/user-source.sh:/root/lib/kernel/user-source.sh" \
		--file "$repo/tools/kexec:/root/tools/kexec" \
		--file "$job:/root/job" --file "$job/then:/then" \
		-- sh -c "$disp" >"$out/l1.log" 2>&1 || rc=$?
	took_add "L1 (QEMU, every kexec and run)" "$(echo "$EPOCHREALTIME - $t0" | bc)"
	if ((rc)); then
		tail -n 20 "$out/l1.log" >&2
		die "L1 failed (exit $rc); see $out/l1.log"
	fi
	dev=$img
	finish
}

# ---- main ----------------------------------------------------------------

case $mode in
format)
	format_results
	exit 0 ;;
install)
	install_unit
	exit 0 ;;
resume)
	if [[ -z $job ]]; then
		[[ -f $state_file ]] || { say "no kexec A/B job in progress ($state_file)"; exit 0; }
		job=$(<"$state_file")
	fi
	((yes)) || die "--resume kexecs this machine: add --yes-kexec-this-machine" 2
	((EUID == 0)) || die "--resume: run as root (kexec)" 2
	[[ -f $job/job.conf ]] || die "--resume $job: no job.conf there" 2
	# shellcheck source=/dev/null
	source "$job/job.conf"
	# shellcheck source=/dev/null
	[[ ! -f $job/took.sh ]] || source "$job/took.sh"
	t_all=$t_start
	resume
	exit 0 ;;
nested)
	[[ -z $results ]] || die "--results $results: not with --nested (its disk is made here)" 2
	check_job_args "$@"
	nested "$@"
	exit 0 ;;
esac

# A job on this machine.
check_job_args "$@"
[[ $results ]] || die "--results DEV is required (a partition marked by --format-results)" 2
[[ -e $results ]] || die "--results $results: no such device" 2
case $results in
/dev/disk/by-partlabel/*) ;;
/dev/disk/*) die "--results $results: the kernels under test have no udev; /dev/disk/by-partlabel/LABEL or /dev/NAME" 2 ;;
esac
((yes)) || die "--results $results: this kexecs the machine's own kernel; add --yes-kexec-this-machine" 2
[[ -b $results ]] || die "--results $results: not a block device (the kernels under test see only those)" 2
kx_is_ours "$results" ||
	die "--results $results: not a results device (tools/kexec-ab.sh --format-results $results marks one)" 2
(($(kx_nslots "$results") >= 2 * repeat)) ||
	die "--repeat $repeat: $results holds $(kx_nslots "$results") slots, $((2 * repeat)) needed" 2
((EUID == 0)) || die "kexec needs root" 2
command -v kexec >/dev/null || die "missing kexec: apt-get install kexec-tools" 2
[[ ! -f $state_file ]] ||
	die "a job is in progress ($state_file: $(<"$state_file")): --resume it, or remove the file" 2
if [[ -d /run/systemd/system ]]; then
	systemctl is-enabled --quiet "$unit" 2>/dev/null ||
		die "$unit is not enabled: nothing would resume the job after a boot (tools/kexec-ab.sh --install-unit)" 2
fi
release=$(uname -r)
if [[ -z $back ]]; then
	back=reboot
	[[ -r /boot/vmlinuz-$release ]] && back=kexec
fi
case $back in
kexec) [[ -r /boot/vmlinuz-$release ]] ||
	die "--back kexec: /boot/vmlinuz-$release is not readable (--back reboot?)" 2 ;;
reboot) ;;
*) die "--back $back: kexec or reboot" 2 ;;
esac

: "${out:=./kexec-ab-$series-$(date +%Y%m%d-%H%M%S)}"
# A bare-metal machine boots the kernels under test on its own hardware:
# whole kernels (ACPI, NVMe, kvm-intel built in), not Debian's cloud image.
kernel_full=1
ab_out "$out"
job=$out/job
printf '%q ' "$0" "${source_args[@]}" --results "$results" --repeat "$repeat" \
	-- "$@" >"$out/command.txt"
echo >>"$out/command.txt"
ab_harness
absolute
job_kernels

job_id=$(new_job_id) collect=here initrd=$job/initrd.cpio.gz
dev=$results
results=$(results_spec "$results")
write_job "$@"
if [[ $back == kexec ]]; then
	cp "/boot/vmlinuz-$release" "$job/back/kernel"
	# Debian's name, or Fedora's; none if this kernel booted without one.
	for f in "/boot/initrd.img-$release" "/boot/initramfs-$release.img"; do
		if [[ -r $f ]]; then cp "$f" "$job/back/initrd"; break; fi
	done
	cat /proc/cmdline >"$job/back/cmdline"
fi
clock "step initramfs" "$repo/lib/nested/mkinitramfs.sh" --arch "$arch" --out "$initrd" \
	--file "$bin:/root/mmubench" --file "$guest:/root/guest.elf" \
	--file "$(command -v kexec):/root/kexec" \
	--file "$repo/tools/kexec:/root/tools/kexec" \
	--file "$job/scenario:/root/job/scenario" --file "$job/back:/root/job/back" \
	--file "$job/then:/then" -- sh /root/tools/kexec/step.sh ||
	die "could not make the step initramfs"
declare -p took order >"$job/took.sh"
kx_write_header "$dev" "$(kx_field "$dev" slot-mib)" "$job_id" || die "$dev: cannot write it"
mkdir -p "${state_file%/*}"
echo "$job" >"$state_file.tmp"
mv "$state_file.tmp" "$state_file"
resume
