# Suite: mp-612 against the 6.12 server (client 6.12 <-> upstream server 6.12), with the 10
# cable pulls of issue 4. Not in make check: a 6.12 guest's rdma_rxe double-faults now and
# then under this QP churn (kmalloc <- __alloc_skb <- rxe_init_packet, seen in the server and
# in the client; see tests/README.md, Known hazards). Run: tests/vm/run-suite.sh mp-612s.
SERVER_SERIES=6.12
CLIENT_SERIES=6.12
CLIENT_STACK=ours
export MP_CUTS=${MP_CUTS:-10}
CASES="sysfs-compare sysfs-badinput mp-paths mp-failover mp-all-down mp-server-restart"
