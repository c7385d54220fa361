# Suite: multipath, failover, reconnect and the sysfs ABI (issue 4): OUR rtrs-client under
# upstream rnbd-client, client 6.12 <-> upstream server 6.1, two paths over the bed's two links.
# The server is 6.1, not 6.12: a 6.12 guest's rdma_rxe double-faults now and then under this
# suite's QP churn (3 of 5 runs; 2 of the 3 in the server, which runs no code of ours). The
# 6.12 server is the peer of ours-612 and ours-mix-b; mp-612s runs this suite against it.
# MP_CUTS (cable pulls in mp-failover) defaults to the 10 of issue 4 here (mp-61 does 4, for
# make check's time); `make soak` runs mp-failover with MP_CUTS=50.
SERVER_SERIES=6.1
CLIENT_SERIES=6.12
CLIENT_STACK=ours
export MP_CUTS=${MP_CUTS:-10}
CASES="sysfs-compare sysfs-badinput mp-paths mp-failover mp-all-down mp-server-restart"
