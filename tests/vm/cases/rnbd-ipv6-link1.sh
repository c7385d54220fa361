# Case: the second link and IPv6: map /dev/nullb1 through the suite's client stack over
# link1 by IPv6 (fd18:1::1), check the path name, 8 MiB data check, unmap, unload.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=600
run() {
	local dev out
	client_load || fail "client stack $CLIENT_STACK did not load"
	dev=$(vm_run client 180 rnbd_map bed-v6 /dev/nullb1 path=ip:fd18:1::1) || fail "map over IPv6/link1 failed"
	out=$(vm_run client 30 path_states bed-v6) || fail "no path state"
	note "path: $out"
	echo "$out" | grep -q 'fd18:1::2@ip:fd18:1::1 connected' || fail "unexpected path name/state: $out"
	vm_run client 200 "set -e
		dd if=/dev/urandom of=/tmp/v6 bs=1M count=8 status=none
		dd if=/tmp/v6 of=$dev bs=1M oflag=direct status=none
		dd if=$dev of=/tmp/v6b bs=1M count=8 iflag=direct status=none
		cmp /tmp/v6 /tmp/v6b" || fail "data check failed"
	vm_run client 120 "rnbd_unmap $dev" || fail "unmap failed"
	client_unload || fail "client stack did not unload"
}
