# Case: a hostile server on ONE path of a two-path session (issue 19, "multipath under the
# peer"). For each mutation in HOSTILE_MP_MUTATIONS: load the client stack, start the
# hostile peer with the mutation disarmed and restricted to the paths that come in on
# MP_BAD_ADDR (link 1; --only-addr), map one session over both links (path=ip:198.18.0.1
# path=ip:198.18.1.1: the peer puts both paths into one session, sharing its chunks and
# store), set the session's policy to round-robin (the default min-inflight sends a
# sequential dd's requests all down link 0, and the bad path would see none), write a 1 MiB
# pattern, arm, read the pattern back and write it again. Mutations: no answer to one
# request (stall: the I/O timeout, set to STALL_TMO_S, fails the path and the request is
# re-issued on the good one), errno 511 in a response immediate (rsp_errno_511), a response
# sent twice (rsp_dup), the path cut and its next reconnect offered a smaller queue depth
# (reconnect_smaller) or smaller I/O (reconnect_io_smaller), heartbeats flooded on the bad
# path (hb_flood, which must not take it down: see bed-hostile.sh). The oracle per mutation:
# the mutation was applied (the peer's SUMMARY applied=1); the I/O returns within MP_IO_S
# with the server still up, the pattern intact on a successful read (a failed I/O must
# report an errno of 1..133, to dd and in rnbd's log line); every request completed
# exactly once (debugfs requests: in_flight 0, stray 0); link 0 stayed connected throughout
# (reconnects unchanged) and carried I/O after the arming; the bad path is connected again
# within MP_BACK_S; the device unmaps, the stack unloads; no kernel report (the runner).
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=2400
HOSTILE_MP_MUTATIONS=${HOSTILE_MP_MUTATIONS:-"stall rsp_errno_511 rsp_dup reconnect_smaller reconnect_io_smaller hb_flood"}
# the peer's address of link 1: the mutations apply to that path only (an entry
# <mutation>@<address> of HOSTILE_MP_MUTATIONS names another; the checks assume link 1, so
# stall@198.18.0.1 or an address of no path must fail them)
MP_BAD_ADDR=${MP_BAD_ADDR:-198.18.1.1}
HOSTILE_ADDR=198.18.0.1,$MP_BAD_ADDR
# stall: io_timeout_sec set to 10 s; the timeout is checked on the 5 s heartbeat tick, then
# the request is re-issued on link 0: the read's return is due 10 to 15 s after it began, +
# 3 s for TCG (measured: 13.3 s, run hmp-1; the other rows 0.1 s). The bound on the whole
# I/O (the read and the write) leaves 12 s over that; the single-path case's 150 s are for
# a reconnect the second path makes unnecessary.
STALL_TMO_S=${STALL_TMO_S:-10}
MP_IO_S=${MP_IO_S:-30}
# the failed path's return: measured 36 s after the failure (stall, rsp_dup), 69 s for
# reconnect_smaller (its first reconnect refused for the queue depth, run hmp-1); 50 s over
MP_BACK_S=${MP_BACK_S:-120}
. "$BED_REPO/tests/hostile/bed-hostile.sh"
. "$BED_REPO/tests/vm/lib/mp.sh"

# mp_hb_flood_after <session> <link 1's reconnects before the arming>: once the peer's
# flood is over and HB_SETTLE_S more, link 1 is connected and never went down
mp_hb_flood_after() {
	local out
	hostile_flood_over || return 0
	out=$(BED_TRACE=0 mp_run 20 "echo \$(mp_reconnects $1 1) \$(mp_state $1 1)" 2>/dev/null)
	if [ "$out" = "$2 connected" ]; then
		echo "link 1 stayed connected through the flood"
	else
		echo "FAIL: link 1 went down under the flood: reconnects/state '$out', before '$2 connected'"
	fi
}

