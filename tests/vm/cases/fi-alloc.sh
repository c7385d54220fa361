# Case: allocation failures in OUR module (needs the debug kernel: make check-debug; on a
# kernel without the failslab/fail_page_alloc stack filter, or a build of our module without
# debugfs fail_post, it fails: a skipped injection is not a pass).
# failslab and fail_page_alloc are scoped to rtrs-client's text, so only allocations made
# from our code (and what it calls: ib_core, rxe) fail:
# - session open: map with the n-th allocation failing, n = 1, 2, ... 64, then in steps of
#   an eighth (tests/vm/guest/fi.sh, _fi_next) until the map makes fewer than n allocations:
#   each map returns an error (or absorbs the failure and works), leaves no session behind;
# - add_path of link1's path, same sweep: an error, no path directory left, link0 serves I/O;
# - sysfs reconnect of link1's path, same sweep (the writer makes the attempt, so its
#   connect's allocations are the ones that fail): the path connects again by itself;
# - random failures (10 %) while link1 is cut and restored (reconnect work), then off: both
#   paths connect by themselves, data is intact;
# - our own injection point: 2 % of work request posts fail (debugfs rtrs-client/fail_post)
#   under I/O for 40 s (I/O errors allowed), then off: paths connect again by themselves,
#   I/O works.
# The runner's kmemleak scan after the case must find no leak. FI_MAX (150) bounds the tries
# of each sweep. Nothing here may pass without injecting: a sweep fails unless it found
# allocations in scope, armed fail-nth every time, saw an injected failure returned as an
# error and reached the end of the operation's allocations before FI_MAX; the random and
# fail_post phases fail unless the attributes' `times` counters show injections; a
# probability that cannot be set fails. Recovery is never helped by a manual reconnect: a
# path that does not come back by itself fails the case (guest/fi.sh).
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=3600
. "$BED_REPO/tests/vm/lib/mp.sh"
S=bed-fi
fi_run() { local t=$1; shift; vm_run client "$t" ". \"\$BED_REPO/tests/vm/guest/fi.sh\"; . \"\$BED_REPO/tests/vm/guest/mp.sh\"; $*"; }
run() {
	local out dev max=${FI_MAX:-150} inj0 inj1
	fi_run 10 fi_have || fail "no failslab/fail_page_alloc with a stack filter in $CLIENT_KVER (run it on the debug kernel: make check-debug)"
	[ "$CLIENT_STACK" = ours ] || fail "this case tests our module: CLIENT_STACK=ours"
	client_load || fail "client stack did not load"
	fi_run 30 "fi_scope rtrs_client" || fail "could not scope fault injection to rtrs_client"

	step "session open (map) with the n-th allocation of rtrs-client failing"
	out=$(fi_run 1500 "fi_sweep_map $S $max; rc=\$?; echo injection reports logged so far: \$(fi_count); exit \$rc") ||
		{ fi_run 10 fi_off; fail "map sweep: $out"; }
	note "$out"

	step "map over link0 without injection; add_path sweep"
	dev=$(vm_run client 180 rnbd_map $S /dev/nullb0 "$MP_S0") || fail "clean map failed after the sweep: $dev"
	out=$(fi_run 1500 "fi_sweep_add_path $S $dev $max; rc=\$?; echo injection reports logged so far: \$(fi_count); exit \$rc") ||
		{ fi_run 10 fi_off; fail "add_path sweep: $out"; }
	note "$out"

	step "add link1's path without injection; sysfs reconnect sweep"
	out=$(fi_run 150 "echo ip:198.18.1.1 > /sys/class/rtrs-client/$S/add_path && wait_for 60 mp_state_is $S 1 connected") ||
		fail "clean add_path failed: $out"
	# each failed reconnect waits for the automatic one (~31 s): longer than the other sweeps
	out=$(fi_run 3000 "fi_sweep_reconnect $S $dev $max; rc=\$?; echo injection reports logged so far: \$(fi_count); exit \$rc") ||
		{ fi_run 10 fi_off; fail "reconnect sweep: $out"; }
	note "$out"

	step "random failures (10 %) while link1 is cut for 15 s and back for 45 s"
	inj0=$(fi_run 10 fi_injected) || fail "cannot read the injection counters"
	fi_run 10 "fi_random 10" || fail "fi_random failed"
	link_set link1 off || fail "link_set failed"
	bed_sleep 15
	link_set link1 on || fail "link_set failed"
	bed_sleep 45
	fi_run 10 "fi_off" || fail "could not turn the random failures off"
	inj1=$(fi_run 10 fi_injected) || fail "cannot read the injection counters"
	note "random phase: $(( inj1 - inj0 )) failures injected"
	[ "$inj1" -gt "$inj0" ] || fail "the random phase injected no failure: it tested nothing"
	out=$(fi_run 400 "wait_for 180 mp_state_is $S 1 connected; rc=\$?; mp_summary $S; exit \$rc") ||
		fail "link1's path did not come back by itself after the random failures: $out"
	note "$out"
	out=$(fi_run 300 "mp_state_is $S 0 connected && _fi_io $dev && dd if=/dev/urandom of=/tmp/fi-big bs=1M count=8 status=none &&
		dd if=/tmp/fi-big of=$dev bs=1M oflag=direct status=none && dd if=$dev of=/tmp/fi-big2 bs=1M count=8 iflag=direct status=none &&
		cmp /tmp/fi-big /tmp/fi-big2 && echo data ok") || fail "I/O after the injection failed: $out"

	step "post failures (debugfs rtrs-client/fail_post, 2 %) under I/O for 40 s, then off"
	out=$(fi_run 10 "fi_post 2; echo rc=\$?")
	[ "$out" != rc=2 ] || fail "no rtrs-client/fail_post in this build (CONFIG_FAULT_INJECTION_DEBUG_FS)"
	[ "$out" = rc=0 ] || { fi_run 10 "fi_post 0"; fail "could not set up rtrs-client/fail_post: $out"; }
	out=$(fi_run 400 "fi_io_loop $dev 40; n=\$(fi_post_injected); fi_post 0 || { echo fail_post could not be turned off; exit 1; }
		echo injected=\$n; [ \${n:-0} -gt 0 ]") ||
		{ fi_run 10 "fi_post 0"; fail "I/O loop under fail_post (or nothing injected): $(echo "$out" | tr '\n' ' ')"; }
	note "I/O rounds under fail_post: $(echo "$out" | tr '\n' ' ')"
	out=$(fi_run 600 "for l in 0 1; do wait_for 180 mp_state_is $S \$l connected || exit 1; done; mp_summary $S") ||
		fail "paths did not come back by themselves after fail_post: $out"
	note "$out"
	fi_run 300 "_fi_io $dev" || fail "I/O after fail_post failed"

	step "unmap, unload, unscope"
	fi_run 30 fi_unscope
	vm_run client 120 "rnbd_unmap $dev" || fail "unmap failed"
	client_unload || fail "client stack did not unload"
}
