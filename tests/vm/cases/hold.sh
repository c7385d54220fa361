# Developer case: keep the bed up (up to HOLD_S, default 3000 s) for interactive work from
# another terminal:  export BED_REPO=$PWD BED_DIR=results/<run>/<suite> BED_SOCK=<printed>;
#                    . tests/vm/lib/bed.sh; vm_run client 10 dmesg
# End it early with: touch $BED_DIR/hold.stop
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=3600
run() {
	note "bed up: export BED_REPO=$BED_REPO BED_DIR=$BED_DIR BED_SOCK=$BED_SOCK CLIENT_STACK=$CLIENT_STACK"
	local end=$(( $(date +%s) + ${HOLD_S:-3000} ))
	while [ ! -e "$BED_DIR/hold.stop" ] && [ "$(date +%s)" -lt "$end" ]; do bed_sleep 2 || return 1; done
}
