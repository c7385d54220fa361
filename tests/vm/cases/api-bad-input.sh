# Case: the client API with bad input, from a test module (tests/kmod/rtrs-api-test.c) on
# the client next to our rtrs-client: invalid session names, path counts 0 and
# RTRS_MAX_PATHS + 1, NULL paths/dst, a name already in use (-EEXIST), opens to a port
# where no server listens and to an address on link0 where no host answers (an error, in
# bounded time), an oversized user message and data over max_io_size (-EMSGSIZE), then the
# path's sysfs "disconnect": rtrs_clt_query -ECOMM, rtrs_clt_request -ECONNABORTED. Every
# check is one "rtrs_api_test: PASS|FAIL" line in the client's kernel log; the module loads
# only if all passed, and no refused call may dump a stack. Our stack only.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=600
# The opens that cannot succeed must fail in bounded time; the module logs how long each
# took ("open to <addr> port <p> failed with <err> after <ms> ms"). Measured on this bed
# (ours-core-c61-s61, 2026-12-06): refused (no server on port 1299) 88 ms; no host at
# 198.18.0.9: 30144 ms (the connect's address resolution times out after 30 s). Bounds: 3 s for the
# refusal (a TCG stall of a few seconds fits; a retry with its 1 s backoff or any
# timeout-driven failure does not) and 40 s for the unanswered address (30 s + 10 s for
# TCG), times BED_TIMEOUT_SCALE (3 on the sanitizer kernel).
API_NOSERVER_MS=${API_NOSERVER_MS:-3000}
API_NOHOST_MS=${API_NOHOST_MS:-40000}
# api_bounds <module log>: rc 1 with the reason when an open is missing or took too long
api_bounds() {
	local what addr port bound ms sc=${BED_TIMEOUT_SCALE:-1}
	for what in "noserver ip:198.18.0.1 port 1299 $API_NOSERVER_MS" "nohost ip:198.18.0.9 port [0-9]* $API_NOHOST_MS"; do
		read -r what addr _ port bound <<< "$what"
		ms=$(echo "$1" | sed -n "s/.*rtrs_api_test: open to $addr port $port failed with -[0-9]* after \([0-9]*\) ms.*/\1/p" | tail -n 1)
		[ -n "$ms" ] || { echo "no timing line for the $what open ($addr)"; return 1; }
		echo "$what open ($addr): failed after $ms ms (bound $(( bound * sc )) ms)"
		[ "$ms" -le $(( bound * sc )) ] || { echo "the $what open took $ms ms, more than $(( bound * sc )) ms"; return 1; }
	done
}
run() {
	local ko id out rc log mb end
	step "build the test module for $CLIENT_KVER"
	ko=$("$BED_REPO/tests/kmod/build.sh" "$CLIENT_KVER") || fail "tests/kmod build failed"
	ours_fresh || fail "stale rtrs-client.ko"
	# shellcheck disable=SC2016 # expanded in the guest
	vm_run client 60 'insmod "$BED_OURS_KO" ${BED_OURS_PARAMS:-}' || fail "insmod rtrs-client failed"
	step "load it: bad-input checks, no server on 198.18.0.1 port 1299, no host at 198.18.0.9, a session to 198.18.0.1"
	id=$(vm_spawn client 420 "insmod $ko server=ip:198.18.0.1 noserver=ip:198.18.0.1 noserver_port=1299 nohost=ip:198.18.0.9 cut_wait=300")
	# until the module logs how its checks went, or its insmod ends first (it failed to load:
	# e.g. "disagrees about version of symbol" after a rebuild of build/): then at once
	mb=$(vm_share client)/mbox; end=$(( $(date +%s) + 320 * ${BED_TIMEOUT_SCALE:-1} ))
	until BED_TRACE=0 vm_run client 30 "dmesg | grep -Eq 'rtrs_api_test: (waiting|FAILED|ALL PASSED)'"; do
		if [ -e "$mb/$id.rc" ]; then
			out=$(vm_wait client "$id" 2>&1); rc=$?
			fail "insmod rtrs-api-test ended (rc $rc) before its session checks: $out $(vm_run client 30 "dmesg | grep rtrs_api_test | tail -n 5")"
		fi
		[ "$(date +%s)" -lt "$end" ] || fail "the module never got to its session checks"
		sleep 0.5
	done
	if vm_run client 30 "dmesg | grep -q 'rtrs_api_test: waiting'"; then
		step "disconnect the session's path through sysfs"
		# shellcheck disable=SC2016 # expanded in the guest
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
	out=$(api_bounds "$log") || fail "unbounded error: $out"
	note "$out"
	# a refused call must not dump a stack either (the runner's scan does not look for that);
	# rc 0 only if grep ran (1: no match): a failed vm_run prints nothing, that is no pass
	out=$(vm_run client 30 "dmesg | awk '/rtrs-bed: BEGIN/ { p = 0 } /BEGIN $BED_SUITE\/api-bad-input/ { p = 1 } p' |
		grep -E 'Call Trace|cannot create duplicate|kobject_add_internal failed'; [ \$? -le 1 ]") ||
		fail "could not read the client's kernel log: $out"
	[ -z "$out" ] || fail "stack dump or sysfs complaint in the client's log: $out"
	vm_run client 60 'rmmod rtrs_api_test && rmmod rtrs_client' || fail "unload failed"
}
