# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# What every series' check/run.sh shares, sourced after it set $here (its
# own folder, patches/BASE/NAME/check):
#   ex FILE PATTERN [MODE]: one block of C out of a kernel file
#   (check-extract.awk), a blank line after it; a block that is not
#   there ends the check, naming it.
ex() {
	awk -v pat="$2" -v mode="${3:-fn}" -f "$here/../../../check-extract.awk" "$1" ||
		{ echo "$0: '$2' not found in $1" >&2; exit 1; }
	echo
}
