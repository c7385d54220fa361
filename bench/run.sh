#!/bin/bash
# bench/run.sh (`make bench`): side-by-side benchmark in the two-host VM bed (tests/vm/).
# One server host VM (memory-backed null_blk /dev/nullb0, upstream rtrs-server + rnbd-server,
# nvmet-rdma exporting the same nullb0) and one client host VM; the contenders, interleaved
# round by round (A B C ... A B C ...):
#   ours      our rtrs-client + upstream rnbd-client built against our include/rtrs.h
#   upstream  upstream rtrs-client + rnbd-client (built from Debian's linux-source)
#   nvme      Debian's nvme-rdma host (nvme connect -t rdma) against nvmet-rdma
#   local     fio on /dev/nullb0 inside the server host (no network): a ceiling
#   perftest  ib_{write,read}_{bw,lat} over the same rxe link: the transport ceiling
# fio matrix: 4k randread/randwrite at qd1 and qd32, 128k sequential read/write at qd8.
# The server runs at always_invalidate=Y (its default) and, with BENCH_AI=both, the rtrs
# contenders again at always_invalidate=N.
#
# Knobs: BENCH_ROUNDS (3), BENCH_RUNTIME (30 s per cell), BENCH_KERNEL (6.12; both hosts),
#   BENCH_AI (both | Y | N), BENCH_QUICK=1 (1 round, 5 s cells, file marked quick),
#   BENCH_CONTENDERS (default "ours upstream nvme local perftest"), BENCH_CELLS (a subset of the
#   fio cells), BENCH_OUT (results file), BENCH_PROFILE=1 (perf samples of both guests during
#   every cell, top symbols in raw/<cell>.<vm>.perf.txt; it perturbs what it measures),
#   BENCH_INSN=1 (the instruction meter, bench/insn/: both VMs count guest instructions per
#   module per fio cell; the report adds instructions per I/O; `make bench-insn`);
#   BENCH_INSN_ARGS (the meter's arguments, e.g. shift=4,hi=...,detail=ours:upstream for
#   bench/insn/profile.py's per-function counts).
#   The bed's own knobs apply (SERVER_SMP, CLIENT_SMP, BED_MEM).
# Output: bench/results/<date>-<kernel>[-quick].md; raw fio json, counters and guest logs
#   under results/<run-id>/bench/raw/.
set -u
top=$(cd "$(dirname "$0")/.." && pwd); cd "$top" || exit 2
T0=$(date +%s)
ts() { date +%H:%M:%S; }
log() { echo "[$(ts)] $*"; }
die() { log "BENCH FAILED: $*"; exit 1; }

QUICK=${BENCH_QUICK:-0}
if [ "$QUICK" = 1 ]; then ROUNDS=1 RT=5; else ROUNDS=${BENCH_ROUNDS:-3} RT=${BENCH_RUNTIME:-30}; fi
SERIES=${BENCH_KERNEL:-6.12}
AI_MODES=${BENCH_AI:-both}; [ "$AI_MODES" = both ] && AI_MODES="Y N"
CONTENDERS=${BENCH_CONTENDERS:-ours upstream nvme local perftest}
PROFILE=${BENCH_PROFILE:-0}
INSN=${BENCH_INSN:-0}
CELLS=${BENCH_CELLS:-"randread-4k-qd1 randread-4k-qd32 randwrite-4k-qd1 randwrite-4k-qd32 read-128k-qd8 write-128k-qd8"}
PERFTESTS="ib_write_bw:4096 ib_write_bw:131072 ib_read_bw:4096 ib_read_bw:131072 ib_write_lat:4096 ib_read_lat:4096"
has() { case " $CONTENDERS " in *" $1 "*) return 0 ;; esac; return 1; }

