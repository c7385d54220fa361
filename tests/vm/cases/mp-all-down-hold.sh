# Case: every path of a session lost while the session holds I/O (issue 21): the two-path
# version of outage-hold's ride. Map /dev/nullb0 over link0 and link1 at the default
# io_hold_sec (180 s), write a 16 MiB pattern, run the crc32c-verifying fio loop, then cut
# both links (the client's ends) for HOLD_PULL_S (40 s), restore link0, then link1:
# - while both are cut the session holds (debugfs hold: "state holding"), and no I/O error
#   reaches fio or the kernel log, during the outage or after it;
# - link0's path connects again, the hold ends by that reconnect (debugfs: one more outage
#   "resumed", none "expired", requests held), fio finishes HOLD_ROUNDS more verified rounds
#   within HOLD_BACK_S of link0 coming back (link1 still cut), then link1's path joins, and
#   the pattern reads back intact.
# Our stack only (upstream has no hold: its I/O fails, mp-all-down).
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=1200
. "$BED_REPO/tests/vm/lib/mp.sh"
HOLD_PULL_S=${HOLD_PULL_S:-40}
# a pulled path reconnects ~60-100 s after the link is back (an attempt made during the
# pull times out after 30 s, the next one follows 30 s later; outage-hold measured 99 s),
# then the held requests go out and fio needs its rounds: 240 s, TCG margin included
HOLD_BACK_S=${HOLD_BACK_S:-240}
HOLD_ROUNDS=${HOLD_ROUNDS:-2}
hold_field() { # <field>: a value of the session's debugfs hold file
	vm_run client 10 "awk '\$1 == \"$1\" { print \$2 }' /sys/kernel/debug/rtrs-client/bed-mph/hold"
}
run() {
	local dev out t0 r0 n0 held0 res0 exp0 held1 res1 exp1 errs
	[ "$CLIENT_STACK" = ours ] || fail "this case tests our client's hold (CLIENT_STACK=$CLIENT_STACK)"
	step "map /dev/nullb0 over link0 and link1, write a pattern, start fio verify"
	dev=$(mp_map bed-mph /dev/nullb0) || fail "map over two paths failed"
	out=$(vm_run client 10 cat /sys/class/rtrs-client/bed-mph/io_hold_sec) || fail "no io_hold_sec: $out"
	[ "$out" = 180 ] || fail "io_hold_sec is $out, not the default 180"
	mp_start_io "$dev" mph "the cut"
	if ! { n0=$(hold_field outages) && res0=$(hold_field resumed) &&
	       exp0=$(hold_field expired) && held0=$(hold_field held_total); }; then
		fail "no debugfs hold counters"
	fi

	step "cut link0 and link1 for ${HOLD_PULL_S}s"
	{ link_set link0 off "$MP_CUT_ENDS" && link_set link1 off "$MP_CUT_ENDS"; } || fail "link_set failed"
	t0=$(date +%s)
	out=$(mp_run 60 "wait_for 45 grep -qx 'state holding' /sys/kernel/debug/rtrs-client/bed-mph/hold; rc=\$?
		mp_summary bed-mph; cat /sys/kernel/debug/rtrs-client/bed-mph/hold; exit \$rc") ||
		{ echo "$out"; fail "the session did not start holding within 45 s of the cut"; }
	echo "$out"
	note "holding $(( $(date +%s) - t0 )) s after the cut"
	sleep $(( HOLD_PULL_S - ($(date +%s) - t0) > 0 ? HOLD_PULL_S - ($(date +%s) - t0) : 0 ))
	out=$(mp_run 20 "mp_fio_ok mph && echo fio ok || { echo fio FAILED; grep -m3 -i error /tmp/mph.failed; }; mp_io_errors") ||
		fail "fio state at the end of the pull: $out"
	echo "$out"
	[ "$out" = "fio ok" ] || fail "an I/O error reached fio or the log during the outage: $out"
	r0=$(mp_run 10 "mp_fio_rounds mph") || fail "no fio round count"

	step "restore link0 only: the hold ends by its reconnect, fio goes on without an error"
	link_set link0 on "$MP_CUT_ENDS" || fail "link_set failed"
	t0=$(date +%s)
	out=$(mp_run $((HOLD_BACK_S + 30)) "wait_for $HOLD_BACK_S mp_fio_progress mph $r0 $HOLD_ROUNDS; rc=\$?
		echo \"fio rounds \$(mp_fio_rounds mph)\"; mp_summary bed-mph; exit \$rc") ||
		{ echo "$out"; mp_run 20 "cat /tmp/mph.failed 2>/dev/null | tail -n 20; mp_io_errors"
		  fail "fio did not finish $HOLD_ROUNDS verified rounds within ${HOLD_BACK_S}s of link-on"; }
	echo "$out"
	note "$HOLD_ROUNDS more verified fio rounds $(( $(date +%s) - t0 )) s after link-on"
	mp_run 20 "mp_state_is bed-mph 0 connected; rc=\$?; mp_summary bed-mph; exit \$rc" ||
		fail "fio ran on, but link0's path is not connected"
	step "restore link1: its path joins again"
	link_set link1 on "$MP_CUT_ENDS" || fail "link_set failed"
	mp_run 230 "wait_for 200 mp_state_is bed-mph 1 connected; rc=\$?; mp_summary bed-mph; exit \$rc" ||
		fail "link1's path is not connected 200 s after its link came back"
	out=$(mp_run 200 "mp_fio_stop mph 180") || { echo "$out"; fail "fio failed after the outage"; }
	echo "$out"
	errs=$(mp_run 20 mp_io_errors) || fail "could not read the kernel log"
	[ -z "$errs" ] || { echo "$errs"; fail "I/O errors in the kernel log"; }
	vm_run client 10 "cat /sys/kernel/debug/rtrs-client/bed-mph/hold"
	if ! { held1=$(hold_field held_total) && res1=$(hold_field resumed) &&
	       exp1=$(hold_field expired); }; then
		fail "no debugfs hold counters after the outage"
	fi
	[ "$(hold_field state)" = none ] || fail "the hold did not end (state $(hold_field state))"
	[ "$res1" -gt "$res0" ] || fail "the hold was not ended by a reconnect (resumed $res0 -> $res1)"
	[ "$exp1" = "$exp0" ] || fail "the hold expired (expired $exp0 -> $exp1)"
	[ "$held1" -gt "$held0" ] || fail "no request was held (held_total $held0 -> $held1; outages before: $n0)"
	note "requests held during the outage: $((held1 - held0))"
	vm_run client 120 "set -e
		dd if=$dev of=/tmp/mphback2 bs=1M count=16 iflag=direct status=none
		cmp /tmp/mphpat /tmp/mphback2" || fail "the pattern written before the outage does not read back"

	step "unmap + unload"
	vm_run client 120 "rnbd_unmap $dev" || fail "unmap failed"
	client_unload || fail "client stack did not unload"
}
