# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# What "make test" will build and about how long it will take, said
# before it starts (test/run.sh): the harness and guests, each nested
# kernel of test/kernels.bats that its cache lacks (lib/kernel/build.sh
# --plan, by the key a build writes), and the test files, at the pace of
# the last whole run on this machine (build/test-results/times.tsv) or,
# before one, of test/times.tsv.
#
# The figures are this kind of machine's, 2 cores, measured cold; a
# build's own log says what it took (docs/findings/ has the runs).
# plan_say ROOT TIER prints the plan as "# " lines.

# Minutes, low and high, of what is to be built.
plan_minutes() { # KIND NAME
	case $1-$2 in
	modules-original) echo "2 4" ;;		# modules_prepare + kvm.ko, kvm-amd.ko
	modules-*) echo "0.3 1" ;;		# the files a series touches
	full-original) echo "7 12" ;;		# a whole arm64 kernel
	*) echo "0.5 1.5" ;;			# a series on its original's objects
	esac
}

# What is built of a kernel: Debian's image with KVM as modules, or the
# whole kernel; a series only what it changes, on its original's.
plan_what() { # KIND NAME
	case $1-$2 in
	modules-original) echo "KVM's modules on Debian's image" ;;
	full-original) echo "the whole kernel" ;;
	*) echo "what the series changes" ;;
	esac
}

# The kernels of test/kernels.bats, "BASE ARCH SERIES" a line.
plan_kernels() { # ROOT
	awk '$1 == "build" && NF >= 3 && $2 ~ /^[0-9]/ {
		print $2, $3, (NF >= 4 ? $4 : "original") }' "$1/test/kernels.bats"
}

plan_say() { # ROOT TIER
	local root=$1 b a s kind name st lo=0 hi=0 l h tests n times src
	local -A seen=()
	if [[ -f $root/build/newlib/x86_64/.stamp-x86_64-none-elf &&
	      -f $root/build/newlib/arm64/.stamp-aarch64-none-elf ]]; then
		echo "# build: the harness (ASan/UBSan), both guests (under a minute when newlib is built)"
	else
		echo "# build: newlib for both guests first (2 to 4 min), then the harness and guests"
		lo=2 hi=4
	fi
	if [[ $2 == check ]]; then
		echo "# make check: no kernel is built or booted; the tests that need one skip, saying so"
		return
	fi
	while read -r b a s; do
		while read -r kind name st; do
			[[ $st == "to build" && -z ${seen[$b/$a/$name]+x} ]] || continue
			seen[$b/$a/$name]=1
			read -r l h < <(plan_minutes "$kind" "$name")
			lo=$(echo "$lo + $l" | bc) hi=$(echo "$hi + $h" | bc)
			printf '# kernel %-6s %-7s %-42s %s, %s-%s min\n' "$b" "$a" "$name" \
				"$(plan_what "$kind" "$name")" "$l" "$h"
		done < <("$root/lib/kernel/build.sh" --plan --base "$b" --arch "$a" --series "$s" 2>&1 ||
			echo "? $s cannot-plan")
	done < <(plan_kernels "$root")
	((${#seen[@]})) || echo "# kernels: every one of test/kernels.bats is cached"
	n=$(ls "$root"/test/*.bats | wc -l)
	# The files' wall when they ran side by side, else their sum; the
	# last whole run's here, else the one of test/times.tsv.
	times=$root/build/test-results/times.tsv src="the last whole run here"
	if [[ ! -f $times ]]; then
		times=$root/test/times.tsv
		src="a warm run on 2 cores without /dev/kvm, test/times.tsv"
	fi
	tests=$(awk -F'\t' '/^the files, / { w = $2 } /\.bats\t/ && $1 != "kernels.bats" { s += $2 }
		END { if (w || s) printf "%.0f", (w ? w : s) / 60 }' "$times")
	echo "# tests: $n files, about $tests min ($src)"
	lo=$(printf '%.0f' "$(echo "$lo + $tests" | bc)")
	hi=$(printf '%.0f' "$(echo "$hi + $tests" | bc)")
	if ((lo == hi)); then
		echo "# in all about $lo min"
	else
		echo "# in all about $lo to $hi min"
	fi
}
