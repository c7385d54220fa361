# Case: a hostile server's I/O responses (issue 19). For each mutation in
# HOSTILE_IO_MUTATIONS: load the client stack, start the hostile peer (tests/hostile/)
# with the mutation disarmed (--arm-on-signal), map its device, write a 1 MiB pattern
# (well served), arm the mutation (SIGUSR1; applied to the next request, once), then read
# the pattern back and write it again. Mutations: errno 5/134/511 in the response
# immediate, forged responses (out-of-range id, idle id, a duplicate, the next id racing
# its post, a response on another connection), unknown immediate types 5 and 15,
# SEND_WITH_INV naming a neighbour's rkey, a wrong key byte, the previous READ's rkey, a
# replay of it, none at all (W_INV alone), RDMA WRITEs past or before the client's
# descriptor, no answer (stall), no more receives posted, a plain SEND without immediate
# (send_no_imm) or one larger than the client's receive buffer (send_oversize) before the
# response, the path cut and its next reconnect accepted with other limits (queue depth 64
# and max_io_size 60 KiB, max_io_size 60 KiB alone, queue depth 256), on a path accepted
# with NEW_RKEY_F: rkey messages naming another id, an idle id, id 65535, a wrong key;
# no heartbeats (the idle path must go down by itself within HB_WAIT_S), a 3 s heartbeat
# flood from the arming on (hb_flood; more oracles of its own below). The oracle per
# mutation: the I/O returns within HOSTILE_IO_S (no_recv: or at the latest
# HOSTILE_RELEASE_S after the peer is stopped); a read that reports success returns the
# pattern (no silent corruption); every request the session accepted completed exactly
# once (debugfs requests at rest); the device unmaps and the client stack unloads; no
# BUG/WARNING/Oops in either kernel log.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=3000
HOSTILE_IO_MUTATIONS=${HOSTILE_IO_MUTATIONS:-"rsp_errno rsp_errno_134 rsp_errno_511 rsp_bad_id rsp_idle_id rsp_dup rsp_forge_next rsp_wrong_con imm_unknown imm_type15 inv_wrong inv_bad_key inv_stale inv_replay inv_missing rdma_overrun rdma_wrong_addr stall no_recv send_no_imm send_oversize reconnect_io_smaller reconnect_smaller reconnect_qd_bigger rkey_bad rkey_idle rkey_range rkey_wrong hb_silent hb_flood"}
# Our client fails a path whose request stays unanswered for io_timeout_sec (60 s, checked
# on the 5 s heartbeat tick), reconnects (~35 s) and re-issues what it held; it holds I/O
# through an outage for io_hold_sec (180 s by default) before failing it. The bounds follow
# (the release bound: the hold's 180 s from the stop of the peer, + 30 s for TCG):
HOSTILE_IO_S=${HOSTILE_IO_S:-150}
HOSTILE_RELEASE_S=${HOSTILE_RELEASE_S:-210}
HB_WAIT_S=${HB_WAIT_S:-75}
# mutations after which the I/O may stay blocked until the server goes away
HOSTILE_MAY_BLOCK=${HOSTILE_MAY_BLOCK:-"no_recv"}
# stall (issue 21 item 5): the peer never answers one READ while it answers heartbeats and
# everything else, so only the I/O timeout can end it. The row reads the session's
# io_timeout_sec (the documented default, 60), sets it to STALL_TMO_S, and demands: the
# read returns (within HOSTILE_IO_S, the server still there) with the pattern intact, the
# path was failed by the timeout exactly once (the log line naming the session and the
# timeout, debugfs requests timed_out 1), STALL_TMO_S to STALL_TMO_S + STALL_LATE_S after
# the read began: the check runs on the 5 s heartbeat tick, + 3 s for TCG (uptime of the
# guest against its kernel log's clock, both since boot).
STALL_TMO_S=${STALL_TMO_S:-10}
STALL_LATE_S=${STALL_LATE_S:-8}
. "$BED_REPO/tests/hostile/bed-hostile.sh"

