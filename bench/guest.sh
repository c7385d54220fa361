# bench/guest.sh: guest-side helpers of the benchmark (sourced inside the bed's guests by the
# commands bench/run.sh sends with vm_run; tests/vm/guest/lib.sh is already sourced there).
# Not a standalone script.

BENCH_NQN=nqn.2026-12.io.rtrs-client:bench-nullb0
BENCH_CFS=/sys/kernel/config/nvmet

# stat_snap: one line "cpu <busy jiffies> <all jiffies>" of this guest (all CPUs), then the
# rxe counters of link0 as "rxe <name> <value>" lines.
stat_snap() {
	awk '$1 == "cpu" { b = $2 + $3 + $4 + $7 + $8 + $9; t = b + $5 + $6; print "cpu", b, t }' /proc/stat
	rdma statistic show link rxe0/1 2>/dev/null | tr ' ' '\n' | awk 'NF { w[++n] = $0 }
		END { for (i = 3; i < n; i += 2) if (w[i + 1] ~ /^[0-9]+$/) print "rxe", w[i], w[i + 1] }'
}

# ---- instruction meter (BENCH_INSN=1; bench/insn/README.md) ----
# run.sh sets BENCH_INSN_DIR (where insn-mark was built) in the commands it sends; unset,
# these do nothing.
# insn start|stop <label>: mark a phase for the QEMU plugin.
insn() {
	[ -n "${BENCH_INSN_DIR:-}" ] || return 0
	"$BENCH_INSN_DIR/insn-mark" "$@"
}
# insn_ranges BUCKET=MODULE[,MODULE...] ...: hand the plugin the text ranges of the loaded
# modules (modules not loaded are skipped); prints the table.
insn_ranges() {
	[ -n "${BENCH_INSN_DIR:-}" ] || return 0
	"$BED_REPO/bench/insn/ranges.sh" "$@" > /tmp/insn-ranges || return 1
	"$BENCH_INSN_DIR/insn-mark" ranges /tmp/insn-ranges || return 1
	cat /tmp/insn-ranges
}

# insn_syms: the loaded modules' symbols with their real addresses (/proc/kallsyms shows them
# to root while kernel.kptr_restrict is 1; 0 and 2 do not), for bench/insn/profile.py.
insn_syms() {
	local kr=/proc/sys/kernel/kptr_restrict old
	[ -n "${BENCH_INSN_DIR:-}" ] || return 0
	old=$(cat "$kr")
	echo 1 > "$kr"
	grep '\]$' /proc/kallsyms	# "ADDR t NAME<tab>[MODULE]"
	echo "$old" > "$kr"
}

# fio_cell <dev> <cell> <runtime_s> <out-prefix>: one cell of the matrix on <dev>, fio json in
# <prefix>.json, this guest's counters before/after in <prefix>.pre / <prefix>.post.
fio_cell() {
	local dev=$1 cell=$2 rt=$3 p=$4 rw bs qd
	case $cell in
	randread-4k-qd1) rw=randread bs=4k qd=1 ;;
	randread-4k-qd32) rw=randread bs=4k qd=32 ;;
	randwrite-4k-qd1) rw=randwrite bs=4k qd=1 ;;
	randwrite-4k-qd32) rw=randwrite bs=4k qd=32 ;;
	read-128k-qd8) rw=read bs=128k qd=8 ;;
	write-128k-qd8) rw=write bs=128k qd=8 ;;
	*) echo "fio_cell: unknown cell $cell" >&2; return 2 ;;
	esac
	mkdir -p "$(dirname "$p")"
	stat_snap > "$p.pre"
	insn start "${p##*/}"
	fio --name="$cell" --filename="$dev" --rw=$rw --bs=$bs --iodepth=$qd --numjobs=1 \
		--ioengine=libaio --direct=1 --size=512m --time_based --runtime="$rt" \
		--percentile_list=50:99 --output-format=json --output="$p.json" > "$p.log" 2>&1
	local rc=$?
	insn stop "${p##*/}"
	stat_snap > "$p.post"
	[ $rc = 0 ] || { cat "$p.log" >&2; return $rc; }
}

