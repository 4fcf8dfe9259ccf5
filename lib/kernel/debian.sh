# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Debian's own x86_64 kernel of a base, for the nested kernels that need
# no kernel build: the image Debian built from the same linux-source-BASE
# (linux-image-ABI-cloud-amd64, the flavour for virtual machines, which
# reaches /init in 3 s under QEMU TCG), its config, and the symbols it
# exports to modules (from linux-headers-ABI-cloud-amd64).  KVM is a
# module there (CONFIG_KVM=m), so lib/kernel/build.sh builds only kvm.ko
# and kvm-amd.ko from the source, with that config and a series' patches:
# a minute where the whole kernel takes ten.
#
# Sourced by build.sh after source.sh (base, tarball, src set).
#
# debian_image_id: set deb_pkg, deb_ver and deb_id (PACKAGE=VERSION, part
# of the key of every build on it) from apt's lists, fetching nothing.
# debian_image: that, then fetch the two packages once (apt-get download:
# nothing is installed) and keep what is used of them under
# $cache/debian/PACKAGE_VERSION; then set
#   deb_release  the image's release (uname -r): 6.1.0-57-cloud-amd64
#   deb_image    its vmlinuz
#   deb_config   its config, which the modules are built with
#   deb_symvers  its Module.symvers (the exported symbols' CRCs)
#   deb_modules  its lib/modules/RELEASE
# debian_closure NAME...: the modules of the image that NAME... need,
# dependencies first, as paths under deb_modules (a built-in one is
# skipped, a missing one is an error).
# shellcheck disable=SC2154 # build.sh's and source.sh's globals
deb_pkg='' deb_ver='' deb_id='' deb_release='' deb_image='' deb_config='' deb_symvers='' deb_modules=''

