#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A/B in one command: the original L1 kernel (A) of a base (--kernel, 6.1
# by default) against the same kernel with patches/BASE/NAME (B), one
# nested boot per run, alternating A B A B so that a drift of the machine
# (load, thermal) hits both sides alike.
# With --series NAME1,NAME2,... (up to 7) the sides are A B C ..., each
# series one kernel, alternating A B C A B C, compared in one table.
#
#   tools/ab.sh --series NAME[,NAME...] | --kernel-src SRC --sides NAME=WHAT,NAME=WHAT...
#            [--arch A] [--repeat R] [--cpu MODEL]
#            [--append KARGS] [--mem SIZE] [--smp N] [--out DIR] [--timeout SEC]
#            [--clock host|icount[:SHIFT]]
#            [--runs] [--full] [--kernel 6.1|6.12] [--mmubench BIN] [--guest FILE]
#            [--] SCENARIO OPTIONS...
#
# Without "--", a --repeat after the scenario is still ab's (boots a
# side), as in "tools/ab.sh --kernel 6.1 --series NAME zap ... --repeat 5";
# after "--" every word is the scenario's.
# --runs adds every run's value to the comparison (seed 002's table).
# --full builds every x86_64 kernel whole (lib/kernel/build.sh --full), where
# a series changes more than KVM's modules; arm64's always are.
# --clock icount[:SHIFT] boots every kernel with its clocks counting
# instructions (lib/nested/run.sh): deterministic time, one L1 CPU on
# x86_64 unless --smp says more; every run's env.clock says which.
#
# Every run's JSON and output stay in DIR (default ./ab-NAME-DATE):
#   runs/A-1.json runs/A-1.log ...  every run
#   A.json B.json [C.json ...]      each side's runs in one document
#   build-NAME.log build-NAME.id    each kernel's build, and the build ids
#                                   every boot of it must report
#   compare.txt compare.json        "mmubench compare A.json B.json ..."
#   time.txt                        where the time went
#   runs/SIDE-I.log.failed          a run redone once (lib/retry.sh)
# --series original is an A/A run: the noise floor of the setup.
#
# --kernel-src SRC is the user's own kernel instead of a base and
# patches/: a git tree, each side a ref (--sides base=v6.12,mine=HEAD),
# or a source tarball, each side a folder of *.patch or an mbox, or
# nothing for the tarball as it is (--sides original=,v2=v2.mbox).  The
# first side is A and every other is built on it, incrementally
# (lib/kernel/build.sh --kernel-src); sides.txt says what each side was.
set -euo pipefail

prog=tools/ab.sh
# shellcheck source=lib/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/preamble.sh"
# shellcheck source=lib/retry.sh
source "$repo/lib/retry.sh"
# shellcheck source=lib/ab-common.sh
source "$repo/lib/ab-common.sh"
# shellcheck source=lib/kernel/source.sh
source "$repo/lib/kernel/source.sh"	# kernel_bases, kernel_base
# shellcheck source=lib/nested/qemu.sh
source "$repo/lib/nested/qemu.sh"	# icount_cpus, icount_qemu
host_arch=$(uname -m | sed -e 's/aarch64/arm64/')
arch=$host_arch series='' repeat=5 out='' bin='' guest='' clock=host smp=''
kernel_base 6.1
run_opts=() dashdash=0 ksrc_arg='' sides_arg='' kernel_given=0

usage() { # [STATUS]: 0 for --help (stdout), 2 for bad usage (stderr)
	usage_exit "${1:-2}" '/^#   tools\/ab.sh/,/SCENARIO OPTIONS/s/^#//p'
}

