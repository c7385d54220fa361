# Case: every path of a session lost. Map /dev/nullb0 over two paths, write a 16 MiB pattern,
# run a fio verify loop elsewhere on the device, then cut link0 and link1 (QMP; the client
# ends, see MP_CUT_ENDS in lib/mp.sh):
# - bounded failure: the I/O in flight completes with an error, no hang. Detection is the
#   port event (1-4 s) or, at worst, 6 missed heartbeats (30-35 s); the bound
#   asserted is 120 s from the cut for fio to fail, and 30 s for a new read once both paths
#   are down (it must fail at once: rnbd fails I/O of a disconnected session).
# - recovery: links back on, both paths reconnect by themselves (rnbd's 30 s delay), rnbd
#   remaps the device (state open), new I/O succeeds and the pattern reads back intact.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=900
. "$BED_REPO/tests/vm/lib/mp.sh"
MP_FAIL_BOUND=${MP_FAIL_BOUND:-120}
run() {
	local dev out t0 t1 rrc rs
	step "map /dev/nullb0 over link0 and link1, write a pattern"
	dev=$(mp_map bed-mpd /dev/nullb0) || fail "map over two paths failed"
	# this case is upstream's behaviour with no path left (io_hold_sec 0: fail at once);
	# holding I/O through the outage is tests/vm/cases/outage-hold.sh
	vm_run client 10 "echo 0 > /sys/class/rtrs-client/bed-mpd/io_hold_sec" || fail "io_hold_sec=0 failed"
	mp_start_io "$dev" mpd "the cut"

	step "cut link0 and link1"
	{ link_set link0 off "$MP_CUT_ENDS" && link_set link1 off "$MP_CUT_ENDS"; } || fail "link_set failed"
	t0=$(date +%s)
	out=$(mp_run $((MP_FAIL_BOUND + 30)) "wait_for $MP_FAIL_BOUND test -e /tmp/mpd.done; rc=\$?
		mp_summary bed-mpd; test -e /tmp/mpd.failed && { echo fio FAILED:; grep -m3 -i error /tmp/mpd.failed; }; exit \$rc") ||
		{ echo "$out"; fail "fio neither failed nor finished within ${MP_FAIL_BOUND}s of the cut (I/O hangs)"; }
	echo "$out"
	echo "$out" | grep -q "fio FAILED" || fail "fio did not see an I/O error with both links cut"
	t1=$(date +%s)
	note "fio failed $((t1 - t0)) s after the cut"
	mp_run 200 "wait_for 90 mp_state_is bed-mpd 0 disconnected && wait_for 90 mp_state_is bed-mpd 1 disconnected" ||
		fail "the paths are not both disconnected"
	# the verdict is dd's exit status as the guest printed it: a vm_run that failed (VM dead,
	# timeout) or printed no status line is a failed check, not a failed read
	out=$(vm_run client 60 "s=\$(date +%s); timeout 30 dd if=$dev of=/dev/null bs=4k count=1 iflag=direct 2>&1; echo rc=\$? after \$(( \$(date +%s) - s )) s") ||
		fail "the read with both paths down could not be run (vm_run rc $?): $out"
	note "4k read with both paths down: $(echo "$out" | tr '\n' ' ')"
	read -r rrc rs <<< "$(echo "$out" | sed -n 's/^rc=\([0-9]*\) after \([0-9]*\) s$/\1 \2/p' | tail -n 1)"
	{ [ -n "$rrc" ] && [ -n "$rs" ]; } || fail "no exit status from the read with both paths down: $out"
	[ "$rrc" != 0 ] || fail "a read succeeded with both paths down"
	[ "$rrc" != 124 ] || fail "a read did not return within 30 s with both paths down"

	step "restore both links: reconnect, remap, data intact, new I/O"
	{ link_set link0 on "$MP_CUT_ENDS" && link_set link1 on "$MP_CUT_ENDS"; } || fail "link_set failed"
	t0=$(date +%s)
	mp_recovered bed-mpd "$dev" mpd "$t0" "link-on"
	step "unmap + unload"
	vm_run client 120 "rnbd_unmap $dev" || fail "unmap failed"
	client_unload || fail "client stack did not unload"
}
