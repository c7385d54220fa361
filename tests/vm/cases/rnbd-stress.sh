# Case: repeated rnbd data checks with the suite's client stack: STRESS_N (default 15) rounds
# of a 32 MiB O_DIRECT write + read back + cmp on /dev/nullb0, each round bounded (120 s);
# a stuck round is reported with a hang snapshot (bed_diag). Not in `make check` (slow);
# used to hunt intermittent I/O stalls.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=3000
run() {
	local dev i out
	client_load || fail "client stack $CLIENT_STACK did not load"
	dev=$(vm_run client 180 rnbd_map bed-stress /dev/nullb0) || fail "map failed"
	vm_run client 60 'dd if=/dev/urandom of=/tmp/pat bs=1M count=32 status=none' || fail "pattern"
	for i in $(seq "${STRESS_N:-15}"); do
		out=$(vm_run client 120 "s=\$SECONDS
			dd if=/tmp/pat of=$dev bs=1M oflag=direct status=none || exit 1; w=\$((SECONDS-s)); s=\$SECONDS
			dd if=$dev of=/tmp/back bs=1M count=32 iflag=direct status=none || exit 1
			cmp -s /tmp/pat /tmp/back || { echo mismatch; exit 1; }
			echo write \${w}s read \$((SECONDS-s))s") || fail "round $i: rc=$? $out"
		note "round $i: $out"
	done
	vm_run client 120 "rnbd_unmap $dev" || fail "unmap failed"
}
