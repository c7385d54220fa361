# Case: our client's sysfs tree against upstream's, in the same state: /dev/nullb0 mapped
# over link0 and link1 (session bed-cmp), idle. Each stack's tree is dumped by
# tests/vm/guest/sysfs-dump.sh (names, types, modes, contents with digits masked) and the two
# dumps must be identical. The suite's stack is irrelevant: both are loaded in turn.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=600
. "$BED_REPO/tests/vm/lib/mp.sh"
dump_stack() { # <stack>
	local dev
	CLIENT_STACK=$1
	dev=$(mp_map bed-cmp /dev/nullb0) || fail "map over two paths failed ($1 stack)"
	vm_run client 60 "\$BED_REPO/tests/vm/guest/sysfs-dump.sh bed-cmp" > "$BED_CASE_DIR/sysfs-$1.txt" ||
		fail "sysfs dump failed ($1 stack)"
	vm_run client 120 "rnbd_unmap $dev" || fail "unmap failed ($1 stack)"
	client_unload || fail "client stack $1 did not unload"
}
run() {
	step "dump our client's tree"
	dump_stack ours
	step "dump upstream's client tree"
	dump_stack upstream
	step "compare"
	note "$(wc -l < "$BED_CASE_DIR/sysfs-ours.txt") entries (ours), $(wc -l < "$BED_CASE_DIR/sysfs-upstream.txt") (upstream)"
	# io_hold_sec and io_timeout_sec are ours alone (Documentation/ABI/testing/
	# sysfs-class-rtrs-client): each must be there, exactly once and as documented, and they
	# are the only lines upstream does not have
	local f
	for f in io_hold_sec io_timeout_sec; do
		grep -c "^\./$f f 644 N\$" "$BED_CASE_DIR/sysfs-ours.txt" | grep -qx 1 ||
			fail "our $f file is missing or not as documented"
	done
	grep -v '^\./io_\(hold\|timeout\)_sec f 644 N$' "$BED_CASE_DIR/sysfs-ours.txt" > "$BED_CASE_DIR/sysfs-ours-cmp.txt"
	diff -u "$BED_CASE_DIR/sysfs-upstream.txt" "$BED_CASE_DIR/sysfs-ours-cmp.txt" ||
		fail "the sysfs trees differ (- upstream, + ours)"
}
