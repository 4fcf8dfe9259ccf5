# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# The user's own kernel for lib/kernel/build.sh --kernel-src: a git tree
# at a commit, or a source tarball, and what a side adds to it (another
# commit of the tree, or a folder of patches or an mbox as git
# format-patch and b4 write them).
#
# Cached by what is built: a tree's source by its git tree id (a commit's
# content), a tarball's by its SHA-256, a side's changes by their text.
# The source is unpacked once under $cache/src (git archive, or tar) and
# built once as the seed, its "original"; every side is a series on that
# seed (the other commit as a diff from the first), so a second commit,
# or a new version of a patch, rebuilds only what kbuild finds changed.
# A source identical to a base's Debian linux-source (the same tarball,
# or a commit with the same tree) is that base's, and its build seeds.
#
# Sourced by build.sh after source.sh.  user_source reads ksrc, ref,
# onto and upatches (build.sh's options), cache and series, and sets
# base, tarball, src, src_id, src_desc, orig_trees (where the seed is
# built), trees (the sides'), patches and applier.
# shellcheck disable=SC2154 # build.sh's globals, set before use

# kernel_src_kind PATH: "git" for a git tree, "tarball" for a file named
# as one; otherwise the reason on stderr, and failure.
kernel_src_kind() {
	if [[ -d $1 ]] && git -C "$1" rev-parse --git-dir >/dev/null 2>&1; then
		echo git
	elif [[ -f $1 ]]; then
		case $1 in
		*.tar|*.tar.gz|*.tgz|*.tar.xz|*.tar.bz2|*.tar.zst) echo tarball ;;
		*) echo "--kernel-src $1: neither a git tree nor a kernel tarball (.tar, .tar.gz, .tgz, .tar.xz, .tar.bz2, .tar.zst)" >&2
		   return 1 ;;
		esac
	else
		echo "--kernel-src $1: neither a git tree nor a kernel tarball" >&2
		return 1
	fi
}

# VERSION.PATCHLEVEL.SUBLEVEL of the top-level Makefile on stdin.
makefile_version() {
	awk -F' *= *' '$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 }
		$1 == "SUBLEVEL" { s = $2 }
		END { if (v == "" || p == "") exit 1; print v "." p "." (s == "" ? 0 : s) }'
}

# The git tree id of the base's unpacked Debian source ($src), hashed
# without writing a single object (only the id is wanted: about 8 s for
# 6.12) and kept beside it, keyed by the tarball it came from.
debian_tree_id() {
	local gd id
	if [[ -f $src.tree && $(sed -n 1p "$src.tree") == "$src_id" ]]; then
		sed -n 2p "$src.tree"
		return
	fi
	gd=$(mktemp -d)
	git init -q --bare "$gd"
	id=$(cd "$src" && find . \( -type f -o -type l \) -printf '%P\0' |
		GIT_DIR=$gd GIT_WORK_TREE=$src GIT_INDEX_FILE=$gd/index \
			git update-index --add --info-only -z --stdin &&
		GIT_DIR=$gd GIT_INDEX_FILE=$gd/index git write-tree --missing-ok) ||
		{ rm -rf "$gd"; return 1; }
	rm -rf "$gd"
	printf '%s\n%s\n' "$src_id" "$id" >"$src.tree.tmp"
	mv "$src.tree.tmp" "$src.tree"
	echo "$id"
}

# The Debian base whose source is this one, if any: for a tree, the same
# version and then the same tree id; for a tarball, the same bytes.  Sets
# base, tarball, src and src_id to it (unpacking it if needed), or fails.
debian_same() { # tree VERSION TREE-ID | tarball FILE
	local b
	for b in "${kernel_bases[@]}"; do
		kernel_base "$b" 2>/dev/null || continue
		[[ -f $tarball ]] || continue
		case $1 in
		tree)
			[[ ${2%.*} == "$b" ]] && kernel_source timed unpack &&
			[[ $(makefile_version <"$src/Makefile") == "$2" &&
			   $(debian_tree_id) == "$3" ]] && return ;;
		tarball)
			[[ $(stat -L -c %s "$tarball") == "$(stat -L -c %s "$2")" ]] &&
			cmp -s "$tarball" "$2" && kernel_source timed unpack && return ;;
		esac
	done
	return 1
}

