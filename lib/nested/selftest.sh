#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check the nested runner end to end: the L1 kernel boots, /dev/kvm works,
# stdout, stderr, exit status and quoting come back exactly, a dynamically
# linked ASan binary runs, and hugetlb/THP are settable.
#
#   lib/nested/selftest.sh [--arch x86_64|arm64] [run.sh options...]
#
# Prints one line per check and "N passed, N failed" last.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
arch=x86_64
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
	sed -n '/^#   lib\/nested\/selftest.sh/s/^#   /usage: /p' "${BASH_SOURCE[0]}"
	exit 0
fi
[[ ${1:-} == --arch ]] && { arch=$2; shift 2; }
run=("$here/run.sh" --arch "$arch" "$@")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mmubench-selftest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

check() {
	local name=$1
	shift
	if "$@"; then
		echo "ok   $name"; pass=$((pass + 1))
	else
		echo "FAIL $name"; fail=$((fail + 1))
	fi
}

# Run CMD in L1; leave its stdout, stderr and status in $tmp.
l1() {
	local t0=$EPOCHREALTIME
	"${run[@]}" "$@" >"$tmp/out" 2>"$tmp/err"
	echo $? >"$tmp/rc"
	echo "     ($(echo "$EPOCHREALTIME - $t0" | bc) s)"
}
is() { [[ $(<"$tmp/$1") == "$2" ]] || { echo "     $1: got '$(<"$tmp/$1")', want '$2'" >&2; false; }; }

l1 -- sh -c 'echo out; echo err >&2; exit 3'
check "stdout, stderr and exit status 3 come back" \
	eval 'is out out && is err err && is rc 3'

l1 -- printf '<%s>\n' 'a b' "it's" '$HOME' '*' ''
check "arguments are quoted exactly" \
	is out "$(printf '<%s>\n' 'a b' "it's" '$HOME' '*' '')"

l1 -- sh -c 'head -c 3000 /dev/urandom | tee /tmp/r | md5sum >&2; cat /tmp/r'
check "binary stdout survives the console" \
	eval '[[ $(md5sum <"$tmp/out") == "$(<"$tmp/err")" ]]'

l1 -- test -c /dev/kvm
check "/dev/kvm exists" is rc 0

if [[ $arch == x86_64 ]]; then
	l1 -- cat /sys/module/kvm_amd/parameters/npt /sys/module/kvm/parameters/tdp_mmu
	check "kvm_amd with NPT and the TDP MMU" is out "$(printf 'Y\nY')"

	l1 --append kvm.nx_huge_pages=force -- cat /sys/module/kvm/parameters/nx_huge_pages
	check "--append reaches the L1 command line" is out Y
fi

# perf probes and the kvm/kvmmmu tracepoints need kprobes and tracefs.
fn=kvm_mmu_page_fault events=kvmmmu
[[ $arch == arm64 ]] && fn=kvm_handle_guest_abort events=kvm
l1 -- sh -c "cd /sys/kernel/tracing && test -d events/$events &&
	echo 'p:mmubench/probe $fn' >kprobe_events && echo 1 >events/mmubench/probe/enable"
check "a kprobe on $fn and the $events tracepoints" is rc 0

cc=gcc
[[ $arch == arm64 ]] && cc=aarch64-linux-gnu-gcc
cat >"$tmp/kvmver.c" <<'EOF'
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <linux/kvm.h>

int main(void)
{
	int fd = open("/dev/kvm", O_RDWR);

	if (fd < 0) {
		perror("/dev/kvm");
		return 1;
	}
	printf("%d\n", ioctl(fd, KVM_GET_API_VERSION, 0));
	return 0;
}
EOF
if "$cc" -O1 -fsanitize=address,undefined -o "$tmp/kvmver" "$tmp/kvmver.c" 2>"$tmp/ccerr"; then
	l1 --file "$tmp/kvmver:/usr/local/bin/kvmver" -- kvmver
	check "ASan binary: KVM_GET_API_VERSION is 12" eval 'is out 12 && is rc 0'
else
	echo "skip ASan binary: $cc -fsanitize=address failed: $(head -n1 "$tmp/ccerr")"
fi

l1 -- sh -c 'echo 64 >/proc/sys/vm/nr_hugepages && cat /proc/sys/vm/nr_hugepages &&
	echo always >/sys/kernel/mm/transparent_hugepage/enabled &&
	cat /sys/kernel/mm/transparent_hugepage/enabled &&
	mount | grep -c " type \(hugetlbfs\|tracefs\|debugfs\) "'
check "hugetlb pool, THP switch, hugetlbfs/tracefs/debugfs mounts" \
	is out "$(printf '64\n[always] madvise never\n3')"

l1 --timeout 1 -- sleep 100
check "timeout gives 124" is rc 124

echo "$pass passed, $fail failed"
((fail == 0))
