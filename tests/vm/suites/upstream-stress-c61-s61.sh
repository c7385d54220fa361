# Suite: long rnbd stress rounds, upstream client, 6.1 <-> 6.1 (not in make check).
# shellcheck disable=SC2034 # every variable here is read by tests/vm/run-suite.sh
SERVER_SERIES=6.1
CLIENT_SERIES=6.1
CLIENT_STACK=upstream
CASES="rnbd-stress"
