#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Make the initramfs of the nested (L1) kernel: static busybox, an /init
# and the caller's files, as a gzip'd newc cpio.
#
#   lib/nested/mkinitramfs.sh --arch x86_64|arm64 --out FILE.cpio.gz
#                            [--cpus LIST] [--modules DIR] [--file SRC[:DEST]]...
#                            [-- CMD [ARGS...]]
#
# DEST defaults to /root/BASENAME; /root is the command's cwd and is in its
# PATH.  A directory SRC is copied whole.  Dynamically linked ELF files get
# their shared libraries and loader copied along.  CMD is written, quoted,
# to /cmd; without it /init runs an interactive shell.  With --cpus, the command
# runs on those CPUs only (taskset -c LIST): see run.sh for why.
# A file /then (--file SRC:/then) is run by /init last, before it powers
# off: the way back of a tools/kexec-ab.sh step.
# --modules DIR is a kernel's modules (lib/kernel/modules.sh: KVM built on
# Debian's image): /init loads those DIR/load names, in order, before it
# looks for /dev/kvm, each with its parameters from the kernel's command
# line (kvm.nx_huge_pages=force), as modprobe would.
#
# /init talks to the host over the console with marker lines (see
# run.sh): @@MMUBENCH:BOOTED@@, @@MMUBENCH:KERNEL@@ (its build ids),
# @@MMUBENCH:NOKVM@@, then the command's
# stdout and stderr, base64'd so that the tty cannot mangle them, between
# @@MMUBENCH:STDOUT@@ / @@MMUBENCH:STDERR@@ / @@MMUBENCH:EXIT=N@@.
set -euo pipefail

prog=lib/nested/mkinitramfs.sh
cache=${MMUBENCH_CACHE:-$HOME/.cache/mmubench}
arch=
out=
files=()
cpus=
modules=

cmd=()

# shellcheck source=lib/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/../preamble.sh"

usage() { # [STATUS]: 0 for --help, on stdout
	local fd=2
	[[ ${1:-2} != 0 ]] || fd=1
	echo "usage: $prog --arch x86_64|arm64 --out FILE.cpio.gz [--cpus LIST] [--modules DIR] [--file SRC[:DEST]]... [-- CMD [ARGS...]]" >&$fd
	exit "${1:-2}"
}

while (($#)); do
	case $1 in
	--arch) arch=${2:?--arch needs a value}; shift 2 ;;
	--out) out=${2:?--out needs a value}; shift 2 ;;
	--cpus) cpus=${2:?--cpus needs a value}; shift 2 ;;
	--modules) modules=${2:?--modules needs a value}; shift 2 ;;
	-h|--help) usage 0 ;;
	--file) files+=("${2:?--file needs a value}"); shift 2 ;;
	--) shift; cmd=("$@"); break ;;
	*) usage ;;
	esac
done
[[ $out ]] || usage

for t in cpio gzip readelf flock; do
	command -v $t >/dev/null ||
		die "missing '$t': apt-get install $(case $t in readelf) echo binutils ;; flock) echo util-linux ;; *) echo $t ;; esac)"
done

# This machine's own arch (tools/kexec-ab.sh on a bare-metal arm64 host too):
# its busybox and, through ldd, its libraries.  arm64 on x86_64: fetched.
host_arch=$(uname -m | sed -e 's/aarch64/arm64/')
deps=ldd
case $arch in
"$host_arch")
	busybox=/bin/busybox
	[[ -x $busybox ]] || die "missing $busybox: apt-get install busybox-static"
	libroot=/
	;;
arm64)
	deps=cross
	# Debian's arm64 .deb, unpacked once with a private apt state.
	"${BASH_SOURCE[0]%/*}/../fetch-arm64.sh" "$cache/busybox-arm64" \
		busybox-static -- bin/busybox
	busybox=$cache/busybox-arm64/root/bin/busybox
	# Debian's cross toolchain packages ship the arm64 glibc and friends.
	libroot=/usr/aarch64-linux-gnu
	;;
x86_64) die "--arch x86_64 on this $host_arch machine: not made here (x86_64 busybox and libraries are not fetched)" ;;
*) die "--arch must be x86_64 or arm64" ;;
esac
[[ $(readelf -l "$busybox") != *'program interpreter'* ]] ||
	die "$busybox is dynamically linked: apt-get install busybox-static"

root=$(mktemp -d "${TMPDIR:-/tmp}/mmubench-initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,run,root,etc}
cp "$busybox" "$root/bin/busybox"
# /init's interpreter; the other applet links are made at boot by
# `busybox --install -s`, which works for a foreign-arch busybox too.
ln -s busybox "$root/bin/sh"

is_elf() { [[ $(head -c4 "$1" | od -An -tx1 | tr -d ' \n') == 7f454c46 ]]; }

# Copy a library or loader to the same path inside the initramfs.
add_lib() {
	[[ -e $root$2 ]] && return
	mkdir -p "$root$(dirname "$2")"
	cp -L "$1" "$root$2"
}

# This machine's arch: its ldd knows.  arm64 across: walk DT_NEEDED in the
# cross libs.
add_deps_ldd() {
	local line lib interp
	interp=$(readelf -l "$1" | sed -n 's/.*program interpreter: \(.*\)]/\1/p')
	[[ $interp ]] && add_lib "$interp" "$interp"
	while read -r line; do
		case $line in
		*' => not found'*) die "${line%% *} needed by $1 not found on the host" ;;
		*' => /'*) lib=${line#* => }; lib=${lib%% (*}; add_lib "$lib" "$lib" ;;
		esac
	done < <(ldd "$1" 2>/dev/null || true)
}

