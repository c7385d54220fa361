#!/bin/bash
# run-case.sh <case-file>: run one test case in a fresh shell with the bed helpers
# (tests/vm/lib/bed.sh) loaded; exit status = the case's result (0 = pass).
# Started by tests/vm/run-suite.sh with the bed's environment exported.
set -u
. "$BED_REPO/tests/vm/lib/bed.sh"
# shellcheck source=/dev/null # the case file named by the runner
. "$1" || { echo "cannot source $1"; exit 2; }
declare -F run >/dev/null || { echo "$1 defines no run()"; exit 2; }
run
