#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# lint.sh <files...>: the static checks of `make lint`.
#
#  1. For each target kernel (scripts/kernels.sh): a clean W=1 C=2 build (gcc extra
#     warnings, kernel-doc, sparse on every file) in build/lint-<kver>/, apart from the
#     test builds. Any warning or error line in its output is a finding (the harmless
#     "Skipping BTF generation" note of out-of-tree builds is ignored).
#  2. checkpatch.pl --strict --no-tree -f on every file given (from the 6.12 linux-source
#     package, see scripts/linux-source.sh). Every ERROR, WARNING and CHECK is a finding.
#  2b. kernel-doc -none -Wall (the newest target kernel's headers' script) on every .c and .h file given,
#     headers included: missing, excess or misplaced (e.g. "Return:" inside a line) items.
#  3. shellcheck (all severities, settings in .shellcheckrc) on every shell file of the
#     repository: *.sh, or a first line naming sh/bash, outside .git/ .cache/ build/
#     results/. Every note is a finding; where the code is right, the file says so with a
#     `# shellcheck disable=SCxxxx # reason` on the line before.
#
# Prints the findings and a short summary; exits 1 if there is any finding.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
[ $# -gt 0 ] || { echo "usage: scripts/lint.sh <files...>" >&2; exit 2; }
# the kernels, sparse and shellcheck it uses are among what setup.sh installs (a no-op when
# everything is there)
scripts/setup.sh || { echo "lint: scripts/setup.sh failed"; exit 2; }

findings=0
summary=()
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Lines of a kernel build log that are findings
build_findings() {
	grep -v 'Skipping BTF generation' "$1" |
		grep -Ei 'warning|error|\*\*\*|undefined!|not found' || true
}

# --- 1. builds ---------------------------------------------------------------------------
if ! command -v sparse >/dev/null; then
	echo "lint: sparse is not installed (apt-get install sparse)"
	summary+=("sparse: MISSING")
	findings=$((findings + 1))
fi

kvers=$(scripts/kernels.sh)
[ -n "$kvers" ] || { echo "lint: no target kernel found (scripts/kernels.sh)"; exit 2; }
for kver in $kvers; do
	dir=$top/build/lint-$kver
	log=$tmp/build-$kver.log
	rm -rf "$dir"
	make --no-print-directory BUILD="$dir" KVER="$kver" W=1 C=2 >"$log" 2>&1
	rc=$?
	found=$(build_findings "$log" | sed "s|$dir/||g")
	n=0
	[ -z "$found" ] || n=$(printf '%s\n' "$found" | wc -l)
	if [ $rc -ne 0 ] && [ "$n" -eq 0 ]; then
		found="make exited with $rc (last lines of the log follow)"$'\n'$(tail -n 5 "$log")
		n=1
	fi
	if [ "$n" -gt 0 ]; then
		echo "=== build $kver (W=1 C=2): $n finding(s)"
		printf '%s\n' "$found"
		summary+=("build $kver: $n finding(s)")
	else
		summary+=("build $kver: clean")
	fi
	findings=$((findings + n))
done

# --- 2. checkpatch -----------------------------------------------------------------------
src=$(scripts/linux-source.sh 6.12) || { echo "lint: no linux-source 6.12"; exit 2; }
cp_pl=$src/scripts/checkpatch.pl
[ -r "$cp_pl" ] || { echo "lint: $cp_pl missing"; exit 2; }

# lint_each <label> <file-filter glob> <finder> <files...>: run <finder> <file> on every
# matching file given; each line it prints is a finding. Adds to findings and summary.
lint_each() {
	local label=$1 glob=$2 finder=$3 f found n total=0 files=0
	shift 3
	for f in "$@"; do
		# shellcheck disable=SC2254 # the glob is a pattern on purpose
		case $f in $glob) ;; *) continue ;; esac
		[ -f "$f" ] || continue
		files=$((files + 1))
		found=$("$finder" "$f")
		[ -n "$found" ] || continue
		n=$(printf '%s\n' "$found" | wc -l)
		echo "=== $label $f: $n finding(s)"
		printf '%s\n' "$found"
		total=$((total + n))
	done
	summary+=("$label: $files file(s), $total finding(s)")
	findings=$((findings + total))
}

checkpatch_one() {
	# run outside the git tree: checkpatch leaves a CamelCase cache file in a git cwd
	(cd "$tmp" && perl "$cp_pl" --strict --no-tree -f --terse --show-types \
		--no-summary "$top/$1" 2>&1) | grep -E ': (ERROR|WARNING|CHECK):' | sed "s|$top/||"
}
lint_each "checkpatch --strict" "*" checkpatch_one "$@"

# --- 2b. kernel-doc -Wall -----------------------------------------------------------------
# The W=1 builds check the kernel-doc of the .c files they compile, without -Wall (a
# "Return:" that is not its own section passes) and never the headers: run it on every C
# file and header given, with every warning (missing and excess members included).
# (the headers package of the newest target kernel carries the script)
kd_pl=
for kver in $kvers; do
	[ -r "/lib/modules/$kver/build/scripts/kernel-doc" ] && kd_pl=/lib/modules/$kver/build/scripts/kernel-doc
done
[ -n "$kd_pl" ] || { echo "lint: no scripts/kernel-doc in the kernel headers of: $kvers"; exit 2; }
kerneldoc_one() { perl "$kd_pl" -none -Wall "$1" 2>&1; }
lint_each "kernel-doc -Wall" "*.[ch]" kerneldoc_one "$@"

# --- 3. shellcheck -----------------------------------------------------------------------
# shell_files: every shell file of the tree, one a line
shell_files() {
	find . \( -path ./.git -o -path ./.cache -o -path ./build -o -path ./results \) -prune -o \
		-type f -print | sed 's|^\./||' | sort | while read -r f; do
		case $f in *.sh|*.bash) echo "$f"; continue ;; esac
		head -n 1 "$f" 2>/dev/null | grep -qE '^#!.*\<(ba|da)?sh\>' && echo "$f"
	done
}
if command -v shellcheck >/dev/null; then
	mapfile -t shf < <(shell_files)
	found=$(shellcheck -f gcc "${shf[@]}" 2>&1)
	n=0
	[ -z "$found" ] || n=$(printf '%s\n' "$found" | wc -l)
	if [ "$n" -gt 0 ]; then
		echo "=== shellcheck: $n finding(s)"
		printf '%s\n' "$found"
	fi
	summary+=("shellcheck: ${#shf[@]} file(s), $n finding(s)")
	findings=$((findings + n))
else
	echo "lint: shellcheck is not installed (apt-get install shellcheck)"
	summary+=("shellcheck: MISSING")
	findings=$((findings + 1))
fi

echo "=== lint summary"
printf '  %s\n' "${summary[@]}"
if [ $findings -gt 0 ]; then
	echo "lint: FAILED, $findings finding(s)"
	exit 1
fi
echo "lint: OK"
