# fi.sh: guest helpers of the fault injection cases (tests/vm/cases/fi-*.sh), sourced by
# their vm_run commands. Needs a kernel with FAILSLAB, FAIL_PAGE_ALLOC,
# FAULT_INJECTION_DEBUG_FS and FAULT_INJECTION_STACKTRACE_FILTER (the debug kernel).
#
# Scope: failslab and fail_page_alloc fail only allocations whose call stack passes through
# the text of one module (require-start/require-end); random failures stay off
# (probability 0) unless fi_random turns them on. Deterministic failures use the per-task
# /proc/self/fail-nth: the n-th allocation in scope made by this shell fails.
FI_ATTRS="failslab fail_page_alloc"
FI_D=/sys/kernel/debug
# Injections are counted by the attributes' `times`: it starts at FI_TIMES and the kernel
# decrements it for every failure it injects (random and fail-nth alike; lib/fault-inject.c),
# so FI_TIMES - times is exact where the log's "FAULT_INJECTION: forcing a failure" lines
# are rate-limited and can scroll out of the ring buffer.
FI_TIMES=1000000000
fi_have() { [ -e $FI_D/failslab/require-start ] && [ -e $FI_D/fail_page_alloc/require-start ]; }

# fi_scope <module>: in scope = lowest .. highest function address of <module> (+ 1 page)
fi_scope() {
	local lo hi a d
	read -r lo hi <<< "$(awk -v m="[$1]" '$4 == m && ($2 == "t" || $2 == "T") { print $1 }' /proc/kallsyms |
		sort | sed -n '1p;$p' | tr '\n' ' ')"
	case $lo in ""|0000000000000000) echo "fi_scope: no text symbols of $1 in /proc/kallsyms" >&2; return 1 ;; esac
	for a in $FI_ATTRS; do
		d=$FI_D/$a
		if ! { echo 0 > "$d/probability" && echo N > "$d/task-filter" && echo N > "$d/ignore-gfp-wait" &&
			echo 0 > "$d/space" && echo 1 > "$d/interval" && echo "$FI_TIMES" > "$d/times" &&
			echo 1 > "$d/verbose" && echo 32 > "$d/stacktrace-depth" && echo 0 > "$d/reject-start" &&
			echo 0 > "$d/reject-end" && echo "0x$lo" > "$d/require-start" &&
			printf '0x%x\n' $(( 0x$hi + 4096 )) > "$d/require-end"; }; then
			echo "fi_scope: cannot configure $d" >&2; return 1
		fi
	done
	echo N > $FI_D/fail_page_alloc/ignore-gfp-highmem || { echo "fi_scope: cannot configure fail_page_alloc" >&2; return 1; }
	echo "fault injection scoped to $1: 0x$lo..0x$hi"
}
# fi_injected: failures injected by failslab + fail_page_alloc since fi_scope
fi_injected() {
	local a t sum=0
	for a in $FI_ATTRS; do
		read -r t < "$FI_D/$a/times" || return 1
		sum=$(( sum + FI_TIMES - t ))
	done
	echo "$sum"
}
# fi_random <percent>: every allocation in scope fails with that probability (0: off); rc 1
# if a write failed (an injection that silently stayed off, or on, tests nothing)
fi_random() {
	local a p
	for a in $FI_ATTRS; do
		echo "$1" > "$FI_D/$a/probability" || { echo "fi_random: cannot write $1 to $a/probability" >&2; return 1; }
		read -r p < "$FI_D/$a/probability"
		[ "$p" = "$1" ] || { echo "fi_random: $a/probability reads $p after writing $1" >&2; return 1; }
	done
}
fi_off() { fi_random 0 || return 1; echo 0 > /proc/self/fail-nth 2>/dev/null; true; }
# fi_unscope: back to the defaults (no filter, off)
fi_unscope() {
	local a
	fi_off
	for a in $FI_ATTRS; do
		echo 0 > "$FI_D/$a/require-start"; echo -1 > "$FI_D/$a/require-end" 2>/dev/null ||
			printf '0x%x\n' -1 > "$FI_D/$a/require-end"
		echo Y > "$FI_D/$a/ignore-gfp-wait"; echo -1 > "$FI_D/$a/times"
	done
}
# fi_nth <n> <command>: run the shell text <command> in THIS shell with its n-th allocation
# in scope failing; prints "rc=<rc> left=<l>": left > 0 means the command made fewer than n
# allocations in scope (nothing was injected: a sweep over n is complete). rc 1 (and no
# "rc=" line) if fail-nth could not be set: nothing would be injected.
fi_nth() {
	local n=$1 rc left; shift
	echo "$n" > /proc/self/fail-nth || { echo "fi_nth: cannot write $n to /proc/self/fail-nth"; return 1; }
	eval "$*"; rc=$?
	read -r left < /proc/self/fail-nth
	echo 0 > /proc/self/fail-nth
	echo "rc=$rc left=$left"
}
# fi_count: how many injections the kernel logged so far (verbose=1). Fewer than were made:
# the kernel rate-limits these reports (lib/fault-inject.c); fi_injected counts them all.
fi_count() { dmesg | grep -c 'FAULT_INJECTION: forcing a failure'; }

