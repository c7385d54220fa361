# Case: server restart under I/O. Map /dev/nullb0 over two paths, write a 16 MiB pattern, run
# a fio verify loop elsewhere on the device, then unload rnbd-server + rtrs-server on the
# server host and load them again (server_reload; null_blk and its data stay):
# - bounded failure: the server's disconnects fail both paths at once; fio must see an I/O
#   error (not hang) within 120 s of the reload's start;
# - recovery: both paths reconnect by themselves (the server session is gone, so the
#   reconnect re-creates it), rnbd remaps the device, the pattern reads back intact and new
#   I/O succeeds.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=900
. "$BED_REPO/tests/vm/lib/mp.sh"
MP_FAIL_BOUND=${MP_FAIL_BOUND:-120}
run() {
	local dev out t0
	step "map /dev/nullb0 over link0 and link1, write a pattern"
	dev=$(mp_map bed-mps /dev/nullb0) || fail "map over two paths failed"
	# this case is upstream's behaviour with no path left (io_hold_sec 0: fail at once);
	# holding I/O through the outage is tests/vm/cases/outage-hold.sh
	vm_run client 10 "echo 0 > /sys/class/rtrs-client/bed-mps/io_hold_sec" || fail "io_hold_sec=0 failed"
	mp_start_io "$dev" mps "the restart"

	step "reload rnbd-server + rtrs-server under I/O"
	t0=$(date +%s)
	server_reload || fail "server_reload failed"
	note "server modules reloaded in $(( $(date +%s) - t0 )) s"
	out=$(mp_run $((MP_FAIL_BOUND + 30)) "wait_for $MP_FAIL_BOUND test -e /tmp/mps.done; rc=\$?
		mp_summary bed-mps; test -e /tmp/mps.failed && { echo fio FAILED:; grep -m3 -i error /tmp/mps.failed; }; exit \$rc") ||
		{ echo "$out"; fail "fio neither failed nor finished within ${MP_FAIL_BOUND}s of the restart (I/O hangs)"; }
	echo "$out"
	echo "$out" | grep -q "fio FAILED" || fail "fio did not see an I/O error across the server restart"
	note "fio failed $(( $(date +%s) - t0 )) s after the reload began"

	step "reconnect, remap, data intact, new I/O"
	mp_recovered bed-mps "$dev" mps "$t0" "the server restart"
	step "unmap + unload"
	vm_run client 120 "rnbd_unmap $dev" || fail "unmap failed"
	client_unload || fail "client stack did not unload"
}
