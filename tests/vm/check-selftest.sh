#!/bin/bash
# check-selftest.sh: the bed's failure detection, checked (one test of `make check`).
# Runs the suite `bed-selftest-c61-s61` (tests/vm/suites/bed-selftest-c61-s61.sh), whose
# every case is built to FAIL, and passes only if each case failed, and failed for its own
# reason: a case that passes means the bed can no longer see that kind of failure, and a
# case that fails for another reason (the bed did not boot, a typo) proves nothing.
#   selftest-warn     a WARNING: line in the kernel log during the case -> the log scan
#   selftest-cleanup  a WARNING: line during the runner's cleanup       -> the log scan
#   selftest-crash    the server kernel crashes                         -> the watchdog
#   rnbd-data         after that                                       -> not run
# Env: RUN_ID (results/<RUN_ID>/bed-selftest-c61-s61/). Exit 0 when every case failed as expected.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
export RUN_ID=${RUN_ID:-$(date +%Y%m%d-%H%M%S)-selftest}
suite=bed-selftest-c61-s61
dir=$top/results/$RUN_ID/$suite
# expect <case>: an extended regexp its FAIL line must match
expect() {
	case $1 in
	selftest-warn|selftest-cleanup) echo 'kernel log problems' ;;
	selftest-crash) echo 'server dead' ;;
	rnbd-data) echo "^FAIL $suite/rnbd-data 0s not run: server dead" ;;
	*) return 1 ;;
	esac
}
# what the kernel-problems.txt of a log-scan case must show: the case's own line
expect_log() {
	case $1 in
	selftest-warn) echo 'WARNING: bed self-test line$' ;;
	selftest-cleanup) echo 'WARNING: bed self-test line from the cleanup' ;;
	*) return 1 ;;
	esac
}
# the suite's own list, unless CASES overrides it as run-suite.sh would
# shellcheck source=tests/vm/suites/bed-selftest-c61-s61.sh disable=SC2153 # it sets CASES
cases=$(unset CASES; . "tests/vm/suites/$suite.sh"; echo "$CASES")
bad=0
for c in $cases; do
	expect "$c" > /dev/null || { echo "check-selftest: no expectation for case $c (add one here)"; bad=1; }
done
[ $bad = 0 ] || exit 1

# CASES and stack/kernel overrides of the caller would change what is tested
mkdir -p "$dir"
env -u CASES -u CLIENT_STACK -u SERVER_KVER -u CLIENT_KVER -u SERVER_SERIES -u CLIENT_SERIES \
	CI=true tests/vm/run-suite.sh "$suite" > "$dir/runner.out" 2> "$dir/runner.err"
rc=$?
cat "$dir/runner.out"
# 1: some case failed (all should have); 0: all passed; 2: the runner itself failed
if [ "$rc" != 1 ] || [ ! -s "$dir/results.txt" ]; then
	echo "check-selftest: runner rc $rc (want 1):"; tail -n 5 "$dir/runner.err"; exit 1
fi
n=0
for c in $cases; do
	n=$((n + 1))
	line=$(grep -E "^(PASS|FAIL) $suite/$c " "$dir/results.txt")
	if [ -z "$line" ]; then
		echo "check-selftest: $c: no result"; bad=1; continue
	fi
	case $line in
	PASS*) echo "check-selftest: $c PASSED: the bed no longer detects what it provokes"; bad=1; continue ;;
	esac
	if ! echo "$line" | grep -qE "$(expect "$c")"; then
		echo "check-selftest: $c failed, but not for the expected reason (/$(expect "$c")/): $line"; bad=1; continue
	fi
	if want=$(expect_log "$c"); then
		kp=$(printf '%s/cases/%02d-%s/kernel-problems.txt' "$dir" "$n" "$c")
		grep -qE "$want" "$kp" 2>/dev/null ||
			{ echo "check-selftest: $c: its own line (/$want/) is not what the scan found (${kp#"$top"/})"; bad=1; continue; }
	fi
	echo "check-selftest: $c failed as expected"
done
[ $bad = 0 ] && echo "check-selftest: all $n cases failed as expected"
exit $bad
