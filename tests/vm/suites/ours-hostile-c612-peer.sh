# Suite: the hostile peer (tests/hostile/, issue 19) against OUR rtrs-client + upstream
# rnbd-client built against our rtrs.h, client 6.12, server VM 6.12. Every case unloads the
# upstream rtrs-server/rnbd-server on the server VM and runs the user-space peer instead
# (the runner reloads the upstream server after each case). hostile-conn runs last: its
# final mutation (acc_qd1) can leave the client stack unable to unload.
# shellcheck disable=SC2034 # every variable here is read by tests/vm/run-suite.sh
SERVER_SERIES=6.12
CLIENT_SERIES=6.12
CLIENT_STACK=ours
CASES="hostile-basic hostile-inval hostile-info hostile-io hostile-mp sysfs-open-race hostile-conn"
