# hold.sh: host-side helpers of the I/O-hold cases (tests/vm/cases/outage-*.sh), sourced by
# them.
# What the block layer and rnbd log for a failed request: "I/O error" (BLK_STS_IOERR),
# "timeout error" (-ETIMEDOUT, what an expired hold returns), rnbd's "I/O failed", and the
# filesystem's own reports.
HOLD_ERR_RE='I/O error|timeout error|I/O failed|Buffer I/O|EXT4-fs error'
# hold_log: the client's kernel log since this case's marker
hold_log() { vm_run client 30 "dmesg | sed -n '/rtrs-bed: BEGIN/h; /rtrs-bed: BEGIN/!H; \${x;p}'"; }
# hold_ts <log> <regex>: kernel timestamp (s) of the last line matching
hold_ts() { echo "$1" | grep -E "$2" | tail -n 1 | sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p'; }
# hold_check_expiry <label> <hold s> <slack s>: the last hold of the log began, expired, and
# the first I/O error at or after its start came no sooner than <hold s> (0.5 s for the
# log's own rounding) and no later than <hold s> + <slack s> after it began; fails the case
# otherwise
hold_check_expiry() {
	local label=$1 hold=$2 slack=$3 log t_hold t_exp t_err
	log=$(hold_log)
	t_hold=$(hold_ts "$log" 'no path connected: holding I/O')
	t_exp=$(hold_ts "$log" 'hold expired')
	t_err=$(echo "$log" | grep -E "$HOLD_ERR_RE" | sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p' |
		awk -v h="${t_hold:-0}" '$1 >= h { print; exit }')
	note "hold began at ${t_hold:-?} s, expired at ${t_exp:-?} s, first I/O error at ${t_err:-none} s (guest clock)"
	if [ -z "$t_hold" ] || [ -z "$t_exp" ] || [ -z "$t_err" ]; then
		fail "$label: hold start, expiry or an I/O error missing from the log"
	fi
	awk -v h="$t_hold" -v e="$t_err" -v n="$hold" -v s="$slack" 'BEGIN { exit !(e >= h + n - 0.5 && e <= h + n + s) }' ||
		fail "$label: first I/O error $t_err s not within [hold + $hold s, hold + $hold + $slack s] (hold $t_hold s)"
}
