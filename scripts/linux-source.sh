#!/bin/bash
# linux-source.sh <6.1|6.12>: print the path of an extracted copy of the parts of Debian's
# linux-source-<series> package the project reads at test time (rtrs, rnbd, checkpatch).
# The package is downloaded with apt-get and cached under .cache/ (git-ignored): upstream
# source is never part of this repository.
set -euo pipefail
series=${1:?usage: linux-source.sh <6.1|6.12>}
top=$(cd "$(dirname "$0")/.." && pwd)
cache=$top/.cache/linux-source
mkdir -p "$cache/deb"
pkg=linux-source-$series
# Two entry points started at once on a fresh machine (make demo and make check-debug, seen
# 2026-12-07) both downloaded and extracted here, and the second's "rm -rf $dir.tmp" pulled
# the tree from under the first's tar: one at a time
exec 9> "$cache/.lock-$series"
flock 9
deb=$(find "$cache/deb" -name "${pkg}_*_all.deb" | sort -V | tail -n 1)
if [ -z "$deb" ]; then
	(cd "$cache/deb" && apt-get download -q "$pkg") >&2 ||
		(cd "$cache/deb" && apt-get download "$pkg") >&2
	deb=$(find "$cache/deb" -name "${pkg}_*_all.deb" | sort -V | tail -n 1)
fi
[ -n "$deb" ] || { echo "linux-source.sh: could not download $pkg" >&2; exit 1; }
ver=$(dpkg-deb -f "$deb" Version)
dir=$cache/$pkg-$ver
if [ ! -e "$dir/.done" ]; then
	rm -rf "$dir.tmp"; mkdir -p "$dir.tmp"
	parts=(drivers/infiniband/ulp/rtrs drivers/block/rnbd scripts/checkpatch.pl
	       scripts/spelling.txt scripts/const_structs.checkpatch
	       Documentation/ABI/testing/sysfs-class-rtrs-client)
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$pkg.tar.xz" |
		tar -xJ -C "$dir.tmp" --strip-components=1 "${parts[@]/#/$pkg/}"
	rm -rf "$dir"; mv "$dir.tmp" "$dir"; touch "$dir/.done"
fi
echo "$dir"
