# Suite: OUR rtrs-client + upstream rnbd-client built against our rtrs.h, client 6.1 <->
# upstream server 6.1.
# shellcheck disable=SC2034 # every variable here is read by tests/vm/run-suite.sh
SERVER_SERIES=6.1
CLIENT_SERIES=6.1
CLIENT_STACK=ours
CASES="ours-load rnbd-data fio-verify rnbd-poll rnbd-workloads api-bad-input coexist"
