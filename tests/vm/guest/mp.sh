# mp.sh: guest-side helpers of the multipath cases (tests/vm/cases/mp-*.sh). Sourced in a
# vm_run command after lib.sh: `. "$BED_REPO/tests/vm/guest/mp.sh"` (the host's mp_run does it).
# Paths are named by bed link: link L is ip:198.18.L.2@ip:198.18.L.1.

mp_dir() { echo "/sys/class/rtrs-client/$1/paths/ip:198.18.$2.2@ip:198.18.$2.1"; } # <sess> <link>
mp_state() { cat "$(mp_dir "$1" "$2")/state" 2>/dev/null || echo absent; }
mp_state_is() { [ "$(mp_state "$1" "$2")" = "$3" ]; }           # <sess> <link> <state>
mp_reconnects() { cut -d' ' -f1 "$(mp_dir "$1" "$2")/stats/reconnects"; }
# requests counted on a path: read count + write count of stats/rdma
mp_reqs() { awk '{ print $1 + $3 }' "$(mp_dir "$1" "$2")/stats/rdma"; }
mp_failovers() { awk '{ print $6 }' "$(mp_dir "$1" "$2")/stats/rdma"; }
# requests in flight on a path (stats/rdma field 5; counted under min-inflight only)
mp_inflight() { awk '{ print $5 }' "$(mp_dir "$1" "$2")/stats/rdma"; }
mp_inflight_gt() { [ "$(mp_inflight "$1" "$2")" -gt "$3" ]; }     # <sess> <link> <n>
# mp_log_lines <sess> <link> [tail]: how many kernel log lines our module wrote about the
# path (they name the session and the path's device), or with "tail" the last of them
mp_log_lines() {
	local hca pat
	hca=$(cat "$(mp_dir "$1" "$2")/hca_name" 2>/dev/null) || hca=none
	pat="rtrs_client: $1 $hca: "
	if [ "${3:-}" = tail ]; then dmesg | grep "$pat" | tail -n 1; else dmesg | grep -c "$pat" || true; fi
}
mp_summary() { # <sess>: one line per path: name state rdma reconnects
	local p
	for p in "/sys/class/rtrs-client/$1"/paths/*/; do
		[ -e "$p/state" ] || continue
		echo "$(basename "$p") $(cat "$p/state") rdma=[$(cat "$p/stats/rdma")] reconnects=[$(cat "$p/stats/reconnects")]"
	done
}
# mp_reqs_grow <sess> <link> <from> <n>: the path's request count is at least from + n
mp_reqs_grow() { [ "$(mp_reqs "$1" "$2")" -ge $(( $3 + $4 )) ]; }

# mp_fio_start <dev> <tag> [size] [offset]: loop fio (crc32c-verified random writes of
# 512 B..128 KiB at queue depth 16, then the verifying reads) in the background until
# /tmp/<tag>.stop exists. /tmp/<tag>.rounds counts finished rounds; on the first failure
# the loop stops and /tmp/<tag>.failed holds fio's output. /tmp/<tag>.done marks the end.
mp_fio_start() {
	local dev=$1 tag=$2 size=${3:-16m} off=${4:-0}
	rm -f "/tmp/$tag.stop" "/tmp/$tag.failed" "/tmp/$tag.done"
	echo 0 > "/tmp/$tag.rounds"
	(
		n=0
		while [ ! -e "/tmp/$tag.stop" ]; do
			if ! fio --name="$tag" --filename="$dev" --rw=randwrite --bsrange=512-128k \
			     --iodepth=16 --ioengine=libaio --direct=1 --size="$size" --offset="$off" \
			     --allow_file_create=0 \
			     --verify=crc32c --verify_fatal=1 --do_verify=1 --randseed="$RANDOM" \
			     > "/tmp/$tag.out" 2>&1; then
				cp "/tmp/$tag.out" "/tmp/$tag.failed"
				break
			fi
			n=$((n + 1)); echo "$n" > "/tmp/$tag.rounds"
		done
		touch "/tmp/$tag.done"
	) > /dev/null 2>&1 < /dev/null &
	echo "$!" > "/tmp/$tag.pid"
}
mp_fio_ok() { [ ! -e "/tmp/$1.failed" ]; }                         # <tag>
mp_fio_rounds() { cat "/tmp/$1.rounds"; }
# mp_fio_progress <tag> <from> <n>: n more rounds finished, and none failed
mp_fio_progress() { mp_fio_ok "$1" && [ "$(mp_fio_rounds "$1")" -ge $(( $2 + $3 )) ]; }
# mp_fio_stop <tag> [timeout]: ask the loop to stop, wait for it; rc 1 if a round failed
mp_fio_stop() {
	touch "/tmp/$1.stop"
	wait_for "${2:-300}" test -e "/tmp/$1.done" || return 1
	echo "fio rounds: $(mp_fio_rounds "$1")"
	if [ -e "/tmp/$1.failed" ]; then
		echo "fio FAILED:"; tail -n 40 "/tmp/$1.failed"
		return 1
	fi
}
# I/O errors the block layer or rnbd logged since the case began (the case marker)
mp_io_errors() {
	# shellcheck disable=SC2016 # sed's own "$" (the last line)
	dmesg | sed -n '/rtrs-bed: BEGIN/h; /rtrs-bed: BEGIN/!H; ${x;p}' |
		grep -E 'I/O error|timeout error|I/O failed|blk_update_request|rnbd_client.*[Ee]rror|Buffer I/O' || true
}
mp_lat() { awk '{ print $1 }' "$(mp_dir "$1" "$2")/cur_latency"; }   # <sess> <link>: ns
mp_lat_gt() { [ "$(mp_lat "$1" "$2")" -gt "$3" ]; }                  # <sess> <link> <ns>
