# contention.sh: guest-side helpers of tests/vm/cases/rnbd-contention.sh. Sourced in a vm_run
# command after lib.sh: `. "$BED_REPO/tests/vm/guest/contention.sh"`.

# ct_fio_start <dev> <tag>: loop fio rounds in the background until /tmp/<tag>.stop exists:
# 2 jobs of queue depth 32 each (64 requests per device, well above a session queue depth
# of 32), crc32c-verified random writes of 4-64 KiB over 4 MiB each, then the verifying
# reads. /tmp/<tag>.rounds counts finished rounds; the first failure stops the loop and
# keeps fio's output in /tmp/<tag>.failed; /tmp/<tag>.done marks the end.
ct_fio_start() {
	local dev=$1 tag=$2
	rm -f "/tmp/$tag.stop" "/tmp/$tag.failed" "/tmp/$tag.done"
	echo 0 > "/tmp/$tag.rounds"
	(
		n=0
		while [ ! -e "/tmp/$tag.stop" ]; do
			if ! fio --name="$tag" --filename="$dev" --rw=randwrite --bsrange=4k-64k \
			     --numjobs=2 --offset_increment=8m --size=4m --iodepth=32 \
			     --ioengine=libaio --direct=1 --allow_file_create=0 \
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
ct_rounds() { cat "/tmp/$1.rounds"; }
# ct_all_rounds <n> <tag...>: every loop finished at least n rounds, and none failed
ct_all_rounds() {
	local n=$1 t; shift
	for t in "$@"; do
		[ ! -e "/tmp/$t.failed" ] && [ "$(ct_rounds "$t")" -ge "$n" ] || return 1
	done
}
# ct_stop <tag...>: stop the loops, wait for them; rc 1 if a round failed (its output printed)
ct_stop() {
	local t rc=0
	for t in "$@"; do touch "/tmp/$t.stop"; done
	for t in "$@"; do
		wait_for 180 test -e "/tmp/$t.done" || { echo "$t: fio loop did not end"; rc=1; continue; }
		echo "$t: $(ct_rounds "$t") rounds"
		[ -e "/tmp/$t.failed" ] && { echo "$t: fio FAILED:"; tail -n 30 "/tmp/$t.failed"; rc=1; }
	done
	return $rc
}

# ct_sample_start <sess...>: sample each session's requests in flight (debugfs requests:
# accepted minus completed, user requests of every kind) every 0.1 s until /tmp/ct.sstop;
# /tmp/ct.max.<sess> holds "<max> <samples at max> <samples>"
ct_sample_start() {
	rm -f /tmp/ct.sstop
	(
		declare -A max=() at=()
		n=0
		while [ ! -e /tmp/ct.sstop ]; do
			n=$((n + 1))
			for s in "$@"; do
				v=$(sed -n 's/^in_flight //p' "/sys/kernel/debug/rtrs-client/$s/requests")
				[ -n "$v" ] || continue
				if [ "$v" -gt "${max[$s]:--1}" ]; then max[$s]=$v; at[$s]=1
				elif [ "$v" -eq "${max[$s]}" ]; then at[$s]=$(( ${at[$s]} + 1 )); fi
				echo "${max[$s]} ${at[$s]} $n" > "/tmp/ct.max.$s"
			done
			sleep 0.1
		done
	) > /dev/null 2>&1 < /dev/null &
	echo "$!" > /tmp/ct.sample.pid
}
ct_sample_stop() {
	local pid
	pid=$(cat /tmp/ct.sample.pid) || return 1
	touch /tmp/ct.sstop
	wait_for 10 sh -c "! kill -0 $pid 2>/dev/null" && rm -f /tmp/ct.sample.pid
}
