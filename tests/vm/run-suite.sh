#!/bin/bash
# run-suite.sh <suite> [case...]: boot the two-VM bed once for a suite (tests/vm/suites/
# <suite>.sh) and run its test cases (tests/vm/cases/<case>.sh) one after the other.
#
# Env overrides: SERVER_KVER CLIENT_KVER (versions) or SERVER_SERIES CLIENT_SERIES (6.1|6.12),
#   CLIENT_STACK (upstream|ours), CASES, RUN_ID (results/<RUN_ID>/<suite>), CI=true (quiet),
#   BED_OURS_BUILD (dir holding <kver>/rtrs-client.ko, default <repo>/build),
#   BED_KMEMLEAK=1 (kernels with kmemleak: scan both guests after each case, once the client
#   stack is unloaded; a report fails the case and is kept as kmemleak-<vm>.txt),
#   BED_KERNEL_IMAGE BED_MODULES_DIR (boot a kernel the host does not have: lib/boot.sh),
#   BED_TIMEOUT_SCALE (multiplies every case's CASE_TIMEOUT, every vm_run timeout and every
#   guest-side wait_for; 1).
# Output: one line per case "PASS|FAIL <suite>/<case> <secs>s [reason]", also written to
#   results/<RUN_ID>/<suite>/results.txt. Exit 0 when all passed.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
BED_REPO=$(cd "$HERE/../.." && pwd)
export BED_REPO
suite=${1:?usage: run-suite.sh <suite> [case...]}; shift
sfile=$HERE/suites/$suite.sh
[ -r "$sfile" ] || { echo "run-suite: no suite $sfile (have: $(cd "$HERE/suites" && for f in *.sh; do printf '%s ' "${f%.sh}"; done))" >&2; exit 2; }
# The suite file sets defaults; the environment wins.
_env_cases=${CASES:-}; _env_stack=${CLIENT_STACK:-}
_env_ss=${SERVER_SERIES:-}; _env_cs=${CLIENT_SERIES:-}
# shellcheck source=/dev/null # the suite named on the command line
. "$sfile"
[ -n "$_env_cases" ] && CASES=$_env_cases
[ -n "$_env_stack" ] && CLIENT_STACK=$_env_stack
[ -n "$_env_ss" ] && SERVER_SERIES=$_env_ss
[ -n "$_env_cs" ] && CLIENT_SERIES=$_env_cs
[ $# -gt 0 ] && CASES="$*"
# Install what is missing before discovering kernels: `make soak` and direct calls reach this
# runner without tests/check.sh, and on a fresh machine the kernels are among what setup.sh
# installs (idempotent; exits at once when everything is there).
"$BED_REPO/scripts/setup.sh" >&2 || { echo "run-suite: scripts/setup.sh failed" >&2; exit 2; }
SERVER_KVER=${SERVER_KVER:-$("$BED_REPO/scripts/kernels.sh" "$SERVER_SERIES")}
CLIENT_KVER=${CLIENT_KVER:-$("$BED_REPO/scripts/kernels.sh" "$CLIENT_SERIES")}
{ [ -n "$SERVER_KVER" ] && [ -n "$CLIENT_KVER" ]; } || { echo "run-suite: kernels not installed" >&2; exit 2; }
export SERVER_KVER CLIENT_KVER CLIENT_STACK BED_SUITE=$suite
RUN_ID=${RUN_ID:-$(date +%Y%m%d-%H%M%S)-$$}
export BED_DIR=$BED_REPO/results/$RUN_ID/$suite
mkdir -p "$BED_DIR/cases"
. "$BED_REPO/tests/vm/lib/bed.sh"
. "$BED_REPO/tests/vm/lib/boot.sh"
quiet() { [ "${CI:-}" = true ]; }
say() { quiet || echo "$@" >&2; }
RES=$BED_DIR/results.txt; : > "$RES"
result() { echo "$*" | tee -a "$RES"; }

# Kernel log lines that fail the test case they appear in. Call-trace frames are not
# matched: every report has a header line that is, and the traces fault injection prints
# on purpose are full of frames like "? lockdep_hardirqs_on_prepare+0x262/0x3f0". Nor is
# kmemleak's "Cannot allocate a scan area": an injected failure it survives.
BED_BAD='BUG:|WARNING:|Oops|general protection|KASAN|kmemleak: .*(leak|disabl|Cannot allocate a kmemleak_object)|lockdep is turned off|possible recursive locking|circular locking dependency|RCU|rcu_sched|\<stall|list_add corruption|list_del corruption|refcount_t|hung_task|blocked for more than|Kernel panic'
BED_FRAME='^(<[0-9]>)?\[ *[0-9.]+\] +(\? )?[A-Za-z0-9_.]+\+0x[0-9a-f]+/0x[0-9a-f]+'

for c in $CASES; do
	[ -r "$HERE/cases/$c.sh" ] || { echo "run-suite: no case tests/vm/cases/$c.sh" >&2; exit 2; }
done
# Build what the suite needs and nobody built: `make soak` and direct calls on a fresh clone
# come here without tests/check.sh's build steps. Only what is missing: a rebuild of a present
# module could swap it under another suite that is loading it from the same build/.
prep() { # <what> <cmd...>: run a build step, its output in $BED_REPO/results/prep-<pid>.log
	local log=$BED_REPO/results/prep-$$.log
	mkdir -p "$BED_REPO/results"
	echo "run-suite: building $1" >&2
	"${@:2}" >> "$log" 2>&1 || { echo "run-suite: building $1 failed (log: $log)" >&2; exit 2; }
}
for k in "$SERVER_KVER" "$CLIENT_KVER"; do
	[ -e "$BED_REPO/.cache/peer/$k/upstream/rnbd/rnbd-server.ko" ] ||
		prep "the upstream peer for $k" env -C "$BED_REPO" PEER_ONLY=upstream tests/peer/build-peer.sh "$k"
done
if [ "$CLIENT_STACK" = ours ] && [ -z "${BED_OURS_BUILD:-}" ]; then
	[ -e "$BED_REPO/build/$CLIENT_KVER/rtrs-client.ko" ] ||
		prep "rtrs-client.ko for $CLIENT_KVER" make -s -C "$BED_REPO" KVER="$CLIENT_KVER"
	# rebuilt also when our module's symbol versions changed since (a stale one does not
	# load: "disagrees about version of symbol")
	ro=$BED_REPO/.cache/peer/$CLIENT_KVER/rnbd-ours
	[ -n "${BED_OURS_RNBD_KO:-}" ] ||
		{ [ -e "$ro/rnbd-client.ko" ] && cmp -s "$ro/ours.symvers" "$BED_REPO/build/$CLIENT_KVER/Module.symvers"; } ||
		prep "rnbd-client on our rtrs.h for $CLIENT_KVER" env -C "$BED_REPO" PEER_ONLY=ours tests/peer/build-peer.sh "$CLIENT_KVER"
fi

cleanup() { bed_shutdown; }
trap cleanup EXIT
trap 'exit 130' INT TERM
say "suite $suite: server $SERVER_KVER, client $CLIENT_KVER ($CLIENT_STACK stack), cases: $CASES"
say "artifacts: $BED_DIR"
T_SUITE=$(date +%s)
if quiet; then bed_boot 2> "$BED_DIR/boot.log"; else bed_boot 2> >(tee "$BED_DIR/boot.log" >&2); fi
if [ -z "${BED_SETUP_S:-}" ]; then
	sleep 1
	for c in $CASES; do result "FAIL $suite/$c 0s bed did not come up (see $BED_DIR/boot.log, */console.log)"; done
	exit 1
fi

# A kernel report while the guests booted and the bed set up fails every case: it is not
# one of ours to blame, but the first KASAN report silences KASAN (without
# kasan_multi_shot) and any report turns lockdep off, so the whole suite would run blind.
# (2026-12-06: the sanitizer client, -cpu max with 5-level paging, reported a KASAN
# wild-memory-access in an early interrupt at 1.5 s; check-debug now boots with no5lvl.)
# (BED_BAD's bare "RCU" would match the boot banner's RCU lines: a narrower pattern here.)
BED_BOOT_BAD='BUG:|WARNING:|Oops|general protection|KASAN|Disabling lock debugging|lockdep is turned off|possible recursive locking|circular locking dependency|list_add corruption|list_del corruption|refcount_t|Kernel panic|self-detected stall|detected stalls'
boot_probs=""
for vm in $BED_VMS; do
	p=$(grep -aE "$BED_BOOT_BAD" "$BED_DIR/$vm/console.log" 2>/dev/null | grep -avE "$BED_FRAME" | head -n 5)
	[ -n "$p" ] && boot_probs="$boot_probs$vm: $(echo "$p" | head -n 2 | tr '\n' ' ')"
done
if [ -n "$boot_probs" ]; then
	echo "$boot_probs" > "$BED_DIR/boot-problems.txt"
	for c in $CASES; do result "FAIL $suite/$c 0s kernel report during boot/setup, the suite would run blind: $boot_probs"; done
	exit 1
fi

_bed_any_dead() { local vm; for vm in $BED_VMS; do vm_alive "$vm" || { echo "$vm dead: $(vm_dead_reason "$vm")"; return 0; }; done; return 1; }

# vm_run_each <timeout_s> <out> <command>: the command in every live guest at once, so the
# runner's per-case chores cost one round trip instead of one per guest; guest <vm>'s
# stdout and stderr go to <out> with VM replaced by the guest's name (/dev/null: dropped).
# rc 0 if it succeeded everywhere.
vm_run_each() {
	local t=$1 out=$2 vm rc=0
	local -A id=()
	shift 2
	for vm in $BED_VMS; do
		vm_alive "$vm" && id[$vm]=$(BED_TRACE=0 vm_spawn "$vm" "$t" "$@")
	done
	for vm in $BED_VMS; do
		if [ -n "${id[$vm]:-}" ]; then
			vm_wait "$vm" "${id[$vm]}" > "${out//VM/$vm}" 2>&1 || rc=1
		else
			rc=125
		fi
	done
	return $rc
}

# Bring the bed back to its baseline after a case: links on, no netem, client stack
# unloaded, server modules loaded with default parameters. Prints problems.
# (Both links of both guests in one QMP connection per guest, the guests at once; the
# server's qdiscs removed and its modules looked at in one round trip, before the client
# unmaps, as before: an unmap over a link that netem still drops would only time out.)
bed_reset() {
	local out rc=0 vm pids=()
	for vm in $BED_VMS; do
		qmp "$vm" '{"execute":"set_link","arguments":{"name":"link0","up":true}}' \
			'{"execute":"set_link","arguments":{"name":"link1","up":true}}' >/dev/null 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}"   # only these: QEMU and the log tail are children of this shell too
	local srv_mods=0
	# shellcheck disable=SC2016 # expanded in the guest
	BED_TRACE=0 vm_run server 30 'for l in eth0 eth1; do tc qdisc del dev $l root 2>/dev/null; done
		lsmod | grep -q ^rnbd_server' >/dev/null 2>&1 && srv_mods=1
	out=$(vm_run client 300 bed_client_down 2>&1) || { echo "client cleanup failed: $out"; rc=1; }
	if [ -s "$BED_DIR/server/share/.params" ] || [ "$srv_mods" = 0 ]; then
		out=$(vm_run server 300 'bed_server_reload' 2>&1) || { echo "server reload failed: $out"; rc=1; }
	fi
	return $rc
}