log "setup: scripts/setup.sh"
scripts/setup.sh || die "setup failed"
kv=$(scripts/kernels.sh "$SERIES"); [ -n "$kv" ] || die "no $SERIES kernel with headers installed"
export SERVER_KVER=$kv CLIENT_KVER=$kv CLIENT_STACK=ours BED_REPO=$top BED_TRACE=0
export RUN_ID=${RUN_ID:-$(date +%Y%m%d-%H%M%S)-bench}
export BED_DIR=$top/results/$RUN_ID/bench
RAW=$BED_DIR/raw; mkdir -p "$RAW"
log "kernel $kv on both hosts; $ROUNDS round(s) of ${RT}s cells; always_invalidate: $AI_MODES; artifacts $BED_DIR"

# A private build of our module and of rnbd-client on our header: colleagues rebuilding
# build/ during the run cannot change what is measured.
commit=$(git rev-parse HEAD)
dirty=$(git status --porcelain --untracked-files=no -- '*.c' '*.h' Kbuild Makefile | awk '{print $2}' | tr '\n' ' ')
if has ours; then
	log "build our module ($commit${dirty:+, uncommitted changes in: $dirty}) into $BED_DIR/ours"
	make -s KVER="$kv" BUILD="$BED_DIR/ours/$kv" > "$BED_DIR/build.log" 2>&1 || die "module build failed ($BED_DIR/build.log)"
	OURS_BUILD=$BED_DIR/ours OURS_RNBD_OUT=$BED_DIR/rnbd-ours PEER_ONLY=ours \
		tests/peer/build-peer.sh "$kv" >> "$BED_DIR/build.log" 2>&1 || die "rnbd-client on our rtrs.h failed to build ($BED_DIR/build.log)"
	export BED_OURS_BUILD=$BED_DIR/ours BED_OURS_RNBD_KO=$BED_DIR/rnbd-ours/rnbd-client.ko
fi
if [ "$INSN" = 1 ]; then
	# a private build, like the module's: a colleague's rebuild cannot swap the meter mid-run
	log "build the instruction meter (bench/insn) into $BED_DIR/insn"
	make -s -C bench/insn O="$BED_DIR/insn" >> "$BED_DIR/build.log" 2>&1 || die "bench/insn build failed ($BED_DIR/build.log)"
	# BENCH_INSN_ARGS: the plugin's arguments, comma-separated (bench/insn/README.md, profile)
	export BED_INSN_PLUGIN=$BED_DIR/insn/insn-meter.so${BENCH_INSN_ARGS:+,$BENCH_INSN_ARGS}
fi
log "build the upstream peers (cached)"
PEER_ONLY=upstream tests/peer/build-peer.sh "$kv" >> "$BED_DIR/build.log" 2>&1 ||
	{ sleep 20; PEER_ONLY=upstream tests/peer/build-peer.sh "$kv" >> "$BED_DIR/build.log" 2>&1; } ||
	die "upstream peer build failed ($BED_DIR/build.log)"

. tests/vm/lib/bed.sh
. tests/vm/lib/boot.sh
trap bed_shutdown EXIT
trap 'exit 130' INT TERM
# shellcheck disable=SC2016 # expanded in the guest
G='. "$BED_REPO/bench/guest.sh";'
[ "$INSN" = 1 ] && G="BENCH_INSN_DIR=$(printf %q "$BED_DIR/insn"); $G"
load0=$(cut -d' ' -f1-3 /proc/loadavg)
log "boot the bed (waits for /tmp/rtrs-bed.lock while another bed runs)"
TL=$(date +%s)
bed_boot 2> "$BED_DIR/boot.log" || { tail -n 20 "$BED_DIR/boot.log"; die "the VMs did not come up"; }
TB=$(date +%s)
LOCK_S=$(( TB - TL - BED_SETUP_S )); [ "$LOCK_S" -lt 0 ] && LOCK_S=0
log "bed up after ${BED_SETUP_S}s (waited ${LOCK_S}s for the bed lock)"
MARK="rtrs-bed: BEGIN bench $RUN_ID"
for vm in $BED_VMS; do vm_run "$vm" 30 "echo '$MARK' > /dev/kmsg" >/dev/null 2>&1; done
if has nvme; then
	vm_run server 120 "$G nvmet_up" > "$RAW/nvmet-up.txt" 2>&1 || { cat "$RAW/nvmet-up.txt"; die "nvmet setup failed"; }