add_deps_cross() {
	local interp name
	interp=$(readelf -l "$1" | sed -n 's/.*program interpreter: \(.*\)]/\1/p')
	[[ $interp ]] && add_lib "$libroot/lib/$(basename "$interp")" "$interp"
	for name in $(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		[[ -e $root/lib/$name ]] && continue
		[[ -e $libroot/lib/$name ]] ||
			die "$name needed by $1 not in $libroot/lib (install the arm64 cross package of it)"
		add_lib "$libroot/lib/$name" "/lib/$name"
		add_deps_cross "$libroot/lib/$name"
	done
}

add_deps() {
	is_elf "$1" || return 0
	[[ $(readelf -d "$1" 2>/dev/null) == *'(NEEDED)'* ]] || return 0
	"add_deps_$deps" "$1"
}

for spec in "${files[@]}"; do
	src=${spec%%:*}
	dest=${spec#*:}
	[[ $spec == *:* ]] || dest=/root/$(basename "$src")
	[[ $dest == /* ]] || dest=/$dest
	[[ -e $src ]] || die "--file $src: no such file"
	mkdir -p "$root$(dirname "$dest")"
	cp -a "$src" "$root$dest"
	while IFS= read -r -d '' f; do add_deps "$f"; done < <(find "$src" -type f -print0)
done

# POSIX single quotes survive every byte but the quote itself.
quote() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
if ((${#cmd[@]})); then
	{
		printf 'exec'
		for a in "${cmd[@]}"; do printf ' %s' "$(quote "$a")"; done
		printf '\n'
	} >"$root/cmd"
fi
if [[ $cpus ]]; then
	[[ $cpus =~ ^[0-9,-]+$ ]] || die "--cpus $cpus: expected a CPU list such as 1-2"
	echo "$cpus" >"$root/cpus"
fi
if [[ $modules ]]; then
	[[ -f $modules/load ]] || die "--modules $modules: no file 'load' there (lib/kernel/modules.sh makes one)"
	mkdir -p "$root/lib/modules"
	cp -a "$modules" "$root/lib/modules/mmubench"
	while IFS= read -r m; do
		[[ -f $modules/$m ]] || die "--modules $modules: load names $m, which is not there"
	done <"$modules/load"
fi

# x86_64: for the whole boot, before the command, one VM with a vCPU, a
# kprobe on each function mmubench probes and sched_switch on (kvm-hold.c
# says why).  Built once per source, with the host's compiler.  The
# functions are those of the probe tables in host/
# ('{ "NAME", "p:mmub/NAME FUNCTION" }', or "p:mmub/NAME FUNCTION ARGS").
if [[ $arch == x86_64 ]]; then
	grep -rhoE '^[[:space:]]*\{ "[a-z0-9_]+", "[pr]:mmub/[a-z0-9_]+ [a-z0-9_]+[" ]' \
		"${BASH_SOURCE[0]%/*}/../../host" | awk '{ sub(/"$/, "", $4); print $4 }' |
		sort -u >"$root/etc/kvm-hold.probes"
	[[ -s $root/etc/kvm-hold.probes ]] || die "no probe tables found in host/ for kvm-hold"
	hold_src=${BASH_SOURCE[0]%/*}/kvm-hold.c
	hold=$cache/kvm-hold/$(sha256sum "$hold_src" | cut -c1-16)
	if [[ ! -x $hold ]]; then
		mkdir -p "${hold%/*}"
		${CC:-cc} -static -O2 -Wall -Werror -o "$hold.tmp.$$" "$hold_src" ||
			die "cannot build $hold_src statically: apt-get install gcc libc6-dev"
		mv "$hold.tmp.$$" "$hold"
	fi
	cp "$hold" "$root/bin/kvm-hold"
fi

cat >"$root/init" <<'EOF'
#!/bin/sh
# PID 1 of the mmubench L1 guest.  The host reads the console: keep it to
# marker lines, and never let the command's own output reach it raw.
/bin/busybox --install -s
export PATH=/root:/usr/local/bin:/usr/local/sbin:/bin:/sbin:/usr/bin:/usr/sbin HOME=/root
mount -t devtmpfs devtmpfs /dev
exec </dev/null >/dev/console 2>&1

mnt() {
	mkdir -p "$3" && mount -t "$1" "$2" "$3" ||
		echo "@@MMUBENCH:WARN@@ cannot mount $1 on $3"
}
mnt proc proc /proc
echo "@@MMUBENCH:BOOTED@@ $(cut -d' ' -f1 /proc/uptime)"
mnt sysfs sysfs /sys
mnt tmpfs tmpfs /tmp
mnt tmpfs tmpfs /dev/shm
mnt devpts devpts /dev/pts
mnt hugetlbfs hugetlbfs /dev/hugepages
mnt debugfs debugfs /sys/kernel/debug
mnt tracefs tracefs /sys/kernel/tracing

# /then, if the initramfs has one, is the last act instead of powering
# off: a kexec A/B step (tools/kexec-ab.sh) boots the machine's own kernel
# again from there.
off() {
	sync
	[ ! -f /then ] || sh /then
	poweroff -f
	reboot -f	# only if poweroff could not; panic=-1 is the last resort
}

# KVM as modules (lib/kernel/modules.sh): each with the parameters the
# kernel's command line gives its name (kvm.nx_huge_pages=force,
# kvm_amd.npt=0 or kvm-amd.npt=0), as modprobe passes them.  A kernel
# that another one kexecs into (tools/kexec-ab.sh) boots this initramfs
# too, and mmubench.modules=DIR names its own modules.
M=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^mmubench\.modules=//p' | tail -n1)
[ -n "$M" ] || M=/lib/modules/mmubench
if [ -f "$M/load" ]; then
	while read -r m; do
		re=$(echo "${m%.ko}" | sed 's/[-_]/[-_]/g')
		args=$(tr ' ' '\n' </proc/cmdline | sed -n "s/^$re\\.//p")
		# shellcheck disable=SC2086 # one word a parameter
		insmod "$M/$m" $args ||
			echo "@@MMUBENCH:WARN@@ insmod $m $args failed: $(dmesg | tail -n 2 | tr '\n' ' ')"
	done <"$M/load"
fi

# The kernel that booted, by its GNU build ids (and KVM's modules'):
# lib/nested/run.sh compares them with those lib/kernel/build.sh
# recorded when the run took the kernel.  od and awk read the notes,
# each "namesz descsz type name desc" in 4-byte words.
build_id() {
	od -An -v -tx1 "$1" 2>/dev/null | awk '
	function h(s,  i, v) {
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	function w(p) { return h(b[p + 3] b[p + 2] b[p + 1] b[p]) }
	{ for (i = 1; i <= NF; i++) b[n++] = $i }
	END {
		o = 0
		while (o + 12 <= n) {
			ns = w(o); ds = w(o + 4); d = o + 12 + int((ns + 3) / 4) * 4
			if (w(o + 8) == 3 && ns == 4 && b[o + 12] b[o + 13] b[o + 14] == "474e55") {
				for (i = 0; i < ds; i++) s = s b[d + i]
				print s
				exit
			}
			o = d + int((ds + 3) / 4) * 4
		}
	}'
}
ids="release=$(uname -r)"
for n in vmlinux:/sys/kernel/notes kvm:/sys/module/kvm/notes/.note.gnu.build-id \
		kvm_amd:/sys/module/kvm_amd/notes/.note.gnu.build-id; do
	[ ! -r "${n#*:}" ] || ids="$ids ${n%%:*}=$(build_id "${n#*:}")"
done
echo "@@MMUBENCH:KERNEL@@ $ids"

if [ ! -c /dev/kvm ]; then
	echo "@@MMUBENCH:NOKVM@@ $(dmesg | grep -i -m3 kvm | tr '\n' ' ')"
	off
fi

# x86_64 under QEMU's TCG: what a run would rewrite in the kernel's text
# held from here on (kvm-hold.c); what it skipped is in /tmp/kvm-hold.log.
if [ -x /bin/kvm-hold ] && ! /bin/kvm-hold $(cat /etc/kvm-hold.probes) 2>/tmp/kvm-hold.log; then
	echo "@@MMUBENCH:WARN@@ kvm-hold failed: L1 may hang under TCG (lib/nested/kvm-hold.c)"
fi

# The other CPUs come up only now: run.sh boots an x86_64 L1 with
# maxcpus=1, so that the boot, the modules and kvm-hold rewrote kernel
# text with CPU 0 alone running it (docs/findings/
# nested-qemu-failures.md).  no_ipi_broadcast=1 keeps the hotplug itself
# from rewriting any.
for c in /sys/devices/system/cpu/cpu[0-9]*/online; do
	[ "$(cat "$c")" = 1 ] || echo 1 >"$c" ||
		echo "@@MMUBENCH:WARN@@ cannot bring ${c%/online} online"
done

if [ ! -f /cmd ]; then
	exec setsid cttyhack sh -l </dev/console >/dev/console 2>&1
fi

cd /root
pin=
if [ -f /cpus ]; then
	pin="taskset -c $(cat /cpus)"
fi
$pin sh /cmd </dev/null >/run/stdout 2>/run/stderr
rc=$?
echo "@@MMUBENCH:STDOUT@@"
base64 </run/stdout
echo "@@MMUBENCH:STDERR@@"
base64 </run/stderr
echo "@@MMUBENCH:EXIT=$rc@@"
off
EOF
chmod 755 "$root/init"

mkdir -p "$(dirname "$out")"
(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
