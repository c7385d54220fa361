# bed.sh: host-side helper library of the two-VM test bed (sourced by tests/vm/run-suite.sh,
# by every test case, and by tests/demo.sh). Not a standalone script.
#
# State comes from the environment that run-suite.sh exports:
#   BED_REPO      repository root           BED_DIR   results/<run-id>/<suite>
#   SERVER_KVER   CLIENT_KVER               CLIENT_STACK  upstream|ours
#   BED_CASE_DIR  this case's artifact dir (inside a case)
# Per VM (server|client): $BED_DIR/<vm>/{console.log,qemu.pid,qemu.log,dead,share/}
#
# API for test cases (see tests/README.md):
#   vm_run <vm> <timeout_s> <command...>   run a shell command in the guest (lib.sh helpers
#                                          available), print its stdout (stderr to stderr),
#                                          return its rc
#                                          (124 timeout, 125 VM dead)
#   vm_spawn <vm> <timeout_s> <command...> same, in the background: prints an id
#   vm_wait <vm> <id>                      wait for a spawned command: output + rc
#   vm_put <vm> <host-file> [name]         copy a file into the guest share, print guest path
#   vm_share <vm>                          host path of the guest's /tmp/bed
#   vm_alive <vm>                          rc 0 while the VM runs and is not declared dead
#   link_set <link0|link1> <on|off> [both|server|client]   QMP set_link (cable pull)
#   server_reload [rtrs-server params...]  reload rtrs-server + rnbd-server with params
#   client_load [upstream|ours]            load a client stack (default $CLIENT_STACK)
#   client_unload                          unmap all rnbd devices, unload the client stack
#   ours_fresh                             rc 1 if our module failed to build in this check run
#   bed_sleep <s>                          sleep, but return 125 at once if a VM dies
#   step <text>, note <text>, fail <text>  log a step / a fact / fail the case (exit 1)

BED_VMS="server client"
_bed_now() { date +%s; }
bed_ts() { date +%H:%M:%S; }
step() { echo "[$(bed_ts)] --- $*"; }
note() { echo "[$(bed_ts)]     $*"; }
fail() { echo "[$(bed_ts)] FAIL: $*"; exit 1; }

vm_share() { echo "$BED_DIR/$1/share"; }
vm_alive() { # builtins only: vm_wait calls it at every poll
	local d=$BED_DIR/$1 p=
	[ -e "$d/dead" ] && return 1
	{ read -r p < "$d/qemu.pid"; } 2>/dev/null
	[ -n "$p" ] && kill -0 "$p" 2>/dev/null
}
vm_dead_reason() { cat "$BED_DIR/$1/dead" 2>/dev/null || echo "not running"; }

