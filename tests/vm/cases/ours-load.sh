# Case: our module (build/<client kver>/rtrs-client.ko) loads in the client host, registers
# the rtrs-client class, and unloads cleanly; twice, to catch leftovers of the first round.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=300
run() {
	local i out
	vm_run client 30 '! lsmod | grep -q "^rtrs_client "' || fail "a rtrs_client module is already loaded"
	ours_fresh || fail "no fresh build of our module"
	# shellcheck disable=SC2016 # expanded in the guest
	vm_run client 10 'test -e "$BED_OURS_KO"' || fail "our module is not built for $CLIENT_KVER (make KVER=$CLIENT_KVER)"
	for i in 1 2; do
		step "round $i: insmod our rtrs-client.ko"
		# shellcheck disable=SC2016 # expanded in the guest
		out=$(vm_run client 60 'insmod "$BED_OURS_KO"' 2>&1) || fail "insmod failed: $out"
		vm_run client 30 'test -d /sys/class/rtrs-client && lsmod | grep "^rtrs_client "' ||
			fail "/sys/class/rtrs-client missing after insmod"
		step "round $i: rmmod"
		out=$(vm_run client 60 'rmmod rtrs_client' 2>&1) || fail "rmmod failed: $out"
		vm_run client 30 'test ! -e /sys/class/rtrs-client' || fail "/sys/class/rtrs-client left behind"
	done
	note "taint: $(vm_run client 10 'cat /proc/sys/kernel/tainted')"
}