# ---- server: nvmet-rdma exporting /dev/nullb0 on 198.18.0.1:4420 ----
nvmet_up() {
	local s=$BENCH_CFS/subsystems/$BENCH_NQN p=$BENCH_CFS/ports/1
	modprobe nvmet || return 1
	modprobe nvmet-rdma || return 1
	[ -d $BENCH_CFS ] || mount -t configfs configfs /sys/kernel/config 2>/dev/null
	[ -d $BENCH_CFS ] || { echo "no $BENCH_CFS" >&2; return 1; }
	[ -d "$s" ] || mkdir "$s" || return 1
	echo 1 > "$s/attr_allow_any_host" || return 1
	[ -d "$s/namespaces/1" ] || mkdir "$s/namespaces/1" || return 1
	if [ "$(cat "$s/namespaces/1/enable")" != 1 ]; then
		echo -n /dev/nullb0 > "$s/namespaces/1/device_path" || return 1
		echo 1 > "$s/namespaces/1/enable" || return 1
	fi
	if [ ! -d "$p" ]; then
		mkdir "$p" || return 1
		echo rdma > "$p/addr_trtype"; echo ipv4 > "$p/addr_adrfam"
		echo 198.18.0.1 > "$p/addr_traddr"; echo 4420 > "$p/addr_trsvcid"
	fi
	[ -e "$p/subsystems/$BENCH_NQN" ] || ln -s "$s" "$p/subsystems/$BENCH_NQN" || return 1
	echo "nvmet: $BENCH_NQN (/dev/nullb0) on rdma 198.18.0.1:4420"
}
nvmet_down() {
	local s=$BENCH_CFS/subsystems/$BENCH_NQN p=$BENCH_CFS/ports/1
	[ -d $BENCH_CFS ] || return 0
	rm -f "$p/subsystems/$BENCH_NQN" 2>/dev/null
	[ -d "$p" ] && rmdir "$p"
	[ -d "$s/namespaces/1" ] && { echo 0 > "$s/namespaces/1/enable"; rmdir "$s/namespaces/1"; }
	[ -d "$s" ] && rmdir "$s"
	rmmod nvmet_rdma nvmet 2>/dev/null
	true
}

# ---- client: nvme-rdma host ----
nvme_dev_of() { # print /dev/nvmeXn1 of the bench subsystem (the only NVMe in the guest)
	local b
	grep -qx "$BENCH_NQN" /sys/class/nvme/nvme*/subsysnqn 2>/dev/null || return 1
	for b in /sys/block/nvme*n1; do
		case ${b##*/} in nvme*[!0-9]*n1) continue ;; esac   # nvme<N>n1 only
		[ -e "$b" ] && { echo "/dev/${b##*/}"; return 0; }
	done
	return 1
}
nvme_up() {
	local hostnqn
	modprobe nvme-rdma || return 1
	hostnqn=$(cat /etc/nvme/hostnqn 2>/dev/null)
	[ -n "$hostnqn" ] || hostnqn=nqn.2014-08.org.nvmexpress:uuid:$(cat /proc/sys/kernel/random/uuid)
	nvme connect -t rdma -a 198.18.0.1 -s 4420 -n "$BENCH_NQN" --hostnqn="$hostnqn" >&2 || return 1
	wait_for 60 nvme_dev_of > /dev/null || return 1
	local d; d=$(nvme_dev_of); wait_for 30 test -b "$d" || return 1
	echo "$d"
}
nvme_down() {
	nvme disconnect -n "$BENCH_NQN" >&2 2>/dev/null
	wait_for 60 sh -c '! ls /sys/class/nvme/ 2>/dev/null | grep -q nvme' || return 1
	rmmod nvme_rdma nvme_fabrics 2>/dev/null
	true
}

# perftest_client <test> <size> <duration>: run the client side against 198.18.0.1 (retries
# while the server's listener is not up yet).
perftest_client() {
	local _
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		"$1" -d rxe0 -R -F -s "$2" -D "$3" 198.18.0.1 2>&1 && return 0
		sleep 2
	done
	return 1
}

# ---- profile (BENCH_PROFILE=1) ----
# prof_record <out> <seconds>: sample all CPUs of this guest, kernel and user, with the
# software clock (no PMU under TCG; samples cannot land where interrupts are off, see the
# results file's Profile section), call graphs off (frame walking doubles the cost).
prof_record() {
	sleep 3   # let fio ramp up first
	perf record -q -a -e cpu-clock -F 999 -o "$1" -- sleep "$2" > /dev/null 2>&1
}
# prof_report <data>: where the busy (not idle) samples went: shares per module, then the
# top symbols, as a percentage of the busy samples.
prof_report() {
	perf report -i "$1" --stdio --no-children --sort dso,sym --percent-limit 0 -q 2>/dev/null |
		awk '$1 ~ /%$/ { p = $1; sub(/%/, "", p); d = $2; gsub(/[\[\]]/, "", d)
			s = $NF; if (s ~ /_safe_halt$|^default_idle$/) { idle += p; next }
			busy += p; bym[d] += p; n++; sym[n] = s; mod[n] = d; pct[n] = p }
		END { if (busy == 0) { print "no busy samples"; exit }
			printf "idle %.1f%% of samples, busy %.1f%%\n", idle, busy
			print "busy share by module:"
			for (m in bym) printf "  %5.1f%%  %s\n", 100 * bym[m] / busy, m | "sort -rn"
			close("sort -rn")
			print "top symbols (share of busy samples):"
			for (i = 1; i <= n && i <= 40; i++) printf "  %5.1f%%  %-14s %s\n", 100 * pct[i] / busy, mod[i], sym[i] }'
}
