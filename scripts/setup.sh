#!/bin/bash
# setup.sh: idempotent, quiet installer of every Debian 12 package the project needs
# (kernels + headers for both target series, QEMU, busybox, RDMA userland, fio, build
# tools). Installs only what is missing; runs `apt-get update` once when the package
# lists are missing or older than a day. Called by `make setup`, tests/check.sh, tests/demo.sh.
set -u
PKGS=(linux-image-amd64 linux-headers-amd64 linux-image-6.12-amd64 linux-headers-6.12-amd64
      qemu-system-x86 busybox-static rdma-core ibverbs-utils fio perftest sparse dkms nvme-cli
      xz-utils zstd cpio kmod iproute2 bc flex bison libelf-dev libssl-dev python3 gcc make)
export DEBIAN_FRONTEND=noninteractive

missing=()
for p in "${PKGS[@]}"; do
	s=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)
	[ "$s" = installed ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

[ "$(id -u)" = 0 ] || { echo "setup.sh: missing packages (${missing[*]}); run as root" >&2; exit 1; }
echo "setup.sh: installing ${missing[*]}"
# Refresh the package lists once if there are none or they are older than a day.
lists=$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' -mtime -1 2>/dev/null | head -n 1)
if [ -z "$lists" ]; then
	apt-get update -qq >/dev/null || { echo "setup.sh: apt-get update failed" >&2; exit 1; }
fi
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
	{ echo "setup.sh: apt-get install failed for: ${missing[*]}" >&2; exit 1; }
echo "setup.sh: done"
