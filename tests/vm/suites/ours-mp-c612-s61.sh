# Suite: multipath, failover, reconnect and the sysfs ABI (issue 4): OUR rtrs-client under
# upstream rnbd-client, client 6.12 <-> upstream server 6.1, two paths over the bed's two links.
# In `make check-mp`, not `make check`: the 6.1 server's rdma_rxe leaks QP references under
# cable pulls (tests/README.md, Known issues); make check runs ours-mp-c612-s612 (6.12 <->
# 6.12).
# MP_CUTS (cable pulls in mp-failover) defaults to 10 (issue 4).
# shellcheck disable=SC2034 # every variable here is read by tests/vm/run-suite.sh
SERVER_SERIES=6.1
CLIENT_SERIES=6.12
CLIENT_STACK=ours
export MP_CUTS=${MP_CUTS:-10}
# The 6.1 server's rxe fails a REG_MR under cable pulls ("rxe_reg_fast_mr: mr->lkey = ...
# not free", in most earlier runs at the default) and then may hang a QP destroy; with
# always_invalidate=N the server posts no REG_MR per I/O; 10 pulls then ran clean
# (results/s4-ai-n-61). The 6.12 server suites keep the default (Y).
BED_SERVER_PARAMS=${BED_SERVER_PARAMS-always_invalidate=N}
CASES="sysfs-compare sysfs-badinput mp-paths mp-failover mp-all-down mp-server-restart"
