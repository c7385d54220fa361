# Case: after a READ completed, its rkey must be dead (issue 19). The hostile peer
# (tests/hostile/) runs well-behaved with --check-inval --arm-on-signal: map, write a
# pattern, arm, read 64 KiB back; 0.3 s after the peer answered that read, it RDMA-WRITEs
# 8 bytes to the read's old rkey. The right outcome is a remote access error at the peer
# (it logs "CHECK-INVAL ... (good)"; the client's QP fails with it and the path
# reconnects); a success is a client bug ("CLIENT BUG", the peer exits 2). Run twice:
# with the client's default remote invalidation (SEND_WITH_INV) and with
# remote_invalidate=N (the client's own LOCAL_INV). Then unmap, unload, no BUG/WARNING/Oops.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=900
. "$BED_REPO/tests/hostile/bed-hostile.sh"
run() {
	local mode params out dev rc n=0 line
	trap hostile_cleanup EXIT
	hostile_build || fail "make -C tests/hostile failed"
	for mode in remote local; do
		n=$((n + 1))
		params=${BED_OURS_PARAMS:-}
		[ $mode = local ] && params="$params remote_invalidate=N"
		step "check-inval with $mode invalidation (client params: ${params:-none})"
		BED_OURS_PARAMS=$params client_load >/dev/null || fail "client stack did not load with '$params'"
		hostile_start none --check-inval --arm-on-signal || fail "peer did not start"
		out=$(hostile_try 120 "$(hostile_map "hn-inv$n")" 2>/dev/null); rc=$?
		[ $rc = 125 ] && fail "client VM died: $(vm_dead_reason client)"
		case $out in *ok\ /dev/*) dev=$(echo "$out" | tail -n 1 | cut -d' ' -f2) ;; *) fail "map failed: $out" ;; esac
		vm_run client 60 "dd if=/dev/urandom of=/tmp/invpat bs=64k count=4 status=none
			dd if=/tmp/invpat of=$dev bs=64k oflag=direct status=none" || fail "pattern write failed"
		hostile_arm
		out=$(hostile_try 60 "dd if=$dev of=/tmp/invback bs=64k count=1 iflag=direct status=none && cmp -s /tmp/invback <(head -c 65536 /tmp/invpat) && echo read ok" 2>&1); rc=$?
		note "read: $(echo "$out" | tail -n 1) (rc $rc)"
		[ $rc = 125 ] && fail "client VM died: $(vm_dead_reason client)"
		# the probe runs 0.3 s after the response; give TCG time
		for _ in $(seq 150); do hostile_log | grep -q 'CHECK-INVAL path [0-9]*: \(write\|CLIENT\|incon\)' && break; sleep 0.2; done
		line=$(hostile_log | grep -a 'CHECK-INVAL path [0-9]*: \(write\|CLIENT\|incon\)' | head -n 1)
		note "peer: ${line:-no probe outcome}"
		case $line in
		*"(good)"*) hostile_result "$mode ok: ${line#*] }" ;;
		*"CLIENT BUG"*) hostile_result "$mode FAIL: ${line#*] }" ;;
		"") hostile_result "$mode FAIL: the peer never probed (no rnbd READ after arming?)" ;;
		*) hostile_result "$mode FAIL (inconclusive): ${line#*] }" ;;
		esac
		# hostile_try's rc says only whether the command returned in time: the unmap's
		# own status is the guest's whole "unmap-rc=N" line (bed_client_down would
		# force the unmap and hide a failed one)
		if ! out=$(hostile_try 90 "rnbd_unmap $dev || rnbd_unmap $dev force; echo unmap-rc=\$?" 2>&1) ||
			! echo "$out" | grep -qx 'unmap-rc=0'; then
			hostile_result "$mode FAIL: unmap: $out"
		fi
		hostile_stop "inval-$mode" >/dev/null
		client_unload >/dev/null || hostile_result "$mode FAIL: client stack did not unload"
	done
	hostile_verdict
	trap - EXIT
	hostile_cleanup
}