# ---- sweeps (need mp.sh and lib.sh too); print a summary, rc 1 with a reason on failure ----
# Which n a sweep tries: every n up to FI_DENSE (64), then n grows by an eighth per step, so
# a sweep reaches the end of an operation's allocations. Past the first sites, an open or
# add_path allocates per request of the queue depth (a header and a memory region each):
# hundreds of allocations whose failures all take the same unwind, and stepping through
# each of them cost 20 minutes per sweep on the debug kernel without reaching what follows.
_fi_next() { if [ "$1" -lt "${FI_DENSE:-64}" ]; then echo $(($1 + 1)); else echo $(($1 + $1 / 8)); fi; }
# _fi_try <n> <command>: fi_nth, parsed into FI_RC and FI_LEFT; rc 1 (reason printed) when
# the injection could not be armed or its result not read
_fi_try() {
	local out
	out=$(fi_nth "$@" 2>/dev/null) || { echo "n=$1: $out"; return 1; }
	FI_RC=${out#rc=}; FI_RC=${FI_RC%% *}; FI_LEFT=${out##*left=}
	case $FI_RC$FI_LEFT in ""|*[!0-9]*) echo "n=$1: unreadable fail-nth result '$out'"; return 1 ;; esac
}
# _fi_verdict <what> <n> <tries> <errors> <absorbed>: after the try with n that made fewer
# than n allocations (FI_LEFT > 0, FI_RC its result). A sweep passes only if it reached the
# end of the operation's allocations by itself, found allocations in scope, saw at least one
# injected failure returned as an error, and the operation worked once nothing was injected.
_fi_verdict() {
	local what=$1 n=$2 i=$3 nerr=$4 nok=$5 k=$(( $2 - FI_LEFT ))
	echo "$what sweep complete: $k allocations in scope, $i tried; $nerr failed with an error, $nok absorbed"
	[ "$k" -gt 0 ] || { echo "$what sweep: no allocation in scope: nothing was injected (scope or fail-nth broken?)"; return 1; }
	[ "$nerr" -gt 0 ] || { echo "$what sweep: no injected failure was returned as an error: none was observed"; return 1; }
	[ "$FI_RC" = 0 ] || { echo "$what sweep: the last try (no injection: $k < n=$n) failed with rc=$FI_RC"; return 1; }
}
# a sweep that ran out of tries never reached the end of the operation's allocations
_fi_maxed() { echo "$1 sweep stopped after $2 tries (FI_MAX) at n=$3 without reaching the end of the allocations: $4 errors, $5 absorbed"; return 1; }
_fi_io() { # <dev>: a little direct I/O must work
	dd if=/dev/urandom of=/tmp/fi-pat bs=4k count=16 status=none &&
	dd if=/tmp/fi-pat of="$1" bs=4k count=16 oflag=direct status=none &&
	dd if="$1" of=/tmp/fi-back bs=4k count=16 iflag=direct status=none && cmp -s /tmp/fi-pat /tmp/fi-back
}
# fi_sweep_map <sess> <max>: map /dev/nullb0 of link0 with the n-th allocation failing
fi_sweep_map() {
	local s0=$1 max=$2 n=1 i s dev nerr=0 nok=0
	for i in $(seq 1 "$max"); do
		s=$s0-$n   # a fresh name: the server may still be dropping the last attempt
		_fi_try "$n" "echo 'sessname=$s path=ip:198.18.0.1 device_path=/dev/nullb0' > /sys/class/rnbd-client/ctl/map_device" || return 1
		if [ "$FI_RC" = 0 ]; then
			[ "$FI_LEFT" = 0 ] && nok=$((nok + 1))
			wait_for 60 rnbd_dev_of "$s" > /dev/null || { echo "n=$n: map returned 0 but no device"; return 1; }
			dev=$(rnbd_dev_of "$s"); wait_for 30 test -b "$dev"
			_fi_io "$dev" || { echo "n=$n: I/O failed on a map that returned 0"; return 1; }
			rnbd_unmap "$dev" || { echo "n=$n: unmap of $dev failed"; return 1; }
		elif [ "$FI_LEFT" = 0 ]; then
			nerr=$((nerr + 1))
		fi
		wait_for 60 test ! -e "/sys/class/rtrs-client/$s" ||
			{ echo "n=$n: session $s still there 60 s after map rc=$FI_RC"; return 1; }
		[ "$FI_LEFT" != 0 ] && { _fi_verdict map "$n" "$i" "$nerr" "$nok"; return; }
		n=$(_fi_next "$n")
	done
	_fi_maxed map "$max" "$n" "$nerr" "$nok"
}
# fi_sweep_add_path <sess> <dev> <max>: session mapped over link0; add link1's path with the
# n-th allocation failing; a path that was added is removed again
fi_sweep_add_path() {
	local s=$1 dev=$2 max=$3 n=1 i p nerr=0 nok=0
	p=$(mp_dir "$s" 1)
	for i in $(seq 1 "$max"); do
		_fi_try "$n" "echo ip:198.18.1.1 > /sys/class/rtrs-client/$s/add_path" || return 1
		if [ "$FI_RC" = 0 ]; then
			[ "$FI_LEFT" = 0 ] && nok=$((nok + 1))
			wait_for 90 mp_state_is "$s" 1 connected ||
				{ echo "n=$n: add_path returned 0, path state $(mp_state "$s" 1)"; return 1; }
			echo 1 > "$p/remove_path" || { echo "n=$n: remove_path failed"; return 1; }
		elif [ "$FI_LEFT" = 0 ]; then
			nerr=$((nerr + 1))
		fi
		wait_for 30 test ! -e "$p" || { echo "n=$n: path directory left behind (rc=$FI_RC)"; return 1; }
		mp_state_is "$s" 0 connected || { echo "n=$n: link0 path is $(mp_state "$s" 0)"; return 1; }
		_fi_io "$dev" || { echo "n=$n: I/O failed after add_path rc=$FI_RC"; return 1; }
		[ "$FI_LEFT" != 0 ] && { _fi_verdict add_path "$n" "$i" "$nerr" "$nok"; return; }
		n=$(_fi_next "$n")
	done
	_fi_maxed add_path "$max" "$n" "$nerr" "$nok"
}
# fi_sweep_reconnect <sess> <dev> <max>: sysfs reconnect of link1's path with the n-th
# allocation failing; afterwards the path must connect again BY ITSELF: a failed manual
# attempt schedules the next automatic one (the session's reconnect delay, 30 s for rnbd),
# and a second, manual reconnect here would hide a path that never recovers on its own.
# FI_RECOVER_S (120, scaled by BED_TIMEOUT_SCALE): the delay + 1 s jitter + the connect, with
# room for TCG.
fi_sweep_reconnect() {
	local s=$1 dev=$2 max=$3 n=1 i p nerr=0 nok=0 t0
	p=$(mp_dir "$s" 1)
	for i in $(seq 1 "$max"); do
		_fi_try "$n" "echo 1 > $p/reconnect" || return 1
		if [ "$FI_RC" = 0 ]; then
			[ "$FI_LEFT" = 0 ] && nok=$((nok + 1))
		elif [ "$FI_LEFT" = 0 ]; then
			nerr=$((nerr + 1))
		fi
		t0=$(date +%s)
		wait_for "${FI_RECOVER_S:-120}" mp_state_is "$s" 1 connected ||
			{ echo "n=$n: path is $(mp_state "$s" 1) $(( $(date +%s) - t0 )) s after reconnect rc=$FI_RC: it did not recover by itself"; return 1; }
		_fi_io "$dev" || { echo "n=$n: I/O failed after reconnect rc=$FI_RC"; return 1; }
		[ "$FI_LEFT" != 0 ] && { _fi_verdict reconnect "$n" "$i" "$nerr" "$nok"; return; }
		n=$(_fi_next "$n")
	done
	_fi_maxed reconnect "$max" "$n" "$nerr" "$nok"
}

