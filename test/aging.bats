#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Scenario "aging": access tracking through the page_idle bitmap, in the
# nested arm64 kernels, built whole with CONFIG_IDLE_PAGE_TRACKING.
# x86_64's nested kernels are Debian's images, which have no bitmap
# (nor has this host's kvm_pvm kernel, maybe): there the scenario says so.
# The pages found young are checked against the pages the vCPUs touched,
# and the kernel's settings are left as found.
load helpers

# The settings a run could leave changed, one a line: tracing's probes
# and instances, the mm sysctls, THP and the page_idle bitmap's mode.
STATE_SH='
state() {
	t=/sys/kernel/tracing
	echo "kprobe_events: $(cat $t/kprobe_events | tr "\n" " ")"
	echo "instances: $(ls -A $t/instances | tr "\n" " ")"
	echo "tracing_on: $(cat $t/tracing_on)"
	for f in /proc/sys/vm/* /sys/kernel/mm/transparent_hugepage/enabled; do
		[ -r "$f" ] && echo "$f: $(head -c 200 "$f" 2>/dev/null | tr "\n" " ")"
	done
	ls -l /sys/kernel/mm/page_idle/bitmap | cut -d" " -f1
}
'

# The runs of every nested test, in one boot a kernel (batch_add): on
# arm64 the check passes on a half and a sparse selection, written and
# read; the document carries every figure.  Then the check firing, and
# the kernel's settings around a run that passed, one that failed and
# one ended by SIGTERM in the middle of its rounds.
setup_file() {
	batch_add a64 --arch arm64 --base 6.1 -- "$STATE_SH"'
one half aging -v 2 -b 16m --fraction 0.5
one ranges aging -v 2 -b 16m --ranges 1m+1m,20m+512k -w 0 -a -i 1
state >before
one ok aging -v 2 -b 8m --fraction 0.5 -i 1
state >after-ok
one drop aging -v 2 -b 8m --fraction 0.5 -i 1 --debug-drop-young || :
state >after-drop
one touch aging -v 2 -b 8m --fraction 0.5 -i 1 --debug-host-touch
one move aging -v 2 -b 8m --fraction 0.5 -i 1 --debug-move-page
mmubench aging -v 2 -b 64m -i 2 >term.out 2>&1 &
pid=$!
while ! grep -q "^kprobe_events: ." <<EOT
$(state)
EOT
do kill -0 $pid 2>/dev/null || break; done
kill -TERM $(pidof mmubench); wait $pid; echo "TERM rc=$?"
state >after-term
for s in ok drop term; do
	if cmp -s before after-$s; then echo "SAME $s"; else echo "DIFF $s"; diff before after-$s; fi
done
grep -c "^kprobe_events: p:" before after-* | sed "s/^/PROBES /"'
	batch_add x86 --nested --arch x86_64 --base 6.1 -- '
one nobitmap aging -v 2 -b 16m'
	batch_boots
}

@test "arm64: the pages found young are the pages touched, none else" {
	require_series original arm64 6.1
	batch a64
	assert_success
	assert_line "RESULT half rc=0"
	assert_line "RESULT ranges rc=0"
	# 2 vCPUs x 16 MiB: 8192 pages, half of each vCPU's share touched.
	result_json half | assert_json - '.results.runs[0].aging as $a |
		$a.pages == 8192 and $a.touched > 0 and
		$a.touched <= 4096 and $a.touched + $a.rounds[-1].untracked >= 4096 and
		$a.touched >= 3686 and
		$a.found_young == $a.touched and $a.false_young == 0 and
		$a.mark_idle_ms > 0 and $a.read_ms > 0 and
		($a.rounds | length) == 2 and
		($a.rounds[0].mark.kernel.clear_young.calls > 0) and
		([.results.runs[0].phases[].name] ==
		 ["fill", "control", "mark1", "aged1", "read1", "mark2", "aged2", "read2"]) and
		(.results.runs[0].phases[3].vcpus[0].latency_ns.p99 > 0)'
	# 1 MiB + 512 KiB touched: 384 pages, less the untracked ones.  At
	# most a tenth untracked above (a fifth here): pages in per-CPU
	# batches, off the LRU lists, 15 a CPU, and the 32 of a cut word;
	# a check of a few pages only would pass on nearly nothing.
	result_json ranges | assert_json - '.results.runs[0].aging as $a |
		$a.touched > 0 and $a.touched + $a.rounds[0].untracked >= 384 and
		$a.touched <= 384 and $a.touched >= 307 and
		$a.found_young == $a.touched and $a.false_young == 0'
}

# Debian's x86_64 image: no bitmap, one line, exit 2, before any VM.
@test "x86_64 (Debian's image, no CONFIG_IDLE_PAGE_TRACKING): aging says what is missing, exit 2" {
	require_nested
	batch x86
	assert_line "RESULT nobitmap rc=2"
	assert_line "mmubench: aging: /sys/kernel/mm/page_idle/bitmap: No such file or directory (the kernel has no CONFIG_IDLE_PAGE_TRACKING)"
}

# Marking pages idle is the run's only change: probes, instance, sysctls
# and THP are as before, after a run that passed, one that failed its
# check and one ended by SIGTERM in the middle of its rounds.  The failed
# one is the check firing: the host forgets one touched page it found
# young (--debug-drop-young), and the run names it and fails.
@test "aging --debug-drop-young fails naming the page; aging leaves the kernel's settings as it found them, on every way out" {
	local page
	require_series original arm64 6.1
	batch a64
	assert_success
	assert_line "RESULT ok rc=0"
	assert_line "RESULT drop rc=1"
	page=$(sed -n 's/^mmubench: --debug-drop-young: test page \([0-9]*\) (slot 1 gfn 0x[0-9a-f]*), found young, left out of the count on purpose$/\1/p' <<<"$output")
	[[ $page =~ ^[0-9]+$ ]] || fail "no dropped page named: $output"
	assert_line --regexp "^mmubench: aging: round 1: 1 touched pages not found young, the first test page $page \(slot 1 gfn 0x[0-9a-f]+\)$"
	! result_lines drop | grep -q "untouched pages found young" ||
		fail "the drop run found an untouched page young: $(result_lines drop)"
	assert_line "TERM rc=143"
	assert_line "SAME ok"
	assert_line "SAME drop"
	assert_line "SAME term"
	assert_line "PROBES before:0"
}

# Without the bitmap (this host's kvm_pvm kernel has none) the scenario
# says so in one line and exits 2, before any VM.
@test "aging without a page_idle bitmap: one line naming it, exit 2" {
	[[ ! -e /sys/kernel/mm/page_idle/bitmap ]] ||
		skip "this kernel has the page_idle bitmap"
	run "$MMUBENCH" aging -v 2 -b 16m
	assert_equal "$status" 2
	assert_output "mmubench: aging: /sys/kernel/mm/page_idle/bitmap: No such file or directory (the kernel has no CONFIG_IDLE_PAGE_TRACKING)"
}

@test "aging: bad input names the option and what it accepts" {
	local args want
	while IFS='|' read -r args want; do
		# shellcheck disable=SC2086
		run "$MMUBENCH" aging $args
		assert_equal "$status" 2
		assert_equal "${#lines[@]}" 1
		assert_output "mmubench: $want"
	done <<'EOF'
-s anonymous_thp|-s anonymous_thp: aging reads the page_idle bits of 4K pages on the LRU lists (accepted: anonymous, shmem, memfd)
-s anonymous_hugetlb_2mb|-s anonymous_hugetlb_2mb: aging reads the page_idle bits of 4K pages on the LRU lists (accepted: anonymous, shmem, memfd)
--touch 2m --guest-page 2m|--touch: aging counts 4K pages; it needs --touch 4k
--debug-action fault|--exec, --debug-action: aging needs the vCPUs to touch memory
-s shmem --debug-move-page|--debug-move-page: needs -s anonymous, whose freed frame MADV_DONTNEED gives back (a file keeps its page)
-i 0|-i 0: aging rounds, 1 or 2
-i 3|-i 3: aging rounds, 1 or 2
EOF
}

# The other two checks made to fire: a page no vCPU touches, read by the
# host after the marking, is found young (false young), and a touched
# page given a new frame in the round is named as moved.
@test "aging --debug-host-touch and --debug-move-page: a false young page and a moved one, each named" {
	local page
	require_series original arm64 6.1
	batch a64
	assert_success
	assert_line "RESULT touch rc=1"
	page=$(sed -n 's/^mmubench: --debug-host-touch: test page \([0-9]*\) (slot 1 gfn 0x[0-9a-f]*), which no vCPU touches, read by the host after the marking, on purpose$/\1/p' <<<"$output")
	[[ $page =~ ^[0-9]+$ ]] || fail "no page read by the host named: $output"
	assert_line --regexp "^mmubench: aging: round 1: 1 untouched pages found young, the first test page $page \(slot 1 gfn 0x[0-9a-f]+\)$"
	assert_line "RESULT move rc=1"
	page=$(sed -n 's/^mmubench: --debug-move-page: test page \([0-9]*\) (slot 1 gfn 0x[0-9a-f]*) given a new frame after the marking, its content kept, on purpose$/\1/p' <<<"$output")
	[[ $page =~ ^[0-9]+$ ]] || fail "no moved page named: $output"
	assert_line --regexp "^mmubench: aging: round 1: 1 test pages changed frame, the first test page $page \(slot 1 gfn 0x[0-9a-f]+\), from pfn 0x[0-9a-f]+ to 0x[0-9a-f]+: moved by the kernel"
}