while (($#)); do
	if [[ $1 == --runs ]]; then
		compare_opts+=(--runs)
		shift
		continue
	fi
	if [[ $1 == --full ]]; then
		kernel_full=1
		shift
		continue
	fi
	# The first word that is not an option is the scenario.
	[[ $1 == -* ]] || break
	case $1 in
	--series|--arch|--repeat|--cpu|--append|--mem|--smp|--out|--timeout|--mmubench|--guest|--kernel|--clock|--kernel-src|--sides)
		(($# >= 2)) || die "$1 needs a value" 2 ;;&
	--kernel) kernel_given=1
		kernel_base "$2" 2>/dev/null ||
		die "--kernel $2: the base kernel, one of: ${kernel_bases[*]} (Debian's linux-source-BASE)" 2 ;;
	--smp) [[ $2 =~ ^[1-9][0-9]?$ ]] || die "--smp $2: the nested kernel's CPUs for the scenario, 1..99" 2
		smp=$2 ;;&
	--clock) [[ $2 =~ ^(host|icount(:([0-9]|10))?)$ ]] ||
		die "--clock $2: accepted: host, icount, icount:SHIFT (SHIFT 0..10)" 2
		clock=$2 ;;&
	--series) series=$2 ;;
	--kernel-src) ksrc_arg=$2 ;;
	--sides) sides_arg=$2 ;;
	--arch) arch=$2 ;;
	--repeat) repeat=$2 ;;
	--cpu|--append|--mem|--smp|--timeout|--clock) run_opts+=("$1" "$2") ;;
	--out) out=$2 ;;
	--mmubench) bin=$2 ;;
	--guest) guest=$2 ;;
	--) shift; dashdash=1; break ;;
	-h|--help) usage 0 ;;
	*) echo "$prog: error: unknown option '$1'" >&2; usage ;;
	esac
	shift 2