vm_spawn() { # <vm> <timeout_s> <command...>
	local vm=$1 sc=${BED_TIMEOUT_SCALE:-1} t mb id
	t=$(( $2 * sc )); shift 2
	mb=$(vm_share "$vm")/mbox
	id=c$(date +%s%N)-$BASHPID-$RANDOM
	mkdir -p "$mb"
	{ echo "# timeout=$t"; echo "export BED_TIMEOUT_SCALE=$sc BED_OURS_PARAMS='${BED_OURS_PARAMS:-}'"; echo "$*"; } > "$mb/$id.tmp"
	echo "$(( $(_bed_now) + t + 30 ))" > "$mb/$id.deadline"
	mv "$mb/$id.tmp" "$mb/$id.cmd"
	[ "${BED_TRACE:-1}" = 1 ] && echo "[$(bed_ts)] + [$vm] $*" >&2
	echo "$id"
}
# The poll: most commands answer within a second or two, so vm_wait looks every 0.05 s for
# the first 2 s (a trivial command's answer was waited for 0.1 s on average at the old
# 0.2 s pace, and a case makes hundreds of calls), then every 0.2 s as before, so that a
# long wait costs the host no more than it did. No fork but the sleep.
vm_wait() { # <vm> <id>
	local vm=$1 id=$2 mb dl n=0
	mb=$(vm_share "$vm")/mbox
	dl=$(cat "$mb/$id.deadline" 2>/dev/null || echo 0)
	while [ ! -e "$mb/$id.rc" ]; do
		if ! vm_alive "$vm"; then
			cat "$mb/$id.out" 2>/dev/null; cat "$mb/$id.err" >&2 2>/dev/null
			echo "vm_run: $vm is dead: $(vm_dead_reason "$vm")" >&2
			return 125
		fi
		if [ "${EPOCHSECONDS:-$(_bed_now)}" -gt "$dl" ]; then
			cat "$mb/$id.out" 2>/dev/null; cat "$mb/$id.err" >&2 2>/dev/null
			echo "vm_run: $vm: no answer to $id in time (command hung in the guest?)" >&2
			[ -z "${BED_DIAG_BUSY:-}" ] && bed_diag "host timeout of $id on $vm" >&2
			return 124
		fi
		if [ $n -lt 40 ]; then n=$((n + 1)); sleep 0.05; else sleep 0.2; fi
	done
	cat "$mb/$id.out"; cat "$mb/$id.err" >&2
	dl=$(cat "$mb/$id.rc")
	[ "$dl" = 124 ] && [ -z "${BED_DIAG_BUSY:-}" ] && bed_diag "guest timeout of $id on $vm" >&2
	return "$dl"
}
# bed_diag <reason>: snapshot both guests after a hang (blocked-task stacks via sysrq w,
# rtrs/rdma counters, kernel log tail) into $BED_CASE_DIR/diag-<time>.txt; once per case.
bed_diag() {
	local f vm id
	[ -n "${BED_CASE_DIR:-}" ] || return 0
	ls "$BED_CASE_DIR"/diag-*.txt >/dev/null 2>&1 && return 0
	f=$BED_CASE_DIR/diag-$(date +%H%M%S).txt
	echo "bed_diag: $1 -> ${f#"$BED_REPO"/}"
	for vm in $BED_VMS; do
		vm_alive "$vm" || continue
		echo "===== $vm ($1)" >> "$f"
		# shellcheck disable=SC2016 # expanded in the guest
		id=$(BED_TRACE=0 vm_spawn "$vm" 40 'ps -eo pid,stat,wchan:32,etime,args | awk '\''NR==1 || $2 ~ /D/'\''
			echo w > /proc/sysrq-trigger; sleep 1
			grep -H . /sys/class/rtrs-client/*/paths/*/stats/rdma /sys/class/rtrs-client/*/paths/*/state 2>/dev/null
			rdma statistic show 2>/dev/null; tc -s qdisc show dev eth0; dmesg | tail -n 150')
		BED_DIAG_BUSY=1 vm_wait "$vm" "$id" >> "$f" 2>&1
	done
}
vm_run() { # <vm> <timeout_s> <command...>
	local id
	vm_alive "$1" || { echo "vm_run: $1 is dead: $(vm_dead_reason "$1")" >&2; return 125; }
	id=$(vm_spawn "$@") && vm_wait "$1" "$id"
}
vm_put() { # <vm> <host-file> [name]
	local n=${3:-$(basename "$2")}
	mkdir -p "$(vm_share "$1")/files" && cp "$2" "$(vm_share "$1")/files/$n" && echo "/tmp/bed/files/$n"
}

qmp() { # <vm> <json>...
	"$BED_REPO/tests/vm/lib/qmp.py" "$BED_SOCK/$1.qmp" "${@:2}"
}
link_set() { # <link0|link1> <on|off> [both|server|client]
	local l=$1 up vm vms
	case $2 in on) up=true ;; off) up=false ;; *) echo "link_set: on|off" >&2; return 2 ;; esac
	case $l in link0|link1) ;; *) echo "link_set: link0|link1" >&2; return 2 ;; esac
	vms=${3:-both}; [ "$vms" = both ] && vms=$BED_VMS
	for vm in $vms; do
		qmp "$vm" "{\"execute\":\"set_link\",\"arguments\":{\"name\":\"$l\",\"up\":$up}}" >/dev/null ||
			{ echo "link_set: QMP set_link $l on $vm failed" >&2; return 1; }
	done
	echo "[$(bed_ts)] link $l $2 ($vms)" >&2
}
server_reload() { vm_run server 300 bed_server_reload "$@"; }
client_load() {
	[ "${1:-$CLIENT_STACK}" = ours ] && { ours_fresh || return 1; }
	vm_run client 120 bed_client_up "${1:-$CLIENT_STACK}"
}
# ours_fresh: fail if tests/check.sh saw our module's build fail for the client kernel in
# this run (BED_OURS_STALE lists such kernels): an older .ko must not be tested instead.
ours_fresh() {
	case " ${BED_OURS_STALE:-} " in
	*" $CLIENT_KVER "*) echo "our rtrs-client.ko failed to build for $CLIENT_KVER in this run; not testing a stale .ko" >&2; return 1 ;;
	esac
}
client_unload() { vm_run client 300 bed_client_down; }
bed_sleep() { # <s>
	local end=$(( $(_bed_now) + $1 )) vm
	while [ "$(_bed_now)" -lt "$end" ]; do
		for vm in $BED_VMS; do vm_alive "$vm" || { echo "bed_sleep: $vm is dead: $(vm_dead_reason "$vm")" >&2; return 125; }; done
		sleep 1
	done
}
