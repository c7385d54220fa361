# Case: rnbd data check with the suite's client stack (CLIENT_STACK) against the upstream
# server: map /dev/nullb0 over link0, write 32 MiB of random data, read it back and compare
# on the client, compare the md5 of the server's nullb0, unmap, unload.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=600
run() {
	local dev cmd5 smd5
	step "load client stack: $CLIENT_STACK"
	client_load || fail "client stack $CLIENT_STACK did not load"
	step "map /dev/nullb0 of 198.18.0.1"
	dev=$(vm_run client 180 rnbd_map bed-data /dev/nullb0 path=ip:198.18.0.1) || fail "map failed: $dev"
	note "mapped as $dev"
	vm_run client 30 "path_states bed-data; cat /sys/block/${dev#/dev/}/size" || fail "no session state"
	step "write 32 MiB random, read back, compare"
	cmd5=$(vm_run client 300 "set -e
		dd if=/dev/urandom of=/tmp/pat bs=1M count=32 status=none
		dd if=/tmp/pat of=$dev bs=1M oflag=direct status=none
		dd if=$dev of=/tmp/back bs=1M count=32 iflag=direct status=none
		cmp /tmp/pat /tmp/back
		md5sum < /tmp/pat | cut -d' ' -f1") || fail "write/read/compare failed: $cmd5"
	note "client md5 $cmd5"
	smd5=$(vm_run server 120 "dd if=/dev/nullb0 bs=1M count=32 iflag=direct status=none | md5sum | cut -d' ' -f1") ||
		fail "server md5 failed"
	note "server md5 $smd5"
	[ "$cmd5" = "$smd5" ] || fail "server nullb0 md5 $smd5 != client data md5 $cmd5"
	step "unmap + unload"
	vm_run client 120 "rnbd_unmap $dev" || fail "unmap failed"
	client_unload || fail "client stack did not unload"
}
