# Bed self-test (EXPECTED TO FAIL): leaves a guest process behind that writes a WARNING:
# line into the client's kernel log only when the runner's cleanup stops it
# (bed_client_down kills what /tmp/*.pid names). The case itself returns 0 with a clean
# log: only a kernel log scan that covers the cleanup fails it.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=120
run() {
	# the loop waits in `wait`, so the TERM trap runs at once, not after a sleep
	# shellcheck disable=SC2016 # expanded in the guest
	vm_run client 30 '( trap "echo \"WARNING: bed self-test line from the cleanup\" > /dev/kmsg; exit 0" TERM
		while :; do sleep 1 & wait $!; done ) > /dev/null 2>&1 < /dev/null &
		echo $! > /tmp/selftest-cleanup.pid'
	bed_sleep 2
	# nothing logged yet: the warning must come from the cleanup
	vm_run client 30 '! dmesg | grep -q "bed self-test line from the cleanup"' ||
		fail "the warning was logged before the cleanup"
}
