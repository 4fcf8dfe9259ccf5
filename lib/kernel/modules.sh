# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# An x86_64 nested kernel of the kind "modules": Debian's image of the
# base (lib/kernel/debian.sh) and KVM built from the base's source as its
# modules, with the image's config and a series' patches.  Its tree is
# named as a whole build's (trees/BASE/SERIES-x86_64.KEY) and holds:
#   build/                        modules_prepare with the image's config
#                                 (+ kvm-modules.config, and the base's)
#   arch/x86/kvm/, virt/kvm/      KVM's objects, built where kbuild builds
#                                 an external module (M=arch/x86/kvm)
#   build/arch/x86/boot/bzImage   Debian's vmlinuz (a hard link)
#   build/mmubench-modules/       what L1's /init loads, in the order of
#                                 its file "load": the image's modules
#                                 that KVM and a virtio disk need, then
#                                 kvm.ko and kvm-amd.ko without debug info
#   build/.mmubench-id            the build ids of Debian's vmlinux, kvm.ko
#                                 and kvm-amd.ko, which the booted L1 reports
# kvm.ko says which series it is, MODULE_VERSION("mmub-SERIES"), in
# /sys/module/kvm/version (mmubench's env.kvm_module), as the release of
# a whole build (-mmub-SERIES) does.  kvm-intel.ko is not built: the
# nested L1 runs on QEMU's AMD SVM (-cpu max).
#
# A series of this kind changes KVM's modules only: files under
# arch/x86/kvm/ and virt/kvm/; other arches', documentation and tools are
# not built.  Anything else (a header vmlinux shares, mm/) needs the whole
# kernel, built with --full for every side alike.
#
# Sourced by build.sh: uses its tree, series, patches, fragments, kmake,
# timed, seed, verify_config, kernel_at, kernel_done and build_id.
# shellcheck disable=SC2154 # build.sh's globals

modules_files_re='^(arch/x86/kvm/|virt/kvm/|Documentation/|tools/|arch/(alpha|arc|arm|arm64|csky|hexagon|loongarch|m68k|microblaze|mips|nios2|openrisc|parisc|powerpc|riscv|s390|sh|sparc|um|xtensa)/)'

# The files a patch touches, one a line.
patch_paths() { # PATCH
	sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p; s|^--- a/\([^[:space:]]*\).*|\1|p
		s|^diff --git a/\([^[:space:]]*\) b/\([^[:space:]]*\)$|\1\n\2|p' "$1" | sort -u
}

# Before any build: every patch stays inside KVM's modules.
modules_check_patches() {
	local p f
	for p in "${patches[@]}"; do
		while IFS= read -r f; do
			[[ $f =~ $modules_files_re ]] && continue
			die "${p#"$repo"/}: changes $f, outside KVM's modules (arch/x86/kvm, virt/kvm): build the whole kernel, every side alike, with --full" 2
		done < <(patch_paths "$p")
	done
}

mmake() {
	kmake RUSTC=/nonexistent KERNELRELEASE="$deb_release" "$@"
}

modules_configure() {
	cp "$deb_config" "$tree/build/.config"
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$tree/build" \
		"$tree/build/.config" "${fragments[@]}" >>"$tree/build/build.log" 2>&1
	mmake olddefconfig
}

