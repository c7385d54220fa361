# Case: a server restart as an outage (issue 21), one path over link0, our client only.
# rnbd-server and rtrs-server are unloaded, stay away for a while, and are loaded again:
# the server forgets the session and the devices it had open, so the client must build a
# new session and rnbd must reopen its devices before held I/O is re-issued.
#  within  io_hold_sec=120, the server away ORS_WITHIN_S (20 s) under a crc32c-verifying fio
#          loop on /dev/nullb0: no I/O error in the kernel log, every fio round verified, the
#          hold logged as started and ended by the reconnect, no request refused by rnbd.
#  beyond  io_hold_sec=10, the server away ORS_BEYOND_S (30 s) under fio: the first I/O error
#          comes no sooner than 10 s and no later than 10 s + ORS_SLACK_S after the hold
#          began, the hold is logged as expired; once the server is back the device works
#          again by itself and a pattern written before the restart reads back intact.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=1200
ORS_WITHIN_S=${ORS_WITHIN_S:-20}
ORS_BEYOND_S=${ORS_BEYOND_S:-30}
ORS_SLACK_S=${ORS_SLACK_S:-5}
S=/sys/class/rtrs-client/bed-ors
. "$BED_REPO/tests/vm/lib/hold.sh"
# shellcheck disable=SC2016 # expanded by the guest's shell, where BED_REPO is set
MP='. "$BED_REPO/tests/vm/guest/mp.sh";'

# ors_restart <seconds away>: unload the server stack, wait, load it again
ors_restart() {
	vm_run server $(($1 + 200)) "bed_server_down && sleep $1 && bed_server_up" || fail "server restart failed"
}
ors_wait_up() {
	vm_run client 260 "wait_for 240 path_state_is bed-ors connected" || fail "$1: path not back 240 s after the restart"
}

run() {
	local d0 log out
	step "load our client; map /dev/nullb0 over link0; io_hold_sec=120"
	client_load || fail "client stack did not load"
	d0=$(vm_run client 180 rnbd_map bed-ors /dev/nullb0 path=ip:198.18.0.1) || fail "map nullb0 failed: $d0"
	vm_run client 10 "echo 120 > $S/io_hold_sec" || fail "io_hold_sec write failed"

	step "within: fio verify on $d0, the server away ${ORS_WITHIN_S} s"
	vm_run client 30 "$MP mp_fio_start $d0 orw 16m 0" || fail "fio start failed"
	vm_run client 150 "$MP wait_for 120 mp_fio_progress orw 0 1" || fail "fio did not finish a round before the restart"
	ors_restart "$ORS_WITHIN_S"
	ors_wait_up within
	vm_run client 200 "$MP r=\$(mp_fio_rounds orw); wait_for 150 mp_fio_progress orw \$r 1" ||
		fail "within: fio did not finish a round after the restart"
	out=$(vm_run client 320 "$MP mp_fio_stop orw 300") || fail "within: fio failed: $out"
	echo "$out"
	log=$(hold_log)
	echo "$log" | grep -E "$HOLD_ERR_RE" && fail "within: I/O errors in the kernel log"
	echo "$log" | grep -q 'no path connected: holding I/O' || fail "within: no 'holding I/O' line in the log"
	echo "$log" | grep -q 'reconnected: re-issuing' || fail "within: the hold did not end by a reconnect"
	if echo "$log" | grep -qE 'failed to transfer IO'; then
		echo "$log" | grep -E 'failed to transfer IO' | head -n 3
		fail "within: rnbd had requests refused during the hold"
	fi
	vm_run client 10 "cat /sys/kernel/debug/rtrs-client/bed-ors/hold"

	step "beyond: io_hold_sec=10, the server away ${ORS_BEYOND_S} s under fio"
	vm_run client 10 "echo 10 > $S/io_hold_sec" || fail "io_hold_sec write failed"
	vm_run client 60 "set -e; dd if=/dev/urandom of=/tmp/orspat bs=1M count=8 status=none
		dd if=/tmp/orspat of=$d0 bs=1M seek=32 oflag=direct status=none" || fail "pattern write failed"
	vm_run client 30 "$MP mp_fio_start $d0 orx 16m 0" || fail "fio start failed"
	vm_run client 150 "$MP wait_for 120 mp_fio_progress orx 0 1" || fail "fio did not run before the restart"
	ors_restart "$ORS_BEYOND_S"
	# this hold is the second one of the case: the last start line is its own
	hold_check_expiry beyond 10 "$ORS_SLACK_S"
	ors_wait_up beyond
	# fio failed with the expiry: its loop may still be starting rounds, stop it either way
	vm_run client 320 "$MP mp_fio_stop orx 300 || true" >/dev/null
	vm_run client 200 "set -e; wait_for 120 dd if=$d0 of=/dev/null bs=4k count=1 iflag=direct status=none
		dd if=$d0 of=/tmp/orsback bs=1M skip=32 count=8 iflag=direct status=none; cmp /tmp/orspat /tmp/orsback" ||
		fail "beyond: the device did not come back by itself, or the data written before the restart differs"

	step "unmap + unload"
	vm_run client 120 "rnbd_unmap $d0" || fail "unmap failed"
	client_unload || fail "client stack did not unload"
}
