# Case: malformed writes to every writable file of /sys/class/rtrs-client/<sess>/ (session:
# add_path, mpath_policy, max_reconnect_attempts; path: reconnect, disconnect, remove_path;
# stats/*), with the session mapped over two paths and idle. tests/vm/guest/sysfs-badinput.py
# holds the table (empty, whitespace, huge, negative, overflowing, unknown keywords, trailing
# junk, bad addresses, duplicate and unreachable paths): each write must fail with the errno
# the ABI doc gives, within 5 s (an unreachable add_path: 45 s, the doc's 30 s + margin), and
# leave every file reading as before. Works with CLIENT_STACK=upstream too (the oracle).
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=900
. "$BED_REPO/tests/vm/lib/mp.sh"
run() {
	local dev out rc
	step "map /dev/nullb0 over link0 and link1 ($CLIENT_STACK stack)"
	dev=$(mp_map bed-bad /dev/nullb0) || fail "map over two paths failed"
	step "malformed writes"
	out=$(vm_run client 800 "/usr/bin/python3 \$BED_REPO/tests/vm/guest/sysfs-badinput.py bed-bad $CLIENT_STACK"); rc=$?
	echo "$out" > "$BED_CASE_DIR/badinput-$CLIENT_STACK.txt"
	echo "$out" | grep -v '^ok '
	note "$(echo "$out" | tail -n 1) (table: ${BED_CASE_DIR#"$BED_REPO"/}/badinput-$CLIENT_STACK.txt)"
	[ $rc = 0 ] || fail "malformed writes: $(echo "$out" | grep -c '^FAIL') rows failed"
	step "the session still works: both paths connected, data check"
	mp_run 30 "mp_state_is bed-bad 0 connected && mp_state_is bed-bad 1 connected" || fail "a path is not connected"
	vm_run client 120 "set -e
		dd if=/dev/urandom of=/tmp/bad bs=1M count=4 status=none
		dd if=/tmp/bad of=$dev bs=1M oflag=direct status=none
		dd if=$dev of=/tmp/badb bs=1M count=4 iflag=direct status=none
		cmp /tmp/bad /tmp/badb" || fail "data check failed"
	vm_run client 120 "rnbd_unmap $dev" || fail "unmap failed"
	client_unload || fail "client stack did not unload"
}
