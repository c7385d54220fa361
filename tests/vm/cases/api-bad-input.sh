# Case: the client API with bad input, from a test module (tests/kmod/rtrs-api-test.c) on
# the client next to our rtrs-client: invalid session names, path counts 0 and
# RTRS_MAX_PATHS + 1, NULL paths/dst, a name already in use (-EEXIST), opens to a port
# where no server listens and to an address on link0 where no host answers (an error, in
# bounded time), an oversized user message and data over max_io_size (-EMSGSIZE), then the
# path's sysfs "disconnect": rtrs_clt_query -ECOMM, rtrs_clt_request -ECONNABORTED. Every
# check is one "rtrs_api_test: PASS|FAIL" line in the client's kernel log; the module loads
# only if all passed, and no refused call may dump a stack. Our stack only.
CASE_TIMEOUT=600
run() {
	local ko id out rc log
	step "build the test module for $CLIENT_KVER"
	ko=$("$BED_REPO/tests/kmod/build.sh" "$CLIENT_KVER") || fail "tests/kmod build failed"
	ours_fresh || fail "stale rtrs-client.ko"
	vm_run client 60 'insmod "$BED_OURS_KO" ${BED_OURS_PARAMS:-}' || fail "insmod rtrs-client failed"
	step "load it: bad-input checks, no server on 198.18.0.1 port 1299, no host at 198.18.0.9, a session to 198.18.0.1"
	id=$(vm_spawn client 420 "insmod $ko server=ip:198.18.0.1 noserver=ip:198.18.0.1 noserver_port=1299 nohost=ip:198.18.0.9 cut_wait=300")
	vm_run client 330 "wait_for 320 sh -c 'dmesg | grep -Eq \"rtrs_api_test: (waiting|FAILED|ALL PASSED)\"'" ||
		fail "the module never got to its session checks"
	if vm_run client 30 "dmesg | grep -q 'rtrs_api_test: waiting'"; then
		step "disconnect the session's path through sysfs"
		vm_run client 60 'p=$(ls -d /sys/class/rtrs-client/apitest/paths/*/); echo "$p"
			echo 1 > "$p/disconnect"' || fail "disconnect through sysfs failed"
	fi
	out=$(vm_wait client "$id" 2>&1); rc=$?
	log=$(vm_run client 30 "dmesg | grep 'rtrs_api_test: '")
	echo "$log"
	[ "$rc" = 0 ] || fail "insmod rtrs-api-test: rc $rc: $out"
	echo "$log" | grep -q 'FAIL' && fail "a check failed"
	echo "$log" | grep -q 'rtrs_api_test: ALL PASSED' || fail "no verdict line"
	note "$(echo "$log" | grep -c 'rtrs_api_test: PASS') checks passed"
	# a refused call must not dump a stack either (the runner's scan does not look for that)
	out=$(vm_run client 30 "dmesg | awk '/rtrs-bed: BEGIN/ { p = 0 } /BEGIN $BED_SUITE\/api-bad-input/ { p = 1 } p' |
		grep -E 'Call Trace|cannot create duplicate|kobject_add_internal failed'")
	[ -z "$out" ] || fail "stack dump or sysfs complaint in the client's log: $out"
	vm_run client 60 'rmmod rtrs_api_test && rmmod rtrs_client' || fail "unload failed"
}
