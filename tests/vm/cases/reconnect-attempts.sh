# Case: max_reconnect_attempts (Documentation/ABI/testing/sysfs-class-rtrs-client: "how many
# reconnect attempts a path makes after it failed, before it gives up (state closed; only a
# write to its reconnect file revives it)"; -1 no limit, 0 never). Four sessions of one path
# each over link0, all failed by one outage: the server host unloads rnbd-server and
# rtrs-server, so every connect is rejected at once and each attempt costs no time-out (a
# link cut costs 30 s per attempt: the whole case would take ~6 min). rnbd's reconnect
# delay is 30 s (no knob), the first attempt 36 s after the server was last heard from.
# - bed-ra0 (max 0): gives up at its first scheduled attempt: 0 attempts, stays down;
# - bed-ra2 (max 2): exactly 2 failed attempts, gives up, stays down even once the server is
#   back; its device fails I/O at once meanwhile (io_hold_sec 0: rnbd was told);
# - bed-rainf (-1, rnbd's own value): a 3rd attempt after bed-ra2 gave up, and it comes back
#   by itself once the server is back; rnbd remaps its device, the data reads back;
# - bed-rad (-1): during the outage every file of the session and its path is read and every
#   writable one written (tests/vm/guest/sysfs-outage.py), each with its documented result
#   within a bound; its path removed, then added again once the server is back.
# bed-ra0 and bed-ra2 come back through their reconnect file. Counts from stats/reconnects
# and the "giving up after N reconnect attempts" line of the kernel log.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=600
RA_P0='path=ip:198.18.0.1'
# seconds after the server went down by which bed-ra2 has given up: 36 s to the first
# attempt, 2 x 30 s to the give-up, up to 1 s of jitter each, rejects at once (~97 s)
RA_GIVEUP_BOUND=${RA_GIVEUP_BOUND:-130}
# reconnects <sess>: "ok failed" of its (first) path's stats/reconnects
ra_rc() { vm_run client 10 "cat /sys/class/rtrs-client/$1/paths/*/stats/reconnects"; }
# ra_gaveup <sess>: the number N of the session's "giving up after N" kernel log lines, or none
ra_gaveup() { vm_run client 10 "dmesg | sed -n 's/.* $1 rxe0: giving up after \([0-9]*\) reconnect attempts/\1/p' | tr '\n' ' '"; }
run() {
	local d0 d2 dinf dd s out t0 t1 rc
	step "load our client, map four sessions of one path each over link0"
	client_load || fail "client stack $CLIENT_STACK did not load"
	dinf=$(vm_run client 180 rnbd_map bed-rainf /dev/nullb0 "$RA_P0") || fail "map bed-rainf failed: $dinf"
	d0=$(vm_run client 180 rnbd_map bed-ra0 /dev/nullb1 "$RA_P0" access_mode=ro) || fail "map bed-ra0 failed: $d0"
	d2=$(vm_run client 180 rnbd_map bed-ra2 /dev/nullb1 "$RA_P0" access_mode=ro) || fail "map bed-ra2 failed: $d2"
	dd=$(vm_run client 180 rnbd_map bed-rad /dev/nullb1 "$RA_P0" access_mode=ro) || fail "map bed-rad failed: $dd"
	out=$(vm_run client 10 "cat /sys/class/rtrs-client/bed-rainf/max_reconnect_attempts") || fail "cannot read max_reconnect_attempts"
	[ "$out" = -1 ] || fail "rnbd opened bed-rainf with max_reconnect_attempts $out, not -1"
	vm_run client 30 "set -e
		echo 0 > /sys/class/rtrs-client/bed-ra0/max_reconnect_attempts
		echo 2 > /sys/class/rtrs-client/bed-ra2/max_reconnect_attempts
		grep -qx 0 /sys/class/rtrs-client/bed-ra0/max_reconnect_attempts
		grep -qx 2 /sys/class/rtrs-client/bed-ra2/max_reconnect_attempts
		for s in bed-ra0 bed-ra2 bed-rainf bed-rad; do
			echo 0 > /sys/class/rtrs-client/\$s/io_hold_sec
			path_state_is \$s connected
			grep -qx '0 0' /sys/class/rtrs-client/\$s/paths/*/stats/reconnects
		done
		dd if=/dev/urandom of=/tmp/rapat bs=1M count=4 status=none
		dd if=/tmp/rapat of=$dinf bs=1M oflag=direct status=none" || fail "setting up the sessions failed"

	step "the server host stops serving: every path fails, every connect is rejected"
	t0=$(date +%s)
	vm_run server 120 bed_server_down || fail "unloading the server modules failed"
	vm_run client 60 "all_down() { for s in bed-ra0 bed-ra2 bed-rainf bed-rad; do path_state_is \$s disconnected || return 1; done; }
		wait_for 30 all_down" ||
		fail "not every path is disconnected 30 s after the server went down"
	note "all four paths disconnected $(( $(date +%s) - t0 )) s after the server went down"

	step "bed-rad: read every file, write every writable one, while its path cannot reconnect"
	out=$(vm_run client 200 "/usr/bin/python3 \$BED_REPO/tests/vm/guest/sysfs-outage.py bed-rad"); rc=$?
	echo "$out" > "$BED_CASE_DIR/sysfs-outage.txt"
	echo "$out" | grep -v '^ok '
	[ $rc = 0 ] || fail "sysfs during the outage: $(echo "$out" | grep -c '^FAIL') checks failed (${BED_CASE_DIR#"$BED_REPO"/}/sysfs-outage.txt)"

	step "bed-ra2 gives up after exactly 2 attempts, bed-ra0 after 0"
	vm_run client $((RA_GIVEUP_BOUND + 20)) "wait_for $((RA_GIVEUP_BOUND - $(date +%s) + t0)) sh -c 'dmesg | grep -q \" bed-ra2 rxe0: giving up after\"'" ||
		fail "bed-ra2 did not give up within ${RA_GIVEUP_BOUND}s of the outage: reconnects $(ra_rc bed-ra2)"
	t1=$(date +%s)
	note "bed-ra2 gave up $((t1 - t0)) s after the server went down"
	out=$(ra_gaveup bed-ra2); [ "$out" = "2 " ] || fail "bed-ra2 gave up after '$out' attempts, not 2"
	out=$(ra_rc bed-ra2); [ "$out" = "0 2" ] || fail "bed-ra2 stats/reconnects '$out', not '0 2'"
	out=$(ra_gaveup bed-ra0); [ "$out" = "0 " ] || fail "bed-ra0 gave up after '$out' attempts, not 0 (max_reconnect_attempts 0)"
	out=$(ra_rc bed-ra0); [ "$out" = "0 0" ] || fail "bed-ra0 stats/reconnects '$out', not '0 0'"
	# rnbd was told (io_hold_sec 0): a read fails at once, it does not wait for a path
	out=$(vm_run client 40 "timeout 20 dd if=$d2 of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null; echo rc=\$?")
	[ "$out" = rc=1 ] || fail "a read of bed-ra2's device with its path given up: '$out', not rc=1 (an I/O error at once)"

	step "bed-rainf (-1) makes a 3rd attempt after bed-ra2 stopped"
	vm_run client 60 "wait_for 45 sh -c '[ \$(cut -d\" \" -f2 /sys/class/rtrs-client/bed-rainf/paths/*/stats/reconnects) -ge 3 ]'" ||
		fail "bed-rainf made no 3rd attempt: reconnects $(ra_rc bed-rainf)"
	[ -z "$(ra_gaveup bed-rainf)" ] || fail "bed-rainf (max_reconnect_attempts -1) gave up"
	note "bed-rainf reconnects $(ra_rc bed-rainf) $(( $(date +%s) - t0 )) s into the outage"

	step "the server host serves again: bed-rainf comes back by itself, bed-ra0 and bed-ra2 do not"
	vm_run server 120 bed_server_up || fail "loading the server modules failed"
	t1=$(date +%s)
	# its next attempt is at most 30 s + 1 s of jitter after the last failed one
	vm_run client 90 "wait_for 60 path_state_is bed-rainf connected" ||
		fail "bed-rainf not connected 60 s after the server came back: reconnects $(ra_rc bed-rainf)"
	note "bed-rainf connected $(( $(date +%s) - t1 )) s after the server came back, reconnects $(ra_rc bed-rainf)"
	# bed-ra2's give-up is now at least a reconnect delay past: a further attempt would have
	# been made, and would have succeeded
	bed_sleep $((t1 + 35 - $(date +%s))) || fail "a VM died"
	for s in bed-ra0 bed-ra2; do
		vm_run client 10 "path_state_is $s disconnected" || fail "$s is not disconnected after giving up"
	done
	out=$(ra_rc bed-ra2); [ "$out" = "0 2" ] || fail "bed-ra2 stats/reconnects '$out' with the server back, not '0 2'"
	out=$(ra_rc bed-ra0); [ "$out" = "0 0" ] || fail "bed-ra0 stats/reconnects '$out' with the server back, not '0 0'"
	vm_run client 120 "wait_for 90 grep -qx open /sys/block/${dinf#/dev/}/rnbd/state && dd if=$dinf of=/tmp/raback bs=1M count=4 iflag=direct status=none && cmp /tmp/rapat /tmp/raback" ||
		fail "bed-rainf's device not remapped, or its data differs"

	step "bed-ra0 and bed-ra2 revived by their reconnect file; bed-rad's path added again"
	for s in bed-ra0 bed-ra2; do
		vm_run client 60 "echo 1 > /sys/class/rtrs-client/$s/paths/*/reconnect && path_state_is $s connected" ||
			fail "reconnect of $s failed"
	done
	vm_run client 60 "echo ip:198.18.0.1 > /sys/class/rtrs-client/bed-rad/add_path && path_state_is bed-rad connected" ||
		fail "add_path to bed-rad with the server back failed"
	vm_run client 120 "for d in $d0 $d2 $dd; do
			wait_for 60 grep -qx open /sys/block/\${d#/dev/}/rnbd/state || exit 1
			dd if=\$d of=/dev/null bs=1M count=4 iflag=direct status=none || exit 1
		done" || fail "a revived session's device was not remapped or does not read"

	step "unmap + unload"
	vm_run client 120 "for d in $dinf $d0 $d2 $dd; do rnbd_unmap \$d || exit 1; done" || fail "unmap failed"
	client_unload || fail "client stack did not unload"
}
