# mp.sh: host-side helpers of the multipath cases (tests/vm/cases/mp-*.sh), sourced by them.
# mp_run <timeout_s> <cmd...>: vm_run on the client with tests/vm/guest/mp.sh loaded.
mp_run() { local t=$1; shift; vm_run client "$t" ". \"\$BED_REPO/tests/vm/guest/mp.sh\"; $*"; }
# Which ends of a link a cut takes down (link_set's third argument). Default: the client's
# only: the client's port goes down, the server sees silence. Cutting both ends also takes
# the server's port down, and upstream's 6.12 server (rxe) then flushes the path's work in
# flight; once that was followed by a double fault in the server's rxe_receiver (slab
# corruption; results/mp5/mp-612, cut 5). MP_CUT_ENDS=both for that harder case.
MP_CUT_ENDS=${MP_CUT_ENDS:-client}
MP_S0='path=ip:198.18.0.1'
MP_S1='path=ip:198.18.1.1'
# mp_map <sess> <device_path>: load the suite's client stack, map over both links, both
# paths connected; prints /dev/rnbdN. Use as `dev=$(mp_map s d) || fail ...`.
mp_map() {
	local dev
	client_load >&2 || { echo "client stack $CLIENT_STACK did not load" >&2; return 1; }
	dev=$(vm_run client 180 rnbd_map "$1" "$2" $MP_S0 $MP_S1) || { echo "map over two paths failed: $dev" >&2; return 1; }
	mp_run 60 "wait_for 30 mp_state_is $1 0 connected && wait_for 30 mp_state_is $1 1 connected; rc=\$?; mp_summary $1; exit \$rc" >&2 ||
		{ echo "both paths are not connected after the map" >&2; return 1; }
	echo "$dev"
}
