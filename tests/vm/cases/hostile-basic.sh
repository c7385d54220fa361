# Case: the hostile peer (tests/hostile/hostile-peer.c, a user-space RTRS server on the server
# VM's rxe) with no mutation: the upstream rtrs-server is unloaded, the peer serves rnbd from a
# 64 MiB memory buffer. Map it through the suite's client stack, write 4 MiB of random data at
# two offsets, read both back and compare, unmap, unload, and check the peer's summary (no
# protocol complaint, no completion error, the bytes it moved). Proves the peer before the
# mutation cases judge the client with it.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=600
. "$BED_REPO/tests/hostile/bed-hostile.sh"
run() {
	local dev out sum
	trap hostile_cleanup EXIT
	step "build the hostile peer; unload the upstream server; start the peer (no mutation)"
	hostile_build || fail "make -C tests/hostile failed"
	hostile_start none || fail "hostile-peer did not start"
	step "load client stack: $CLIENT_STACK"
	client_load || fail "client stack $CLIENT_STACK did not load"
	step "map the peer's device"
	dev=$(vm_run client 180 rnbd_map hn-basic /dev/hostile0 path=ip:198.18.0.1) || fail "map failed: $dev"
	note "mapped as $dev, $(vm_run client 10 "cat /sys/block/${dev#/dev/}/size") sectors; $(vm_run client 10 'path_states hn-basic')"
	step "write 4 MiB random at offsets 0 and 40 MiB, read back, compare"
	out=$(vm_run client 300 "set -e
		dd if=/dev/urandom of=/tmp/hpat bs=1M count=4 status=none
		dd if=/tmp/hpat of=$dev bs=1M oflag=direct status=none
		dd if=/tmp/hpat of=$dev bs=64k seek=640 oflag=direct status=none
		dd if=$dev of=/tmp/hback bs=1M count=4 iflag=direct status=none
		cmp /tmp/hpat /tmp/hback
		dd if=$dev of=/tmp/hback2 bs=4k skip=10240 count=1024 iflag=direct status=none
		cmp /tmp/hpat /tmp/hback2
		md5sum < /tmp/hpat | cut -d' ' -f1") || fail "write/read/compare failed: $out"
	note "read back identical, md5 $out"
	step "unmap + unload"
	vm_run client 120 "rnbd_unmap $dev" || fail "unmap failed"
	client_unload || fail "client stack did not unload"
	sum=$(hostile_stop basic)
	echo "$sum"
	echo "$sum" | grep -q 'SUMMARY requests=' || fail "no summary from the peer"
	echo "$sum" | grep -q 'PROTOCOL\|WC_ERROR' && fail "the peer saw protocol or completion errors"
	echo "$sum" | grep -q 'bytes_written=0 ' && fail "the peer stored nothing"
	trap - EXIT
	true
}
