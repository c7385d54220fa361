# Suite: multipath, failover, reconnect and the sysfs ABI (issue 4): OUR rtrs-client under
# upstream rnbd-client, client 6.12 <-> upstream server 6.12, two paths over the bed's two
# links, with the 10 cable pulls of issue 4 (`make soak` runs mp-failover with 50). A 6.12
# guest can double-fault under TCG in any suite (tests/README.md, Known issues); this one
# passed in its last 3 runs (2026-12-03).
# shellcheck disable=SC2034 # every variable here is read by tests/vm/run-suite.sh
SERVER_SERIES=6.12
CLIENT_SERIES=6.12
CLIENT_STACK=ours
export MP_CUTS=${MP_CUTS:-10}
CASES="sysfs-compare sysfs-badinput mp-paths mp-ipv6 mp-failover mp-all-down mp-all-down-hold mp-server-restart"
