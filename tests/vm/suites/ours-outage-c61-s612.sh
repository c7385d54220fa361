# Suite: outages on OUR 6.1 rtrs-client under upstream rnbd-client, against the upstream 6.12
# server (issue 21: hold I/O while no path is up): a single-path cable pull ridden out,
# expired and abandoned (outage-hold), a server restart within and beyond the hold
# (outage-restart), both paths pulled and one restored within the hold (mp-all-down-hold),
# and max_reconnect_attempts 0, N, -1 with sysfs used during the outage (reconnect-attempts).
# make check runs the first three on the 6.12 client (ours-core-c612-s612,
# ours-mp-c612-s612); reconnect-attempts runs only here, `make check-outage` (it left make
# check for time; the mutant reconnect-max-late still names ours-core-c612-s612, where
# run-suite.sh runs it all the same). The peer is the 6.12 server because the
# 6.1 server's rdma_rxe leaks QP references under cable pulls (tests/README.md, Known issues).
# shellcheck disable=SC2034 # every variable here is read by tests/vm/run-suite.sh
SERVER_SERIES=6.12
CLIENT_SERIES=6.1
CLIENT_STACK=ours
CASES="outage-hold outage-restart mp-all-down-hold reconnect-attempts"