fi
vm_run client 30 'modprobe rdma_ucm; modprobe ib_uverbs; true' >/dev/null 2>&1
vm_run server 30 'modprobe rdma_ucm; modprobe ib_uverbs; true' >/dev/null 2>&1

# Baseline: what each guest's CPUs do while idle (the bed agent polls its mailbox): the
# report subtracts this share from the CPU per I/O.
bsec=$(( RT > 10 ? RT : 10 ))
for vm in $BED_VMS; do vm_run "$vm" 30 "$G stat_snap" > "$RAW/baseline.$vm.pre" 2>/dev/null; done
sleep "$bsec"
for vm in $BED_VMS; do vm_run "$vm" 30 "$G stat_snap" > "$RAW/baseline.$vm.post" 2>/dev/null; done

# others: QEMU processes on the host that are not this bed's (a VM pair started without the
# bed lock steals the host's cores and skews everything measured meanwhile).
# shellcheck disable=SC2009 # pgrep cannot count by "not this folder" in the arguments
others() { ps -eo args= | grep '^qemu-system' | grep -vc "$BED_DIR/"; }

# The meter's buckets (bench/insn/ranges.sh BUCKET=MODULE,...): the stack under test gets
# its own, named by the contender (ours and upstream are both rtrs_client); the rest of
# the RDMA stack is split so the transport's share shows. Modules not loaded are skipped.
INSN_COMMON="rxe=rdma_rxe ib_core=ib_core cm=rdma_cm,ib_cm,iw_cm"
INSN_SERVER="rtrs=rtrs_server,rtrs_core rnbd=rnbd_server nvmet=nvmet_rdma,nvmet nullb=null_blk $INSN_COMMON"
insn_client_ranges() { # <contender>
	local b
	[ "$INSN" = 1 ] || return 0
	case $1 in
	ours) b="ours=rtrs_client rnbd=rnbd_client" ;;
	upstream) b="upstream=rtrs_client,rtrs_core rnbd=rnbd_client" ;;
	nvme) b="nvme=nvme_rdma,nvme_fabrics,nvme_core" ;;
	esac
	vm_run client 60 "$G insn_ranges $b $INSN_COMMON"
}

dead() { local vm; for vm in $BED_VMS; do vm_alive "$vm" || return 0; done; return 1; }
gshare() { echo "$(vm_share "$1")/bench"; }

