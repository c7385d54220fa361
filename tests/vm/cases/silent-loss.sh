# Case: a path that dies without telling the client (issue 19). In every other cut the
# client's own port goes down and the port event fails the path at once; here nothing local
# changes, so only the transport (retries of what the client sends: heartbeats, I/O) and the
# heartbeat can notice. Three outages, one path, each while a verifying fio job runs:
#   server-end  QMP set_link off on the SERVER's end of link0 only
#   paused      the server VM stopped (QMP stop) for SL_PAUSE_S, then continued
#   loss        netem drops everything the server sends (client -> server still flows)
# Each must take the path `disconnected` within SL_DOWN_MAX s (README: "Silent path loss",
# heartbeat bound 35 s + 10 s margin for TCG), and after the outage the path must be back
# `connected` by itself, the data written before it must read back intact and new I/O work.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=1500
SL_DOWN_MAX=${SL_DOWN_MAX:-45}
SL_PAUSE_S=${SL_PAUSE_S:-60}

# sl_wait_down <scenario>: seconds (guest clock) until the path left `connected`
sl_wait_down() {
	vm_run client $((SL_DOWN_MAX + 60)) "t0=\$(bed_t); wait_for $((SL_DOWN_MAX + 30)) path_state_is bed-sl disconnected || exit 1
		echo \"\$t0 \$(bed_t)\" | awk '{printf \"%d\", \$2 - \$1 + 0.5}'"
}

run() {
	local dev sc out secs
	step "load client stack: $CLIENT_STACK, map /dev/nullb1 over link0"
	client_load || fail "client stack $CLIENT_STACK did not load"
	dev=$(vm_run client 180 rnbd_map bed-sl /dev/nullb1 path=ip:198.18.0.1) || fail "map failed: $dev"
	for sc in server-end paused loss; do
		step "$sc: write a pattern, then the outage"
		vm_run client 120 "set -e
			dd if=/dev/urandom of=/tmp/slpat bs=1M count=8 status=none
			dd if=/tmp/slpat of=$dev bs=1M oflag=direct status=none
			dd if=$dev of=/tmp/slback bs=1M count=8 iflag=direct status=none
			cmp /tmp/slpat /tmp/slback" || fail "$sc: data check before the outage failed"
		vm_run client 30 "path_state_is bed-sl connected" || fail "$sc: path not connected before the outage"
		case $sc in
		server-end) link_set link0 off server || fail "set_link failed" ;;
		paused) qmp server '{"execute":"stop"}' >/dev/null || fail "QMP stop failed" ;;
		loss) vm_run server 30 "tc qdisc add dev eth0 root netem loss 100%" || fail "netem failed" ;;
		esac
		# the client keeps sending (I/O that will not be answered): the transport or the
		# heartbeat must notice, nothing else will
		vm_run client 10 "dd if=$dev of=/dev/null bs=4k count=1 iflag=direct >/dev/null 2>&1 &" >/dev/null
		secs=$(sl_wait_down "$sc") || {
			vm_run client 30 "path_states bed-sl; dmesg | tail -n 20"
			fail "$sc: path still connected $((SL_DOWN_MAX + 30)) s into the outage"
		}
		note "$sc: path declared down after ${secs}s"
		[ "$secs" -le "$SL_DOWN_MAX" ] || fail "$sc: path declared down after ${secs}s (bound ${SL_DOWN_MAX}s)"
		case $sc in
		server-end) link_set link0 on server || fail "set_link failed" ;;
		paused)
			bed_sleep $((SL_PAUSE_S > secs ? SL_PAUSE_S - secs : 0)) || fail "a VM died"
			qmp server '{"execute":"cont"}' >/dev/null || fail "QMP cont failed" ;;
		loss) vm_run server 30 "tc qdisc del dev eth0 root" || fail "netem removal failed" ;;
		esac
		step "$sc: outage over: the path must come back by itself"
		out=$(vm_run client 260 "wait_for 240 path_state_is bed-sl connected; rc=\$?; path_states bed-sl; exit \$rc") ||
			fail "$sc: path not connected 240 s after the outage: $out"
		vm_run client 240 "set -e
			wait_for 60 dd if=$dev of=/dev/null bs=4k count=1 iflag=direct status=none
			dd if=$dev of=/tmp/slback2 bs=1M count=8 iflag=direct status=none
			cmp /tmp/slpat /tmp/slback2
			dd if=/dev/urandom of=/tmp/slpat2 bs=1M count=2 status=none
			dd if=/tmp/slpat2 of=$dev bs=1M seek=16 oflag=direct status=none
			dd if=$dev of=/tmp/slback3 bs=1M skip=16 count=2 iflag=direct status=none
			cmp /tmp/slpat2 /tmp/slback3" || fail "$sc: data after the outage is wrong or I/O failed"
	done
	vm_run client 30 "cat /sys/class/rtrs-client/bed-sl/paths/*/stats/reconnects"
	step "unmap + unload"
	vm_run client 120 "rnbd_unmap $dev" || fail "unmap failed"
	client_unload || fail "client stack did not unload"
}
