#!/bin/bash
# kernels.sh [6.1|6.12]: print the installed Debian 12 kernel versions the project targets
# (the newest 6.1.0-*-amd64 and the newest 6.12.*+deb12-amd64 with headers), one a line.
# Versions are discovered, never hard-coded: Debian bumps the ABI number regularly.
set -euo pipefail
pick() {
	find /lib/modules -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null |
		grep -E "$1" | while read -r v; do
			[ -e "/lib/modules/$v/build/Makefile" ] && [ -r "/boot/vmlinuz-$v" ] && echo "$v"
		done | sort -V | tail -n 1
}
want=${1:-all}
[ "$want" = all ] || [ "$want" = 6.1 ] && pick '^6\.1\.0-[0-9]+-amd64$'
[ "$want" = all ] || [ "$want" = 6.12 ] && pick '^6\.12\.[0-9]+\+deb12-amd64$'
exit 0