# attach <contender>: print the client's block device
attach() {
	case $1 in
	ours|upstream)
		client_load "$1" >&2 || return 1
		vm_run client 180 rnbd_map bench /dev/nullb0 path=ip:198.18.0.1 ;;
	nvme) vm_run client 180 "$G nvme_up" ;;
	esac
}
detach() { # <contender> <dev>
	case $1 in
	ours|upstream)
		[ -n "$2" ] && vm_run client 120 "rnbd_unmap $2" >&2
		client_unload >&2 ;;
	nvme) vm_run client 120 "$G nvme_down" >&2 ;;
	esac
}
# cell <tag> <vm running fio> <dev> <cell>: one fio cell plus CPU/rxe counters of both guests
cell() {
	local tag=$1 vm=$2 dev=$3 c=$4 other=server rc
	[ "$vm" = server ] && other=client
	vm_run "$other" 30 "$G stat_snap" > "$RAW/$tag.$other.pre" 2>/dev/null
	local pids=() pv
	if [ "$PROFILE" = 1 ] && [ "$RT" -gt 8 ]; then
		for pv in client server; do
			pids+=("$pv:$(vm_spawn "$pv" $((RT + 120)) "$G prof_record /tmp/perf-$tag.data $((RT - 6))")")
		done
	fi
	# the meter's phase on the server host spans the client's fio (fio_cell marks the client's)
	[ "$INSN" = 1 ] && [ "$vm" = client ] && vm_run server 30 "$G insn start $tag" >/dev/null 2>&1
	vm_run "$vm" $((RT + 180)) "$G fio_cell $dev $c $RT /tmp/bed/bench/$tag" > /dev/null 2> "$RAW/$tag.err"
	rc=$?
	[ "$INSN" = 1 ] && [ "$vm" = client ] && vm_run server 30 "$G insn stop $tag" >/dev/null 2>&1
	vm_run "$other" 30 "$G stat_snap" > "$RAW/$tag.$other.post" 2>/dev/null
	for pv in "${pids[@]}"; do
		vm_wait "${pv%%:*}" "${pv#*:}" > /dev/null 2>&1
		vm_run "${pv%%:*}" 300 "$G prof_report /tmp/perf-$tag.data; rm -f /tmp/perf-$tag.data" \
			> "$RAW/$tag.${pv%%:*}.perf.txt" 2>&1
	done
	for f in json pre post log; do
		cp "$(gshare "$vm")/$tag.$f" "$RAW/$tag.$vm.$f" 2>/dev/null
	done
	[ $rc = 0 ] || { echo "rc=$rc" > "$RAW/$tag.fail"; log "    $c: FAILED rc=$rc ($(tail -n 2 "$RAW/$tag.err" | tr '\n' ' '))"; return 1; }
	log "    $c: $(python3 bench/report.py --one "$RAW/$tag.$vm.json")"
}
run_perftest() { # <tag-prefix>
	local t size id tag
	for t in $PERFTESTS; do
		size=${t#*:}; t=${t%:*}; tag=$1-$t-$size
		id=$(vm_spawn server $((RT + 120)) "$t -d rxe0 -R -F -s $size -D $RT")
		sleep 3
		vm_run client $((RT + 120)) "$G perftest_client $t $size $RT" > "$RAW/$tag.client.txt" 2>&1 ||
			echo "client rc=$?" > "$RAW/$tag.fail"
		vm_wait server "$id" > "$RAW/$tag.server.txt" 2>&1
		log "    $t -s $size: $(python3 bench/report.py --perftest "$RAW/$tag.client.txt")"
		dead && return 1
	done
}

for ai in $AI_MODES; do
	if [ "$ai" = Y ]; then server_reload > /dev/null 2>&1; else server_reload always_invalidate=N > /dev/null 2>&1; fi ||
		die "server reload (always_invalidate=$ai) failed"
	got=$(vm_run server 10 'cat /sys/module/rtrs_server/parameters/always_invalidate' 2>/dev/null)
	[ "$got" = "$ai" ] || die "server always_invalidate is '$got', wanted $ai"
	echo "$got" > "$RAW/ai$ai.param"
	if [ "$INSN" = 1 ]; then
		vm_run server 60 "$G insn_ranges $INSN_SERVER" > "$RAW/ai$ai.insn-ranges.server" 2>&1 ||
			die "server: insn ranges failed ($RAW/ai$ai.insn-ranges.server)"
	fi
	list=$CONTENDERS
	[ "$ai" = N ] && list=$(for c in $CONTENDERS; do case $c in ours|upstream) echo "$c" ;; esac; done)
	for r in $(seq "$ROUNDS"); do
		for c in $list; do
			dead && die "a VM died: $(vm_dead_reason server; vm_dead_reason client)"
			log "always_invalidate=$ai round $r/$ROUNDS: $c"
			others >> "$RAW/others.txt"
			case $c in
			local)
				for x in $CELLS; do cell "ai$ai-r$r-$c-$x" server /dev/nullb0 "$x"; done ;;
			perftest)
				run_perftest "ai$ai-r$r-perftest" ;;
			ours|upstream|nvme)
				if dev=$(attach "$c" 2> "$RAW/ai$ai-r$r-$c.attach.err"); then
					echo "$dev" > "$RAW/ai$ai-r$r-$c.dev"
					insn_client_ranges "$c" > "$RAW/ai$ai-r$r-$c.insn-ranges.client" 2>&1 ||
						die "client: insn ranges failed ($RAW/ai$ai-r$r-$c.insn-ranges.client)"
					[ "$INSN" = 1 ] && vm_run client 60 "$G insn_syms" > "$RAW/ai$ai-r$r-$c.insn-syms.client" 2>&1
					for x in $CELLS; do cell "ai$ai-r$r-$c-$x" client "$dev" "$x"; done
				else
					log "    attach $c failed: $(tail -n 3 "$RAW/ai$ai-r$r-$c.attach.err" | tr '\n' ' ')"
					for x in $CELLS; do echo "attach failed" > "$RAW/ai$ai-r$r-$c-$x.fail"; done
					dev=""
				fi
				detach "$c" "$dev" > "$RAW/ai$ai-r$r-$c.detach.log" 2>&1 ||
					log "    detach $c failed (see $RAW/ai$ai-r$r-$c.detach.log)" ;;
			*) die "unknown contender $c" ;;
			esac
		done
	done
