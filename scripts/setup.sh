#!/bin/bash
# setup.sh: idempotent, quiet installer of every Debian 12 package the project needs
# (kernels + headers for both target series, QEMU, busybox, RDMA userland, fio, build
# tools, glib's headers and curl for bench/insn's QEMU plugin). Installs only what is
# missing; runs `apt-get update` once when the package lists are missing or older than a
# day. Called by `make setup` and, before they look for the kernels, by every entry point:
# tests/check.sh, tests/demo.sh, tests/vm/run-suite.sh, tests/debug/check-debug.sh,
# bench/run.sh, scripts/lint.sh.
#
# QEMU comes from Debian's bookworm-backports (10.0 there; bookworm itself has 7.2), which
# this script adds as an apt source when needed: under QEMU 7.2's TCG, 6.12 guests
# double-faulted in about one `make check` in two (tests/README.md, Known issues).
# BED_STOCK_QEMU=1 keeps bookworm's QEMU and adds no source.
set -u
PKGS=(linux-image-amd64 linux-headers-amd64 linux-image-6.12-amd64 linux-headers-6.12-amd64
      qemu-system-x86 busybox-static rdma-core ibverbs-utils libibverbs-dev librdmacm-dev fio perftest sparse dkms nvme-cli
      procps xz-utils zstd cpio kmod iproute2 bc flex bison libelf-dev libssl-dev python3 gcc make
      shellcheck libglib2.0-dev curl)
export DEBIAN_FRONTEND=noninteractive

BPO=bookworm-backports
# qemu_ok: the installed QEMU is the one the bed wants
qemu_ok() {
	local v
	v=$(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null) || return 1
	[ "${BED_STOCK_QEMU:-0}" = 1 ] || dpkg --compare-versions "$v" ge 1:10
}

missing=() need_bpo=0
for p in "${PKGS[@]}"; do
	[ "$p" = qemu-system-x86 ] && [ "${BED_STOCK_QEMU:-0}" != 1 ] && { qemu_ok || need_bpo=1; continue; }
	s=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)
	[ "$s" = installed ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && [ $need_bpo = 0 ] && exit 0

[ "$(id -u)" = 0 ] || { echo "setup.sh: missing packages (${missing[*]}); run as root" >&2; exit 1; }
echo "setup.sh: installing ${missing[*]}$([ $need_bpo = 1 ] && echo " qemu-system-x86 (from $BPO)")"
# Refresh the package lists once if there are none or they are older than a day, or when
# the backports source is new.
lists=$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' -mtime -1 2>/dev/null | head -n 1)
if [ $need_bpo = 1 ] && ! grep -rqs "$BPO" /etc/apt/sources.list /etc/apt/sources.list.d/; then
	echo "setup.sh: adding Debian's $BPO to /etc/apt/sources.list.d/ (for QEMU 10)"
	printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\n' "$BPO" \
		> /etc/apt/sources.list.d/$BPO.sources
	lists=""
fi
[ $need_bpo = 1 ] && ! ls /var/lib/apt/lists/*_"$BPO"_*Packages* >/dev/null 2>&1 && lists=""
if [ -z "$lists" ]; then
	apt-get update -qq >/dev/null || { echo "setup.sh: apt-get update failed" >&2; exit 1; }
fi
if [ ${#missing[@]} -gt 0 ]; then
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
		{ echo "setup.sh: apt-get install failed for: ${missing[*]}" >&2; exit 1; }
fi
if [ $need_bpo = 1 ]; then
	apt-get install -y -qq --no-install-recommends -t "$BPO" qemu-system-x86 >/dev/null ||
		{ echo "setup.sh: QEMU from $BPO failed to install" >&2; exit 1; }
fi
echo "setup.sh: done"
