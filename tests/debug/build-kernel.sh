#!/bin/bash
# build-kernel.sh [--print]: build (once) the sanitizer kernel of `make check-debug` and print
# the folder that holds it.
#
# Source: the full tarball inside Debian's linux-source-6.12 package (the .deb cached by
# scripts/linux-source.sh under .cache/linux-source/deb/). Config: `make defconfig` plus the
# fragment tests/debug/debug.config (scripts/kconfig/merge_config.sh), then olddefconfig.
# Cache: .cache/debug-kernel/<linux-source version>-<hash of fragment + version>/ (ignored):
#   linux/               the build tree (usable as KDIR= for out-of-tree modules)
#   mods/lib/modules/<release>/   modules_install output (INSTALL_MOD_PATH=mods)
#   bzImage  release  build.log  build.time  .done
# One change to the source, for the bed: the RDMA CM's RoCE packet lifetime (drivers/
# infiniband/core/cma.c, CMA_IBOE_PACKET_LIFETIME, 16 upstream: ACK timeout 2^17 * 4.096 us
# = 0.5 s) becomes DEBUG_CMA_PACKET_LIFETIME (19: 4.3 s). Sanitizer guests under TCG ACK
# slower than 0.5 s; rxe then retransmits and re-executes completed REG_MRs, which fails
# the QP (tests/README.md, "Sanitizer kernel"). Every RoCE connection in the guests gets the
# longer timeout, upstream's client and server too (the passive side takes it from the REQ).
# A second run with the same fragment, lifetime and source version only prints the folder.
# --print: print the folder the current fragment maps to, build nothing.
# The build runs under `nice -n 19 ionice -c3` (other VM tests on the host keep priority).
# Knobs: DEBUG_KERNEL_JOBS (nproc), DEBUG_CMA_PACKET_LIFETIME (19).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
frag=$top/tests/debug/debug.config
series=6.12
pkg=linux-source-$series

"$top/scripts/linux-source.sh" "$series" > /dev/null   # downloads the .deb if missing
deb=$(find "$top/.cache/linux-source/deb" -name "${pkg}_*_all.deb" | sort -V | tail -n 1)
[ -n "$deb" ] || { echo "build-kernel: no $pkg .deb" >&2; exit 1; }
ver=$(dpkg-deb -f "$deb" Version)
plt=${DEBUG_CMA_PACKET_LIFETIME:-19}
case $plt in [0-9]|[12][0-9]|30) ;; *) echo "build-kernel: DEBUG_CMA_PACKET_LIFETIME must be 0-30" >&2; exit 2 ;; esac
key=$( { echo "$ver"; cat "$frag"; echo "CMA_IBOE_PACKET_LIFETIME $plt"; } | sha256sum | cut -c1-12)
out=$top/.cache/debug-kernel/${ver//[~:]/_}-$key
if [ "${1:-}" = --print ] || [ -e "$out/.done" ]; then
	echo "$out"; exit 0
fi

for t in flex bison bc gcc make perl depmod; do
	command -v "$t" > /dev/null || { echo "build-kernel: $t missing (make setup)" >&2; exit 1; }
done
mkdir -p "$top/.cache/debug-kernel"
exec 9> "$top/.cache/debug-kernel/.lock"   # two check-debug runs build it once
flock 9
[ -e "$out/.done" ] && { echo "$out"; exit 0; }

t0=$(date +%s)
rm -rf "$out"; mkdir -p "$out"
log=$out/build.log
echo "build-kernel: building the debug kernel in $out (log: $log); this takes 30-60 min" >&2
nice=(nice -n 19 ionice -c3)
{
	echo "== extract $pkg $ver"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$pkg.tar.xz" | xz -dc |
		"${nice[@]}" tar -x -C "$out"
	mv "$out/$pkg" "$out/linux"
	cd "$out/linux"
	echo "== CMA_IBOE_PACKET_LIFETIME $plt"
	sed -i -E "s/^(#define CMA_IBOE_PACKET_LIFETIME) [0-9]+\$/\1 $plt/" drivers/infiniband/core/cma.c
	grep -qx "#define CMA_IBOE_PACKET_LIFETIME $plt" drivers/infiniband/core/cma.c ||
		{ echo "build-kernel: CMA_IBOE_PACKET_LIFETIME not found in cma.c"; exit 1; }
	echo "== config"
	make -s defconfig
	KCONFIG_CONFIG=.config scripts/kconfig/merge_config.sh -m .config "$frag"
	make -s olddefconfig
	# every line of the fragment must have survived olddefconfig (a dependency missing
	# silently drops an option)
	bad=0
	while read -r l; do
		case $l in
		CONFIG_*=*) o=${l%%=*}; v=${l#*=}
			grep -qxF "$o=$v" .config || { echo "fragment: $l -> $(grep -E "^(# )?${o}[= ]" .config || echo absent)"; bad=1; } ;;
		"# CONFIG_"*" is not set") o=${l#\# }; o=${o%% *}
			grep -qE "^$o=" .config && { echo "fragment: $l -> $(grep -E "^$o=" .config)"; bad=1; } ;;
		esac
	done < "$frag"
	[ $bad = 0 ] || { echo "build-kernel: the fragment does not apply"; exit 1; }
	echo "== build"
	"${nice[@]}" make -j"${DEBUG_KERNEL_JOBS:-$(nproc)}" bzImage modules
	echo "== modules_install"
	"${nice[@]}" make -s INSTALL_MOD_PATH="$out/mods" INSTALL_MOD_STRIP=1 modules_install
	make -s kernelrelease > "$out/release"
	cp arch/x86/boot/bzImage "$out/bzImage"
} > "$log" 2>&1 || { echo "build-kernel: FAILED, tail of $log:" >&2; tail -n 30 "$log" >&2; exit 1; }
echo $(( $(date +%s) - t0 )) > "$out/build.time"
touch "$out/.done"
echo "build-kernel: done in $(cat "$out/build.time") s, release $(cat "$out/release")" >&2
echo "$out"
