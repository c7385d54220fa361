# Case: fio with verify=crc32c through upstream rnbd-client on the suite's client stack,
# against the upstream server at its defaults (always_invalidate=Y) and then at
# always_invalidate=N: random and sequential writes then verifying reads, sizes from 512 B to
# the session's max_io_size (rnbd's max_hw_sectors), queue depths 1 and 64. Our client has
# the server invalidate READ buffers by default (SEND_WITH_INV); in the =N round it runs
# with remote_invalidate=N and invalidates them itself (LOCAL_INV).
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=900
fio_round() { # <dev> <label>
	local dev=$1 label=$2 out
	out=$(vm_run client 400 "set -e
		max=\$(( \$(cat /sys/block/${dev#/dev/}/queue/max_hw_sectors_kb) * 1024 ))
		echo max_io=\$max
		for rw in randwrite write; do for qd in 1 64; do
			fio --name=v-\$rw-\$qd --filename=$dev --rw=\$rw --bsrange=512-\$max \
			    --iodepth=\$qd --ioengine=libaio --direct=1 --size=4m --offset=64m \
			    --verify=crc32c --verify_fatal=1 --do_verify=1 --output-format=terse \
			    --terse-version=3 > /tmp/fio-\$rw-\$qd.txt 2>&1 || { cat /tmp/fio-\$rw-\$qd.txt; exit 1; }
			echo \"\$rw qd\$qd ok: \$(cut -d';' -f5,6 /tmp/fio-\$rw-\$qd.txt | head -1)\"
		done; done") || { echo "$out"; fail "fio verify ($label) failed"; }
	echo "$out"
}
run() {
	local dev
	step "load client stack: $CLIENT_STACK"
	client_load || fail "client stack $CLIENT_STACK did not load"
	step "map /dev/nullb0 (server always_invalidate=Y, its default)"
	dev=$(vm_run client 180 rnbd_map bed-fio /dev/nullb0 path=ip:198.18.0.1) || fail "map failed: $dev"
	fio_round "$dev" always_invalidate=Y
	vm_run client 120 "rnbd_unmap $dev" || fail "unmap failed"
	client_unload || fail "client stack did not unload"

	step "server always_invalidate=N"
	server_reload always_invalidate=N || fail "server reload failed"
	client_load || fail "client stack $CLIENT_STACK did not load"
	if [ "$CLIENT_STACK" = ours ]; then
		# the other way to invalidate READ buffers: ourselves (LOCAL_INV)
		note "our client: remote_invalidate=N for this round"
		vm_run client 30 "echo N > /sys/module/rtrs_client/parameters/remote_invalidate" ||
			fail "cannot set remote_invalidate"
	fi
	dev=$(vm_run client 180 rnbd_map bed-fio /dev/nullb0 path=ip:198.18.0.1) || fail "map failed: $dev"
	fio_round "$dev" always_invalidate=N
	vm_run client 120 "rnbd_unmap $dev" || fail "unmap failed"
	client_unload || fail "client stack did not unload"
}
