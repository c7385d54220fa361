#!/bin/bash
# build.sh <kver>: build the test modules of tests/kmod/ against our include/rtrs.h and our
# build/<kver>/Module.symvers (KBUILD_EXTRA_SYMBOLS) into build/<kver>/kmod/ (ignored;
# BED_OURS_BUILD replaces build/ as in the VM bed). A kernel not installed on the host (the
# sanitizer kernel of tests/debug/) is built against BED_MODULES_DIR/<kver>/build.
# Needs `make KVER=<kver>` first. Prints the path of rtrs-api-test.ko. Extra args go to make
# (e.g. W=1 C=2).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
kver=${1:?usage: tests/kmod/build.sh <kver> [make args]}; shift
bdir=${BED_OURS_BUILD:-$top/build}/$kver
syms=$bdir/Module.symvers
[ -s "$syms" ] || { echo "kmod/build.sh: no $syms: run make KVER=$kver first" >&2; exit 1; }
out=$bdir/kmod
rm -rf "$out"; mkdir -p "$out"
ln -sf "$top/tests/kmod/rtrs-api-test.c" "$top/tests/kmod/Kbuild" "$out/"
kdir=/lib/modules/$kver/build
[ -n "${BED_MODULES_DIR:-}" ] && [ -e "$BED_MODULES_DIR/$kver/build" ] && kdir=$BED_MODULES_DIR/$kver/build
make -s -C "$kdir" M="$out" RTRS_REPO="$top" \
	KBUILD_EXTRA_SYMBOLS="$syms" "$@" modules >&2
echo "$out/rtrs-api-test.ko"
