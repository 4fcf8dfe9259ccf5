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
