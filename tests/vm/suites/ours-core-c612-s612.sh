# Suite: OUR rtrs-client + upstream rnbd-client built against our rtrs.h, client 6.12 <->
# upstream server 6.12.
# shellcheck disable=SC2034 # every variable here is read by tests/vm/run-suite.sh
SERVER_SERIES=6.12
CLIENT_SERIES=6.12
CLIENT_STACK=ours
CASES="ours-load rnbd-data fio-verify rnbd-poll rnbd-workloads api-bad-input fio-ipv6 coexist map-cycles status-tool outage-hold outage-restart rnbd-contention silent-loss"