# kvm.ko's MODULE_VERSION, in a file of its own beside KVM's sources:
# kbuild reads Kbuild before Makefile, so KVM's Makefile stays as it is.
modules_id() { # SERIES
	local d=$tree/arch/x86/kvm c
	c=$(printf '%s\n' '// SPDX-License-Identifier: GPL-2.0' \
		'/* Written by mmubench'\''s lib/kernel/build.sh: the series of this kvm.ko. */' \
		'#include <linux/module.h>' "MODULE_VERSION(\"mmub-$1\");")
	[[ ! -e $d/Kbuild || -f $d/.mmubench-kbuild ]] ||
		die "arch/x86/kvm/Kbuild exists in $src_desc: mmubench cannot name the module's series beside it"
	printf '%s\n' '# Written by lib/kernel/build.sh: KVM'\''s Makefile and the series'\''s name.' \
		'include $(src)/Makefile' 'kvm-y += mmubench_id.o' >"$d/Kbuild"
	: >"$d/.mmubench-kbuild"
	[[ -f $d/mmubench_id.c && $(<"$d/mmubench_id.c") == "$c" ]] ||
		printf '%s\n' "$c" >"$d/mmubench_id.c"
}

modules_compile() {
	mmake -j"$(nproc)" M="$tree/arch/x86/kvm" CONFIG_KVM_INTEL= modules
}

# build/mmubench-modules: the image's modules (decompressed: busybox's
# insmod reads plain ELF), then ours, and the order to load them in.
modules_bundle() {
	local out=$tree/build/mmubench-modules tmp p n
	tmp=$(mktemp -d "$out.XXXXXX")
	chmod 755 "$tmp"
	while IFS= read -r p; do
		n=${p##*/}
		case $n in
		*.ko.xz) xz -dc "$deb_modules/$p" >"$tmp/${n%.xz}"; n=${n%.xz} ;;
		*.ko.zst) zstd -qdc "$deb_modules/$p" >"$tmp/${n%.zst}"; n=${n%.zst} ;;
		*.ko) cp "$deb_modules/$p" "$tmp/$n" ;;
		*) die "Debian's module $p: not a .ko, .ko.xz or .ko.zst" ;;
		esac
		echo "$n" >>"$tmp/load"
	done < <(debian_closure irqbypass virtio_pci virtio_blk)
	for n in kvm.ko kvm-amd.ko; do
		strip --strip-debug -o "$tmp/$n" "$tree/arch/x86/kvm/$n"
		echo "$n" >>"$tmp/load"
	done
	echo "$deb_release" >"$tmp/release"
	rm -rf "$out"
	mv "$tmp" "$out"
	mkdir -p "$tree/build/arch/x86/boot"
	ln -f "$deb_image" "$tree/build/$image" 2>/dev/null ||
		cp "$deb_image" "$tree/build/$image"
	modules_ids >"$tree/build/.mmubench-id"
}

# The build ids the booted L1 reports: Debian's vmlinux (out of its
# image, by the tree's own scripts/extract-vmlinux) and our two modules.
modules_ids() {
	local v id
	v=$(mktemp)
	"$tree/scripts/extract-vmlinux" "$deb_image" >"$v" 2>/dev/null ||
		{ rm -f "$v"; die "scripts/extract-vmlinux could not unpack $deb_image"; }
	id=$(build_id "$v")
	rm -f "$v"
	[[ $id ]] || die "Debian's $deb_image: no GNU build id in its vmlinux"
	echo "vmlinux $id"
	for n in kvm kvm-amd; do
		id=$(build_id "$tree/build/mmubench-modules/$n.ko")
		[[ $id ]] || die "$n.ko has no GNU build id"
		echo "${n//-/_} $id"
	done
}

build_modules_original() {
	local link=$orig_trees/original-$arch
	kernel_at "$link" original && return
	timed "cp -al source" cp -al "$src/." "$tree/"
	mkdir -p "$tree/build"
	timed configure modules_configure
	verify_config
	timed "modules_prepare" mmake -j"$(nproc)" modules_prepare
	cp "$deb_symvers" "$tree/build/Module.symvers"
	modules_id original
	timed "make kvm modules" modules_compile
	timed "bundle" modules_bundle
	kernel_done "$link"
}

# KVM's objects of the original, into a series' tree: the files of those
# folders that are not the source's (a hard link's count is above 1),
# with the original tree's path in them made the series', mtimes kept,
# so that kbuild rebuilds only what the patches touched.
modules_seed_objects() { # ORIGINAL-TREE
	local from=$1 f t
	(cd "$from" && find arch/x86/kvm virt/kvm -type f -links 1 \
		! -name Kbuild ! -name mmubench_id.c ! -name .mmubench-kbuild -print0) |
	(cd "$from" && xargs -0 -r cp -a --parents -t "$tree")
	(cd "$tree" && grep -rlIZ -F "$from/" arch/x86/kvm virt/kvm || true) |
	while IFS= read -r -d '' f; do
		t=$(stat -c %y "$tree/$f")
		sed -i "s|$from/|$tree/|g" "$tree/$f"
		touch -d "$t" "$tree/$f"
	done
}

build_modules_series() {
	local orig=$tree link=$trees/$series-$arch
	kernel_at "$link" "$series" && return
	timed "cp -al source" cp -al "$src/." "$tree/"
	timed "apply ${#patches[@]} patches" apply_patches
	timed "seed build dir" seed "$orig/build"
	timed "seed kvm objects" modules_seed_objects "$orig"
	rm -f "$tree/build/.mmubench-key" "$tree/build/.mmubench-id" "$tree/build/build.log"
	modules_id "$series"
	timed "make kvm modules" modules_compile
	timed "bundle" modules_bundle
	kernel_done "$link"
}
