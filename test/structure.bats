#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The host's structure (docs/design.md): no include cycle between
# files or folders; results/ and util/ stand alone; nothing from guest/.
load helpers

@test "host/: no include cycle between files or folders" {
	run "$ROOT/ci/check-includes.sh" "$ROOT"
	assert_success
	assert_output --regexp '^check-includes: [0-9]+ includes between [0-9]+ files: no cycle between files or folders$'
}

# A tree of empty files with the given includes: "FILE:INCLUDE ...".
fake_tree() {
	local t=$BATS_TEST_TMPDIR/tree pair
	rm -rf "$t"
	for pair in "$@"; do
		mkdir -p "$t/$(dirname "${pair%%:*}")"
		touch "$t/${pair%%:*}"
		[[ $pair == *: ]] || echo "#include \"${pair#*:}\"" >>"$t/${pair%%:*}"
	done
	echo "$t"
}

@test "check-includes finds each kind of breakage" {
	local t
	t=$(fake_tree host/a/x.c:a/y.h host/a/y.h:a/x.h host/a/x.h:)
	run "$ROOT/ci/check-includes.sh" "$t"
	assert_failure
	assert_line --regexp '^check-includes: a cycle between files: .*a/x'
	t=$(fake_tree host/a/x.c:b/y.h host/b/y.h: host/b/z.c:a/w.h host/a/w.h:)
	run "$ROOT/ci/check-includes.sh" "$t"
	assert_failure
	assert_line --regexp '^check-includes: a cycle between folders: '
	refute_line --partial 'between files'
	t=$(fake_tree host/results/r.c:vmm/vmm.h host/vmm/vmm.h:)
	run "$ROOT/ci/check-includes.sh" "$t"
	assert_failure
	assert_line "check-includes: host/results/r includes vmm/vmm: results/ uses results/ and util/ only"
	t=$(fake_tree host/x.c:../guest/guest.h)
	run "$ROOT/ci/check-includes.sh" "$t"
	assert_failure
	assert_line 'check-includes: host/x includes "../guest/guest.h", which is not in host/'
}

# The scripts' rooms (docs/design.md): a user's tool uses nothing of
# CI's pipeline, the pipeline nothing of the tools, and what both share
# (lib/) neither.
forbidden() { # ROOM: the regex of the folders ROOM may not use
	case $1 in
	tools) echo ci ;;
	ci) echo tools ;;
	lib) echo '(ci|tools)' ;;
	esac
}

scripts_in() { # DIR: the shell scripts git holds there
	local f
	git -C "$ROOT" ls-files "$1" | while read -r f; do
		[[ $f == *.sh || $(head -c 64 "$ROOT/$f") == '#!'*sh* ]] || continue
		echo "$f"
	done
}

# A sourced path that names a forbidden folder breaks the rule.
sources_across() { # DIR: "FILE: LINE" for each source of a forbidden folder
	local d=$1 f re
	re="$(forbidden "$d")/"
	scripts_in "$d" | while read -r f; do
		grep -nE '^[[:space:]]*(source|\.)[[:space:]]' "$ROOT/$f" | while IFS= read -r l; do
			[[ ! $l =~ $re ]] || echo "$f: $l"
		done
	done
}

@test "scripts: tools/ and ci/ source nothing of each other, lib/ neither" {
	local d bad=
	for d in tools ci lib; do
		bad+=$(sources_across "$d")
	done
	[[ -z $bad ]] || fail "sourced across the rooms: $bad"
	# The rule has something to hold: each room sources lib/.
	run grep -rlE '^[[:space:]]*source .*lib/preamble\.sh' "$ROOT/tools" "$ROOT/ci"
	assert_success
	assert_output --partial "$ROOT/tools/ab.sh"
	assert_output --partial "$ROOT/ci/nightly"
}

script_refs() { # DIR: "FILE: PATH" for each path a script names beside itself
	local d=$1 f p
	scripts_in "$d" | while read -r f; do
		grep -oE '(BASH_SOURCE\[0\]%/\*\}|dirname "\$\{BASH_SOURCE\[0\]\}"\))/[^"} ]+' \
			"$ROOT/$f" | sed -E 's/^(BASH_SOURCE[^}]*\}|dirname[^)]*\))//' | while read -r p; do
			echo "$f: $(realpath -m --relative-to="$ROOT" "$ROOT/${f%/*}$p")"
		done
	done
}

@test "scripts: every path a script names beside itself exists, in a room it may use" {
	local d l f p bad= n=0
	for d in tools ci lib; do
		while IFS= read -r l; do
			f=${l%%: *} p=${l#*: }
			n=$((n + 1))
			[[ -e $ROOT/$p ]] || bad+=" $f names $p, which does not exist;"
			[[ ! $p =~ ^$(forbidden "$d")/ ]] ||
				bad+=" $f reaches $p across the rooms;"
		done < <(script_refs "$d")
	done
	[[ -z $bad ]] || fail "$bad"
	# Something to hold: 25 paths when written; a pattern that no longer
	# matches finds none.
	((n > 10)) || fail "only $n paths found: the pattern no longer matches"
}
