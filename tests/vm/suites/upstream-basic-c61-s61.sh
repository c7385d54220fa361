# Suite: upstream client stack, client 6.1 <-> server 6.1: proves the bed (links, rxe, the
# upstream peers) before our client is judged by it. In make check.
# More upstream cases (not in make check, to keep it inside its time budget; run them with
# CASES=...): ours-load link-cut server-reload rnbd-ipv6-link1.
# shellcheck disable=SC2034 # every variable here is read by tests/vm/run-suite.sh
SERVER_SERIES=6.1
CLIENT_SERIES=6.1
CLIENT_STACK=upstream
CASES="bed-smoke rnbd-data"
