# Suite: multipath, failover, reconnect and the sysfs ABI (issue 4): OUR rtrs-client under
# upstream rnbd-client, client 6.1 <-> upstream server 6.1, two paths over the bed's two links.
# In `make check-mp`, not `make check`: the 6.1 server's rdma_rxe leaks QP references under
# cable pulls (tests/README.md, Known issues); make check runs mp-61c, our 6.1 client against
# the 6.12 server. MP_CUTS (cable pulls in mp-failover) defaults to 10 (issue 4).
SERVER_SERIES=6.1
CLIENT_SERIES=6.1
CLIENT_STACK=ours
export MP_CUTS=${MP_CUTS:-10}
CASES="sysfs-compare sysfs-badinput mp-paths mp-failover mp-all-down mp-server-restart"
