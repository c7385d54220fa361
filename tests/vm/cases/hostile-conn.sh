# Case: a hostile server's connection responses (issue 19). For each mutation in
# HOSTILE_CONN_MUTATIONS the hostile peer (tests/hostile/) answers the client's first
# connect request (cid 0) badly, once: an RTRS reject whose conn_rsp carries an errno
# outside -1..-133 (-30000, -529, -512, -134, +5, 0), short/absent/bad-magic reject data,
# or an accept with a non-zero errno, queue_depth 0/1/65535, max_hdr_size 1 GiB or 0,
# max_io_size 0xffffffff or 0, 65535 x 1 MiB headers, a wrong magic or version, 4 bytes
# of private data, NEW_RKEY_F without rkey messages; or an accept that comes only after
# 29 s (rep_late, just under the client's 30 s connect step) or 35 s (rep_late_over, past
# it). The oracle per mutation
# (hostile_matrix): map_device returns within HOSTILE_MAP_S with an errno of 1..133 (or
# maps, and then unmaps), rnbd-client and rtrs-client unload, no BUG/WARNING/Oops in either
# kernel log (the runner scans them). A mutation that crashes the client ends the case.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=2400
HOSTILE_CONN_MUTATIONS=${HOSTILE_CONN_MUTATIONS:-"rej_errno_m110 rej_errno_m30000 rej_errno_m529 rej_errno_m512 rej_errno_m134 rej_errno_p5 rej_errno_0 rej_errno_m16 rej_short rej_bad_magic rej_no_data acc_errno_m30000 acc_errno_p5 acc_qd0 acc_qd_huge acc_hdr_huge acc_hdr0 acc_io_huge acc_io0 acc_qd_hdr_huge acc_bad_magic acc_bad_version acc_short acc_new_rkey rep_late rep_late_over acc_qd1"}
. "$BED_REPO/tests/hostile/bed-hostile.sh"
run() {
	trap hostile_cleanup EXIT
	hostile_build || fail "make -C tests/hostile failed"
	# shellcheck disable=SC2086 # the list splits into mutation names
	hostile_matrix hn-c "" -- $HOSTILE_CONN_MUTATIONS
	hostile_verdict
	trap - EXIT
	hostile_cleanup
}