# hb_flood_after <n>: once the peer's flood is over and HB_SETTLE_S more, the path of
# hn-io<n> must still be connected (a failure puts it into reconnecting at once)
hb_flood_after() {
	local out
	hostile_flood_over || return 0
	out=$(BED_TRACE=0 vm_run client 20 "path_states hn-io$1" 2>/dev/null)
	if [ "$(echo "$out" | cut -d' ' -f2)" = connected ]; then
		echo "path connected after the flood"
	else
		echo "FAIL: the path went down under the flood: $out"
	fi
}

# stall_before <n>: the default of hn-io<n>'s io_timeout_sec, then STALL_TMO_S set
stall_before() {
	local f=/sys/class/rtrs-client/hn-io$1/io_timeout_sec out
	out=$(BED_TRACE=0 vm_run client 20 "cat $f && echo $STALL_TMO_S > $f && cat $f" 2>&1 | tr '\n' ' ')
	[ "$out" = "60 $STALL_TMO_S " ] || { echo "FAIL: io_timeout_sec: '$out', expected the default 60, then $STALL_TMO_S"; return 1; }
}

# stall_after <n> <uptime when the read began>: the path of hn-io<n> failed by the timeout
# exactly once, in its window
stall_after() {
	local out t n
	out=$(BED_TRACE=0 vm_run client 20 "dmesg | grep 'hn-io$1 .*unanswered for $STALL_TMO_S s'; cat /sys/kernel/debug/rtrs-client/hn-io$1/requests" 2>&1)
	n=$(echo "$out" | grep -c 'unanswered for')
	t=$(echo "$out" | grep -m1 'unanswered for' | sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p')
	if [ "$n" != 1 ] || [ -z "$t" ]; then
		echo "FAIL: $n I/O timeout log lines for hn-io$1, 1 expected"
	elif ! echo "$out" | grep -qx 'timed_out 1'; then
		echo "FAIL: debugfs requests: $(echo "$out" | grep '^timed_out') (timed_out 1 expected)"
	elif awk -v t="$t" -v s="$2" -v lo="$STALL_TMO_S" -v hi="$((STALL_TMO_S + STALL_LATE_S))" \
		'BEGIN { d = t - s; exit !(d >= lo && d <= hi) }'; then
		echo "path failed by the I/O timeout $(awk -v t="$t" -v s="$2" 'BEGIN { printf "%.1f", t - s }') s after the read began"
	else
		echo "FAIL: the I/O timeout fired $(awk -v t="$t" -v s="$2" 'BEGIN { printf "%.1f", t - s }') s after the read began, not within $STALL_TMO_S-$((STALL_TMO_S + STALL_LATE_S)) s"
	fi
}

# io_one <mutation> <n>: prints "<verdict text>"; rc 125 if the client VM died
io_one() {
	local m=$1 n=$2 out rc dev res="" st t0
	out=$(hostile_try 120 "$(hostile_map "hn-io$n")" 2>/dev/null); rc=$?
	[ $rc = 125 ] && return 125
	out=$(echo "$out" | tail -n 1)
	case $out in ok\ /dev/*) dev=$(echo "$out" | cut -d' ' -f2) ;; *) echo "FAIL: map of the well-behaved peer failed: $out"; return 0 ;; esac
	vm_run client 60 "dd if=/dev/urandom of=/tmp/iopat bs=64k count=16 status=none
		dd if=/tmp/iopat of=$dev bs=64k oflag=direct status=none" >/dev/null 2>&1 ||
		{ echo "FAIL: the pattern write before arming failed"; return 0; }
	if [ "$m" = hb_silent ]; then
		# the peer never acknowledges; the idle path must leave "connected" by itself
		out=$(vm_run client $((HB_WAIT_S + 30)) "end=\$((\$(date +%s) + $HB_WAIT_S))
			while [ \$(date +%s) -lt \$end ]; do
				s=\$(path_states hn-io$n | cut -d' ' -f2); [ \"\$s\" != connected ] && { echo \"path \$s after \$((\$(date +%s) - end + $HB_WAIT_S)) s\"; exit 0; }
				sleep 2
			done; echo still connected; exit 1" 2>/dev/null); rc=$?
		[ $rc = 125 ] && return 125
		if [ $rc = 0 ]; then res="ok: idle path dropped by the heartbeat: $out"; else res="FAIL: path $out after ${HB_WAIT_S}s without heartbeat acks"; fi
	else
		if [ "$m" = stall ]; then stall_before "$n" || return 0; fi
		hostile_arm
		out=$(hostile_try "$HOSTILE_IO_S" "cut -d' ' -f1 /proc/uptime; r=0; dd if=$dev of=/tmp/ioback bs=64k count=16 iflag=direct status=none 2>/tmp/ioerr || r=\$?
			if [ \$r = 0 ]; then cmp -s /tmp/iopat /tmp/ioback && echo 'read ok, data intact' || echo 'read ok, DATA CORRUPT'; else echo \"read failed: \$(head -c 120 /tmp/ioerr)\"; fi
			dd if=/tmp/iopat of=$dev bs=64k oflag=direct conv=nocreat status=none 2>/tmp/ioerr && echo 'write ok' || echo \"write failed: \$(head -c 120 /tmp/ioerr)\"
			echo \"path: \$(path_states hn-io$n)\"" 2>/dev/null); rc=$?
		[ $rc = 125 ] && return 125
		# the guest's uptime when the read began: the first all-digits line
		t0=$(echo "$out" | grep -m1 -x '[0-9][0-9.]*')
		out=$(echo "$out" | grep -vx '[0-9][0-9.]*' | grep -v '^$' | tr '\n' ';' | sed 's/;$//')
		case $rc in
		0) res="ok: $out" ;;
		3) case " $HOSTILE_MAY_BLOCK " in
			*" $m "*) res="ok: blocked until the server went away, then: $out" ;;
			*) res="FAIL: I/O blocked until the server went away: $out" ;;
			esac ;;
		*) res="FAIL: I/O blocked even after the server went away: $out" ;;
		esac
		case $out in *"DATA CORRUPT"*) res="FAIL: silent data corruption: $out" ;; esac
		if [ "$m" = hb_flood ]; then res="$res; $(hb_flood_after "$n")"; fi
		if [ "$m" = stall ]; then res="$res; $(stall_after "$n" "$t0")"; fi
	fi
	# every request rnbd sent was completed exactly once (none lost, none twice)
	if out=$(hostile_at_rest "hn-io$n"); then res="$res; requests: ${out#ok }"; else res="$res; FAIL: $out"; fi
	out=$(hostile_try 60 "rnbd_unmap $dev || rnbd_unmap $dev force" 2>&1); rc=$?
	[ $rc = 125 ] && return 125
	[ $rc = 0 ] || res="$res; FAIL: unmap blocked ($out)"
	echo "$res"
}

run() {
	local m n=0 res out
	trap hostile_cleanup EXIT
	hostile_build || fail "make -C tests/hostile failed"
	for m in $HOSTILE_IO_MUTATIONS; do
		n=$((n + 1))
		step "mutation $m"
		client_load >/dev/null || { hostile_result "$m FAIL: the client stack did not load"; break; }
		hostile_start "$m" --arm-on-signal || { hostile_result "$m FAIL: the peer did not start"; break; }
		res=$(io_one "$m" "$n") || { hostile_result "$m CRASH: client VM died: $(vm_dead_reason client)"; break; }
		hostile_stop "$m" | grep -a 'MUTATE\|PROTOCOL\|WC_ERROR\|HEARTBEAT' | head -n 4
		if [ "$m" = hb_flood ]; then res="$res; $(hostile_hb_flood_counts 1 "one path")"; fi
		if ! out=$(client_unload 2>&1); then
			res="$res; FAIL: client stack did not unload: $(echo "$out" | tail -n 2 | tr '\n' ' ')"
		fi
		vm_alive client || { hostile_result "$m CRASH: client VM died: $(vm_dead_reason client)"; break; }
		hostile_result "$m $res"
	done
	hostile_verdict
	trap - EXIT
	hostile_cleanup
}