done
ab_source_opts
if [[ -z $ksrc_arg ]]; then
	[[ $series =~ ^[A-Za-z0-9._-]+(,[A-Za-z0-9._-]+)*$ ]] ||
		die "--series $series: not a series name, nor names joined by commas" 2
	IFS=, read -ra series_list <<<"$series"
	((${#series_list[@]} <= 7)) ||
		die "--series $series: at most 7 series (8 kernels with the original)" 2
fi
[[ $repeat =~ ^[1-9][0-9]*$ ]] || die "--repeat $repeat: expected a number >= 1" 2
# Several L1 CPUs under icount need a QEMU that shares time between them.
if [[ $clock != host ]]; then
	n=$(icount_cpus "$arch" "$smp")
	((n == 1)) || icount_qemu "$arch" >/dev/null ||
		die "$(icount_qemu_refusal "$arch" "$n" "$smp")" 2
fi
(($#)) || die "no scenario after --: e.g. -- zap --zap same4 -v 2 -b 32m" 2
# Without "--", a --repeat among the scenario's options is ab's: boots.
if ((!dashdash)); then
	rest=()
	while (($#)); do
		if [[ $1 == --repeat ]]; then
			(($# >= 2)) || die "--repeat needs a value" 2
			repeat=$2
			shift 2
			continue
		fi
		rest+=("$1")
		shift
	done
	set -- "${rest[@]}"
	[[ $repeat =~ ^[1-9][0-9]*$ ]] || die "--repeat $repeat: expected a number >= 1" 2
fi
ab_check_scenario "$@"
scenario=("$@")
# Every name before any kernel builds or boots.
if [[ $ksrc_arg ]]; then
	ab_check_kernel_src "$ksrc_arg" "$sides_arg"
	series_list=("${side_names[@]:1}")
	series=$(IFS=,; echo "${side_names[*]}")
else
	declare -A seen=()
	for s in "${series_list[@]}"; do
	[[ -z ${seen[$s]+x} ]] || die "--series $series: $s is named twice" 2
	seen[$s]=1
	ab_check_series "$s"
	done
fi
ab_sides
: "${out:=./ab-${series//,/+}-$(date +%Y%m%d-%H%M%S)}"
ab_out "$out"
full_opt=()
((!kernel_full)) || full_opt=(--full)
if [[ $ksrc ]]; then
	printf '%q ' "$0" --kernel-src "$ksrc" --sides "$sides_arg" --arch "$arch" --repeat "$repeat" \
		"${full_opt[@]}" "${run_opts[@]}" -- "$@" >"$out/command.txt"
	ab_sides_txt >"$out/sides.txt"
else
	printf '%q ' "$0" --kernel "$base" --series "$series" --arch "$arch" --repeat "$repeat" \
		"${full_opt[@]}" "${run_opts[@]}" -- "$@" >"$out/command.txt"
fi
echo >>"$out/command.txt"

# The kernels under test are the point: never the machine's own /dev/kvm.
export MMUBENCH_KVM=nested
t_all=$EPOCHREALTIME

ab_harness

if [[ $ksrc ]]; then
	for s in "${side_names[@]}"; do ab_kernel "$s"; done
else
	ab_kernel original
	for s in "${series_list[@]}"; do
		[[ $s == original ]] || ab_kernel "$s"
	done
fi

# On a terminal (stdout and stderr both), the line mmubench's runs show
# (host/util/progress.h): which run boots, how many are done, the time
# left at their mean; erased before anything else is printed, and only
# once the experiment has lasted MMUBENCH_PROGRESS_AFTER_MS (2000).
progress_on=0
[[ -t 1 && -t 2 ]] && progress_on=1
progress_after=${MMUBENCH_PROGRESS_AFTER_MS:-2000}
progress_time() { # SECONDS
	local s
	s=$(printf '%.0f' "$1")
	if ((s < 60)); then printf '%d s' "$s"
	elif ((s < 3600)); then printf '%d min %02d s' $((s / 60)) $((s % 60))
	else printf '%d h %02d min' $((s / 3600)) $((s / 60 % 60)); fi
}
progress() { # SIDE INDEX NAME: the run about to boot
	local total=$((nsides * repeat)) done=$((nsides * ($2 - 1))) line left cols
	local k spent=0
	((progress_on)) || return 0
	(($(echo "($EPOCHREALTIME - $t_all) * 1000 >= $progress_after" | bc))) || return 0
	# The sides booted before this one in this repeat.
	for k in "${sides[@]}"; do
		[[ $k != "$1" ]] || break
		done=$((done + 1))
	done
	line="ab: $1 kernel run $2/$repeat ($3) ($done/$total done"
	if ((done)); then
		for k in "${sides[@]}"; do
			spent=$(echo "$spent + ${took[runs $k]:-0}" | bc -l)
		done
		left=$(echo "$spent / $done * ($total - $done)" | bc -l)
		line+=", $(progress_time "$left") left"
	fi
	cols=$(tput cols 2>/dev/null) || cols=80
	((cols >= 20)) || cols=80
	# Shorter than the terminal: a wrapped line cannot be rewritten.
	line="$line)"
	printf '\r%s\033[K' "${line:0:cols-1}" >&2
}
progress_erase() {
	((progress_on)) || return 0
	printf '\r\033[K' >&2
}

# One boot per run; A is always the original kernel.  A run that failed
# for the nested setup's own reason (lib/retry.sh) is redone once, and
# said so; any other failure ends the experiment.
redone=()
one_run() { # SIDE INDEX
	local side=$1 i=$2 name log rc why try t0=$EPOCHREALTIME
	name=$(side_name "$side")
	log=$out/runs/$side-$i.log
	for try in 1 2; do
		rc=0
		progress "$side" "$i" "$name"
		clock "runs $side" "$repo/tools/kvm-exec.sh" --arch "$arch" \
			--kernel "${kernel_image[$name]}" --kernel-id "${kernel_id[$name]}" \
			"${run_opts[@]}" "$bin" "$guest" \
			"${scenario[@]}" --json "$out/runs/$side-$i.json" >"$log" 2>&1 || rc=$?
		progress_erase
		((rc)) || [[ ! -s $out/runs/$side-$i.json ]] || break
		tail -n 15 "$log" >&2
		if ((try == 1)) && why=$(nested_infra_failure "$log"); then
			mv "$log" "$log.failed"
			redone+=("$side-$i: nested-infra: $why")
			echo "$prog: run $side $i/$repeat ($name): redone once: nested-infra: $why" >&2
			continue
		fi
		die "run $side $i/$repeat ($name) failed (exit $rc); see $log"
	done
	printf '%s: run %s %d/%d (%s): %.1f s\n' "$prog" "$side" "$i" "$repeat" \
		"$name" "$(echo "$EPOCHREALTIME - $t0" | bc)" >&2
}
for ((i = 1; i <= repeat; i++)); do
	for s in "${sides[@]}"; do
		one_run "$s" "$i"
	done
done

ab_merge_compare

{
	ab_time_table
	echo "every run's JSON and output: $out/runs/"
	echo "runs redone for the nested setup's own failures: ${#redone[@]}"
	[[ ${#redone[@]} == 0 ]] || printf '  %s\n' "${redone[@]}"
} | tee "$out/time.txt"
