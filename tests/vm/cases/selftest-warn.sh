# Bed self-test (EXPECTED TO FAIL): writes a WARNING: line into the client's kernel log;
# the post-case kernel log scan must fail this case.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=120
run() { vm_run client 30 'echo "WARNING: bed self-test line" > /dev/kmsg'; }
