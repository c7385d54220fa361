# bed-hostile.sh: host-side helpers for the hostile-peer cases (tests/vm/cases/hostile-*.sh),
# sourced by those cases after tests/vm/lib/bed.sh. Not a standalone script.
#
# The server VM runs tests/hostile/build/hostile-peer (built on the host: the guests chroot
# into the host's root, so the binary and rdma-core run there unchanged) instead of the
# upstream rtrs-server, which is unloaded first (it would hold the RTRS port). The runner's
# bed_reset loads the upstream server again after the case.
#
#   hostile_build                        make -C tests/hostile (on the host)
#   hostile_start <mutation> [peer options...]   (re)start the peer on the server VM
#   hostile_stop [tag]                   stop it (SIGTERM), keep its log as
#                                        $BED_CASE_DIR/hostile-<tag>.log, print its key lines
#   hostile_log                          print the running peer's log so far
#   hostile_try <secs> <client command>  run a command on the client VM that a hostile server
#                                        may block: wait <secs>; if it has not returned, stop
#                                        the peer (its connections go away) and wait up to
#                                        HOSTILE_RELEASE_S (90) more. Prints the command's
#                                        output; rc 0 returned in time, 3 returned only after
#                                        the peer was stopped, 4 still blocked, 125 VM dead
#   hostile_arm                          arm a peer started with --arm-on-signal (SIGUSR1)
#   hostile_map <sess> [tokens]          the client command for one map_device write
#                                        (guest-map.py): "ok /dev/rnbdN" or "errno N NAME"
#   hostile_errno_ok <N>                 rc 0 if N is a sane errno (1..133)
#   hostile_flood_over                   wait for the end of an hb_flood (+ HB_SETTLE_S)
#   hostile_hb_flood_counts <paths> <label>   the peer's SUMMARY of an hb_flood row
#   hostile_at_rest <sess>               with no I/O running on the client: every request
#                                        the session accepted completed exactly once
#                                        (debugfs requests: in_flight 0, stray 0); prints
#                                        "ok ..." or "FAIL ..."
#   hostile_matrix <case-tag> <peer options> -- <mutation>...   the per-mutation loop of the
#                                        handshake cases (see there)
#   hostile_cleanup                      client stack down, peer stopped (for traps)

HOSTILE_BIN=$BED_REPO/tests/hostile/build/hostile-peer
HOSTILE_ADDR=${HOSTILE_ADDR:-198.18.0.1}
HOSTILE_RELEASE_S=${HOSTILE_RELEASE_S:-90}
_hostile_n=0

hostile_build() {
	make -s -C "$BED_REPO/tests/hostile" >/dev/null || return 1
	[ -x "$HOSTILE_BIN" ]
}

hostile_log() { cat "$(vm_share server)/hostile.log" 2>/dev/null; }

# _summary_num <summary text> <field>: the number after " <field>=" in the peer's SUMMARY
_summary_num() { echo " $1" | grep -o " $2=[0-9]*" | head -n 1 | cut -d= -f2; }

# hb_flood: what the peer can observe of the client's heartbeat acks is how many arrive
# and whether the path survives. Our client keeps at most one ack in flight (signalled) on
# connection 0 and lets it answer every heartbeat that comes meanwhile, so its send queue
# cannot fill, and while heartbeats arrive in the flood's chains of 16 faster than an ack
# completes (a round trip to the peer and back), most heartbeats share one ack. The code
# before 9ea49ab posted one ack per heartbeat received; then one of two things happens,
# which one depends on timing: either the acks do not keep up, the send queue fills, the
# post fails and the path goes down (state reconnecting at once, back only after ~30 s), or
# they keep up and, RC delivering every heartbeat of a live path, the peer receives at
# least one ack per flood heartbeat. So the row demands all of: the path never
# re-established (the peer served one info request per path: a failure during the I/O,
# which then waits for the reconnect), still connected HB_SETTLE_S after the flood (a failure after
# the I/O, not back yet; the heartbeats queued at the flood's end are answered by then),
# and at most 1/HB_ACK_DIV acks per flood heartbeat in the peer's SUMMARY at its exit. The
# ratio alone would not do: heartbeats posted after a failure are lost, and the old code
# that failed 0.24 s into the flood got 1224 acks for 4304. Measured with the current
# code: 26 acks for 3120 heartbeats (sanitizer kernel), 173 for 53408, 186 for 52400,
# 175 for 57792, 179 for 60640, under 1 %; the bound is 25 %, the old code's when it keeps
# up 100 % or more. HB_FLOOD_MIN: the flood must have happened (3120 to 60640 heartbeats in
# its 3 s; a third of the smallest).
HB_SETTLE_S=${HB_SETTLE_S:-2}
HB_ACK_DIV=${HB_ACK_DIV:-4}
HB_FLOOD_MIN=${HB_FLOOD_MIN:-1000}

