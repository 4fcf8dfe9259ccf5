#!/bin/sh
# Usage: check/run.sh /path/to/linux-6.1-with-this-series-applied [iterations]
# Extracts the patched functions from the kernel tree, compiles them into a
# userspace harness with ASan/UBSan and runs randomized checks (see README).
set -e
src=${1:?usage: $0 KERNEL_SRC [iterations]}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
python3 "$here/extract.py" "$src"
cp "$here/harness.c" .
${CC:-gcc} -O2 -g -Wall -Wno-unused-function -fsanitize=address,undefined -o harness harness.c
./harness ${2:+"$2"}
