# Suite: OUR rtrs-client + upstream rnbd-client built against our rtrs.h, mixed kernels:
# client 6.12 <-> upstream server 6.1.
SERVER_SERIES=6.1
CLIENT_SERIES=6.12
CLIENT_STACK=ours
CASES="rnbd-data fio-verify"
