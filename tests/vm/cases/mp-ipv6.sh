# Case: multipath over IPv6 (issue 20, the workloads users run). Map /dev/nullb0 over both bed
# links by IPv6 (path=ip:fd18:0::1 path=ip:fd18:1::1). The path names must be src@dst as
# upstream prints IPv6 (ip:%pI6c, the compressed form: ip:fd18::2@ip:fd18::1 and
# ip:fd18:1::2@ip:fd18:1::1), src_addr/dst_addr likewise, both connected, both take requests.
# With the fio crc32c verify loop of the mp cases running throughout:
# - add_path ip:198.18.1.1 (IPv4) is refused with EEXIST: upstream's server takes a path of
#   another address family for a duplicate (rtrs-srv.c sockaddr_cmp() returns "same" when the
#   families differ; "Path with same addr exists" in its log), so it refuses any session
#   mixing IPv4 and IPv6 paths. The client must pass that errno on at once and leave exactly
#   the two IPv6 paths, connected (run hv6-1: refused in 0 s, errno -17 in the reject);
# - link1 is cut at the client while the IPv6 link1 path has requests in flight: a
#   time-based read load runs over the cut (the loop alone pauses between rounds, and a cut
#   in the pause has nothing to fail over; seen in mp-failover). The cut path goes
#   disconnected; the link0 path carries the I/O (its request count grows, the loop finishes
#   rounds); nothing is posted on the cut path while it is down; after link-on it reconnects
#   by itself (stats/reconnects grows). The cut path's failed-over counter (stats/rdma, last
#   field) grew, the surviving path's did not (upstream's client counts on the path that took
#   the request over: see mp-failover);
# - remove_path of the IPv6 link1 path: only the link0 path is left, connected, and the loop
#   goes on over it;
# - the loop and the read load saw no error and no verify failure, no I/O error in the log.
# Unmap, unload. ~90 s, most of it the reconnect ~37 s after the cut (mp-failover: rnbd's
# 30 s delay). Every wait is a condition with a generous bound.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=600
. "$BED_REPO/tests/vm/lib/mp.sh"
S=bed-mp6
P0=ip:fd18::2@ip:fd18::1        # IPv6 over link0
P1=ip:fd18:1::2@ip:fd18:1::1    # IPv6 over link1, the one cut
# m6 <timeout_s> <cmd>: mp_run with the guest's path helpers (mp_state, mp_reqs, ...) taking
# a path name instead of a link number, and mp_nconn <sess> <n>: n paths connected
m6() {
	# shellcheck disable=SC2016 # expanded by the guest's shell
	mp_run "$1" 'mp_dir() { echo "/sys/class/rtrs-client/$1/paths/$2"; }
		mp_nconn() { [ "$(path_states "$1" | grep -c " connected$")" = "$2" ]; };' "$2"
}
run() {
	local dev out want r1 o0 f0 fo1 fo0 q1 inf t0 t1 t2 a b
	step "map /dev/nullb0 over link0 and link1 by IPv6 ($CLIENT_STACK stack)"
	client_load || fail "client stack $CLIENT_STACK did not load"
	dev=$(vm_run client 180 rnbd_map $S /dev/nullb0 path=ip:fd18:0::1 path=ip:fd18:1::1) ||
		fail "map over two IPv6 paths failed"
	out=$(m6 60 "wait_for 30 mp_nconn $S 2; path_states $S | LC_ALL=C sort")
	want="$P1 connected
$P0 connected"
	[ "$out" = "$want" ] || fail "IPv6 path names or states: '$(echo "$out" | tr '\n' ';')', not '$(echo "$want" | tr '\n' ';')'"
	out=$(m6 10 "for p in $P0 $P1; do echo \$(cat \$(mp_dir $S \$p)/src_addr) \$(cat \$(mp_dir $S \$p)/dst_addr); done")
	want="ip:fd18::2 ip:fd18::1
ip:fd18:1::2 ip:fd18:1::1"
	[ "$out" = "$want" ] || fail "src_addr/dst_addr of the IPv6 paths: '$(echo "$out" | tr '\n' ';')'"
	m6 150 "mp_fio_start $dev m6 16m 0; wait_for 120 mp_fio_progress m6 0 1" ||
		fail "fio did not finish a first round over the two IPv6 paths"
	out=$(m6 30 "mp_summary $S; [ \$(mp_reqs $S $P0) -gt 0 ] && [ \$(mp_reqs $S $P1) -gt 0 ]") ||
		fail "an IPv6 path carried no request: $(echo "$out" | tr '\n' ';')"

	step "add_path ip:198.18.1.1: upstream's server refuses an IPv4 path in an IPv6 session"
	out=$(m6 150 "s=\$(date +%s); e=\$( { echo ip:198.18.1.1 > /sys/class/rtrs-client/$S/add_path; } 2>&1 ); rc=\$?
		echo rc=\$rc in \$(( \$(date +%s) - s )) s: \$e; path_states $S | LC_ALL=C sort")
	note "add_path: $(echo "$out" | tr '\n' ';')"
	case $out in "rc=1 in "[0-9]" s: "*"File exists"*) ;; *) fail "add_path of an IPv4 path was not refused at once with EEXIST: $(echo "$out" | tr '\n' ';')" ;; esac
	want="$P1 connected