# A side's changes as files: a folder's *.patch, or an mbox split into
# its messages (a file without mbox "From " lines is one patch).
user_patches() { # PATH
	local p n
	if [[ -d $1 ]]; then
		patch_files "$1"	# build.sh's
		((${#patches[@]})) || die "--patches $1: no *.patch in that folder" 2
	elif [[ -f $1 ]]; then
		if head -n1 "$1" | grep -q '^From '; then
			split_dir=$(mktemp -d)
			n=$(git mailsplit -o"$split_dir" "$1") ||
				die "--patches $1: git mailsplit could not split this mbox" 2
			((n > 0)) || die "--patches $1: an mbox with no message" 2
			for p in "$split_dir"/*; do patches+=("$p"); done
		else
			patches=("$1")
		fi
	else
		die "--patches $1: neither a folder of *.patch nor an mbox file" 2
	fi
}

user_git() {
	local c c0 t t0 version d
	c0=$(git -C "$ksrc" rev-parse -q --verify "${onto:-$ref}^{commit}") ||
		die "--onto ${onto:-$ref}: not a commit of $ksrc" 2
	c=$(git -C "$ksrc" rev-parse -q --verify "$ref^{commit}") ||
		die "--ref $ref: not a commit of $ksrc" 2
	t0=$(git -C "$ksrc" rev-parse "$c0^{tree}")
	t=$(git -C "$ksrc" rev-parse "$c^{tree}")
	version=$(git -C "$ksrc" show "$c0:Makefile" 2>/dev/null | makefile_version) ||
		die "--kernel-src $ksrc: ${onto:-$ref} has no kernel Makefile at its top" 2
	src_desc="$ksrc at ${c0:0:12}"
	trees=$cache/trees/git-$t0
	if debian_same tree "$version" "$t0"; then
		note "${c0:0:12} is linux-source-$base (tree $t0): its build seeds"
		orig_trees=$cache/trees/$base
	else
		base=${version%.*}
		src=$cache/src/git-$t0 src_id=git-$t0
		orig_trees=$trees
		if [[ ! -d $src ]]; then
			# (A side built at the same time may unpack it first.)
			{ git -C "$ksrc" archive --format=tar "$c0" || true; } |
				timed "git archive" user_unpack 0 -
			[[ -d $src ]] || die "git archive $c0 failed"
		fi
	fi
	[[ $t != "$t0" ]] || return 0
	# The second commit is a series of one patch on the first: the diff
	# of their trees, whatever lies between them.
	d=$cache/diffs/$t0-$t.patch
	mkdir -p "${d%/*}"
	if [[ ! -f $d ]]; then
		git -C "$ksrc" diff --binary --full-index "$t0" "$t" >"$d.tmp"
		mv "$d.tmp" "$d"
	fi
	patches=("$d")
}

# Unpack a tar (FILE, or - for stdin) into $src, atomically, without its
# first STRIP components.
user_unpack() { # STRIP FILE|-
	# Both arches may build at once: the short lock of source.sh.
	exec 7>"$cache/.lock-src"
	flock 7
	if [[ ! -d $src ]]; then
		rm -rf "$src.tmp"
		mkdir -p "$src.tmp"
		tar -x -a -f "$2" -C "$src.tmp" --strip-components="$1" ||
			{ rm -rf "$src.tmp"; die "could not unpack $ksrc"; }
		[[ -f $src.tmp/Makefile ]] ||
			{ rm -rf "$src.tmp"; die "$ksrc: no Makefile at the top of what was unpacked"; }
		mv "$src.tmp" "$src"
	fi
	exec 7>&-
}

user_tarball() {
	local sum version
	sum=$(sha256sum "$ksrc" | cut -c1-16)
	trees=$cache/trees/tar-$sum
	src_desc=${ksrc##*/}
	if debian_same tarball "$ksrc"; then
		note "$src_desc is linux-source-$base: its build seeds"
		orig_trees=$cache/trees/$base
		return
	fi
	src=$cache/src/tar-$sum src_id=tar-$sum
	orig_trees=$trees
	[[ -d $src ]] || timed "unpack tarball" user_unpack 1 "$ksrc"
	version=$(makefile_version <"$src/Makefile" 2>/dev/null) ||
		die "--kernel-src $ksrc: no kernel Makefile at the top of the tarball" 2
	base=${version%.*}
}

# What can be checked before any lock is taken or anything is unpacked:
# the kind of source and that its refs and patches exist.
user_check() {
	command -v git >/dev/null || die "missing 'git' (--kernel-src): apt-get install git"
	kind=$(kernel_src_kind "$ksrc" 2>&1) || die "$kind" 2
	if [[ $kind == git ]]; then
		[[ $ref ]] || die "--kernel-src $ksrc is a git tree: --ref REF names the commit" 2
		[[ -z $upatches ]] || die "--patches: a git tree's sides are commits (--ref)" 2
		git -C "$ksrc" rev-parse -q --verify "$ref^{commit}" >/dev/null ||
			die "--ref $ref: not a commit of $ksrc" 2
		[[ -z $onto ]] || git -C "$ksrc" rev-parse -q --verify "$onto^{commit}" >/dev/null ||
			die "--onto $onto: not a commit of $ksrc" 2
		git -C "$ksrc" cat-file -e "${onto:-$ref}:Makefile" 2>/dev/null ||
			die "--kernel-src $ksrc: ${onto:-$ref} has no kernel Makefile at its top" 2
	else
		[[ -z $ref && -z $onto ]] || die "--ref/--onto: only for a git tree, and $ksrc is a file" 2
		[[ -z $upatches || -d $upatches || -f $upatches ]] ||
			die "--patches $upatches: neither a folder of *.patch nor an mbox file" 2
	fi
}

user_source() {
	mkdir -p "$cache/src"
	patches=()
	if [[ $kind == git ]]; then
		user_git
	else
		user_tarball
		[[ -z $upatches ]] || user_patches "$upatches"
		# build.sh's, after a patch that does not apply.
		apply_hint="written for another version than $src_desc? A series' base-commit: line names its base"
	fi
	applier=git
}
