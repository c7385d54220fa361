# Case: cable pull seen by the client stack (CLIENT_STACK): map /dev/nullb1 over link0,
# write a pattern, cut link0 on both VMs (QMP set_link), the path must go `disconnected`
# (or I/O must fail), restore the link, the path must come back `connected` (upstream with
# rnbd defaults needs ~60 s after link-on: budget 180 s), and the data must read back intact.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=900
run() {
	local dev t_off t_on out
	step "load client stack: $CLIENT_STACK, map /dev/nullb1 over link0"
	client_load || fail "client stack $CLIENT_STACK did not load"
	dev=$(vm_run client 180 rnbd_map bed-lc /dev/nullb1 path=ip:198.18.0.1) || fail "map failed: $dev"
	vm_run client 120 "set -e
		dd if=/dev/urandom of=/tmp/lcpat bs=1M count=16 status=none
		dd if=/tmp/lcpat of=$dev bs=1M oflag=direct status=none
		dd if=$dev of=/tmp/lcback bs=1M count=16 iflag=direct status=none
		cmp /tmp/lcpat /tmp/lcback" || fail "data check before the cut failed"
	vm_run client 30 "path_states bed-lc; path_state_is bed-lc connected" || fail "path not connected before the cut"

	step "cut link0"
	link_set link0 off || fail "link_set failed"
	t_off=$(date +%s)
	# either the path is declared down, or (still up) a 4k read fails or times out
	out=$(vm_run client 200 "wait_for 150 path_state_is bed-lc disconnected && { path_states bed-lc; exit 0; }
		echo 'path still up; trying I/O'; path_states bed-lc
		timeout 30 dd if=$dev of=/dev/null bs=4k count=1 iflag=direct && exit 1; exit 0") ||
		fail "neither the path went down nor did I/O fail with link0 cut: $out"
	echo "$out"
	note "client noticed the cut after $(( $(date +%s) - t_off ))s (host clock, polling granularity ~1 s)"
	out=$(vm_run client 60 "timeout 40 dd if=$dev of=/dev/null bs=4k count=1 iflag=direct 2>&1; echo rc=\$?")
	note "4k read while cut: $(echo "$out" | tr '\n' ' ')"
	bed_sleep 10 || fail "a VM died while the link was cut"

	step "restore link0"
	link_set link0 on || fail "link_set failed"
	t_on=$(date +%s)
	vm_run client 220 "wait_for 180 path_state_is bed-lc connected; rc=\$?; path_states bed-lc; cat /sys/class/rtrs-client/bed-lc/paths/*/stats/reconnects; exit \$rc" ||
		fail "path not connected 180 s after link-on"
	note "path connected again $(( $(date +%s) - t_on ))s after link-on"

	step "data intact + new I/O"
	vm_run client 240 "set -e
		wait_for 60 dd if=$dev of=/dev/null bs=4k count=1 iflag=direct status=none
		dd if=$dev of=/tmp/lcback2 bs=1M count=16 iflag=direct status=none
		cmp /tmp/lcpat /tmp/lcback2
		dd if=/dev/urandom of=/tmp/lcpat2 bs=1M count=4 status=none
		dd if=/tmp/lcpat2 of=$dev bs=1M seek=20 oflag=direct status=none
		dd if=$dev of=/tmp/lcback3 bs=1M skip=20 count=4 iflag=direct status=none
		cmp /tmp/lcpat2 /tmp/lcback3" || fail "data after reconnect is wrong or I/O failed"
	step "unmap + unload"
	vm_run client 120 "rnbd_unmap $dev" || fail "unmap failed"
	client_unload || fail "client stack did not unload"
}
