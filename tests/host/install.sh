#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/host/install.sh: `make install` into a staging root for every target kernel, then
# check that depmod and modprobe of that root resolve rtrs-client to .../updates/.
# Nothing outside the staging root (a temp dir) and build/<kver>/ is touched.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
stage=$(mktemp -d /tmp/rtrs-install.XXXXXX)
trap 'rm -rf "$stage"' EXIT
fail=0

kvers=$(scripts/kernels.sh)
[ -n "$kvers" ] || { echo "FAIL: no target kernel (scripts/kernels.sh)"; exit 1; }
for kver in $kvers; do
	log=$stage/make-$kver.log
	# what depmod -b expects besides the modules: take the real kernel's lists
	mkdir -p "$stage/lib/modules/$kver"
	for f in modules.builtin modules.builtin.modinfo modules.order; do
		if [ -f "/lib/modules/$kver/$f" ]; then
			cp "/lib/modules/$kver/$f" "$stage/lib/modules/$kver/"
		else
			: >"$stage/lib/modules/$kver/$f"
		fi
	done
	if ! make install KVER="$kver" INSTALL_MOD_PATH="$stage" >"$log" 2>&1; then
		echo "FAIL $kver: make install failed:"; tail -n 20 "$log"; fail=1; continue
	fi
	# the kernel's config may compress modules on install (6.12: .ko.xz)
	ko=$(find "$stage/lib/modules/$kver/updates" -maxdepth 1 -name 'rtrs-client.ko*' \
		2>/dev/null | head -n 1)
	if [ -z "$ko" ]; then
		echo "FAIL $kver: no updates/rtrs-client.ko* installed:"
		find "$stage/lib/modules/$kver" -name '*.ko*' | sed 's/^/  /'
		fail=1; continue
	fi
	echo "ok   $kver: installed ${ko#"$stage"}"
	# make install already ran depmod -b; run it again as the test of record
	if ! depmod -b "$stage" "$kver"; then
		echo "FAIL $kver: depmod -b failed"; fail=1; continue
	fi
	rel=${ko#"$stage/lib/modules/$kver/"}
	if ! grep -q "^$rel:" "$stage/lib/modules/$kver/modules.dep"; then
		echo "FAIL $kver: modules.dep has no $rel"; fail=1; continue
	fi
	echo "ok   $kver: modules.dep lists $rel"
	dep=$(modprobe -d "$stage" -S "$kver" --show-depends rtrs-client 2>&1) || {
		echo "FAIL $kver: modprobe --show-depends: $dep"; fail=1; continue; }
	if ! printf '%s\n' "$dep" | grep -q "^insmod $ko *\$"; then
		echo "FAIL $kver: modprobe resolves elsewhere:"; printf '  %s\n' "$dep"; fail=1; continue
	fi
	echo "ok   $kver: modprobe --show-depends resolves to $rel"
	# the module's own dependencies (ib_core, rdma_cm, ...) come from the staging root
	# only if installed there; the real kernel's are not copied, so just show them
	printf '%s\n' "$dep" | sed 's/^/       /'
	info=$(modinfo -b "$stage" -k "$kver" -F vermagic rtrs-client 2>/dev/null || true)
	case "$info" in
	"$kver "*) echo "ok   $kver: vermagic $info" ;;
	*) echo "FAIL $kver: vermagic '$info'"; fail=1 ;;
	esac
done

if [ $fail -ne 0 ]; then
	echo "install.sh: FAILED"
	exit 1
fi
echo "install.sh: PASSED"
