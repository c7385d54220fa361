# Case: our rtrs-client in one kernel with upstream's rtrs-core and rtrs-server, on a host
# that serves one volume and consumes another. On the CLIENT VM: null_blk, upstream
# rtrs-core.ko, rtrs-server.ko and rnbd-server.ko (from $BED_PEER_UP), then our
# rtrs-client.ko and the rnbd-client built against our rtrs.h. Loading ours after
# rtrs-core proves that it exports none of rtrs-core's symbol names (insmod would refuse a
# duplicate symbol). Then, at the same time:
#  - the client VM maps the server VM's /dev/nullb0 through our client (as always);
#  - the server VM maps the client VM's /dev/nullb0 through upstream rtrs-client +
#    rnbd-client (its rtrs-core is already loaded);
# each writes 16 MiB of random data, reads it back, compares, and the exporting side's md5
# must match. Then both unmap and everything is unloaded on both VMs (the case restores the
# server VM to its baseline itself: the bed's reset knows neither extra stack).
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=600

coexist_cleanup() {
	# shellcheck disable=SC2016 # expanded in the guest
	vm_run server 120 'bed_client_down >/dev/null 2>&1
		for m in rnbd_client rtrs_client; do lsmod | grep -q "^$m " && rmmod $m; done; true'
	# shellcheck disable=SC2016 # expanded in the guest
	vm_run client 180 'bed_client_down >/dev/null 2>&1
		for m in rnbd_client rtrs_client rnbd_server rtrs_server rtrs_core null_blk; do
			lsmod | grep -q "^$m " && { rmmod $m || echo "rmmod $m failed"; }
		done; true'
}

# check_io <vm> <dev> <exporting vm>: 16 MiB write/read/compare on <vm>, md5 on the exporter
check_io() {
	local md5 emd5
	md5=$(vm_run "$1" 300 "set -e
		dd if=/dev/urandom of=/tmp/cx bs=1M count=16 status=none
		dd if=/tmp/cx of=$2 bs=1M oflag=direct status=none
		dd if=$2 of=/tmp/cxb bs=1M count=16 iflag=direct status=none
		cmp /tmp/cx /tmp/cxb
		md5sum < /tmp/cx | cut -d' ' -f1") || { echo "$1: write/read/compare on $2 failed: $md5"; return 1; }
	emd5=$(vm_run "$3" 120 "dd if=/dev/nullb0 bs=1M count=16 iflag=direct status=none | md5sum | cut -d' ' -f1") ||
		{ echo "$3: md5 of nullb0 failed"; return 1; }
	[ "$md5" = "$emd5" ] || { echo "$3 nullb0 md5 $emd5 != $1 data md5 $md5"; return 1; }
	echo "$1 -> $3: 16 MiB verified, md5 $md5"
}

run() {
	local out cdev sdev id1 id2 r1 r2
	ours_fresh || fail "stale rtrs-client.ko"
	trap coexist_cleanup EXIT
	step "client VM: null_blk, upstream rtrs-core + rtrs-server + rnbd-server, then ours"
	# shellcheck disable=SC2016 # expanded in the guest
	out=$(vm_run client 120 'set -e
		modprobe null_blk nr_devices=1 gb=1 memory_backed=1
		wait_for 10 test -b /dev/nullb0
		insmod "$BED_PEER_UP/rtrs/rtrs-core.ko"
		insmod "$BED_PEER_UP/rtrs/rtrs-server.ko"
		insmod "$BED_PEER_UP/rnbd/rnbd-server.ko"
		insmod "$BED_OURS_KO" ${BED_OURS_PARAMS:-}
		insmod "$BED_OURS_RNBD"
		lsmod | grep -E "^(rtrs|rnbd)"' 2>&1) || fail "loading the stacks side by side failed: $out"
	echo "$out"
	step "server VM: upstream rtrs-client + rnbd-client next to its rtrs-server"
	# shellcheck disable=SC2016 # expanded in the guest
	out=$(vm_run server 120 'set -e
		insmod "$BED_PEER_UP/rtrs/rtrs-client.ko"
		insmod "$BED_PEER_UP/rnbd/rnbd-client.ko"
		lsmod | grep -E "^(rtrs|rnbd)"' 2>&1) || fail "upstream client on the server VM did not load: $out"
	echo "$out"

	step "map both ways"
	cdev=$(vm_run client 180 rnbd_map cx-fwd /dev/nullb0 path=ip:198.18.0.1) || fail "client VM map failed: $cdev"
	sdev=$(vm_run server 180 rnbd_map cx-rev /dev/nullb0 path=ip:198.18.0.2) || fail "server VM map failed: $sdev"
	note "client VM $cdev (ours -> server VM), server VM $sdev (upstream -> client VM)"
	vm_run client 30 "path_states cx-fwd; path_state_is cx-fwd connected" || fail "our path not connected"

	step "I/O both ways at once"
	check_io client "$cdev" server > "$BED_CASE_DIR/io-fwd.txt" 2>&1 & id1=$!
	check_io server "$sdev" client > "$BED_CASE_DIR/io-rev.txt" 2>&1 & id2=$!
	wait $id1; r1=$?; wait $id2; r2=$?
	cat "$BED_CASE_DIR/io-fwd.txt" "$BED_CASE_DIR/io-rev.txt"
	[ $r1 = 0 ] || fail "I/O through our client failed"
	[ $r2 = 0 ] || fail "I/O to the client VM's rnbd-server failed"

	step "unmap and unload everything"
	vm_run server 120 "rnbd_unmap $sdev && rmmod rnbd_client && rmmod rtrs_client" || fail "server VM: unmap/unload failed"
	vm_run client 120 "rnbd_unmap $cdev && rmmod rnbd_client && rmmod rtrs_client" || fail "client VM: our stack did not unload"
	vm_run client 120 'rmmod rnbd_server && rmmod rtrs_server && rmmod rtrs_core && rmmod null_blk' ||
		fail "client VM: upstream server stack did not unload"
	trap - EXIT
}
