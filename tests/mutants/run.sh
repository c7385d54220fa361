#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/mutants/run.sh [--host-only] [--worktree] [--list] [name...]: `make check-mutants` (issue 20, tests
# that cannot lie). Each tests/mutants/<name>.patch breaks one feature of our code; its header
# (the lines before the diff, which patch ignores) names what it breaks and which check must
# catch it:
#
#   Breaks: <one line>
#   Caught-by: unit | host:<tests/host script> | vm:<suite>/<case> [VAR=value...]
#   Expect: <extended regex the failing check's output must contain>
#
# For each mutant (all, or those named; --host-only: only unit and host ones): copy the tree of
# the commit checked out (git archive HEAD: others' uncommitted edits in a shared work tree are
# not what is tested; --worktree takes the tracked files (git ls-files) as they are in the work
# tree instead) to build/mutants/<name>/src, apply the patch there (exactly: no fuzz; a patch that no longer applies is a "stale mutant", an
# ERROR), build what the check needs and run it:
#   unit     make -C tests/unit run, in the copy
#   host:X   bash tests/host/X, in the copy
#   vm:S/C   the mutated module for the suite's client kernel (scripts/kernels.sh) into
#            build/mutants/<name>/<kver>/, rnbd-client against it into .../rnbd-<kver>/, then
#            the repo's tests/vm/run-suite.sh S C with BED_OURS_BUILD / BED_OURS_RNBD_KO
#            pointing there and RUN_ID=mutant-<name> (results/mutant-<name>/, replaced)
# One line per mutant: "KILLED <name> (<check>, <secs>s)" when the check failed and its output
# matched Expect; "SURVIVED <name> ..." when it passed (a missing test); "ERROR <name> ..."
# when the patch did not apply, the build failed, or the check failed some other way. Last
# line: "N killed, N survived, N errors". Exit 0 only if every mutant run was killed.
# Logs: build/mutants/<name>/{apply,build,check}.log. VM mutants wait for the bed lock
# (one bed at a time, tests/vm/lib/boot.sh). Never touches build/<kver>/ or the sources.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
mdir=$top/tests/mutants
hostonly=0 list=0 worktree=0 names=()
while [ $# -gt 0 ]; do
	case $1 in
	--host-only) hostonly=1 ;;
	--list) list=1 ;;
	--worktree) worktree=1 ;;
	-h | --help) sed -n '2,30p' "$0"; exit 0 ;;
	-*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	*) names+=("${1%.patch}") ;;
	esac
	shift
done

# field <patch> <name>: the header line "<name>: value" before the diff
field() { sed -n -e '/^diff \|^--- /q' -e "s/^$2: *//p" "$1" | head -n 1; }

