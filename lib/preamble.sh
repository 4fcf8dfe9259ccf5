# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# The preamble every script of ci/, tools/ and lib/ shares, sourced
# after it set prog (its name in messages, "tools/ab.sh"):
#
#   here, repo       the script's folder and the repository, absolute
#   die MSG [STATUS] "$prog: error: MSG" on stderr, then exit STATUS
#                    (default die_status, 1 unless the script set it)
#   usage_die MSG    the same, exit 2: bad input, before anything ran
#   note MSG...      "$prog: MSG" on stderr
#   usage_exit STATUS [SED]
#                    the usage from the script's header comment
#   metrics_tsv BIN  the scenarios' metrics, tab-separated

# shellcheck disable=SC2034 # for the script that sources this
here=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
# shellcheck disable=SC2034
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
: "${prog:?lib/preamble.sh: the script sets prog before sourcing it}"

die() { echo "$prog: error: $1" >&2; exit "${2:-${die_status:-1}}"; }
usage_die() { echo "$prog: error: $*" >&2; exit 2; }
note() { echo "$prog: $*" >&2; }

# usage_exit STATUS [SED]: "usage:" and the lines of the script's header
# that SED prints (default: from "#   $prog" to the first line that is not
# a comment, the "#" taken off), on stdout for STATUS 0, else on stderr;
# then exit STATUS.
usage_exit() {
	local sed=${2:-"/^#   ${prog//\//\\/}/,/^[^#]/s/^#//p"}

	{ echo "usage:"; sed -n "$sed" "${BASH_SOURCE[1]}"; } >&$(($1 ? 2 : 1))
	exit "$1"
}

# metrics_tsv MMUBENCH: the metrics the scenarios declare ("mmubench
# metrics"), tab-separated, one a line: SCENARIO METRIC BETTER THRESHOLD
# UNIT PATH ("-" where not judged).
metrics_tsv() {
	"$1" metrics | awk -F'|' 'NR > 1 {
		for (i = 2; i <= 7; i++)
			gsub(/^[ \t]+|[ \t]+$/, "", $i)
		printf "%s\t%s\t%s\t%s\t%s\t%s\n", $2, $3, $4, $5, $6, $7
	}'
}
