# Case: server_reload works: reload rtrs-server with always_invalidate=N, check the
# parameter, run a data check through the suite's client stack, unmap. The runner restores
# the default server parameters afterwards.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=600
run() {
	local dev p
	step "reload rtrs-server with always_invalidate=N"
	server_reload always_invalidate=N || fail "server_reload failed"
	p=$(vm_run server 10 cat /sys/module/rtrs_server/parameters/always_invalidate) || fail "no parameter file"
	[ "$p" = N ] || fail "always_invalidate is '$p', expected N"
	step "data check with always_invalidate=N"
	client_load || fail "client stack $CLIENT_STACK did not load"
	dev=$(vm_run client 180 rnbd_map bed-srl /dev/nullb0) || fail "map failed"
	vm_run client 200 "set -e
		dd if=/dev/urandom of=/tmp/srl bs=1M count=8 status=none
		dd if=/tmp/srl of=$dev bs=1M oflag=direct status=none
		dd if=$dev of=/tmp/srlb bs=1M count=8 iflag=direct status=none
		cmp /tmp/srl /tmp/srlb" || fail "data check failed"
	vm_run client 120 "rnbd_unmap $dev" || fail "unmap failed"
}
