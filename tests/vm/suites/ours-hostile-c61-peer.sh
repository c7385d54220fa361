# Suite: the hostile peer (tests/hostile/, issue 19) against OUR rtrs-client + upstream
# rnbd-client built against our rtrs.h, client 6.1, server VM 6.12 (the peer needs only the
# server VM's rxe and rdma_cm). See ours-hostile-c612-peer.
# shellcheck disable=SC2034 # every variable here is read by tests/vm/run-suite.sh
SERVER_SERIES=6.12
CLIENT_SERIES=6.1
CLIENT_STACK=ours
CASES="hostile-basic hostile-inval hostile-info hostile-io hostile-mp sysfs-open-race hostile-conn"
