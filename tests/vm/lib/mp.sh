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
	mp_run 90 "wait_for 30 mp_state_is $1 0 connected && wait_for 30 mp_state_is $1 1 connected; rc=\$?; mp_summary $1; exit \$rc" >&2 ||
		{ echo "both paths are not connected after the map" >&2; return 1; }
	echo "$dev"
}
# mp_start_io <dev> <tag> <what>: before an outage (<what>, for the messages): write a 16
# MiB pattern to the start of <dev> (/tmp/<tag>pat, what mp_recovered reads back), check it,
# then start the fio verify loop at 64 MiB and wait for its first round. Fails the case.
mp_start_io() {
	local dev=$1 tag=$2 what=$3
	vm_run client 120 "set -e
		dd if=/dev/urandom of=/tmp/${tag}pat bs=1M count=16 status=none
		dd if=/tmp/${tag}pat of=$dev bs=1M oflag=direct status=none
		dd if=$dev of=/tmp/${tag}back bs=1M count=16 iflag=direct status=none
		cmp /tmp/${tag}pat /tmp/${tag}back" || fail "data check before $what failed"
	mp_run 150 "mp_fio_start $dev $tag 16m 64m; wait_for 120 mp_fio_progress $tag 0 1" ||
		fail "fio did not finish a round with both paths up"
}
# mp_recovered <sess> <dev> <tag> <t0> <what>: after an outage of every path (<what>: "link-on",
# "the server restart"), both paths connect again, rnbd remaps <dev>, the 16 MiB written
# before (/tmp/<tag>pat) reads back intact, new writes read back, fio verify runs a round.
mp_recovered() {
	local s=$1 dev=$2 tag=$3 t0=$4 what=$5 out
	out=$(mp_run 290 "wait_for 200 mp_state_is $s 0 connected && wait_for 60 mp_state_is $s 1 connected; rc=\$?; mp_summary $s; exit \$rc") ||
		{ echo "$out"; fail "paths not connected again 200 s after $what"; }
	echo "$out"
	vm_run client 120 "wait_for 90 grep -qx open /sys/block/${dev#/dev/}/rnbd/state" ||
		fail "rnbd did not remap $dev (state $(vm_run client 10 cat "/sys/block/${dev#/dev/}/rnbd/state"))"
	note "reconnected and remapped $(( $(date +%s) - t0 )) s after $what"
	vm_run client 240 "set -e
		dd if=$dev of=/tmp/${tag}back2 bs=1M count=16 iflag=direct status=none
		cmp /tmp/${tag}pat /tmp/${tag}back2
		dd if=/dev/urandom of=/tmp/${tag}pat2 bs=1M count=4 status=none
		dd if=/tmp/${tag}pat2 of=$dev bs=1M seek=32 oflag=direct status=none
		dd if=$dev of=/tmp/${tag}back3 bs=1M skip=32 count=4 iflag=direct status=none
		cmp /tmp/${tag}pat2 /tmp/${tag}back3" || fail "data after $what is wrong or I/O failed"
	mp_run 200 "mp_fio_start $dev ${tag}2 8m 64m; wait_for 150 mp_fio_progress ${tag}2 0 1; rc=\$?; mp_fio_stop ${tag}2 120 || rc=1; exit \$rc" ||
		fail "fio verify after $what failed"
}