done

# Kernel logs: a splat makes the numbers suspect; the report says so.
BAD='BUG:|WARNING:|Oops|general protection fault.*\[#[0-9]+\]|KASAN|lockdep|circular locking|RCU|\<stall|list_add corruption|list_del corruption|refcount_t|hung_task|blocked for more than|Kernel panic'
: > "$RAW/kernel-problems.txt"
for vm in $BED_VMS; do
	vm_run "$vm" 60 dmesg > "$RAW/dmesg-$vm.txt" 2>/dev/null || cp "$BED_DIR/$vm/console.log" "$RAW/dmesg-$vm.txt"
	awk -v t="$MARK" 'index($0, t) {p=1} p' "$RAW/dmesg-$vm.txt" | grep -a -E "$BAD" | grep -av 'rtrs-bed:' |
		sed "s/^/$vm: /" >> "$RAW/kernel-problems.txt"
done
vm_run server 60 "$G nvmet_down" >/dev/null 2>&1
TE=$(date +%s)
if [ "$INSN" = 1 ]; then
	# the plugin's last lines (and its exit summary) are out once QEMU has exited
	bed_shutdown
	for vm in $BED_VMS; do cp "$BED_DIR/$vm/insn.log" "$RAW/insn.$vm.log" 2>/dev/null; done
fi
load1=$(cut -d' ' -f1-3 /proc/loadavg)

{
	echo "commit=$commit"
	echo "dirty=$dirty"
	echo "kernel=$kv"
	echo "quick=$QUICK"; echo "insn=$INSN"; echo "rounds=$ROUNDS"; echo "runtime=$RT"; echo "ai_modes=$AI_MODES"
	echo "contenders=$CONTENDERS"
	echo "server_smp=${SERVER_SMP:-1}"; echo "client_smp=${CLIENT_SMP:-2}"; echo "mem=${BED_MEM:-2G}"
	echo "host=$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), QEMU $(qemu-system-x86_64 --version | head -n 1 | awk '{print $4}'), TCG"
	echo "loadavg_start=$load0"; echo "loadavg_end=$load1"
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "boot_s=$BED_SETUP_S"; echo "lock_wait_s=$LOCK_S"; echo "measure_s=$((TE - TB))"; echo "total_s=$((TE - T0))"
	echo "fio=$(fio --version)"; echo "perftest=$(dpkg-query -W -f '${Version}' perftest 2>/dev/null)"
	echo "nvme-cli=$(dpkg-query -W -f '${Version}' nvme-cli 2>/dev/null)"
	echo "artifacts=${BED_DIR#"$top"/}"
} > "$RAW/meta.txt"
short=$(echo "$kv" | cut -d. -f1-2)
out=${BENCH_OUT:-bench/results/$(date -u +%Y-%m-%d)-$short$([ "$QUICK" = 1 ] && echo -quick)$([ "$INSN" = 1 ] && echo -insn).md}
mkdir -p "$(dirname "$out")"
python3 bench/report.py "$RAW" > "$out" || die "report failed"
log "results: $out (total $((TE - T0))s, measuring $((TE - TB))s)"