# mp_one <mutation> <n>: prints "<verdict text>"; rc 125 if the client VM died
mp_one() {
	local m=$1 n=$2 s=hn-mp$2 out rc dev res="" r0 c0 c1 rdone e
	out=$(hostile_try 120 "$(hostile_map "$s")" 2>/dev/null); rc=$?
	[ $rc = 125 ] && return 125
	out=$(echo "$out" | tail -n 1)
	case $out in ok\ /dev/*) dev=$(echo "$out" | cut -d' ' -f2) ;; *) echo "FAIL: map over two paths failed: $out"; return 0 ;; esac
	out=$(BED_TRACE=0 mp_run 60 "wait_for 30 mp_state_is $s 0 connected && wait_for 30 mp_state_is $s 1 connected; rc=\$?; mp_summary $s | tr '\n' ' '; exit \$rc" 2>&1) ||
		{ echo "FAIL: both paths not connected after the map: $out"; return 0; }
	mp_run 60 "echo round-robin > /sys/class/rtrs-client/$s/mpath_policy
		dd if=/dev/urandom of=/tmp/mppat bs=64k count=16 status=none
		dd if=/tmp/mppat of=$dev bs=64k oflag=direct status=none" >/dev/null 2>&1 ||
		{ echo "FAIL: round-robin or the pattern write before arming failed"; return 0; }
	if [ "$m" = stall ]; then
		out=$(BED_TRACE=0 vm_run client 20 "f=/sys/class/rtrs-client/$s/io_timeout_sec; echo $STALL_TMO_S > \$f && cat \$f" 2>&1)
		[ "$out" = "$STALL_TMO_S" ] || { echo "FAIL: io_timeout_sec: '$out', $STALL_TMO_S expected"; return 0; }
	fi
	# link 0's request count and reconnects, link 1's reconnects before the arming
	out=$(BED_TRACE=0 mp_run 20 "echo \$(mp_reqs $s 0) \$(mp_reconnects $s 0) \$(mp_reconnects $s 1)" 2>/dev/null)
	read -r r0 c0 c1 <<<"$out"
	hostile_arm
	out=$(hostile_try "$MP_IO_S" "t=\$(date +%s.%N); r=0; dd if=$dev of=/tmp/mpback bs=64k count=16 iflag=direct status=none 2>/tmp/mperr || r=\$?
		echo \"read took \$(awk -v a=\$t -v b=\$(date +%s.%N) 'BEGIN { printf \"%.1f\", b - a }') s\"
		if [ \$r = 0 ]; then cmp -s /tmp/mppat /tmp/mpback && echo 'read ok, data intact' || echo 'read ok, DATA CORRUPT'; else echo \"read failed: \$(head -c 120 /tmp/mperr)\"; fi
		dd if=/tmp/mppat of=$dev bs=64k oflag=direct conv=nocreat status=none 2>/tmp/mperr && echo 'write ok' || echo \"write failed: \$(head -c 120 /tmp/mperr)\"" 2>/dev/null); rc=$?
	[ $rc = 125 ] && return 125
	out=$(echo "$out" | grep -v '^$' | tr '\n' ';' | sed 's/;$//')
	case $rc in
	0) res="ok: $out" ;;
	*) res="FAIL: I/O not back within ${MP_IO_S}s (the peer was stopped): $out" ;;
	esac
	case $out in
	*"DATA CORRUPT"*) res="FAIL: silent data corruption: $out" ;;
	# a failed I/O must carry an errno of 1..133: dd prints strerror, "Unknown error N" else
	*"Unknown error"*) res="FAIL: an I/O failed with an errno outside 1..133: $out" ;;
	esac
	# dd alone cannot show it: the block layer turns any errno it does not know into EIO
	# (errno_to_blk_status()). rnbd logs the errno rtrs completed a failed I/O with.
	if out=$(BED_TRACE=0 vm_run client 20 "dmesg | grep -a '@$s> .* I/O failed with err: ' | sed 's/.* err: //' | sort -u | tr '\n' ' '" 2>&1); then
		for e in $out; do
			case $e in -*) hostile_errno_ok "${e#-}" && continue ;; esac
			res="$res; FAIL: rnbd completed an I/O of $s with an errno outside 1..133: $e"
		done
	else
		res="$res; FAIL: cannot read the client's kernel log: $out"
	fi
	[ "$m" = hb_flood ] && res="$res; $(mp_hb_flood_after "$s" "$c1")"
	# link 0 never went down and carried requests after the arming; the bad path comes back
	out=$(BED_TRACE=0 mp_run $((MP_BACK_S + 30)) "echo \"link0 \$(mp_reqs $s 0) \$(mp_reconnects $s 0) \$(mp_state $s 0)\"
		wait_for $MP_BACK_S mp_state_is $s 1 connected; echo \"link1 \$(mp_state $s 1)\"; echo \"paths \$(mp_summary $s | tr '\n' ' ')\"" 2>/dev/null)
	rdone=$(echo "$out" | grep -m1 '^link0 ' | cut -d' ' -f2-)
	if [ "$(echo "$rdone" | cut -d' ' -f2-)" != "$c0 connected" ]; then
		res="$res; FAIL: link 0 did not stay connected: reconnects/state '$(echo "$rdone" | cut -d' ' -f2-)', before '$c0 connected'"
	elif [ -z "$r0" ] || [ "${rdone%% *}" -le "$r0" ]; then
		res="$res; FAIL: link 0 carried no I/O after the arming ($r0 -> ${rdone%% *} requests)"
	else
		res="$res; link 0 connected, $((${rdone%% *} - r0)) requests after the arming"
	fi
	case $out in
	*"link1 connected"*) res="$res; link 1 connected again" ;;
	*) res="$res; FAIL: link 1 not connected ${MP_BACK_S}s after the I/O: $(echo "$out" | grep '^link1 \|^paths ' | tr '\n' ' ')" ;;
	esac
	if [ "$m" = stall ]; then
		out=$(BED_TRACE=0 vm_run client 20 "dmesg | grep -c '$s .*unanswered for $STALL_TMO_S s'; grep '^timed_out' /sys/kernel/debug/rtrs-client/$s/requests" 2>&1 | tr '\n' ' ')
		[ "$out" = "1 timed_out 1 " ] || res="$res; FAIL: the I/O timeout did not fail the path exactly once: '$out' (log lines, debugfs)"
	fi
	# every request rnbd sent was completed exactly once (none lost, none twice)
	if out=$(hostile_at_rest "$s"); then res="$res; requests: ${out#ok }"; else res="$res; FAIL: $out"; fi
	out=$(hostile_try 60 "rnbd_unmap $dev || rnbd_unmap $dev force" 2>&1); rc=$?
	[ $rc = 125 ] && return 125
	[ $rc = 0 ] || res="$res; FAIL: unmap blocked ($out)"
	echo "$res"
}

# mp_applied: after hostile_stop, rc 0 if the peer's SUMMARY says the mutation was applied
mp_applied() { hostile_log | grep -a 'SUMMARY mutation=' | grep -q ' applied=[1-9]'; }

run() {
	local e m a n=0 res out
	trap hostile_cleanup EXIT
	hostile_build || fail "make -C tests/hostile failed"
	for e in $HOSTILE_MP_MUTATIONS; do
		n=$((n + 1))
		m=${e%@*} a=$MP_BAD_ADDR
		[ "$m" != "$e" ] && a=${e#*@}
		step "mutation $m on the path to $a"
		client_load >/dev/null || { hostile_result "$m FAIL: the client stack did not load"; break; }
		hostile_start "$m" --arm-on-signal --only-addr "$a" || { hostile_result "$m FAIL: the peer did not start"; break; }
		res=$(mp_one "$m" "$n") || { hostile_result "$m CRASH: client VM died: $(vm_dead_reason client)"; break; }
		hostile_stop "$m" | grep -a 'MUTATE\|PROTOCOL\|WC_ERROR\|SESSION\|HEARTBEAT' | head -n 6
		mp_applied || res="$res; FAIL: the peer never applied $m (the bad path saw no request)"
		[ "$m" = hb_flood ] && res="$res; $(hostile_hb_flood_counts 2 "two paths")"
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
