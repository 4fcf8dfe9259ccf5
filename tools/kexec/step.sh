#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# One step of tools/kexec-ab.sh, inside the kernel under test (busybox sh):
# the command of its initramfs (lib/nested/mkinitramfs.sh's /init runs it).
#
#   step.sh          run the scenario of /root/job/scenario.sh, store the
#                    result and the kernel's identity in the slot that
#                    the kernel command line names (tools/kexec/slots.sh)
#   step.sh --back   /init's last act (its /then): unless the slot holds
#                    a result, store why not; then kexec the machine's
#                    own kernel (/root/job/back/), or reboot
#
# The command line: mmubench.results=DEV (/dev/NAME or PARTLABEL=LABEL)
# mmubench.job=ID mmubench.step=N mmubench.side=A|B mmubench.kernel=SERIES.
# Never powers off: on a bare-metal machine that would end the job.

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tools/kexec/slots.sh
. "$here/slots.sh"
job_dir=/root/job

arg() { # NAME: mmubench.NAME=VALUE of the kernel command line
	tr ' ' '\n' </proc/cmdline | sed -n "s/^mmubench\.$1=//p" | tail -n1
}

say() { echo "step.sh: $*" >&2; }

step=$(arg step) job=$(arg job) spec=$(arg results)

# The device: a disk's driver may probe after /init has started.
device() {
	i=0
	while ! dev=$(kx_resolve "$spec"); do
		i=$((i + 1))
		if [ "$i" -gt "$1" ]; then
			say "results device $spec: absent after $1 s"
			return 1
		fi
		sleep 1
	done
	kx_is_ours "$dev" && [ "$(kx_field "$dev" job)" = "$job" ] && return 0
	say "results device $dev: not the one of job $job"
	return 1
}

uptime_s() { cut -d' ' -f1 /proc/uptime; }

# What the kernel itself says it is, and what the orchestrator meant.
identity() { # UPTIME_AT_START RC
	echo "release $(uname -r)"
	# KVM as a module names its series (lib/kernel/modules.sh).
	[ ! -f /sys/module/kvm/version ] || echo "kvm_module $(cat /sys/module/kvm/version)"
	echo "version $(cat /proc/version)"
	echo "side $(arg side)"
	echo "kernel $(arg kernel)"
	echo "step $step"
	echo "rc $2"
	echo "uptime_start $1"
	echo "uptime_end $(uptime_s)"
	echo "cmdline $(cat /proc/cmdline)"
}

# The step's files as a tar in the slot.  Output beyond 64 KiB is cut
# (its end kept): the JSON is what must fit; if it does not, the slot
# says so.
store() { # DIR STATE [WORDS]
	d=$1 state=$2 words=${3:-}
	for f in stdout stderr; do
		[ -f "$d/$f" ] || : >"$d/$f"
		if [ "$(stat -L -c %s "$d/$f")" -gt 65536 ]; then
			tail -c 65536 "$d/$f" >"$d/$f.cut" && mv "$d/$f.cut" "$d/$f"
		fi
	done
	if [ -f "$d/result.json" ]; then
		tar -C "$d" -cf /tmp/slot.tar identity stdout stderr result.json &&
			kx_store "$dev" "$step" "$job" "$state" /tmp/slot.tar "$words" &&
			return 0
		state=failed words="$words why=the_result_is_larger_than_a_slot"
	fi
	tar -C "$d" -cf /tmp/slot.tar identity stdout stderr &&
		kx_store "$dev" "$step" "$job" "$state" /tmp/slot.tar "$words"
}

# The scenario: /root/job/scenario, its words single-quoted (tools/kexec-ab.sh).
# shellcheck disable=SC2120
run_step() {
	t0=$(uptime_s)
	if [ -z "$step" ] || [ -z "$job" ] || [ -z "$spec" ]; then
		say "no mmubench.step, .job and .results on the kernel command line"
		return 2
	fi
	device 30 || return 1
	w=/tmp/step
	mkdir -p "$w"
	say "step $step: $(arg side) ($(arg kernel)) on $(uname -r)"
	eval "set -- $(cat "$job_dir/scenario")"
	/root/mmubench "$@" --guest /root/guest.elf --json "$w/result.json" \
		>"$w/stdout" 2>"$w/stderr"
	rc=$?
	identity "$t0" "$rc" >"$w/identity"
	if [ "$rc" = 0 ] && [ -s "$w/result.json" ]; then
		store "$w" "done" "rc=0"
	else
		store "$w" failed "rc=$rc why=mmubench_exited_$rc"
	fi
	st=$?
	say "step $step: mmubench exit $rc, stored (status $st)"
	return $st
}

# The slot holds nothing of this step: say why, in the slot itself.
store_why() {
	if [ ! -c /dev/kvm ]; then
		why="no_/dev/kvm_in_$(uname -r)"
	else
		why="the_step_ended_without_storing_a_result"
	fi
	w=/tmp/why
	mkdir -p "$w"
	identity "$(uptime_s)" none >"$w/identity"
	dmesg | tail -n 40 >"$w/stderr"
	store "$w" failed "why=$why"
}

back() {
	b=$job_dir/back
	if [ -f "$b/kernel" ] && [ -f "$b/cmdline" ]; then
		# Its initrd; this initramfs again (back/repack: the nested
		# test, one initramfs for all); or none, as it booted.
		set --
		if [ -f "$b/initrd" ]; then
			set -- --initrd="$b/initrd"
		elif [ -f "$b/repack" ]; then
			kx_repack >/tmp/back-initrd.cpio
			set -- --initrd=/tmp/back-initrd.cpio
		fi
		say "back to the machine's own kernel by kexec"
		if kexec -l "$b/kernel" "$@" --append="$(cat "$b/cmdline")"; then
			sync
			kexec -e
		fi
		say "kexec back failed: rebooting"
	fi
	sync
	reboot -f
}

case ${1:-} in
--back)
	# The machine's own kernel (the nested test's L1) runs this /init
	# too: it has no step and powers off as usual.
	[ -n "$step" ] || exit 0
	if device 5; then
		case $(kx_slot_state "$dev" "$step" "$job") in
		done|failed) ;;
		*) store_why ;;
		esac
	fi
	back ;;
'')
	# shellcheck disable=SC2119
	run_step ;;
*)
	say "usage: step.sh [--back]"
	exit 2 ;;
esac
