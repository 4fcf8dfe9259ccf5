# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# The test-only kernels in the kernel cache (lib/kernel/build.sh's
# trees/BASE/SERIES-ARCH for the series of test/series, all named
# test-*), for test/helpers.bash and test/run.sh.

test_kernels_cache() { echo "${MMUBENCH_CACHE:-$HOME/.cache/mmubench}/kernel"; }

# test_kernels: the test-only trees the cache holds, one a line, sorted.
test_kernels() {
	local t

	for t in "$(test_kernels_cache)"/trees/*/test-*; do
		[[ -d $t ]] && echo "$t"
	done | LC_ALL=C sort
}

# test_kernels_put_back BEFORE: remove the test-only trees that are not
# in BEFORE (test_kernels' output), each under its arch's build lock.
test_kernels_put_back() {
	local t a cache

	cache=$(test_kernels_cache)
	while read -r t; do
		[[ $t ]] || continue
		a=${t%.????????????????}
		a=${a%-full}
		flock "$cache/.lock-${a##*-}" rm -rf "$t"
	done < <(LC_ALL=C comm -13 <(echo "$1") <(test_kernels))
}
