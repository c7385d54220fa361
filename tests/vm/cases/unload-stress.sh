# Case: rmmod of rnbd-client and of the rtrs client module at the worst moments, many times
# (UNLOAD_ROUNDS, default 5, each scenario):
# - right after an unmap (no pause between unmap, rmmod rnbd_client, rmmod rtrs_client);
# - while link1's path reconnects (sysfs reconnect just issued; and link1 cut, path
#   reconnecting by itself);
# - while add_path of link1's path is in flight.
# Each rmmod must succeed (retried for up to 60 s while the module is busy), nothing may be
# left loaded, and the kernel log must stay clean (KASAN, lockdep, WARNING: the runner).
# Written for the debug kernel (make check-debug); runs on any kernel.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=2400
. "$BED_REPO/tests/vm/lib/mp.sh"
# guest: unload the client stack at once, retrying rmmod while a module is busy
# shellcheck disable=SC2016 # a function for the guest's shell
UNLOAD='ul() { local m i; for m in rnbd_client rtrs_client; do
		for i in $(seq 60); do lsmod | grep -q "^$m " || break; rmmod $m 2>/dev/null && break; sleep 1; done
		lsmod | grep -q "^$m " && { echo "rmmod $m still failing after 60 s"; return 1; }
	done; return 0; }'
run() {
	local r rounds=${UNLOAD_ROUNDS:-5} dev p1 out S l
	for r in $(seq "$rounds"); do
		# a fresh session name per scenario: the server may still hold the last one
		step "round $r/$rounds: unmap, then rmmod at once"
		S=bed-ul${r}a
		client_load || fail "client stack did not load"
		dev=$(vm_run client 180 rnbd_map "$S" /dev/nullb0 "$MP_S0") || fail "map failed: $dev"
		out=$(vm_run client 200 "$UNLOAD; dd if=$dev of=/dev/null bs=64k count=16 iflag=direct status=none &&
			echo normal > /sys/block/${dev#/dev/}/rnbd/unmap_device && ul") || fail "unload after unmap: $out"

		step "round $r/$rounds: sysfs reconnect of link1's path, then unmap + rmmod at once"
		S=bed-ul${r}b
		dev=$(mp_map "$S" /dev/nullb0) || fail "map over two paths failed"
		p1=$(mp_run 10 "mp_dir $S 1")
		out=$(vm_run client 200 "$UNLOAD; (echo 1 > $p1/reconnect) 2>/dev/null & 
			echo normal > /sys/block/${dev#/dev/}/rnbd/unmap_device 2>/dev/null || echo force > /sys/block/${dev#/dev/}/rnbd/unmap_device
			ul; rc=\$?; wait; exit \$rc") || fail "unload during sysfs reconnect: $out"

		step "round $r/$rounds: link1 cut (path reconnecting by itself), then unmap + rmmod"
		S=bed-ul${r}c
		dev=$(mp_map "$S" /dev/nullb0) || fail "map over two paths failed"
		link_set link1 off || fail "link_set failed"
		# the scenario is "rmmod while the path reconnects": the cut path must have left
		# connected (and still exist) before the unload, or this round tests a plain unload
		out=$(mp_run 60 "wait_for 40 eval 'st=\$(mp_state $S 1); [ \$st != connected ] && [ \$st != absent ]'; rc=\$?
			mp_summary $S; exit \$rc") || { echo "$out"; fail "link1's path did not leave connected within 40 s of the cut"; }
		while IFS= read -r l; do echo "    $l"; done <<< "$out"
		out=$(vm_run client 200 "$UNLOAD; echo normal > /sys/block/${dev#/dev/}/rnbd/unmap_device 2>/dev/null ||
			echo force > /sys/block/${dev#/dev/}/rnbd/unmap_device; ul") || fail "unload during reconnect: $out"
		link_set link1 on || fail "link_set failed"

		step "round $r/$rounds: add_path in flight, then unmap + rmmod"
		S=bed-ul${r}d
		client_load || fail "client stack did not load"
		dev=$(vm_run client 180 rnbd_map "$S" /dev/nullb0 "$MP_S0") || fail "map failed: $dev"
		out=$(vm_run client 200 "$UNLOAD; (echo ip:198.18.1.1 > /sys/class/rtrs-client/$S/add_path) 2>/dev/null &
			echo normal > /sys/block/${dev#/dev/}/rnbd/unmap_device 2>/dev/null || echo force > /sys/block/${dev#/dev/}/rnbd/unmap_device
			ul; rc=\$?; wait; exit \$rc") || fail "unload during add_path: $out"
		vm_run client 30 "! lsmod | grep -E '^(rnbd_client|rtrs_client) '" || fail "a module is still loaded"
	done
}
