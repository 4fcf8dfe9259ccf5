#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run mmubench where /dev/kvm works: here if this machine has a usable
# /dev/kvm of the right architecture, otherwise inside the nested kernel
# under QEMU (lib/nested/run.sh).  A --json FILE among the arguments is
# written on this side, atomically, in both cases.
#
#   tools/kvm-exec.sh [--arch A] [--smp N] [--mem SIZE] [--cpu MODEL]
#                  [--append KARGS] [--timeout SEC] [--base B]
#                  [--series NAME | --kernel IMAGE [--kernel-id FILE]]
#                  [--clock C]
#                  [--sh SCRIPT [--file FILE]...] MMUBENCH GUEST [SCENARIO OPTIONS...]
#
# With --sh, SCRIPT (POSIX sh) runs instead, with a shell function
# "mmubench" that calls the binary with the guest image: several runs
# share one boot of the nested kernel.  Each --file is copied into the
# script's working directory under its own name, to run as ./NAME there:
# another program beside mmubench, such as a kernel selftest.
#
# MMUBENCH_KVM=direct|nested|auto (default auto) forces a way.
set -euo pipefail

prog=tools/kvm-exec.sh
die_status=2
# shellcheck source=lib/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/preamble.sh"
arch=$(uname -m | sed -e 's/aarch64/arm64/')
host_arch=$arch
nested=()
script=
extra=()

usage() { # STATUS: 0 for --help, on stdout
	usage_exit "$1" '/^#   tools\/kvm-exec.sh/,/SCENARIO OPTIONS/s/^#   /  /p'
}

while (($#)); do
	case $1 in
	-h|--help) usage 0 ;;
	--arch) arch=${2:?--arch needs a value}; shift 2 ;;
	--smp|--mem|--cpu|--append|--timeout|--base|--series|--kernel|--kernel-id|--clock)
		nested+=("$1" "${2:?$1 needs a value}"); shift 2 ;;
	--sh) script=${2:?--sh needs a script}; shift 2 ;;
	--file) extra+=("${2:?--file needs a value}"); shift 2 ;;
	*) break ;;
	esac
done
(($# >= 2)) || usage 2
bin=$1 guest=$2
shift 2
[[ -x $bin ]] || die "$bin: no mmubench binary (run make)"
[[ -r $guest ]] || die "$guest: no guest image (run make)"

# elf_arch FILE: x86_64 or arm64 by its ELF header's machine, else what
# it is.
elf_arch() {
	[[ $(head -c 4 "$1" | od -An -c | tr -d ' ') == '177ELF' ]] || { echo "not an ELF file"; return; }
	case $(od -An -tu2 -j 18 -N 2 "$1" | tr -d ' ') in
	62) echo x86_64 ;;
	183) echo arm64 ;;
	*) echo "an ELF file of another machine" ;;
	esac
}
# A binary or image of the other arch would fail deep in the initramfs
# (its loader missing) or in the guest: name it and the one to use.
for f in "$bin:harness:make ARCH=$arch host:mmubench" "$guest:guest image:make ARCH=$arch guest:guest.elf"; do
	IFS=: read -r path what how name <<<"$f"
	got=$(elf_arch "$path")
	[[ $got == "$arch" ]] && continue
	[[ $got == x86_64 || $got == arm64 ]] && got="an $got $what"
	# The Makefile's places: this machine's arch's harness in build/.
	want=build/$arch/$name
	[[ $arch != "$host_arch" || $name != mmubench ]] || want=build/mmubench
	die "$path: $got, and --arch $arch needs $arch's ($how: $want)" 2
done
files=()
for f in "${extra[@]}"; do
	[[ $script ]] || die "--file $f: only with --sh, whose script runs it"
	[[ -f $f ]] || die "--file $f: no such file"
	files+=(--file "$f:/root/${f##*/}")
done

