# Case: a hostile server's info response (issue 19). For each mutation in
# HOSTILE_INFO_MUTATIONS the hostile peer (tests/hostile/) accepts the path normally and
# answers the info request on the service connection badly, once: wrong type, sg_cnt 0,
# sg_cnt 65535 with one descriptor, an sg_cnt that does not divide queue_depth, a length
# that is no chunk multiple, one chunk short, 0, a 4-byte message, a message longer than
# the client's receive buffer, no answer at all (the client's 30 s info timeout), the
# answer twice (info_dup), a disconnect of cid 0 instead of an answer (dreq_handshake). The
# oracle per mutation (hostile_matrix): map_device returns within HOSTILE_MAP_S with an
# errno of 1..133 (or maps, and then unmaps), the client stack unloads, no BUG/WARNING/Oops.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=1800
HOSTILE_INFO_MUTATIONS=${HOSTILE_INFO_MUTATIONS:-"info_type info_sg0 info_sg_big info_sg_uneven info_len_odd info_len_short info_len0 info_short info_overlong info_none info_dup dreq_handshake"}
. "$BED_REPO/tests/hostile/bed-hostile.sh"
run() {
	trap hostile_cleanup EXIT
	hostile_build || fail "make -C tests/hostile failed"
	# shellcheck disable=SC2086 # the list splits into mutation names
	hostile_matrix hn-i "" -- $HOSTILE_INFO_MUTATIONS
	hostile_verdict
	trap - EXIT
	hostile_cleanup
}
