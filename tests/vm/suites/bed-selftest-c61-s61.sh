# Suite: self-test of the bed's failure detection. EVERY case here must FAIL, each for its
# own reason (tests/vm/check-selftest.sh checks them; make check runs it):
# selftest-warn (kernel log scan), selftest-cleanup (the scan covers the runner's cleanup),
# selftest-crash (dead guest, fast), rnbd-data (not run after a death).
# shellcheck disable=SC2034 # every variable here is read by tests/vm/run-suite.sh
SERVER_SERIES=6.1
CLIENT_SERIES=6.1
CLIENT_STACK=upstream
CASES="selftest-warn selftest-cleanup selftest-crash rnbd-data"