# kmemleak: wait out its minimum object age, scan twice (an object seen unreferenced only
# once may be a pointer in flight), print what it reports, then clear so the next case
# starts clean. Prints nothing when the kernel has no kmemleak.
bed_kmemleak() { # <vm>
	# shellcheck disable=SC2016 # expanded in the guest
	BED_TRACE=0 vm_run "$1" 900 'k=/sys/kernel/debug/kmemleak; [ -e $k ] || exit 0
		sleep 6
		{ echo scan > $k && echo scan > $k; } 2>/dev/null ||
			{ echo "kmemleak scan failed: $(dmesg | grep -i kmemleak | tail -n 3)"; exit 0; }
		cat $k; echo clear > $k' 2>/dev/null || echo "kmemleak: vm_run on $1 failed (rc $?)"
}
# bed_kmemleak_all <dir> <prefix>: all guests at once (a scan keeps one host core busy for
# tens of seconds on the sanitizer kernel; one after the other doubled the wait per case)
bed_kmemleak_all() {
	local vm pids=()
	for vm in $BED_VMS; do bed_kmemleak "$vm" > "$1/$2-$vm.txt" & pids+=($!); done
	wait "${pids[@]}"   # only these: QEMU and the log tail are children of this shell too
}
if [ "${BED_KMEMLEAK:-0}" = 1 ]; then   # what booting and the bed setup leave behind
	bed_kmemleak_all "$BED_DIR" kmemleak-boot
	for vm in $BED_VMS; do
		[ -s "$BED_DIR/kmemleak-boot-$vm.txt" ] && say "kmemleak: $vm reports leaks from boot/setup (not failed): $BED_DIR/kmemleak-boot-$vm.txt"
	done