# hostile_flood_over: wait for the end of the peer's hb_flood and HB_SETTLE_S more; on
# failure print why (a FAIL line) and return 1
hostile_flood_over() {
	# shellcheck disable=SC2016 # expanded in the guest
	BED_TRACE=0 vm_run server 60 'wait_for 30 grep -q "flood over" /tmp/bed/hostile.log' >/dev/null 2>&1 ||
		{ echo "FAIL: the peer's flood did not end"; return 1; }
	bed_sleep "$HB_SETTLE_S" || { echo "FAIL: a VM died"; return 1; }
}

# hostile_hb_flood_counts <paths> <label>: after hostile_stop, the peer's SUMMARY of an
# hb_flood row: no path re-established (one info request per path), a flood, its
# heartbeats' acks coalesced
hostile_hb_flood_counts() {
	local s f a r
	s=$(hostile_log | grep -a 'SUMMARY' | tr '\n' ' ')
	f=$(_summary_num "$s" hb_flood) a=$(_summary_num "$s" hb_acked) r=$(_summary_num "$s" info_reqs)
	if [ -z "$f" ] || [ -z "$a" ] || [ -z "$r" ]; then
		echo "FAIL: no SUMMARY from the peer"
	elif [ "$r" != "$1" ]; then
		echo "FAIL: a path went down under the flood: the peer served $r info requests, $1 expected"
	elif [ "$f" -lt "$HB_FLOOD_MIN" ]; then
		echo "FAIL: no flood: $f heartbeats, at least $HB_FLOOD_MIN expected"
	elif [ $((a * HB_ACK_DIV)) -gt "$f" ]; then
		echo "FAIL: heartbeat acks not coalesced: $a acks for $f flood heartbeats (at most 1/$HB_ACK_DIV)"
	else
		echo "heartbeats: $a acks for $f flood heartbeats, $2"
	fi
}

