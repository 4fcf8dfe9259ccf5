#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The x86_64 L1's hold (lib/nested/kvm-hold.c): while it lives, a run
# rewrites no kernel text, so QEMU's stale-code bug under multi-threaded
# TCG (docs/findings/nested-qemu-failures.md) has nothing to catch.
load helpers

# The L1's count of kernel text writes: a kprobe on __text_poke (every
# rewrite's writes) and one on text_poke_bp_batch (one a rewrite), in an
# instance of its own that records no task names.  "POKES TAG N M" after
# each step; the counters are shown to count by turning on a tracepoint
# no CPU runs (kvm_hypercall: no VM is running then).
POKES_SH='
T=/sys/kernel/tracing
echo "HOLD kprobes=$(grep -c . /sys/kernel/debug/kprobes/list) sched_switch=$(cat $T/instances/kvm-hold/events/sched/sched_switch/enable) vm=$(pidof kvm-hold | wc -w)"
echo "p:kh/tp __text_poke" >>$T/kprobe_events
echo "p:kh/tpb text_poke_bp_batch" >>$T/kprobe_events
mkdir $T/instances/kh
echo 0 >$T/instances/kh/options/record-cmd
echo 1 >$T/instances/kh/events/kh/enable
hits() { awk '"'"'$1 ~ /tp$/ { a = $2 } $1 ~ /tpb$/ { b = $2 } END { print a + 0, b + 0 }'"'"' $T/kprobe_profile; }
pokes() { # TAG BEFORE_TP BEFORE_TPB
	set -- "$1" "$2" "$3" $(hits)
	echo "POKES $1 $(($4 - $2)) $(($5 - $3))"
}
h=$(hits); one zap zap -v 2 -b 8m --zap same4 --zap-count 10; pokes zap $h
h=$(hits); echo 1 >$T/instances/kh/events/kvm/kvm_hypercall/enable; pokes control $h
echo 0 >$T/instances/kh/events/kvm/kvm_hypercall/enable
echo 0 >$T/instances/kh/events/kh/enable
rmdir $T/instances/kh
echo "-:kh/tp" >>$T/kprobe_events
echo "-:kh/tpb" >>$T/kprobe_events'

@test "the hold's kprobes cover every function a probe table of host/ names" {
	[[ $ARCH == x86_64 ]] || skip "the hold is the x86_64 L1's"
	local d=$BATS_TEST_TMPDIR want
	run "$ROOT/lib/nested/mkinitramfs.sh" --arch x86_64 --out "$d/i.cpio.gz" -- true
	assert_success
	(cd "$d" && zcat i.cpio.gz | cpio -id --quiet etc/kvm-hold.probes)
	# Every "p:mmub/NAME FUNCTION" or "r:..." string of host/, however
	# written; a probe the hold lacks fails here.
	want=$(grep -rhoE '"[pr]:mmub/[a-z0-9_]+ [a-z0-9_.]+' "$ROOT/host" --include='*.c' |
		awk '{ print $2 }' | sort -u)
	[[ $want ]] || fail "no probe found in host/"
	assert_equal "$(cat "$d/etc/kvm-hold.probes")" "$want"
	run grep -c . "$d/etc/kvm-hold.probes"
	(( output >= 8 )) || fail "only $output functions held"
}

@test "with the hold, a zap run with its kprobes rewrites no kernel text; the count counts" {
	require_nested
	[[ $ARCH == x86_64 ]] || skip "the hold is the x86_64 L1's"
	mmub --nested --sh "$ONE_SH$POKES_SH"
	assert_success
	assert_line --regexp '^HOLD kprobes=[0-9]+ sched_switch=1 vm=1$'
	[[ $(grep -oE 'kprobes=[0-9]+' <<<"$output") =~ =([0-9]+) ]] &&
		((BASH_REMATCH[1] >= 8)) || fail "fewer than 8 kprobes held: $output"
	assert_line "RESULT zap rc=0"
	# The run had its probes: the kernel's zap time.
	result_json zap | assert_json - '.results.runs[0].zap.kernel_zap_total_ms > 0'
	assert_line "POKES zap 0 0"
	[[ $(grep '^POKES control ' <<<"$output") =~ ^POKES\ control\ ([0-9]+)\ ([0-9]+)$ ]] &&
		((BASH_REMATCH[1] > 0 && BASH_REMATCH[2] > 0)) ||
		fail "the counters did not count a tracepoint turned on: $output"
}

# Every rewrite of kernel text from the boot to the end of a loaded run
# (dirty logging on 2M pages, whose load made 6.12's clocksource watchdog
# mark the TSC unstable in every boot and turn sched_clock's key), by the
# time the trace gives it (a kprobe on text_poke_bp_batch set on the
# command line, so that it records from before the modules and the
# hold), beside the time the second CPU came up (the kernel's log, the
# same clock: at boot, or when /init brings it up).
BOOT_POKES_SH="$ONE_SH"'
one load dirty-log -e -v 2 -b 128m -s anonymous_hugetlb_2mb --reserve-hugepages
echo "UNSTABLE $(dmesg | grep -c -e "as unstable" -e "sched_clock: Marking unstable")"
up=$(dmesg | awk -F"[][]" "/smpboot: Booting Node 0 Processor 1 |x86: Booting SMP configuration/ { print \$2 + 0; exit }")
echo "UP ${up:-none} online=$(cat /sys/devices/system/cpu/online)"
grep -v "^#" /sys/kernel/tracing/trace | awk "\$5 == \"tpb:\" { sub(\":\", \"\", \$4); print \"POKE\", \$4 }"'

@test "the x86_64 L1 (6.12) rewrites kernel text only while CPU 0 alone is up, from boot to the end of a loaded run" {
	require_nested
	[[ $ARCH == x86_64 ]] || skip "the hold is the x86_64 L1's"
	require_series original x86_64 6.12
	mmub --nested --base 6.12 --append "kprobe_event=p:kh/tpb,text_poke_bp_batch" --sh "$BOOT_POKES_SH"
	assert_success
	assert_line --regexp '^UP [0-9.]+ online=0-2$'
	assert_line "RESULT load rc=0"
	assert_line "UNSTABLE 0"
	local up pokes late
	up=$(awk '$1 == "UP" { print $2 }' <<<"$output")
	pokes=$(grep -c '^POKE ' <<<"$output" || true)
	# The modules and the hold do rewrite: a count of none is no proof.
	((pokes >= 10)) || fail "only $pokes rewrites recorded: the probe did not count"
	late=$(awk -v up="$up" '$1 == "POKE" && $2 >= up' <<<"$output")
	[[ -z $late ]] || fail "rewritten after CPU 1 came up at $up s: $late"
}
