#!/bin/bash
# fetch-qemu-api.sh [CACHE]: make sure CACHE (default <repo>/.cache/qemu-plugin-api) holds
# include/qemu/qemu-plugin.h of the QEMU source that matches the installed qemu-system-x86,
# and print the folder to add to the include path (CACHE/<upstream-version>/include).
#
# The header is not shipped by any Debian binary package, so it is taken from the qemu
# source package's .orig tarball, downloaded from the pool folder of the mirror apt is
# configured with (the folder of the installed binary package, as `apt-get download
# --print-uris` names it). Only the header and QEMU's VERSION file are kept; the tarball
# is deleted. Checks: the tarball's VERSION equals the version `qemu-system-x86_64
# --version` prints, and the header defines QEMU_PLUGIN_VERSION.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache=${1:-$(cd "$here/../.." && pwd)/.cache/qemu-plugin-api}
die() { echo "fetch-qemu-api: $*" >&2; exit 1; }

deb_ver=$(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null) ||
	die "qemu-system-x86 is not installed (make setup)"
up=${deb_ver#*:}        # drop the epoch
up=${up%-*}             # drop the Debian revision: 10.0.2+ds
qver=${up%%+*}          # QEMU's own version: 10.0.2
run_ver=$(qemu-system-x86_64 --version | sed -n '1s/^QEMU emulator version \([0-9.]*\).*/\1/p')
[ "$run_ver" = "$qver" ] || die "qemu-system-x86_64 says '$run_ver', the package says '$qver'"

dst=$cache/$qver
hdr=$dst/include/qemu/qemu-plugin.h
if [ ! -s "$hdr" ]; then
	uri=$(apt-get download --print-uris "qemu-system-x86=$deb_ver" 2>/dev/null |
		sed -n "1s/^'\([^']*\)'.*/\1/p")
	[ -n "$uri" ] || die "apt-get download --print-uris found no URI for qemu-system-x86=$deb_ver"
	orig=${uri%/*}/qemu_${up}.orig.tar.xz
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/qemu-api.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	echo "fetch-qemu-api: downloading $orig" >&2
	curl -fsS --retry 2 -o "$tmp/orig.tar.xz" "$orig" || die "download of $orig failed"
	tar -xJf "$tmp/orig.tar.xz" -C "$tmp" "qemu-$qver/include/qemu/qemu-plugin.h" "qemu-$qver/VERSION" ||
		die "the tarball has no qemu-$qver/include/qemu/qemu-plugin.h"
	[ "$(cat "$tmp/qemu-$qver/VERSION")" = "$qver" ] ||
		die "the tarball's VERSION is $(cat "$tmp/qemu-$qver/VERSION"), not $qver"
	mkdir -p "$dst/include/qemu"
	cp "$tmp/qemu-$qver/VERSION" "$dst/VERSION"
	sha256sum "$tmp/orig.tar.xz" | sed "s|$tmp/orig.tar.xz|qemu_${up}.orig.tar.xz|" > "$dst/SHA256SUMS"
	cp "$tmp/qemu-$qver/include/qemu/qemu-plugin.h" "$hdr.tmp"
	mv "$hdr.tmp" "$hdr"
fi
grep -q '^#define QEMU_PLUGIN_VERSION [0-9]' "$hdr" || die "$hdr defines no QEMU_PLUGIN_VERSION"
echo "$dst/include"
