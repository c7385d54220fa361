# Bed self-test (EXPECTED TO FAIL): crashes the server kernel (sysrq c) and then waits on
# it; the watchdog must declare the server dead within seconds, fail this case and make
# the runner skip the remaining cases of the suite.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=600
run() {
	vm_spawn server 30 'sleep 2; echo c > /proc/sysrq-trigger' > /dev/null
	vm_run server 500 'sleep 400'
}
