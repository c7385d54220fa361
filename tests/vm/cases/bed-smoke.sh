# Case: the bed itself works: control channel both ways, both links (IPv4 + IPv6), rxe
# devices on both sides, server exports null_blk via rnbd-server.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=300
run() {
	local out
	step "control channel"
	out=$(vm_run server 30 'uname -r; hostname') || fail "server vm_run: $out"; note "server: $out"
	out=$(vm_run client 30 'uname -r; hostname') || fail "client vm_run: $out"; note "client: $out"
	vm_run client 10 'exit 3'; [ $? = 3 ] || fail "exit status not propagated"
	step "rxe devices and addresses"
	for vm in server client; do
		out=$(vm_run $vm 30 'rdma link show; ip -br addr show dev eth0; ip -br addr show dev eth1') || fail "$vm: $out"
		echo "$out"
		echo "$out" | grep -q 'rxe0.*ACTIVE.*eth0' || fail "$vm: rxe0 not active on eth0"
		echo "$out" | grep -q 'rxe1.*ACTIVE.*eth1' || fail "$vm: rxe1 not active on eth1"
	done
	step "server exports"
	vm_run server 30 'lsmod | grep -E "rtrs|rnbd|null_blk"; ls -l /dev/nullb0 /dev/nullb1' || fail "server modules"
}