# Pull --json FILE out: inside QEMU the file would be lost.
args=() json=
while (($#)); do
	if [[ $1 == --json ]]; then
		json=${2:?--json needs a value}
		shift 2
		continue
	fi
	args+=("$1")
	shift
done

mode=${MMUBENCH_KVM:-auto}
if [[ $mode == auto ]]; then
	mode=nested
	if [[ $arch == "$host_arch" && -r /dev/kvm && -w /dev/kvm ]]; then
		mode=direct
	fi
fi
# The nested kernel's options mean nothing to this machine's /dev/kvm,
# but a clock other than its own would be a silently different figure.
if [[ $mode == direct && " ${nested[*]} " =~ \ --clock\ (icount[^ ]*)\  ]]; then
	die "--clock ${BASH_REMATCH[1]}: the nested kernel's clock, and this run is on this machine's /dev/kvm (MMUBENCH_KVM=nested runs it nested)"
fi

# Nor is a base, series or image this machine's kernel: say so rather than run
# on whatever kernel this machine has.
if [[ $mode == direct && " ${nested[*]} " =~ \ --(base|series|kernel|kernel-id)\ ([^ ]*)\  ]]; then
	die "--${BASH_REMATCH[1]} ${BASH_REMATCH[2]}: names a nested kernel, and this run is on this machine's /dev/kvm (MMUBENCH_KVM=nested runs it nested)"
fi

if [[ $script ]]; then
	[[ -z $json ]] || die "--json does not mix with --sh"
	if [[ $mode == direct ]]; then
		# A private working directory, as /root is in the nested
		# kernel: scripts write their files there, never to fixed
		# paths that two checkouts testing at once would share.
		bin=$(realpath "$bin") guest=$(realpath "$guest")
		work=$(mktemp -d "${TMPDIR:-/tmp}/mmub-sh.XXXXXX")
		trap 'rm -rf "$work"' EXIT
		((${#extra[@]} == 0)) || cp -- "${extra[@]}" "$work/"
		export MMUB_BIN=$bin MMUB_GUEST=$guest
		rc=0
		(cd "$work" && sh -c 'mmubench() { "$MMUB_BIN" "$@" --guest "$MMUB_GUEST"; }
'"$script") || rc=$?
		exit "$rc"
	fi
	[[ $mode == nested ]] || die "MMUBENCH_KVM=$mode: accepted: direct, nested, auto"
	exec "$repo/lib/nested/run.sh" --arch "$arch" "${nested[@]}" \
		--file "$bin:/root/mmubench" --file "$guest:/root/guest.elf" \
		"${files[@]}" -- sh -c 'mmubench() { /root/mmubench "$@" --guest /root/guest.elf; }
'"$script"
fi

if [[ $mode == direct ]]; then
	exec "$bin" "${args[@]}" --guest "$guest" ${json:+--json "$json"}
fi
[[ $mode == nested ]] || die "MMUBENCH_KVM=$mode: accepted: direct, nested, auto"

# Inside: run, then hand back the JSON after a marker line on stdout.
inner='/root/mmubench "$@" --guest /root/guest.elf --json /tmp/mmub.json
rc=$?
if [ -f /tmp/mmub.json ]; then echo "@@MMUB-JSON@@"; cat /tmp/mmub.json; fi
exit $rc'
out=$(mktemp "${TMPDIR:-/tmp}/mmub-out.XXXXXX")
trap 'rm -f "$out" "$out.json"' EXIT
rc=0
"$repo/lib/nested/run.sh" --arch "$arch" "${nested[@]}" \
	--file "$bin:/root/mmubench" --file "$guest:/root/guest.elf" \
	-- sh -c "$inner" sh "${args[@]}" >"$out" || rc=$?
awk '/^@@MMUB-JSON@@$/ { exit } { print }' "$out"
if [[ $json ]] && grep -q '^@@MMUB-JSON@@$' "$out"; then
	awk 'f { print } /^@@MMUB-JSON@@$/ { f = 1 }' "$out" >"$out.json"
	mv "$out.json" "$json"
fi
exit "$rc"
