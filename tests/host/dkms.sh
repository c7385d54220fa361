#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/host/dkms.sh: package the tree with Debian's dkms (dkms.conf at the top) and
# add/build/install it for every target kernel; check that dkms reports it installed and
# that modinfo -k and modprobe --show-depends resolve rtrs-client to .../updates/dkms/.
# Then dkms remove --all and undo everything else this test created (the source copy in
# /usr/src, dkms's tree, a module signing key dkms generated, empty updates/ dirs), so the
# host is left as it was. Needs root.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1

[ "$(id -u)" -eq 0 ] || { echo "SKIP: dkms.sh needs root"; exit 1; }
command -v dkms >/dev/null || { echo "FAIL: dkms is not installed (apt-get install dkms)"; exit 1; }

# shellcheck disable=SC1091
name=$(set +u; . ./dkms.conf && echo "$PACKAGE_NAME")
ver=$(set +u; . ./dkms.conf && echo "$PACKAGE_VERSION")
{ [ -n "$name" ] && [ -n "$ver" ]; } || { echo "FAIL: dkms.conf has no name/version"; exit 1; }
srcdir=/usr/src/$name-$ver
marker=.rtrs-dkms-host-test
kvers=$(scripts/kernels.sh)
[ -n "$kvers" ] || { echo "FAIL: no target kernel (scripts/kernels.sh)"; exit 1; }

# Leftovers of an earlier, interrupted run of this test are ours to clean; anything else
# of the same name is not, and the test refuses to touch it.
if [ -e "$srcdir" ] && [ ! -e "$srcdir/$marker" ]; then
	echo "FAIL: $srcdir exists and is not from this test; not touching it"; exit 1
fi
if [ -e "$srcdir/$marker" ]; then
	echo "note: cleaning up an earlier run"
	dkms remove -m "$name" -v "$ver" --all >/dev/null 2>&1
	rm -rf "$srcdir" "/var/lib/dkms/$name"
fi
if [ -n "$(dkms status -m "$name" 2>/dev/null)" ]; then
	echo "FAIL: dkms already knows $name:"; dkms status -m "$name"; exit 1
fi

# What the host has now, to put back afterwards
key=/var/lib/dkms/mok.key
pub=/var/lib/dkms/mok.pub
had_key=0; [ -e "$key" ] && had_key=1
had_pub=0; [ -e "$pub" ] && had_pub=1
declare -A had_upd had_dkms
for k in $kvers; do
	had_upd[$k]=0; [ -d "/lib/modules/$k/updates" ] && had_upd[$k]=1
	had_dkms[$k]=0; [ -d "/lib/modules/$k/updates/dkms" ] && had_dkms[$k]=1
done
log=$(mktemp -d /tmp/rtrs-dkms.XXXXXX)
added=0

cleanup() {
	if [ $added -eq 1 ]; then
		dkms remove -m "$name" -v "$ver" --all >"$log/remove-trap.log" 2>&1
	fi
	rm -rf "$srcdir" "/var/lib/dkms/$name"
	[ $had_key -eq 1 ] || rm -f "$key"
	[ $had_pub -eq 1 ] || rm -f "$pub"
	for k in $kvers; do
		[ "${had_dkms[$k]}" -eq 1 ] || rmdir "/lib/modules/$k/updates/dkms" 2>/dev/null
		[ "${had_upd[$k]}" -eq 1 ] || rmdir "/lib/modules/$k/updates" 2>/dev/null
	done
	rm -rf "$log"
}
trap cleanup EXIT

fail=0
bad() { echo "FAIL $*"; fail=1; }

# --- the source copy dkms expects in /usr/src/<name>-<version> ----------------------------
mkdir -p "$srcdir"
cp -a Makefile Kbuild dkms.conf include ./*.c ./*.h "$srcdir/" || { bad "copy to $srcdir"; exit 1; }
touch "$srcdir/$marker"
echo "ok   copied the module source to $srcdir"

if ! dkms add -m "$name" -v "$ver" >"$log/add.log" 2>&1; then
	bad "dkms add:"; cat "$log/add.log"; exit 1
fi
added=1
echo "ok   dkms add $name/$ver"

for k in $kvers; do
	if ! dkms build -m "$name" -v "$ver" -k "$k" >"$log/build-$k.log" 2>&1; then
		bad "$k: dkms build:"; tail -n 20 "$log/build-$k.log"
		tail -n 30 "/var/lib/dkms/$name/$ver/build/make.log" 2>/dev/null
		continue
	fi
	echo "ok   $k: dkms build"
	if ! dkms install -m "$name" -v "$ver" -k "$k" >"$log/install-$k.log" 2>&1; then
		bad "$k: dkms install:"; tail -n 20 "$log/install-$k.log"; continue
	fi
	echo "ok   $k: dkms install"

	st=$(dkms status -m "$name" -v "$ver" -k "$k" 2>/dev/null)
	case "$st" in
	*": installed"*) echo "ok   $k: dkms status: $st" ;;
	*) bad "$k: dkms status: '$st'" ;;
	esac

	path=$(modinfo -k "$k" -n "$name" 2>&1)
	case "$path" in
	"/lib/modules/$k/updates/dkms/$name.ko"*) echo "ok   $k: modinfo -k resolves to $path" ;;
	*) bad "$k: modinfo -k resolves to '$path'"; continue ;;
	esac
	vm=$(modinfo -k "$k" -F vermagic "$name" 2>&1)
	case "$vm" in
	"$k "*) echo "ok   $k: vermagic $vm" ;;
	*) bad "$k: vermagic '$vm'" ;;
	esac

	dep=$(modprobe -S "$k" --show-depends "$name" 2>&1)
	if printf '%s\n' "$dep" | tail -n 1 | grep -q "^insmod $path *\$"; then
		echo "ok   $k: modprobe --show-depends ends with $path"
		printf '%s\n' "$dep" | sed 's/^/       /'
	else
		bad "$k: modprobe --show-depends:"; printf '  %s\n' "$dep"
	fi
done

# --- remove, and check that it is gone -------------------------------------------------
if dkms remove -m "$name" -v "$ver" --all >"$log/remove.log" 2>&1; then
	added=0
	echo "ok   dkms remove --all"
else
	bad "dkms remove --all:"; cat "$log/remove.log"
fi
if [ -n "$(dkms status -m "$name" 2>/dev/null)" ]; then
	bad "dkms still lists $name: $(dkms status -m "$name")"
fi
for k in $kvers; do
	if left=$(modinfo -k "$k" -n "$name" 2>/dev/null); then
		bad "$k: still resolvable after remove: $left"
	else
		echo "ok   $k: $name no longer resolvable"
	fi
done

cleanup
trap - EXIT
for k in $kvers; do
	[ "${had_dkms[$k]}" -eq 1 ] || [ ! -e "/lib/modules/$k/updates/dkms" ] ||
		bad "$k: /lib/modules/$k/updates/dkms left behind"
done
[ -e "$srcdir" ] && bad "$srcdir left behind"
[ $had_key -eq 1 ] || [ ! -e "$key" ] || bad "$key left behind"
[ $fail -eq 0 ] && echo "ok   host cleaned up (source copy, dkms tree, signing key, dirs)"

if [ $fail -ne 0 ]; then
	echo "dkms.sh: FAILED"
	exit 1
fi
echo "dkms.sh: PASSED"