if [ $list = 1 ]; then
	for p in "$mdir"/*.patch; do
		printf '%-24s %-60s %s\n' "$(basename "$p" .patch)" "$(field "$p" Caught-by)" "$(field "$p" Breaks)"
	done
	exit 0
fi

# Everything a fresh Debian 12 machine lacks (compilers, kernels + headers, QEMU, patch through
# dkms's dpkg-dev) first.
scripts/setup.sh >&2 || { echo "run.sh: scripts/setup.sh failed" >&2; exit 2; }
for t in git patch make cc timeout; do
	command -v "$t" >/dev/null || { echo "run.sh: $t is missing" >&2; exit 2; }
done

if [ ${#names[@]} -eq 0 ]; then
	for p in "$mdir"/*.patch; do names+=("$(basename "$p" .patch)"); done
fi
killed=0 survived=0 errors=0 skipped=()
if [ $worktree = 1 ]; then
	echo "mutants against the work tree (tracked files) at $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ', with uncommitted changes')" >&2
else
	echo "mutants against commit $(git rev-parse --short HEAD)" >&2
fi
el() { echo $(( $(date +%s) - $1 )); }

# copy_tree <dir>: HEAD's tree, or with --worktree the tracked files as they are in the work
# tree (build/ and .cache/ are not tracked)
copy_tree() {
	rm -rf "$1" && mkdir -p "$1" || return 1
	if [ $worktree = 1 ]; then
		git ls-files -z | tar --null -T - --ignore-failed-read -cf - 2>/dev/null | tar -xf - -C "$1"
	else
		git archive HEAD | tar -xf - -C "$1"
	fi
}

# run_vm <name> <out> <src> <suite/case> <env...>: build for the suite's client kernel and
# run the case; stdout/stderr go to the caller's log. rc 3: build failed.
run_vm() {
	local name=$1 out=$2 src=$3 sc=$4 suite case kv rc res
	shift 4
	suite=${sc%%/*} case=${sc#*/}
	if [ ! -r "tests/vm/suites/$suite.sh" ] || [ ! -r "tests/vm/cases/$case.sh" ]; then
		echo "run.sh: no suite $suite or case $case"; return 3
	fi
	# the client kernel: CLIENT_KVER / CLIENT_SERIES from the mutant's env, else the suite's
	kv=$(for e in "$@"; do export "${e?}"; done
		if [ -n "${CLIENT_KVER:-}" ]; then echo "$CLIENT_KVER"; exit 0; fi
		cs=${CLIENT_SERIES:-}
		# shellcheck source=/dev/null # the suite named by the mutant
		. "tests/vm/suites/$suite.sh" >/dev/null 2>&1
		scripts/kernels.sh "${cs:-${CLIENT_SERIES:-}}")
	[ -n "$kv" ] || { echo "run.sh: no kernel for the client of suite $suite"; return 3; }
	echo "== build rtrs-client.ko for $kv into ${out#"$top"/}/$kv"
	make -s -C "$src" KVER="$kv" BUILD="$out/$kv" >"$out/build.log" 2>&1 ||
		{ tail -n 30 "$out/build.log"; return 3; }
	# the copy's build-peer.sh (its include/rtrs.h) with the repo's linux-source cache
	ln -sfn "$top/.cache" "$src/.cache"
	OURS_BUILD=$out OURS_RNBD_OUT=$out/rnbd-$kv PEER_ONLY=ours \
		"$src/tests/peer/build-peer.sh" "$kv" >>"$out/build.log" 2>&1 ||
		{ tail -n 30 "$out/build.log"; return 3; }
	res=$top/results/mutant-$name
	rm -rf "$res"
	echo "== $sc ($*) against ${out#"$top"/}/$kv/rtrs-client.ko, results in ${res#"$top"/}"
	env "$@" CLIENT_KVER="$kv" BED_OURS_BUILD="$out" \
		BED_OURS_RNBD_KO="$out/rnbd-$kv/rnbd-client.ko" RUN_ID="mutant-$name" CI=true \
		tests/vm/run-suite.sh "$suite" "$case" 2>&1
	rc=$?
	# what the case saw: its log, the kernel problems the runner found, the verdicts
	for f in "$res/$suite"/cases/*/log.txt "$res/$suite"/cases/*/kernel-problems.txt \
		"$res/$suite"/cases/*/results.txt; do
		[ -e "$f" ] && { echo "== ${f#"$top"/}"; cat "$f"; }
	done
	return $rc
}

# lock_wait <results/<run>/<suite>/<case>>: seconds between "waiting" for the bed lock and
# the boot in the suite's boot.log; nothing if it did not wait
lock_wait() {
	local b=${1%/*}/boot.log t1 t2
	t1=$(sed -n 's/^\[\([0-9:]*\)\] another bed run holds.*/\1/p' "$b" 2>/dev/null | head -n 1)
	t2=$(sed -n 's/^\[\([0-9:]*\)\] booting .*/\1/p' "$b" 2>/dev/null | head -n 1)
	{ [ -n "$t1" ] && [ -n "$t2" ]; } || return 0
	t1=$(date -d "$t1" +%s) t2=$(date -d "$t2" +%s) || return 0
	[ "$t2" -ge "$t1" ] || t2=$((t2 + 86400))
	echo $((t2 - t1))
}

