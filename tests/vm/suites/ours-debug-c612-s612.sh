# Suite: the sanitizer-only cases of make check-debug (tests/debug/check-debug.sh): fault
# injection scoped to our module and unload under stress. OUR rtrs-client under upstream
# rnbd-client, both hosts on the same kernel (the debug kernel in check-debug).
# shellcheck disable=SC2034 # every variable here is read by tests/vm/run-suite.sh
SERVER_SERIES=6.12
CLIENT_SERIES=6.12
CLIENT_STACK=ours
CASES="fi-alloc unload-stress"
