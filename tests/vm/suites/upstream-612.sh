# Suite: upstream client stack, client 6.12 <-> server 6.12; plus our module's load test.
SERVER_SERIES=6.12
CLIENT_SERIES=6.12
CLIENT_STACK=upstream
CASES="bed-smoke rnbd-data ours-load link-cut server-reload rnbd-ipv6-link1"
