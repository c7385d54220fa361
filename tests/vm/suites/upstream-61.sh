# Suite: upstream client stack, client 6.1 <-> server 6.1; plus our module's load test.
SERVER_SERIES=6.1
CLIENT_SERIES=6.1
CLIENT_STACK=upstream
CASES="bed-smoke rnbd-data ours-load link-cut server-reload rnbd-ipv6-link1"
