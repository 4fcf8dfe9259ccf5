# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# The one retry rule for nested runs, sourced by the tests
# (test/helpers.bash), tools/ab.sh and so ci/nightly.  ci/README.md,
# "What is retried", names the signature; docs/findings/
# nested-qemu-failures.md has its evidence.
#
# nested_infra_failure [FILE]: the run's output (FILE, or standard input)
# shows a failure of the nested setup itself: the marker line that
# lib/nested/run.sh prints for exactly that signature, and no error of
# mmubench's own (a missed page, a violation, a watchdog: any line
# "mmubench: ...").  Prints the signature and returns 0, else returns 1.
nested_infra_failure() {
	local text marker

	text=$(cat "${1:-/dev/stdin}")
	marker=$(grep -m1 -E '^lib/nested/run.sh: nested-infra: ' <<<"$text") ||
		return 1
	! grep -qE '^mmubench: ' <<<"$text" || return 1
	echo "${marker#lib/nested/run.sh: nested-infra: }"
}
