# Case: IPv6 with the suite's client stack: map /dev/nullb1 over link1 by IPv6
# (path=ip:fd18:1::1), check the path name and state, then a short fio verify=crc32c over
# it: random writes at queue depth 64 and sequential writes at depth 1, sizes 512 B to the
# session's max_io_size, each followed by its verifying reads. Unmap, unload.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=600
run() {
	local dev out
	client_load || fail "client stack $CLIENT_STACK did not load"
	dev=$(vm_run client 180 rnbd_map bed-v6fio /dev/nullb1 path=ip:fd18:1::1) || fail "map over IPv6/link1 failed"
	out=$(vm_run client 30 path_states bed-v6fio) || fail "no path state"
	note "path: $out"
	echo "$out" | grep -q 'fd18:1::2@ip:fd18:1::1 connected' || fail "unexpected path name/state: $out"
	out=$(vm_run client 300 "set -e
		max=\$(( \$(cat /sys/block/${dev#/dev/}/queue/max_hw_sectors_kb) * 1024 ))
		echo max_io=\$max
		for j in randwrite:64 write:1; do rw=\${j%:*} qd=\${j#*:}
			fio --name=v6-\$rw-\$qd --filename=$dev --rw=\$rw --bsrange=512-\$max \
			    --iodepth=\$qd --ioengine=libaio --direct=1 --size=4m --offset=16m \
			    --verify=crc32c --verify_fatal=1 --do_verify=1 --output-format=terse \
			    --terse-version=3 > /tmp/fio6-\$rw.txt 2>&1 || { cat /tmp/fio6-\$rw.txt; exit 1; }
			echo \"\$rw qd\$qd ok: \$(cut -d';' -f5,6 /tmp/fio6-\$rw.txt | head -1)\"
		done") || { echo "$out"; fail "fio verify over IPv6 failed"; }
	echo "$out"
	vm_run client 120 "rnbd_unmap $dev" || fail "unmap failed"
	client_unload || fail "client stack did not unload"
}
