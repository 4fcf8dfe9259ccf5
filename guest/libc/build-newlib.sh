#!/usr/bin/env bash
# Build newlib 3.3.0 (Debian's newlib-source) for the freestanding guest
# with clang 14 + LLVM binutils.
#
#   guest/libc/build-newlib.sh ARCH OUTDIR      ARCH = x86_64 | arm64
#
# Layout produced (TRIPLE = x86_64-none-elf | aarch64-none-elf):
#   OUTDIR/src/                      patched copy of the newlib source (unpacked once)
#   OUTDIR/build-TRIPLE/             out-of-tree build
#   OUTDIR/install/TRIPLE/lib/       libc.a libm.a libg.a
#   OUTDIR/install/TRIPLE/include/   headers
#   OUTDIR/build.log                 log of the last build
#   OUTDIR/.stamp-TRIPLE             present = done; a second call is a no-op
# The stamp records the configuration; if the script/flags change, it rebuilds.
#
# Environment overrides: NEWLIB_TARBALL, CLANG, JOBS (default 2),
# NEWLIB_ARM64_ASM_STRINGS=1 (arm64: keep newlib's asm string routines).
set -euo pipefail

die() { echo "build-newlib.sh: error: $*" >&2; exit 1; }

[ $# -eq 2 ] || { echo "usage: $0 x86_64|arm64 OUTDIR" >&2; exit 2; }
ARCH=$1
OUTDIR=$2
JOBS=${JOBS:-2}

COMMON_CFLAGS="-ffreestanding -fno-pic -fno-pie -fno-stack-protector -O2 -g"
case "$ARCH" in
  x86_64)
    TRIPLE=x86_64-none-elf
    ARCH_CFLAGS="-mcmodel=small"
    ;;
  arm64|aarch64)
    TRIPLE=aarch64-none-elf
    # -mstrict-align does not reach newlib's hand-written aarch64 string
    # routines (memcpy.S, memset.S with DC ZVA, strlen.S, ...), which do
    # unaligned accesses.  NEWLIB_C_STRINGS (our patch, see below) makes the
    # build use newlib's generic, alignment-aware C versions instead.
    # NEWLIB_ARM64_ASM_STRINGS=1 keeps the (faster, unaligned-access) asm.
    ARCH_CFLAGS="-mstrict-align"
    [ "${NEWLIB_ARM64_ASM_STRINGS:-0}" = 1 ] || ARCH_CFLAGS="$ARCH_CFLAGS -DNEWLIB_C_STRINGS"
    ;;
  *) die "ARCH must be x86_64 or arm64 (got '$ARCH')" ;;
esac
CFLAGS_T="--target=$TRIPLE $COMMON_CFLAGS $ARCH_CFLAGS"

TARBALL=${NEWLIB_TARBALL:-/usr/src/newlib/newlib-3.3.0.tar.xz}
[ -f "$TARBALL" ] || die "$TARBALL not found: apt-get install newlib-source"

find_tool() { # find_tool VAR debian-package name...
  local var=$1 pkg=$2 n; shift 2
  for n in "$@"; do
    if command -v "$n" >/dev/null 2>&1; then printf -v "$var" '%s' "$(command -v "$n")"; return 0; fi
  done
  die "$1 not found: apt-get install $pkg"
}
if [ -n "${CLANG:-}" ]; then command -v "$CLANG" >/dev/null || die "CLANG=$CLANG not found"
else find_tool CLANG clang-14 clang-14 clang; fi
find_tool LLVM_AR     llvm-14 llvm-ar-14 llvm-ar
find_tool LLVM_RANLIB llvm-14 llvm-ranlib-14 llvm-ranlib
find_tool LLVM_NM     llvm-14 llvm-nm-14 llvm-nm
find_tool LLVM_OBJDUMP llvm-14 llvm-objdump-14 llvm-objdump
find_tool LLVM_READELF llvm-14 llvm-readelf-14 llvm-readelf
find_tool LLVM_STRIP  llvm-14 llvm-strip-14 llvm-strip
find_tool LD_LLD      lld-14 ld.lld-14 ld.lld
find_tool MAKE        make make
find_tool XZ          xz-utils xz

CONFIG_ARGS=(
  --target="$TRIPLE"
  --prefix=/                        # installed with DESTDIR=OUTDIR/install
  --disable-multilib
  --disable-nls
  --disable-newlib-supplied-syscalls
  --enable-newlib-nano-malloc
  --enable-newlib-reent-small
  --disable-newlib-multithread
  --enable-newlib-io-long-long
  --enable-newlib-io-c99-formats    # %zu %jd %td %hhd
  --disable-newlib-io-long-double   # keeps 128-bit long double soft-float out of printf
)

mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
SRC=$OUTDIR/src
BUILD=$OUTDIR/build-$TRIPLE
INSTALL=$OUTDIR/install
LOG=$OUTDIR/build.log
STAMP=$OUTDIR/.stamp-$TRIPLE

