# Suite: self-test of the bed's failure detection. EVERY case here must FAIL:
# selftest-warn (kernel log scan), selftest-crash (dead guest, fast), rnbd-data (not run).
SERVER_SERIES=6.1
CLIENT_SERIES=6.1
CLIENT_STACK=upstream
CASES="selftest-warn selftest-crash rnbd-data"
