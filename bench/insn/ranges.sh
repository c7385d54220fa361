#!/bin/bash
# ranges.sh BUCKET=MODULE[,MODULE...] ...: print the range table insn-meter wants (lines
# "BUCKET START END", hex, END exclusive) for the text of the named loaded modules. Runs in
# the guest as root (it reads /proc/vmallocinfo; /sys/module/*/sections needs root too).
#
# A module's text sections (/sys/module/M/sections/ .text, .text.*, .noinstr.text, ...; not
# .init.text, whose memory is freed after init) give addresses inside its text allocation;
# the vmalloc area that holds such an address (/proc/vmallocinfo) is the whole allocation,
# page-aligned, which is how the plugin counts. A module that is not loaded is skipped with
# a note on stderr; a section found in no vmalloc area gets its own page and a note.
# /proc/vmallocinfo shows real addresses only while kernel.kptr_restrict is 1 (0 hashes
# them): the script sets 1 for its read and puts the old value back.
# INSN_SYSMODULE and INSN_VMALLOCINFO replace /sys/module and /proc/vmallocinfo (tests).
#   ranges.sh ours=rtrs_client rxe=rdma_rxe ib=ib_core > /tmp/r && insn-mark ranges /tmp/r
set -u
[ $# -gt 0 ] || { echo "usage: ranges.sh BUCKET=MODULE[,MODULE...] ..." >&2; exit 2; }
sysmod=${INSN_SYSMODULE:-/sys/module} vmi=${INSN_VMALLOCINFO:-/proc/vmallocinfo}
kr=/proc/sys/kernel/kptr_restrict old=""
if [ -z "${INSN_VMALLOCINFO:-}" ] && [ -w "$kr" ] && [ "$(cat "$kr")" != 1 ]; then
	old=$(cat "$kr"); echo 1 > "$kr"
fi
areas=$(awk '{ split($1, a, "-"); print a[1], a[2] }' "$vmi"); rc=$?
[ -n "$old" ] && echo "$old" > "$kr"
[ $rc = 0 ] || { echo "ranges.sh: cannot read $vmi" >&2; exit 1; }
# hashed pointers would all lie below the kernel half
grep -q '^0xffff' <<< "$areas" || { echo "ranges.sh: $vmi shows no kernel addresses (kptr_restrict?)" >&2; exit 1; }
for spec in "$@"; do
	bucket=${spec%%=*} mods=${spec#*=}
	if [ "$bucket" = "$spec" ] || [ -z "$bucket" ] || [ -z "$mods" ]; then
		echo "ranges.sh: '$spec' is not BUCKET=MODULE[,MODULE...]" >&2; exit 2
	fi
	for m in ${mods//,/ }; do
		m=${m//-/_}
		d=$sysmod/$m/sections
		[ -e "$d/.text" ] || { echo "ranges.sh: module $m not loaded (or no .text): skipped" >&2; continue; }
		for s in "$d"/.text "$d"/.text.* "$d"/.*text "$d"/.altinstr_replacement; do
			case ${s##*/} in .init.text|.exit.text) continue ;; esac
			[ -e "$s" ] && cat "$s"
		done | sort -u | awk -v b="$bucket" -v m="$m" -v areas="$areas" '
			# awk has no 64-bit integers: addresses are compared as 16-digit hex strings
			function hex(s) { s = tolower(s); sub(/^0x/, "", s); while (length(s) < 16) s = "0" s; return s }
			function page_after(x,   i, c, carry, out) {   # x rounded down to 4 KiB, plus 4 KiB
				carry = 1; out = ""
				for (i = 13; i >= 1; i--) {
					c = index("0123456789abcdef", substr(x, i, 1)) - 1 + carry
					carry = c >= 16; out = substr("0123456789abcdef", c % 16 + 1, 1) out
				}
				return out "000"
			}
			BEGIN {
				n = split(areas, a, "\n")
				for (i = 1; i <= n; i++) { split(a[i], f, " "); lo[i] = hex(f[1]); hi[i] = hex(f[2]) }
			}
			{
				x = hex($1); k = ""
				for (i = 1; i <= n; i++) if (lo[i] <= x && x < hi[i]) { k = "0x" lo[i] " 0x" hi[i]; break }
				if (k == "") {
					print "ranges.sh: " m " section at 0x" x " is in no vmalloc area: its page only" > "/dev/stderr"
					k = "0x" substr(x, 1, 13) "000 0x" page_after(x)
				}
				if (!(k in seen)) { seen[k] = 1; print b, k }
			}'
	done
done
