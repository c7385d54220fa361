#!/bin/bash
# build-peer.sh <kver>: build the peer modules the VM test bed loads, out of tree.
#
#   .cache/peer/<kver>/upstream/   upstream rtrs-core, rtrs-client, rtrs-server, rnbd-client,
#                                  rnbd-server from Debian's linux-source of the kernel's series.
#                                  Cached: rebuilt only when the source version, this script
#                                  or the kernel headers change.
#   .cache/peer/<kver>/rnbd-ours/  the UNCHANGED upstream rnbd-client sources compiled against
#                                  OUR include/rtrs.h and build/<kver>/Module.symvers
#                                  (always rebuilt; needs `make KVER=<kver>` first).
#
# Env: PEER_ONLY=upstream|ours to build one half; OURS_BUILD=<dir> holds <kver>/Module.symvers
# of our module (default <repo>/build); OURS_RNBD_OUT=<dir> puts rnbd-ours there instead (a
# private build that others' rebuilds cannot invalidate); KDIR=<kernel build tree> for a kernel
# not installed under /lib/modules (the debug kernel of make check-debug). Prints the .ko paths.
set -u
kv=${1:?usage: build-peer.sh <kver>}
top=$(cd "$(dirname "$0")/../.." && pwd)
kdir=${KDIR:-/lib/modules/$kv/build}
[ -e "$kdir/Makefile" ] || { echo "build-peer: no kernel headers for $kv at $kdir" >&2; exit 1; }
case $kv in
	6.1.*) series=6.1 ;;
	6.12.*) series=6.12 ;;
	*) echo "build-peer: unknown kernel series for $kv" >&2; exit 1 ;;
esac
src=$("$top/scripts/linux-source.sh" "$series") || { echo "build-peer: linux-source $series unavailable" >&2; exit 1; }
out=$top/.cache/peer/$kv
mkdir -p "$out"
# Entry points run side by side (make check beside make soak or a mutant run) share this
# cache; one build at a time per kernel, or one's "rm -rf" empties the other's tree
exec 8> "$out/.lock"
flock 8
rc=0
kmake() { make -s -C "$kdir" M="$1" -j"$(nproc)" modules "${@:2}"; }

# ---------- upstream rtrs/rnbd (cached) ----------
if [ "${PEER_ONLY:-}" != ours ]; then
	u=$out/upstream
	key="src=$(basename "$src") script=$(md5sum < "$0" | cut -c1-12) hdr=$(stat -c %Y "$kdir/Makefile")"
	if [ -e "$u/.key" ] && [ "$(cat "$u/.key")" = "$key" ] &&
	   [ -e "$u/rtrs/rtrs-server.ko" ] && [ -e "$u/rnbd/rnbd-server.ko" ]; then
		:
	else
		rm -rf "$u"; mkdir -p "$u/rtrs" "$u/rnbd"
		cp "$src"/drivers/infiniband/ulp/rtrs/*.[ch] "$u/rtrs/"
		cp "$src"/drivers/block/rnbd/*.[ch] "$u/rnbd/"
		echo 'obj-m += rtrs/ rnbd/' > "$u/Kbuild"
		# Upstream's Makefiles serve as Kbuild files (6.1 and 6.12 differ); only the
		# rtrs include path must point into this copy.
		cp "$src"/drivers/infiniband/ulp/rtrs/Makefile "$u/rtrs/Kbuild"
		# shellcheck disable=SC2016 # make's $(srctree) and $(src), not the shell's
		sed 's#-I$(srctree)/drivers/infiniband/ulp/rtrs#-I$(src)/../rtrs#' \
			"$src"/drivers/block/rnbd/Makefile > "$u/rnbd/Kbuild"
		if kmake "$u" CONFIG_INFINIBAND_RTRS=m CONFIG_INFINIBAND_RTRS_CLIENT=m \
			CONFIG_INFINIBAND_RTRS_SERVER=m CONFIG_BLK_DEV_RNBD=y \
			CONFIG_BLK_DEV_RNBD_CLIENT=m CONFIG_BLK_DEV_RNBD_SERVER=m; then
			echo "$key" > "$u/.key"
		else
			echo "build-peer: upstream build failed for $kv" >&2; rc=1
		fi
	fi
	[ $rc = 0 ] && find "$u" -name '*.ko' | sort
fi

# ---------- upstream rnbd-client against our rtrs.h (always rebuilt) ----------
if [ "${PEER_ONLY:-}" != upstream ]; then
	o=${OURS_RNBD_OUT:-$out/rnbd-ours}
	sym=${OURS_BUILD:-$top/build}/$kv/Module.symvers
	if [ ! -e "$sym" ]; then
		echo "build-peer: $sym missing: run 'make KVER=$kv' first" >&2; rc=1
	else
		rm -rf "$o"; mkdir -p "$o"
		# Only rnbd's own files: upstream's rtrs.h must not be reachable from here.
		cp "$src"/drivers/block/rnbd/*.[ch] "$o/"
		rm -f "$o"/rnbd-srv*.c "$o"/rnbd-srv-trace.h
		sed "s#-I\$(srctree)/drivers/infiniband/ulp/rtrs#-I$top/include#" \
			"$src"/drivers/block/rnbd/Makefile > "$o/Kbuild"
		grep -q -- "-I$top/include" "$o/Kbuild" || { echo "build-peer: could not retarget rnbd Kbuild" >&2; rc=1; }
		# SERVER= : kernels configured with rnbd-server (the debug kernel) must not try
		# to build it from the server sources removed above
		if [ $rc = 0 ] && kmake "$o" KBUILD_EXTRA_SYMBOLS="$sym" CONFIG_BLK_DEV_RNBD=y \
			CONFIG_BLK_DEV_RNBD_CLIENT=m CONFIG_BLK_DEV_RNBD_SERVER=; then
			# the symbol versions it was linked against: run-suite.sh rebuilds
			# it when our module's differ (it would not load)
			cp "$sym" "$o/ours.symvers"
			ls "$o"/rnbd-client.ko
		else
			echo "build-peer: rnbd-client against our rtrs.h failed for $kv" >&2; rc=1
		fi
	fi
fi
exit $rc
