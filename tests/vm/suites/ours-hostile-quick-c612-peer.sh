# Suite: the quick subset of the hostile-peer tables that `make check` runs (issue 19): our
# client 6.12 against the user-space hostile peer (tests/hostile/) on a 6.12 server VM. The
# mutations are those that proved a fix: server errnos outside -1..-133 in a reject and an
# accept (item 1), a stale and a replayed invalidation and the old rkey of a completed READ
# (item 2, hostile-inval), a duplicate and a forged response racing its post (item 5 and
# the W_INV rule), an absurd queue depth and header size (item 7), queue depth 1 (it hung
# rnbd's map), an info response of the wrong type and one that covers too few chunks, a
# disconnect instead of the info response (it waited 30 s), a heartbeat flood (it filled the
# send queue: path failed, a drain WARNING), a READ never answered (stall: only the I/O
# timeout ends it, issue 21 item 5; ~60 s). The whole tables on both client kernels:
# `make check-hostile` (ours-hostile-c612-peer, ours-hostile-c61-peer).
# shellcheck disable=SC2034 # every variable here is read by tests/vm/run-suite.sh
SERVER_SERIES=6.12
CLIENT_SERIES=6.12
CLIENT_STACK=ours
export HOSTILE_CONN_MUTATIONS=${HOSTILE_CONN_MUTATIONS:-"rej_errno_m30000 rej_errno_m529 acc_errno_m30000 acc_qd_huge acc_hdr_huge acc_qd1"}
export HOSTILE_INFO_MUTATIONS=${HOSTILE_INFO_MUTATIONS:-"info_type info_len_short dreq_handshake"}
export HOSTILE_IO_MUTATIONS=${HOSTILE_IO_MUTATIONS:-"rsp_dup rsp_forge_next inv_stale inv_replay rsp_errno_511 hb_flood stall"}
CASES="hostile-basic hostile-inval hostile-info hostile-io sysfs-open-race hostile-conn"
