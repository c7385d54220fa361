# Suite: multipath on OUR 6.1 rtrs-client under upstream rnbd-client, against the upstream
# 6.12 server: path policies, add/remove under I/O, and cable pulls under fio verify. In make
# check with 2 pulls and these two cases, for make check's time, after the two cases of
# ours-data-c61-s612 (rnbd-data, fio-verify: the same kernels and stack), which make check
# runs here instead of booting a bed of their own for them (~15 s); ours-mp-c612-s612 runs the
# whole set with the 10 pulls of issue 4 on the 6.12 client. `CASES="sysfs-compare sysfs-badinput
# mp-paths mp-failover mp-all-down mp-server-restart" MP_CUTS=10` runs the whole set here
# (passed 2026-12-03, results/s4-la57off-61c). The peer is the 6.12 server because the 6.1
# server's rdma_rxe leaks QP references under cable pulls (tests/README.md, Known issues).
# shellcheck disable=SC2034 # every variable here is read by tests/vm/run-suite.sh
SERVER_SERIES=6.12
CLIENT_SERIES=6.1
CLIENT_STACK=ours
export MP_CUTS=${MP_CUTS:-2}
CASES="rnbd-data fio-verify mp-paths mp-failover"