# The image package built from the installed linux-source-BASE: the same
# Debian version, a name with the ABI in it (not the meta-package).
debian_image_package() { # VERSION
	local n
	while read -r n; do
		[[ $n =~ ^linux-image-${base//./\\.}\.[0-9][^[:space:]]*-cloud-amd64$ ]] ||
			continue
		if apt-cache show "$n=$1" >/dev/null 2>&1; then
			echo "$n"
			return
		fi
	done < <(apt-cache pkgnames "linux-image-$base." | sort -rV)
	echo "apt knows no linux-image-$base.*-cloud-amd64 of version $1, linux-source-$base's (apt-get update; or --full builds the whole kernel)"
	return 1
}

# deb_pkg, deb_ver and deb_id of the base, without fetching anything; the
# package is looked up in apt's lists once a source version.
debian_image_id() {
	local v found memo=$cache/debian/source-$base mv mp
	[[ $tarball == "/usr/src/linux-source-$base.tar.xz" ]] ||
		die "the Debian kernel of $base goes with /usr/src/linux-source-$base.tar.xz, not $tarball: --full builds the whole kernel from it"
	command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null ||
		die "Debian's kernel image needs apt-get and dpkg-deb (a Debian system); --full builds the whole kernel"
	v=$(dpkg-query -W -f='${Version}' "linux-source-$base" 2>/dev/null) ||
		die "linux-source-$base is not installed: apt-get install linux-source-$base"
	if [[ -f $memo ]] && read -r mv mp <"$memo" && [[ $mv == "$v" && $mp ]]; then
		deb_pkg=$mp
	else
		found=$(debian_image_package "$v") || die "$found"
		deb_pkg=$found
		mkdir -p "${memo%/*}"
		echo "$v $deb_pkg" >"$memo.tmp.$$"
		mv "$memo.tmp.$$" "$memo"
	fi
	deb_ver=$v deb_id=$deb_pkg=$v
}

# Download and unpack, atomically: the image's boot/ and lib/modules/, the
# headers' Module.symvers.
debian_fetch() { # PACKAGE VERSION DIR
	local tmp rel=${1#linux-image-} d
	tmp=$(mktemp -d "$3.tmp.XXXXXX")
	if ! (cd "$tmp" && apt-get -qq -o APT::Sandbox::User=root download \
			"$1=$2" "linux-headers-$rel=$2") >"$tmp/apt.log" 2>&1; then
		sed 's/^/  /' "$tmp/apt.log" >&2
		rm -rf "$tmp"
		die "could not download $1=$2 and linux-headers-$rel=$2 (is a Debian mirror reachable? --full builds the whole kernel instead)"
	fi
	for d in "$tmp"/*.deb; do
		dpkg-deb -x "$d" "$tmp/root"
	done
	mkdir -p "$tmp/keep"
	mv "$tmp/root/boot" "$tmp/keep/boot"
	mv "$tmp/root/lib/modules/$rel" "$tmp/keep/modules"
	mv "$tmp/root/usr/src/linux-headers-$rel/Module.symvers" "$tmp/keep/Module.symvers"
	[[ -f $tmp/keep/boot/vmlinuz-$rel && -f $tmp/keep/boot/config-$rel &&
	   -f $tmp/keep/modules/modules.order ]] ||
		{ rm -rf "$tmp"; die "$1=$2: no vmlinuz, config or modules.order in it"; }
	echo "$rel" >"$tmp/keep/release"
	rm -rf "$3"
	mv "$tmp/keep" "$3"
	rm -rf "$tmp"
}

debian_image() {
	local dir
	debian_image_id
	dir=$cache/debian/${deb_pkg}_$deb_ver
	mkdir -p "$cache/debian"
	{
		flock 6
		[[ -f $dir/release ]] ||
			timed "fetch $deb_pkg" debian_fetch "$deb_pkg" "$deb_ver" "$dir"
	} 6>"$cache/.lock-debian"
	deb_release=$(<"$dir/release")
	deb_image=$dir/boot/vmlinuz-$deb_release
	deb_config=$dir/boot/config-$deb_release
	deb_symvers=$dir/Module.symvers
	deb_modules=$dir/modules
}

# The file of module NAME in the image ("-" and "_" alike), under
# deb_modules; nothing for a built-in one or none.
module_file() { # NAME
	local p z
	p=$(awk -v n="$1" '{ f = $0; sub(/.*\//, "", f); sub(/\.ko$/, "", f)
		gsub(/-/, "_", f); if (f == n) { print; exit } }' "$deb_modules/modules.order")
	[[ $p ]] || return 0
	# modules.order names the .ko; the package may hold it compressed.
	for z in '' .xz .zst; do
		[[ ! -f $deb_modules/$p$z ]] || { echo "$p$z"; return; }
	done
	die "Debian's $deb_release lists $p but has no such file"
}

# The modules a module needs: its .modinfo's depends= (Debian ships no
# modules.dep: depmod writes it when the package is installed).
module_depends() { # FILE
	local f=$deb_modules/$1 t
	t=$(mktemp)
	case $f in
	*.xz) xz -dc "$f" >"$t" ;;
	*.zst) zstd -qdc "$f" >"$t" ;;
	*) cp "$f" "$t" ;;
	esac
	objcopy -O binary --only-section=.modinfo "$t" "$t.modinfo"
	tr '\0' '\n' <"$t.modinfo" | sed -n 's/^depends=//p' | tr ',' ' '
	rm -f "$t" "$t.modinfo"
}

# One module and what it needs, once each (closure_seen), needs first.
closure_one() { # NAME (underscores)
	local p d
	[[ -z ${closure_seen[$1]+x} ]] || return 0
	closure_seen[$1]=1
	p=$(module_file "$1")
	if [[ -z $p ]]; then
		grep -qE "/${1//_/[-_]}\.ko\$" "$deb_modules/modules.builtin" &&
			return 0
		die "Debian's $deb_release has no module $1"
	fi
	for d in $(module_depends "$p"); do
		closure_one "${d//-/_}"
	done
	echo "$p"
}

debian_closure() { # NAME...
	local name
	declare -gA closure_seen=()
	for name in "$@"; do
		closure_one "${name//-/_}"
	done
}
