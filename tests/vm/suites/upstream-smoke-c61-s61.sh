# Suite: bed smoke test only (boot, links, server modules), 6.1 <-> 6.1.
# shellcheck disable=SC2034 # every variable here is read by tests/vm/run-suite.sh
SERVER_SERIES=6.1
CLIENT_SERIES=6.1
CLIENT_STACK=upstream
CASES="bed-smoke"
