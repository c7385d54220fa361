# Suite: OUR rtrs-client + upstream rnbd-client built against our rtrs.h, mixed kernels:
# client 6.1 <-> upstream server 6.12. Not in make check's list: its cases run there at the
# start of ours-mp-quick-c61-s612 (the same kernels and stack), which saves a bed boot.
# shellcheck disable=SC2034 # every variable here is read by tests/vm/run-suite.sh
SERVER_SERIES=6.12
CLIENT_SERIES=6.1
CLIENT_STACK=ours
CASES="rnbd-data fio-verify"