# fi_post <percent>: our module's own injection point (debugfs rtrs-client/fail_post): that
# share of work request posts fails as if the queue were full (0: off). rc 2 if absent, 1 if
# a write failed. Turning it on restarts its count (fi_post_injected).
fi_post() {
	local d=$FI_D/rtrs-client/fail_post p
	[ -d $d ] || return 2
	if [ "$1" != 0 ]; then
		{ echo "$FI_TIMES" > $d/times && echo 1 > $d/verbose && echo 1 > $d/interval; } || return 1
	fi
	echo "$1" > $d/probability || return 1
	read -r p < $d/probability
	[ "$p" = "$1" ]
}
# fi_post_injected: post failures injected since fail_post was turned on
fi_post_injected() { local t; read -r t < $FI_D/rtrs-client/fail_post/times && echo $(( FI_TIMES - t )); }
# fi_io_loop <dev> <secs>: direct writes and reads for <secs>; prints "ok=<n> err=<n>"
fi_io_loop() {
	local end=$(( $(date +%s) + $2 )) ok=0 err=0
	while [ "$(date +%s)" -lt "$end" ]; do
		if timeout 60 dd if=/dev/zero of="$1" bs=64k count=16 oflag=direct status=none 2>/dev/null &&
		   timeout 60 dd if="$1" of=/dev/null bs=64k count=16 iflag=direct status=none 2>/dev/null; then
			ok=$((ok + 1))
		else
			err=$((err + 1))
		fi
	done
	echo "ok=$ok err=$err"
}