hostile_stop() { # [tag]
	local tag=${1:-$_hostile_n} out
	# shellcheck disable=SC2016 # expands in the guest
	out=$(BED_TRACE=0 vm_run server 40 'p=$(cat /tmp/hostile.pid 2>/dev/null) || exit 0
		kill -TERM "$p" 2>/dev/null || exit 0
		for i in $(seq 300); do kill -0 "$p" 2>/dev/null || exit 0; sleep 0.1; done
		echo "hostile-peer $p did not exit on SIGTERM; killing it"; kill -KILL "$p"; exit 1' 2>&1)
	[ -n "$out" ] && note "$out"
	if [ -n "${BED_CASE_DIR:-}" ] && [ -e "$(vm_share server)/hostile.log" ]; then
		cp "$(vm_share server)/hostile.log" "$BED_CASE_DIR/hostile-$tag.log"
	fi
	hostile_log | grep -a 'SUMMARY\|CHECK-INVAL\|MUTATE\|PROTOCOL\|WC_ERROR\|ERROR\|HEARTBEAT' |
		sed 's/^/        peer: /' | tail -n 25
	BED_TRACE=0 vm_run server 10 'rm -f /tmp/hostile.pid' >/dev/null 2>&1
	return 0
}

hostile_start() { # <mutation> [peer options...]
	local m=$1 args; shift
	args="--mutate $m --pidfile /tmp/hostile.pid $*"
	[ -x "$HOSTILE_BIN" ] || hostile_build || { echo "hostile-peer does not build" >&2; return 1; }
	hostile_stop quiet >/dev/null 2>&1
	_hostile_n=$((_hostile_n + 1))
	BED_TRACE=0 vm_run server 120 "bed_server_down || exit 1
		modprobe rdma_ucm 2>/dev/null; modprobe ib_uverbs 2>/dev/null
		rm -f /tmp/hostile.pid
		setsid $HOSTILE_BIN $args > /tmp/bed/hostile.log 2>&1 < /dev/null &
		wait_for 20 grep -q 'LISTEN\\|ERROR' /tmp/bed/hostile.log || exit 1
		grep -q LISTEN /tmp/bed/hostile.log || { cat /tmp/bed/hostile.log; exit 1; }" ||
		{ echo "hostile-peer did not start: $(hostile_log | tail -n 5)" >&2; return 1; }
	note "hostile-peer #$_hostile_n started: $args"
}

# hostile_arm: SIGUSR1 to a peer started with --arm-on-signal: it mutates from now on
hostile_arm() {
	# shellcheck disable=SC2016 # expands in the guest
	BED_TRACE=0 vm_run server 10 'kill -USR1 "$(cat /tmp/hostile.pid)"' >/dev/null 2>&1
}

hostile_map() { # <sess> [tokens]
	echo "python3 $BED_REPO/tests/hostile/guest-map.py $1 $HOSTILE_ADDR ${*:2}"
}

_hostile_done() { [ -e "$(vm_share client)/mbox/$1.rc" ]; }
# (polls every 0.2 s: at 1 s each call waited 0.5 s on average for the answer it had)
hostile_try() { # <secs> <client command>
	local t=$(( $1 * ${BED_TIMEOUT_SCALE:-1} )) id end rc; shift
	id=$(vm_spawn client $(( t + HOSTILE_RELEASE_S + 60 )) "$*")
	end=$(( $(date +%s) + t ))
	while ! _hostile_done "$id" && [ "$(date +%s)" -lt "$end" ]; do
		vm_alive client || { vm_wait client "$id"; return 125; }
		sleep 0.2
	done
	if _hostile_done "$id"; then
		vm_wait client "$id"; rc=$?
		[ $rc = 125 ] && return 125
		return 0
	fi
	note "no return after ${t}s: stopping the peer (its QPs and CM ids go away)"
	hostile_stop "stuck-$_hostile_n" >/dev/null
	end=$(( $(date +%s) + HOSTILE_RELEASE_S * ${BED_TIMEOUT_SCALE:-1} ))
	while ! _hostile_done "$id" && [ "$(date +%s)" -lt "$end" ]; do
		vm_alive client || { vm_wait client "$id"; return 125; }
		sleep 0.2
	done
	if _hostile_done "$id"; then
		vm_wait client "$id"; rc=$?
		[ $rc = 125 ] && return 125
		return 3
	fi
	echo "still blocked ${HOSTILE_RELEASE_S}s after the peer was stopped"
	return 4
}

hostile_errno_ok() { [ "$1" -ge 1 ] 2>/dev/null && [ "$1" -le 133 ]; }

hostile_at_rest() { # <sess>
	local out
	out=$(BED_TRACE=0 vm_run client 20 "tr '\n' ' ' < /sys/kernel/debug/rtrs-client/$1/requests" 2>&1) ||
		{ echo "FAIL no request counts for $1: $out"; return 1; }
	case " $out " in
	*" in_flight 0 "*) ;;
	*) echo "FAIL requests of $1 not each completed once: $out"; return 1 ;;
	esac
	case " $out " in
	*" stray 0 "*) echo "ok $out" ;;
	*) echo "FAIL requests of $1 not each completed once: $out"; return 1 ;;
	esac
}