for name in "${names[@]}"; do
	patch=$mdir/$name.patch
	if [ ! -r "$patch" ]; then
		echo "ERROR $name (no $patch)"; errors=$((errors + 1)); continue
	fi
	breaks=$(field "$patch" Breaks) by=$(field "$patch" Caught-by) expect=$(field "$patch" Expect)
	if [ -z "$breaks" ] || [ -z "$by" ] || [ -z "$expect" ]; then
		echo "ERROR $name (header lacks Breaks:, Caught-by: or Expect:)"; errors=$((errors + 1)); continue
	fi
	read -r check env_words <<<"$by"
	envs=()
	[ -n "$env_words" ] && read -r -a envs <<<"$env_words"
	if [ $hostonly = 1 ] && [ "${check%%:*}" = vm ]; then
		skipped+=("$name"); continue
	fi
	out=$top/build/mutants/$name src=$top/build/mutants/$name/src
	mkdir -p "$out"; rm -f "$out"/*.log
	t0=$(date +%s)
	echo "... $name: $breaks [$by]" >&2
	if ! copy_tree "$src"; then
		echo "ERROR $name (could not copy the tree to ${src#"$top"/})"; errors=$((errors + 1)); continue
	fi
	if ! patch -p1 -d "$src" --batch --forward --fuzz=0 --no-backup-if-mismatch -r - \
		-i "$patch" >"$out/apply.log" 2>&1; then
		echo "ERROR $name (stale mutant: the patch no longer applies, see ${out#"$top"/}/apply.log)"
		errors=$((errors + 1)); continue
	fi
	log=$out/check.log rc=0
	case $check in
	unit)
		if ! make -s -C "$src/tests/unit" all >"$out/build.log" 2>&1; then
			echo "ERROR $name (unit tests did not build, see ${out#"$top"/}/build.log)"
			errors=$((errors + 1)); continue
		fi
		env "${envs[@]}" timeout 600 make -s -C "$src/tests/unit" run >"$log" 2>&1 || rc=$? ;;
	host:*)
		h=$src/tests/host/${check#host:}
		[ -r "$h" ] || { echo "ERROR $name (no host test ${check#host:})"; errors=$((errors + 1)); continue; }
		(cd "$src" && env "${envs[@]}" timeout 900 bash "$h") >"$log" 2>&1 || rc=$? ;;
	vm:*)
		run_vm "$name" "$out" "$src" "${check#vm:}" "${envs[@]}" >"$log" 2>&1 || rc=$?
		if [ $rc = 3 ]; then
			echo "ERROR $name (build for the VM check failed, see ${out#"$top"/}/check.log)"
			errors=$((errors + 1)); continue
		fi ;;
	*)
		echo "ERROR $name (unknown Caught-by: $by)"; errors=$((errors + 1)); continue ;;
	esac
	secs=$(el "$t0") waited=""
	if [ "${check%%:*}" = vm ]; then
		# the part of it spent waiting for another bed run (boot.log: the wait, then the boot)
		w=$(lock_wait "$top/results/mutant-$name/${check#vm:}")
		[ -n "$w" ] && waited=", ${w}s of it waiting for the bed lock"
	fi
	if [ $rc = 0 ]; then
		echo "SURVIVED $name ($by passed with the mutant, ${secs}s$waited: a missing test)"
		survived=$((survived + 1))
	elif grep -Eq -- "$expect" "$log"; then
		echo "KILLED $name ($by, ${secs}s$waited)"
		killed=$((killed + 1))
	else
		echo "ERROR $name ($by failed (rc $rc) but without /$expect/, ${secs}s: see ${log#"$top"/})"
		errors=$((errors + 1))
	fi
done
[ ${#skipped[@]} -eq 0 ] || echo "skipped (--host-only): ${skipped[*]}" >&2
echo "$killed killed, $survived survived, $errors errors"
[ $survived = 0 ] && [ $errors = 0 ] && [ $killed -gt 0 ]
