# Case: failover under cable pulls. Map /dev/nullb0 over two paths (one per bed link), run
# fio crc32c-verified random writes + verifying reads in a loop, and MP_CUTS times (default
# 10; 50 for the soak suites) cut the link of one path from outside (QMP; the client end, see
# MP_CUT_ENDS in lib/mp.sh;
# alternately link1 and link0): the cut path must go disconnected, the other path must carry
# the I/O meanwhile (its stats/rdma grows, fio rounds finish), and after the link is back the
# cut path must reconnect by itself (state connected, stats/reconnects + 1). Each cut is
# made once the path has requests in flight (stats/rdma field 5, min-inflight, the default
# policy), and those must be re-issued on the other path and counted in the cut path's
# failed-over counter (stats/rdma, last field): at least one cut must show it. Not every
# cut: the cut comes ~1 s after the in-flight check and may land in the pause between two
# fio rounds (seen: 0 failed over at one cut with 8 in flight a second before it). Upstream's
# client counts on the other path and fails this at every cut. At the end: zero fio errors
# or verify failures, no I/O error in the client's kernel log.
# The cut path must leave `connected` within MP_DOWN_S (10 s, times BED_TIMEOUT_SCALE) of the
# cut: the port event of the client's link, the device flushing its QPs (soft-RoCE does on
# link down) or, on a 6.12 client, the CM's UNREACHABLE on the established connection each
# fail it at once (0-2 s from the cut to the check's answer in all 50 cuts of soak run
# s19-soak), where the heartbeat alone takes ~35 s: mutant link-silent, all three silenced,
# fails here with "35 s" (tests/mutants/README.md).
# And the client's kernel log must say why the path went down: at least one new line naming
# the session and the path's device by the time the path has left `connected` (a 6.12
# client's CM reports the cut as UNREACHABLE, often first, and that failed the path without
# a word until 2026-12-07).
# Cost: ~45 s per cut: the port event fails the path in 1-4 s, and the reconnect comes ~37 s
# after the cut (rnbd's 30 s delay; the first attempt no sooner than 36 s after the server
# was last heard from). Every wait is a condition with a generous bound.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=${MP_CASE_TIMEOUT:-$(( 300 + ${MP_CUTS:-10} * 150 ))}
. "$BED_REPO/tests/vm/lib/mp.sh"
run() {
	local dev n=${MP_CUTS:-10} i l o r0 o0 f0 fo0 fo inf t0 t1 t2 out fo_cuts=0 g0 g1
	local down_s=$(( ${MP_DOWN_S:-10} * ${BED_TIMEOUT_SCALE:-1} ))
	step "map /dev/nullb0 over link0 and link1 ($CLIENT_STACK stack)"
	dev=$(mp_map bed-mp /dev/nullb0) || fail "map over two paths failed"
	mp_run 150 "mp_fio_start $dev mpf 16m 0; wait_for 120 mp_fio_progress mpf 0 1" ||
		fail "fio did not finish a first round with both paths up"
	for i in $(seq 1 "$n"); do
		l=$(( i % 2 )); o=$(( 1 - l ))
		step "cut $i/$n: link$l (path $l) off, path $o carries the I/O"
		out=$(mp_run 30 "mp_fio_ok mpf && echo \$(mp_reconnects bed-mp $l) \$(mp_reqs bed-mp $o) \$(mp_fio_rounds mpf) \$(mp_failovers bed-mp $l) \$(mp_log_lines bed-mp $l)") ||
			{ mp_run 60 "mp_fio_stop mpf 5"; fail "fio failed before cut $i"; }
		read -r r0 o0 f0 fo0 g0 <<< "$out"
		# cut while path l has requests in flight (not in the pause between two fio rounds),
		# so that its failover counter has something to count
		inf=$(mp_run 40 "wait_for 30 mp_inflight_gt bed-mp $l 0 && mp_inflight bed-mp $l") ||
			fail "path $l had no request in flight for 30 s before cut $i (policy $(vm_run client 10 cat /sys/class/rtrs-client/bed-mp/mpath_policy))"
		t0=$(date +%s)
		link_set "link$l" off "$MP_CUT_ENDS" || fail "link_set failed"
		mp_run 120 "wait_for 90 mp_state_is bed-mp $l disconnected" ||
			{ mp_run 30 "mp_summary bed-mp"; fail "path $l still connected 90 s after link$l was cut"; }
		t1=$(date +%s)
		[ $((t1 - t0)) -le "$down_s" ] ||
			fail "path $l left connected only $((t1 - t0)) s after link$l was cut (at most $down_s s)"
		g1=$(mp_run 20 "mp_log_lines bed-mp $l") || fail "cannot read the client's kernel log"
		[ "$g1" -gt "$g0" ] ||
			fail "path $l went down without a word in the client's kernel log ($g0 lines about it before the cut, $g1 after)"
		note "cut $i: the client's log says: $(mp_run 20 "mp_log_lines bed-mp $l tail")"
		# the other path carries requests and fio keeps finishing rounds
		mp_run 270 "wait_for 120 mp_reqs_grow bed-mp $o $o0 200 && wait_for 120 mp_fio_progress mpf $f0 1" ||
			{ mp_run 60 "mp_summary bed-mp; mp_fio_stop mpf 5"; fail "I/O did not go on over path $o while link$l was cut"; }
		link_set "link$l" on "$MP_CUT_ENDS" || fail "link_set failed"
		t2=$(date +%s)
		out=$(mp_run 200 "wait_for 180 mp_state_is bed-mp $l connected; rc=\$?; mp_summary bed-mp; exit \$rc") ||
			{ echo "$out"; fail "path $l not connected again 180 s after link$l came back"; }
		mp_run 30 "[ \$(mp_reconnects bed-mp $l) -gt $r0 ]" || fail "stats/reconnects of path $l did not count the reconnect"
		fo=$(mp_run 30 "mp_failovers bed-mp $l") || fail "cannot read stats/rdma of path $l"
		[ "$fo" -ge $(( fo0 + 1 )) ] && fo_cuts=$((fo_cuts + 1))
		note "cut $i: path $l down after $((t1 - t0)) s, back $(( $(date +%s) - t2 )) s after link-on; $inf in flight before the cut, $(( fo - fo0 )) failed over; $(echo "$out" | tr '\n' ';')"
	done
	step "stop fio: no error, no verify failure"
	mp_run 400 "mp_fio_stop mpf 300" || fail "fio reported an error or a verify failure"
	out=$(mp_run 30 mp_io_errors) || fail "could not read the client's kernel log"
	[ -z "$out" ] || fail "I/O errors in the client's kernel log: $out"
	note "$fo_cuts of $n cuts failed requests over"
	[ "$fo_cuts" -ge 1 ] ||
		fail "no cut of $n counted a failed-over request on the cut path: stats/rdma's failover count does not count"
	mp_run 30 "mp_summary bed-mp; [ \$(( \$(mp_failovers bed-mp 0) + \$(mp_failovers bed-mp 1) )) -ge $fo_cuts ]" ||
		fail "the failed-over totals disagree with the cuts that counted one"
	step "unmap + unload"
	vm_run client 120 "rnbd_unmap $dev" || fail "unmap failed"
	client_unload || fail "client stack did not unload"
}