# hostile_matrix <tag> <peer options> -- <mutation>...: for each mutation: load the client
# stack, start the peer with it (applied once: --count 1), one map_device write. The oracle:
# the write returns within HOSTILE_MAP_S (a session that fails its handshake must fail
# the open in bounded time) with an errno of 1..133, or succeeds (a mutation the client may
# tolerate: then it must unmap); then the client stack unloads (unmap, rmmod). A VM that
# dies ends the loop (the runner reports the oops). Prints one RESULT line per mutation;
# rc 1 if any mutation broke the oracle.
HOSTILE_MAP_S=${HOSTILE_MAP_S:-90}
# Mutations a client must refuse at once, not on a timeout (HOSTILE_FAST_S seconds, TCG
# margin included): a server that disconnects instead of answering the info request waited
# for the whole 30 s info timeout before 2026-12-06.
HOSTILE_FAST_MUTATIONS=${HOSTILE_FAST_MUTATIONS:-"dreq_handshake"}
HOSTILE_FAST_S=${HOSTILE_FAST_S:-10}
hostile_result() { # <text>: one RESULT line, also kept in $BED_CASE_DIR/results.txt
	echo "RESULT $*"
	[ -n "${BED_CASE_DIR:-}" ] && echo "RESULT $*" >> "$BED_CASE_DIR/results.txt"
	return 0
}
# hostile_verdict: fail the case if a RESULT line of results.txt says FAIL or CRASH
hostile_verdict() {
	local f=$BED_CASE_DIR/results.txt bad
	echo "=== results"; cat "$f" 2>/dev/null
	[ -s "$f" ] || fail "no results"
	bad=$(grep 'FAIL\|CRASH' "$f" | cut -d' ' -f2 | tr '\n' ' ')
	[ -z "$bad" ] || fail "mutation(s) broke the oracle: $bad"
}
hostile_matrix() {
	local tag=$1 popts=$2 m out rc bad=0 n=0 res errno dev secs
	shift 3
	for m in "$@"; do
		n=$((n + 1))
		step "mutation $m"
		client_load >/dev/null || { hostile_result "$m FAIL: the client stack did not load"; bad=1; break; }
		# shellcheck disable=SC2086 # the options split into words on purpose
		hostile_start "$m" $popts || { hostile_result "$m FAIL: the peer did not start"; bad=1; break; }
		out=$(hostile_try "$HOSTILE_MAP_S" "$(hostile_map "$tag$n")" 2>/dev/null); rc=$?
		out=$(echo "$out" | tail -n 1)
		res=""
		case $rc in
		125) hostile_result "$m CRASH: client VM died: $(vm_dead_reason client)"; bad=1; break ;;
		4) res="FAIL: map_device blocked even after the server went away" ;;
		3) res="FAIL: map_device returned only after the server went away ($out)" ;;
		esac
		if [ -z "$res" ]; then
			case $out in
			errno\ *)
				errno=$(echo "$out" | cut -d' ' -f2)
				if hostile_errno_ok "$errno"; then res="ok: refused, $out"
				else res="FAIL: errno outside 1..133: $out"; fi
				secs=$(echo "$out" | sed -n 's/.*(\([0-9]*\)\.[0-9] s)$/\1/p')
				case " $HOSTILE_FAST_MUTATIONS " in
				*" $m "*) [ -n "$secs" ] && [ "$secs" -lt $((HOSTILE_FAST_S * ${BED_TIMEOUT_SCALE:-1})) ] ||
					res="FAIL: refused only after ${secs:-?} s, not at once: $out" ;;
				esac ;;
			ok\ *)
				dev=$(echo "$out" | cut -d' ' -f2)
				res="ok: tolerated, mapped $dev"
				vm_run client 60 "rnbd_unmap $dev || rnbd_unmap $dev force" >/dev/null 2>&1 ||
					res="FAIL: mapped $dev but could not unmap it" ;;
			*) res="FAIL: no answer from the map helper: $out" ;;
			esac
		fi
		hostile_stop "$m" | grep -a 'MUTATE\|PROTOCOL\|WC_ERROR' | head -n 3
		if ! out=$(client_unload 2>&1); then
			res="$res; FAIL: client stack did not unload: $(echo "$out" | tail -n 2 | tr '\n' ' ')"
		fi
		vm_alive client || { hostile_result "$m CRASH: client VM died: $(vm_dead_reason client)"; bad=1; break; }
		hostile_result "$m ${res}"
		case $res in *FAIL*) bad=1 ;; esac
	done
	return $bad
}

hostile_cleanup() {
	client_unload >/dev/null 2>&1
	hostile_stop cleanup >/dev/null 2>&1
}
