# Suite: multipath, failover, reconnect and the sysfs ABI (issue 4): OUR rtrs-client under
# upstream rnbd-client, client 6.12 <-> upstream server 6.12, two paths over the bed's two
# links, with the 10 cable pulls of issue 4 (`make soak` runs mp-failover with 50). In make
# check since the bed's guests run with 4-level paging (tests/vm/lib/boot.sh): before, a
# 6.12 guest double-faulted in 3 of 5 runs of this suite (tests/README.md, Known issues).
SERVER_SERIES=6.12
CLIENT_SERIES=6.12
CLIENT_STACK=ours
export MP_CUTS=${MP_CUTS:-10}
CASES="sysfs-compare sysfs-badinput mp-paths mp-failover mp-all-down mp-server-restart"