SCRIPT_SUM=$(sha256sum "${BASH_SOURCE[0]}" | cut -c1-16)
TAR_SUM=$(stat -c '%s-%Y' "$TARBALL")
CC_VERSION=$("$CLANG" --version 2>/dev/null | head -n 1) || die "'$CLANG --version' failed"
CONFIG_ID="script=$SCRIPT_SUM tarball=$TARBALL:$TAR_SUM cc=$CC_VERSION cflags=$CFLAGS_T"

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$CONFIG_ID" ] \
   && [ -f "$INSTALL/$TRIPLE/lib/libc.a" ] && [ -f "$INSTALL/$TRIPLE/lib/libm.a" ]; then
  echo "newlib $TRIPLE: up to date in $INSTALL/$TRIPLE"
  exit 0
fi

START=$SECONDS
: >"$LOG"
run() { # run DESCRIPTION cmd...  (output to the log; tail on failure)
  local what=$1; shift
  echo "== $what: $*" >>"$LOG"
  if ! "$@" >>"$LOG" 2>&1; then
    echo "build-newlib.sh: $what failed for $TRIPLE; last lines of $LOG:" >&2
    tail -n 40 "$LOG" >&2
    exit 1
  fi
}

# --- 1. unpack + patch the source copy (once; shared by both ARCHs) ---------
SRC_ID="$TARBALL:$TAR_SUM patches=2"
if [ ! -f "$SRC/.stamp-src" ] || [ "$(cat "$SRC/.stamp-src")" != "$SRC_ID" ]; then
  echo "newlib: unpacking $TARBALL into $SRC"
  rm -rf "$SRC" "$SRC.tmp"
  mkdir -p "$SRC.tmp"
  run "unpack" tar -xJf "$TARBALL" -C "$SRC.tmp" --strip-components=1
  A64=$SRC.tmp/newlib/libc/machine/aarch64
  # Patch 1: clang's integrated assembler rejects "vN.2d[0]" (GNU as accepts
  # it); the canonical form is "vN.d[0]".
  run "patch .2d[0]" sed -i 's/\.2d\[0\]/.d[0]/g' "$A64"/memchr.S "$A64"/strchr.S \
      "$A64"/strchrnul.S "$A64"/strrchr.S
  if grep -rq '\.2d\[' "$A64"; then die "patch 1 left '.2d[' in $A64"; fi
  # Patch 2: let -DNEWLIB_C_STRINGS select the generic C string routines
  # (same switch as PREFER_SIZE_OVER_SPEED, but only for these files).
  run "patch C strings" sed -i \
      's/defined (PREFER_SIZE_OVER_SPEED))/defined (PREFER_SIZE_OVER_SPEED) || defined (NEWLIB_C_STRINGS))/' \
      "$A64"/*.S "$A64"/*-stub.c
  n=$(grep -l 'NEWLIB_C_STRINGS' "$A64"/*.S "$A64"/*-stub.c | wc -l)
  [ "$n" -eq 29 ] || die "patch 2 touched $n files in $A64, expected 29"
  echo "$SRC_ID" >"$SRC.tmp/.stamp-src"
  mv "$SRC.tmp" "$SRC"
fi

# --- 2. configure + build + install out of tree --------------------------
rm -f "$STAMP"
rm -rf "$BUILD" "${INSTALL:?}/$TRIPLE"
mkdir -p "$BUILD"
echo "newlib $TRIPLE: configuring and building (log: $LOG)"
cd "$BUILD"
run "configure" nice -n 10 "$SRC/configure" "${CONFIG_ARGS[@]}" \
  CC="$CLANG" \
  CC_FOR_TARGET="$CLANG" \
  AS_FOR_TARGET="$CLANG" \
  LD_FOR_TARGET="$LD_LLD" \
  AR_FOR_TARGET="$LLVM_AR" \
  RANLIB_FOR_TARGET="$LLVM_RANLIB" \
  NM_FOR_TARGET="$LLVM_NM" \
  OBJDUMP_FOR_TARGET="$LLVM_OBJDUMP" \
  READELF_FOR_TARGET="$LLVM_READELF" \
  STRIP_FOR_TARGET="$LLVM_STRIP" \
  CFLAGS_FOR_TARGET="$CFLAGS_T" \
  MAKEINFO=true
run "make" nice -n 10 "$MAKE" -j"$JOBS" all-target-newlib MAKEINFO=true
run "install" nice -n 10 "$MAKE" install-target-newlib MAKEINFO=true DESTDIR="$INSTALL"

for f in lib/libc.a lib/libm.a include/stdio.h; do
  [ -f "$INSTALL/$TRIPLE/$f" ] || die "install incomplete: $INSTALL/$TRIPLE/$f missing"
done
echo "$CONFIG_ID" >"$STAMP"
echo "newlib $TRIPLE: done in $((SECONDS - START)) s -> $INSTALL/$TRIPLE/{lib,include}"
