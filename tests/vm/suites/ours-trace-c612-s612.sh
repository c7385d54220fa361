# Suite: the trace events of OUR rtrs-client (case trace), client 6.12 <-> upstream server
# 6.12. Both VMs run single-threaded TCG (BED_TCG_THREAD=single, tests/vm/lib/boot.sh):
# enabling a tracepoint patches kernel text, which a guest under multi-threaded TCG may not
# survive (tests/README.md, Known issues).
# shellcheck disable=SC2034 # every variable here is read by tests/vm/run-suite.sh
SERVER_SERIES=6.12
CLIENT_SERIES=6.12
CLIENT_STACK=ours
BED_TCG_THREAD=${BED_TCG_THREAD:-single}
CASES="trace"
