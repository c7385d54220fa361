# Case: more requests than permits. The server host offers a session queue depth of 32
# (rtrs-server sess_queue_depth=32; CT_SRV_QD), so each session has 32 permits. Two sessions
# at once: bed-c1 (link0) with three devices, bed-c2 (link1) with one; on each device fio
# runs 2 jobs of queue depth 32 (crc32c verify), 192 requests offered to bed-c1's 32
# permits, 64 to bed-c2's. rnbd takes its I/O permits with NOWAIT and requeues a request that
# gets none; its control messages (open, close, session info) wait for a permit.
# - every device's fio loop passes 2 rounds, no I/O error in the kernel log;
# - contention happened: each session's requests in flight (debugfs requests: accepted minus
#   completed, sampled every 0.1 s) reached its queue depth - 1, i.e. every permit I/O may
#   take was taken (the last one is kept for control messages: README, "Permits"), and never
#   more (a reserve that I/O can take is no reserve)
#   (rnbd counts no refused permit anywhere a test can read; that is the observable);
# - a fifth device mapped on bed-c1 and unmapped again while its permits are exhausted: both
#   wait for a permit and must succeed (bound 60 s each, times BED_TIMEOUT_SCALE like every
#   guest-side wait: 180 s on the sanitizer kernel), and the device reads back;
# - last, a sysfs reconnect of bed-c2's only path under the load, with the default I/O hold:
#   rnbd re-opens its device (session info, open: permits WAIT, from the RECONNECTED event)
#   while the hold keeps every permit with a held request. It must return (60 s), rnbd
#   must remap the device and the fio loop must go on without an error.
# The server devices beyond /dev/nullb0 and nullb1 are null_blk configfs devices (memory
# backed, so fio can verify; /dev/ctbN on 6.12), removed at the end.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=600
CT_SRV_QD=${CT_SRV_QD:-32}
CT_TAGS="ct0 ct1 ct2 ct3"
# ct_run <timeout_s> <cmd...>: vm_run on the client with tests/vm/guest/contention.sh loaded
ct_run() { local t=$1; shift; vm_run client "$t" ". \"\$BED_REPO/tests/vm/guest/contention.sh\"; $*"; }
# ct_fail <text>: stop the fio loops (the runner's cleanup cannot unmap a device fio holds
# open), then fail the case
ct_fail() { ct_run 150 "ct_stop $CT_TAGS" > /dev/null 2>&1; fail "$*"; }
# the server's configfs null_blk devices: create (print their /dev names) or remove
ct_nullb() { # up|down <name...>
	local op=$1; shift
	# the guest's init mounts configfs before null_blk (which loads configfs) is loaded
	vm_run server 60 "grep -q ' /sys/kernel/config ' /proc/mounts || mount -t configfs configfs /sys/kernel/config || exit 1
	op=$op; for n in $*; do d=/sys/kernel/config/nullb/\$n
		if [ \$op = up ]; then
			[ -d \$d ] || { mkdir \$d && echo 1 > \$d/memory_backed && echo 64 > \$d/size && echo 1 > \$d/power; } || exit 1
			# 6.12 names the disk after the directory, 6.1 nullb<index>
			if [ -e /sys/block/\$n ]; then echo /dev/\$n; else echo /dev/nullb\$(cat \$d/index); fi
		elif [ -d \$d ]; then
			echo 0 > \$d/power; rmdir \$d || exit 1
		fi
	done"
}
run() {
	local nb d out i max at n s dx r0
	local -a devs
	step "server: sess_queue_depth=$CT_SRV_QD, three more null_blk devices"
	server_reload "sess_queue_depth=$CT_SRV_QD" || fail "server reload with sess_queue_depth=$CT_SRV_QD failed"
	out=$(ct_nullb up ctb2 ctb3 ctb4) || fail "null_blk configfs devices: $out"
	read -r -a nb <<< "$(echo "$out" | tr '\n' ' ')"
	[ ${#nb[@]} = 3 ] || fail "expected three null_blk devices, got: $out"
	vm_run server 30 "for d in ${nb[*]}; do wait_for 10 test -b \$d || exit 1; done" || fail "no block device for ${nb[*]}"
	note "server devices ${nb[*]}"

	step "two sessions: bed-c1 (link0) /dev/nullb0, /dev/nullb1, ${nb[0]}; bed-c2 (link1) ${nb[1]}"
	client_load || fail "client stack $CLIENT_STACK did not load"
	for d in /dev/nullb0 /dev/nullb1 "${nb[0]}"; do
		out=$(vm_run client 180 rnbd_map bed-c1 "$d" path=ip:198.18.0.1) || fail "map $d on bed-c1 failed: $out"
		devs+=("$out")
	done
	out=$(vm_run client 180 rnbd_map bed-c2 "${nb[1]}" path=ip:198.18.1.1) || fail "map ${nb[1]} on bed-c2 failed: $out"
	devs+=("$out")
	# rnbd sizes its tag set by the session's queue depth
	for d in "${devs[@]}"; do
		out=$(vm_run client 10 "cat /sys/block/${d#/dev/}/queue/nr_requests") || fail "no nr_requests for $d"
		[ "$out" = "$CT_SRV_QD" ] || fail "$d: queue depth $out, not the server's $CT_SRV_QD"
	done
	note "devices ${devs[*]}, queue depth $CT_SRV_QD per session"

	step "fio verify on all four devices (2 jobs x queue depth 32 each), sampling requests in flight"
	i=0
	for d in "${devs[@]}"; do
		ct_run 30 "ct_fio_start $d ct$i" || fail "fio loop on $d did not start"
		i=$((i + 1))
	done
	ct_run 30 "ct_sample_start bed-c1 bed-c2" || ct_fail "sampler did not start"
	ct_run 200 "wait_for 150 ct_all_rounds 1 $CT_TAGS" || ct_fail "a fio loop failed or did not finish its first round in 150 s"

	step "map a fifth device on bed-c1 and unmap it, its permits exhausted"
	s=$(date +%s)
	dx=$(vm_run client 90 "timeout \$((60 * BED_TIMEOUT_SCALE)) bash -c '. \$BED_REPO/tests/vm/guest/lib.sh; rnbd_map bed-c1 ${nb[2]} path=ip:198.18.0.1'") ||
		ct_fail "map of ${nb[2]} on bed-c1 under load failed or took over $((60 * ${BED_TIMEOUT_SCALE:-1})) s: $dx"
	note "mapped ${nb[2]} as $dx under load in $(( $(date +%s) - s )) s"
	vm_run client 60 "set -e
		dd if=/dev/urandom of=/tmp/ctpat bs=64k count=16 status=none
		dd if=/tmp/ctpat of=$dx bs=64k oflag=direct status=none
		dd if=$dx of=/tmp/ctback bs=64k count=16 iflag=direct status=none
		cmp /tmp/ctpat /tmp/ctback" || ct_fail "data check on $dx under load failed"
	s=$(date +%s)
	vm_run client 90 "timeout \$((60 * BED_TIMEOUT_SCALE)) bash -c '. \$BED_REPO/tests/vm/guest/lib.sh; rnbd_unmap $dx'" ||
		ct_fail "unmap of $dx under load failed or took over $((60 * ${BED_TIMEOUT_SCALE:-1})) s"
	note "unmapped $dx under load in $(( $(date +%s) - s )) s"

	step "two more rounds on every device, then the verdict"
	out=$(ct_run 20 "cat /tmp/ct0.rounds /tmp/ct1.rounds /tmp/ct2.rounds /tmp/ct3.rounds | sort -n | head -n 1") ||
		ct_fail "cannot read the fio rounds"
	ct_run 260 "wait_for 240 ct_all_rounds $((out + 2)) $CT_TAGS" || ct_fail "a fio loop failed or did not finish 2 more rounds in 240 s"
	ct_run 20 "ct_sample_stop" || ct_fail "sampler did not stop"
	for s in bed-c1 bed-c2; do
		read -r max at n <<< "$(vm_run client 10 "cat /tmp/ct.max.$s")"
		note "$s: requests in flight reached $max (in $at of $n samples), queue depth $CT_SRV_QD"
		[ "${max:-x}" = "$((CT_SRV_QD - 1))" ] ||
			ct_fail "$s: requests in flight peaked at ${max:-nothing}, not the queue depth - 1 ($((CT_SRV_QD - 1))): no contention seen, or I/O took the permit kept for control messages"
	done
	out=$(vm_run client 10 ". \$BED_REPO/tests/vm/guest/mp.sh; mp_io_errors") ||
		ct_fail "could not read the kernel log: $out"
	[ -z "$out" ] || ct_fail "I/O errors in the kernel log: $out"

	step "bed-c2: reconnect its only path under the load (control messages vs held I/O)"
	r0=$(vm_run client 20 "dmesg | grep -c 'bed-c2.*remapping device'")
	s=$(date +%s)
	out=$(vm_run client 90 "timeout \$((60 * BED_TIMEOUT_SCALE)) bash -c 'echo 1 > /sys/class/rtrs-client/bed-c2/paths/*/reconnect' 2>&1; echo rc=\$?")
	note "reconnect under load: $(echo "$out" | tr '\n' ' ') after $(( $(date +%s) - s )) s"
	[ "$(echo "$out" | tail -n 1)" = rc=0 ] || ct_fail "reconnect of bed-c2's path under load: $out"
	vm_run client 60 "wait_for 30 path_state_is bed-c2 connected && wait_for 30 grep -qx open /sys/block/${devs[3]#/dev/}/rnbd/state" ||
		ct_fail "bed-c2 not connected with its device open after the reconnect"
	n=$(vm_run client 20 "dmesg | grep -c 'bed-c2.*remapping device'")
	# r0 unread (vm_run failed) is no baseline: counting from 0 passed on any earlier remap
	{ [ -n "$r0" ] && [ "${n:-0}" -gt "$r0" ]; } ||
		ct_fail "rnbd did not remap bed-c2's device after the reconnect (${r0:-?} -> ${n:-?} lines)"
	out=$(ct_run 20 "ct_rounds ct3") || ct_fail "cannot read the fio rounds"
	ct_run 200 "wait_for 150 ct_all_rounds $((out + 1)) ct3" || ct_fail "bed-c2's fio loop failed or stalled after the reconnect under load"
	out=$(ct_run 240 "ct_stop $CT_TAGS") || { echo "$out"; fail "a fio loop failed"; }
	echo "$out"
	out=$(vm_run client 10 ". \$BED_REPO/tests/vm/guest/mp.sh; mp_io_errors") ||
		ct_fail "could not read the kernel log: $out"
	[ -z "$out" ] || ct_fail "I/O errors in the kernel log: $out"

	step "unmap + unload, remove the server's extra devices"
	vm_run client 120 "for d in ${devs[*]}; do rnbd_unmap \$d || exit 1; done" || fail "unmap failed"
	client_unload || fail "client stack did not unload"
	# rnbd-server keeps nothing open once the client is gone; the device goes with its directory
	out=$(ct_nullb down ctb2 ctb3 ctb4) || fail "removing the null_blk configfs devices failed: $out"
}
