# Suite: multipath, failover, reconnect and the sysfs ABI (issue 4): OUR rtrs-client under
# upstream rnbd-client, client 6.1 <-> upstream server 6.1, two paths over the bed's two links.
# MP_CUTS (cable pulls in mp-failover) defaults to 4 here, to keep make check inside its
# time budget (mp-612 does the 10 of issue 4); MP_CUTS=50 for a soak run (make soak).
SERVER_SERIES=6.1
CLIENT_SERIES=6.1
CLIENT_STACK=ours
export MP_CUTS=${MP_CUTS:-4}
CASES="sysfs-compare sysfs-badinput mp-paths mp-failover mp-all-down mp-server-restart"