fi

n=0; npass=0; nfail=0
for c in $CASES; do
	n=$((n + 1))
	cdir=$BED_DIR/cases/$(printf %02d $n)-$c; mkdir -p "$cdir"
	t0=$(date +%s)
	if dead=$(_bed_any_dead); then
		result "FAIL $suite/$c 0s not run: $dead"; nfail=$((nfail + 1)); continue
	fi
	tag="rtrs-bed: BEGIN $suite/$c #$n"
	declare -A coff=()
	for vm in $BED_VMS; do coff[$vm]=$(stat -c %s "$BED_DIR/$vm/console.log"); done
	vm_run_each 30 /dev/null "echo '$tag' > /dev/kmsg"
	# evaluated, not parsed: a case may derive its timeout from the suite's knobs (MP_CUTS)
	ct=$(eval "$(grep -m 1 '^CASE_TIMEOUT=' "$HERE/cases/$c.sh")"; echo "${CASE_TIMEOUT:-600}")
	ct=$(( ct * ${BED_TIMEOUT_SCALE:-1} ))
	say "=== $suite/$c (timeout ${ct}s)"
	export BED_CASE_DIR=$cdir
	: > "$cdir/log.txt"
	# own session, so a case stuck on a dead VM can be killed with everything it started
	setsid timeout -k 10 "$ct" "$HERE/lib/run-case.sh" "$HERE/cases/$c.sh" > "$cdir/log.txt" 2>&1 &
	cpid=$!
	quiet || tail -n +1 -f --pid="$cpid" "$cdir/log.txt" >&2 &
	why=""
	while kill -0 "$cpid" 2>/dev/null; do
		if dead=$(_bed_any_dead); then
			why="$dead"; sleep 2
			kill -TERM -- "-$cpid" 2>/dev/null
			break
		fi
		sleep 0.2   # the case's end is seen within 0.2 s (was 1 s)
	done
	wait "$cpid"; rc=$?
	[ "$rc" = 124 ] && why="case timed out after ${ct}s"
	# back to baseline for the next case (failures here fail this case: it left a mess)
	if ! _bed_any_dead >/dev/null; then
		# rxe and qdisc counters (send_err, drops): the first place to look after a path failure
		# shellcheck disable=SC2016 # expanded in the guest
		vm_run_each 30 "$cdir/net-VM.txt" 'rdma statistic show; for n in /sys/class/net/eth*; do tc -s qdisc show dev ${n##*/}; done'
		# after a failure, the state a path that does not come back leaves below our
		# module (tests/HISTORY.md, session 21): neighbours, CM ids and QPs, and
		# whether each link still carries a ping
		# shellcheck disable=SC2016 # expanded in the guest
		[ "$rc" = 0 ] || BED_TRACE=0 vm_run client 60 'ip neigh show; ip -s link show
			rdma resource show cm_id; rdma resource show qp
			for a in 198.18.0.1 198.18.1.1 fd18:0::1 fd18:1::1; do
				ping -c2 -W2 $a >/dev/null 2>&1 && echo "ping $a ok" || echo "ping $a FAILED"
			done' > "$cdir/net-diag-client.txt" 2>&1
		resetmsg=$(bed_reset 2>&1) || why="${why:+$why; }cleanup after the case failed: $(echo "$resetmsg" | tail -n 3 | tr '\n' ' ')"
		echo "$resetmsg" > "$cdir/reset.txt"
	fi
	# Kernel logs of this case from both guests, the cleanup above included (an unmap, rmmod
	# or server reload that splats belongs to the case that left that state): dmesg from the
	# case's marker to an end marker written now, or the console if the guest is dead.
	probs=""
	etag="rtrs-bed: END $suite/$c #$n"
	# the end marker and the whole log in one round trip per guest, both guests at once.
	# First 1 s for what the cleanup set off to reach the logs (a process it killed, the
	# server closing what our unload left): the markers used to follow the cleanup after
	# 0.5-1.5 s of other round trips, and that window must not shrink.
	sleep 1
	declare -A did=()
	for vm in $BED_VMS; do
		vm_alive "$vm" && did[$vm]=$(BED_TRACE=0 vm_spawn "$vm" 60 "echo '$etag' > /dev/kmsg; dmesg")
	done
	for vm in $BED_VMS; do
		dok=0
		[ -n "${did[$vm]:-}" ] && vm_wait "$vm" "${did[$vm]}" > "$cdir/dmesg-$vm.all" 2>/dev/null &&
			grep -qF "$etag" "$cdir/dmesg-$vm.all" && dok=1
		tail -c +"$(( ${coff[$vm]} + 1 ))" "$BED_DIR/$vm/console.log" > "$cdir/console-$vm.txt"
		if [ "$dok" = 1 ]; then
			awk -v t="$tag" -v e="$etag" 'index($0, t) {p=1} p; index($0, e) {p=0}' "$cdir/dmesg-$vm.all" > "$cdir/dmesg-$vm.txt"
			rm -f "$cdir/dmesg-$vm.all"; src=$cdir/dmesg-$vm.txt
		else
			rm -f "$cdir/dmesg-$vm.all"
			src=$cdir/console-$vm.txt
		fi
		hits=$(grep -a -v 'rtrs-bed:' "$src" | grep -a -v -E "$BED_FRAME" | grep -a -E "$BED_BAD")
		[ -n "$hits" ] && probs+="--- $vm kernel log:"$'\n'"$hits"$'\n'
	done
	if [ -n "$probs" ]; then
		echo "$probs" > "$cdir/kernel-problems.txt"
		echo "$probs" | head -n 40 >&2
	fi
	# kmemleak after the scan: its own report lines are judged from kmemleak-<vm>.txt
	if [ "${BED_KMEMLEAK:-0}" = 1 ] && ! _bed_any_dead >/dev/null; then
		bed_kmemleak_all "$cdir" kmemleak
		for vm in $BED_VMS; do
			if [ -s "$cdir/kmemleak-$vm.txt" ]; then
				probs+="--- $vm kmemleak:"$'\n'"$(grep -c '^unreferenced object' "$cdir/kmemleak-$vm.txt") unreferenced objects (kmemleak-$vm.txt)"$'\n'
				echo "$probs" > "$cdir/kernel-problems.txt"
			else
				rm -f "$cdir/kmemleak-$vm.txt"
			fi
		done
	fi
	[ -z "$why" ] && dead=$(_bed_any_dead) && why=$dead
	secs=$(( $(date +%s) - t0 ))
	if [ "$rc" = 0 ] && [ -z "$probs" ] && [ -z "$why" ]; then
		result "PASS $suite/$c ${secs}s"; npass=$((npass + 1))
	else
		r=${why:-rc=$rc}
		[ -n "$probs" ] && r="$r; kernel log problems (kernel-problems.txt)"
		[ "$rc" != 0 ] && [ -n "$why" ] && r="rc=$rc; $r"
		last=$(grep -a 'FAIL:' "$cdir/log.txt" | tail -n 1 | cut -c1-160)
		[ -n "$last" ] && r="$r; last: $last"
		result "FAIL $suite/$c ${secs}s $r (artifacts: ${cdir#"$BED_REPO"/})"; nfail=$((nfail + 1))
	fi
done
say "suite $suite: $npass passed, $nfail failed, boot ${BED_BOOT_S}s, total $(( $(date +%s) - T_SUITE ))s"
echo "boot_s=$BED_BOOT_S setup_s=$BED_SETUP_S total_s=$(( $(date +%s) - T_SUITE ))" > "$BED_DIR/timing.txt"
[ "$nfail" = 0 ]