$P0 connected"
	[ "${out#*$'\n'}" = "$want" ] || fail "after the refused add_path the paths are not the two IPv6 ones, connected: $(echo "$out" | tr '\n' ';')"

	step "cut link1 ($P1) with requests in flight; $P0 carries the I/O"
	out=$(m6 30 "mp_fio_ok m6 && echo \$(mp_reconnects $S $P1) \$(mp_reqs $S $P0) \$(mp_fio_rounds m6) \$(mp_failovers $S $P1) \$(mp_failovers $S $P0)") ||
		fail "fio failed before the cut"
	read -r r1 o0 f0 fo1 fo0 <<< "$out"
	m6 30 "rm -f /tmp/m6r.rc
		( fio --name=m6r --filename=$dev --rw=randread --bs=4k --iodepth=16 --ioengine=libaio \
			--direct=1 --offset=64m --size=64m --time_based --runtime=30 --allow_file_create=0 \
			> /tmp/m6r.out 2>&1; echo \$? > /tmp/m6r.rc ) > /dev/null 2>&1 < /dev/null &
		echo \$! > /tmp/m6r.pid" || fail "cannot start the read load"
	inf=$(m6 40 "wait_for 30 mp_inflight_gt $S $P1 0 && mp_inflight $S $P1") ||
		fail "$P1 had no request in flight for 30 s before the cut"
	t0=$(date +%s)
	link_set link1 off "$MP_CUT_ENDS" || fail "link_set failed"
	out=$(m6 120 "wait_for 90 mp_state_is $S $P1 disconnected; rc=\$?; mp_summary $S; exit \$rc") ||
		fail "$P1 still connected 90 s after link1 was cut: $(echo "$out" | tr '\n' ';')"
	t1=$(date +%s)
	q1=$(m6 10 "mp_reqs $S $P1") || fail "cannot read stats/rdma of $P1"
	m6 270 "wait_for 120 mp_reqs_grow $S $P0 $o0 200 && wait_for 120 mp_fio_progress m6 $f0 1" ||
		{ m6 60 "mp_summary $S; mp_fio_stop m6 5"; fail "I/O did not go on over $P0 while link1 was cut"; }
	out=$(m6 10 "mp_state_is $S $P1 disconnected && mp_reqs $S $P1") ||
		fail "$P1 is not disconnected while link1 is still cut"
	[ "$out" = "$q1" ] || fail "requests were posted on the disconnected $P1: stats/rdma counted $q1, then $out"
	link_set link1 on "$MP_CUT_ENDS" || fail "link_set failed"
	t2=$(date +%s)
	out=$(m6 200 "wait_for 180 mp_state_is $S $P1 connected; rc=\$?; mp_summary $S; exit \$rc") ||
		fail "$P1 not connected again 180 s after link-on: $(echo "$out" | tr '\n' ';')"
	note "down $((t1 - t0)) s after the cut, back $(( $(date +%s) - t2 )) s after link-on; $inf in flight on $P1 before the cut; $(echo "$out" | tr '\n' ';')"
	m6 30 "[ \$(mp_reconnects $S $P1) -gt $r1 ]" || fail "stats/reconnects of $P1 did not count the reconnect"
	read -r a b <<< "$(m6 30 "echo \$(mp_failovers $S $P1) \$(mp_failovers $S $P0)")"
	note "failed over: $P1 $(( a - fo1 )), $P0 $(( b - fo0 ))"
	[ "$a" -ge $(( fo1 + 1 )) ] || fail "the failed-over count of the cut $P1 did not grow ($fo1 -> $a) with $inf requests in flight"
	[ "$b" = "$fo0" ] || fail "the failed-over count of the surviving $P0 changed ($fo0 -> $b)"
	out=$(m6 60 "wait_for 45 test -e /tmp/m6r.rc; rm -f /tmp/m6r.pid; rc=\$(cat /tmp/m6r.rc); [ \"\$rc\" = 0 ] || tail -n 20 /tmp/m6r.out; exit \$rc") ||
		fail "the read load over the cut failed: $out"

	step "remove_path of $P1: I/O goes on over $P0 alone"
	out=$(m6 60 "d=\$(mp_dir $S $P1); echo 1 > \$d/remove_path; rc=\$?; [ \$rc = 0 ] && test ! -e \$d; rc=\$?; path_states $S; exit \$rc") ||
		fail "remove_path of $P1 failed or left its directory: $(echo "$out" | tr '\n' ';')"
	[ "$out" = "$P0 connected" ] || fail "after remove_path: '$(echo "$out" | tr '\n' ';')', not '$P0 connected'"
	# Both conditions are waited for: the loop's round in progress at the removal can end
	# a moment later having sent fewer than 200 requests since (CI run of 6fdd1c7 failed so)
	m6 260 "a=\$(mp_reqs $S $P0); f=\$(mp_fio_rounds m6); wait_for 150 mp_fio_progress m6 \$f 1 && wait_for 90 mp_reqs_grow $S $P0 \$a 200" ||
		{ m6 30 "mp_fio_stop m6 5"; fail "I/O did not go on over $P0 after remove_path"; }

	step "stop fio: no error, no verify failure"
	m6 400 "mp_fio_stop m6 300" || fail "fio reported an error or a verify failure"
	out=$(m6 30 mp_io_errors) || fail "could not read the client's kernel log"
	[ -z "$out" ] || fail "I/O errors in the client's kernel log: $out"
	step "unmap + unload"
	vm_run client 120 "rnbd_unmap $dev" || fail "unmap failed"
	client_unload || fail "client stack did not unload"
}
