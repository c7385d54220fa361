# boot.sh: boot and stop the two-VM bed (sourced by tests/vm/run-suite.sh and tests/demo.sh
# after bed.sh). Not a standalone script.
#
#   bed_boot       start server VM (listens on two unix sockets in $BED_SOCK, one per data
#                  link), then client VM (connects), a watchdog per VM, wait for both agents, load
#                  null_blk + upstream rtrs/rnbd server, check both links (IPv4 + IPv6).
#   bed_shutdown   ask the agents to power off, then kill what is left.
# Needs: BED_REPO BED_DIR SERVER_KVER CLIENT_KVER. Knobs: BED_BOOT_TIMEOUT (300),
# BED_HANG_S (120: no heartbeat for that long = hung guest), BED_VM_MAX_S (5400),
# SERVER_SMP (1) CLIENT_SMP (2) BED_MEM (2G), BED_NET (unix; tcp: links over 127.0.0.1 TCP,
# where QEMU's missing TCP_NODELAY adds ~40 ms Nagle stalls, tests/README.md), BED_TCG_THREAD
# (multi; single: all vCPUs of a VM on one host thread, for cases that patch kernel text),
# BED_INSN_PLUGIN (unset: off; a QEMU plugin .so, bench/insn's insn-meter: every VM loads it
# and its output goes to $BED_DIR/<vm>/insn.log).
# A kernel the host does not have installed (the debug kernel of make check-debug): a VM
# whose kver has a folder in BED_MODULES_DIR (<root>/lib/modules) boots BED_KERNEL_IMAGE
# and sees BED_MODULES_DIR as its /lib/modules (extra read-only 9p share "mods"); the
# host's /lib/modules is not touched. Other VMs boot /boot/vmlinuz-<kver> as always.

# Console lines that mean the guest is gone: the VM is killed at once. A kernel GPF line
# carries its oops count ("[#1]"); a user program's ("traps: comm[pid] general protection
# fault ip:..."; perftest's ib_write_lat once) does not, and is no reason to kill the VM.
BED_FATAL='Kernel panic|Oops|general protection fault.*\[#[0-9]+\]|kernel BUG at|BUG: unable to handle|BUG: soft lockup|double fault|BED-GUEST-EXIT'

_bed_free_ports() { # print two free TCP ports on 127.0.0.1 (BED_NET=tcp)
	python3 -c 'import socket
ss=[socket.socket() for _ in range(2)]
[s.bind(("127.0.0.1",0)) for s in ss]
print(" ".join(str(s.getsockname()[1]) for s in ss))'
}

_bed_start_vm() { # <vm> <kver> <smp> <idx> <listen|connect> <link0> <link1> (socket paths or ports)
	local vm=$1 kv=$2 smp=$3 idx=$4 mode=$5 p0=$6 p1=$7 d img
	# A RUN_ID used before leaves its control files here: a stale poweroff stops the new guest
	# as soon as its agent starts, a stale mbox entry would be run again.
	d=$BED_DIR/$vm; rm -rf "$d/share/mbox" "$d/share/poweroff"; mkdir -p "$d/share/mbox"
	img=$("$BED_REPO/tests/vm/lib/initramfs.sh" "$kv") || return 1
	local kimg=/boot/vmlinuz-$kv mods=() append=""
	if [ -n "${BED_MODULES_DIR:-}" ] && [ -e "$BED_MODULES_DIR/$kv/modules.dep" ]; then
		kimg=${BED_KERNEL_IMAGE:?BED_KERNEL_IMAGE must be set with BED_MODULES_DIR}
		# shellcheck disable=SC2054 # QEMU option values: the commas are QEMU's
		mods=(-fsdev "local,id=mods,path=$BED_MODULES_DIR,security_model=none,readonly=on,multidevs=remap"
		      -device virtio-9p-pci,fsdev=mods,mount_tag=mods)
		append=" bed_mods=1"
	fi
	local ours_ko=${BED_OURS_BUILD:-$BED_REPO/build}/$CLIENT_KVER/rtrs-client.ko
	{
		echo '#!/bin/bash'
		echo 'export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb LANG=C'
		printf 'export BED_ROLE=%q BED_IDX=%q BED_REPO=%q BED_SHARE=/tmp/bed BED_KVER=%q\n' "$vm" "$idx" "$BED_REPO" "$kv"
		printf 'export BED_PEER_UP=%q BED_OURS_KO=%q BED_OURS_RNBD=%q\n' \
			"$BED_REPO/.cache/peer/$kv/upstream" "$ours_ko" "${BED_OURS_RNBD_KO:-$BED_REPO/.cache/peer/$kv/rnbd-ours/rnbd-client.ko}"
		printf 'export BED_SERVER_PARAMS=%q\n' "${BED_SERVER_PARAMS:-}"
		printf 'exec /bin/bash %q\n' "$BED_REPO/tests/vm/guest/agent.sh"
	} > "$d/share/boot.sh"
	# The instruction meter (bench/insn/README.md): counts what the guest executes, nothing
	# guest-visible; off unless asked for, so other runs keep their exact QEMU command.
	local plug=()
	[ -n "${BED_INSN_PLUGIN:-}" ] && plug=(-plugin "$BED_INSN_PLUGIN" -d plugin -D "$d/insn.log")
	local net=() l p nd
	for l in 0 1; do
		p=$p0; [ $l = 1 ] && p=$p1
		if [ "${BED_NET:-unix}" = tcp ]; then
			nd="socket,id=link$l,$mode=127.0.0.1:$p"
		else
			nd="stream,id=link$l,server=$([ "$mode" = listen ] && echo on || echo off)"
			nd+=",addr.type=unix,addr.path=$p"
		fi
		net+=(-netdev "$nd" -device "virtio-net-pci,netdev=link$l,mac=52:54:00:18:0$l:0$idx")
	done
	# BED_CPU: the guests' -cpu model (tests/README.md, Known issues: the 6.12 double fault)
	# shellcheck disable=SC2054 # QEMU option values: the commas are QEMU's
	# BED_TCG_THREAD=single: one host thread runs all vCPUs, so no vCPU executes kernel text
	# another one is patching (enabling a tracepoint does; tests/README.md, Known issues)
	local q=(qemu-system-x86_64 -name "rtrs-bed-$vm" -machine q35 -accel "tcg,thread=${BED_TCG_THREAD:-multi}"
		-cpu "${BED_CPU:-max}"
		-m "${BED_MEM:-2G}" -smp "$smp" -display none -monitor none -no-reboot -nodefaults
		-serial "file:$d/console.log"
		-kernel "$kimg" -initrd "$img"
		-append "console=ttyS0 panic=-1 loglevel=7 log_buf_len=4M rcupdate.rcu_cpu_stall_timeout=60 bed_repo=$BED_REPO$append${BED_APPEND:+ $BED_APPEND}"
		-fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap
		-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot
		-fsdev "local,id=repo,path=$BED_REPO,security_model=none,readonly=on,multidevs=remap"
		-device virtio-9p-pci,fsdev=repo,mount_tag=repo
		-fsdev "local,id=bed,path=$d/share,security_model=none,multidevs=remap"
		-device virtio-9p-pci,fsdev=bed,mount_tag=bed
		"${mods[@]}"
		-device virtio-rng-pci
		"${net[@]}"
		"${plug[@]}"
		-qmp "unix:$BED_SOCK/$vm.qmp,server=on,wait=off")
	printf '%q ' "${q[@]}" > "$d/qemu.cmd"; echo >> "$d/qemu.cmd"
	rm -f "$d/dead" "$d/stopping" "$d/share/ready" "$d/share/heartbeat"
	: > "$d/console.log"
	# timeout: a last-resort bound should this script itself be killed without cleanup
	# (the lock fd is closed in QEMU: a killed runner must not leave the lock held)
	( [ -n "${BED_LOCK_FD:-}" ] && eval "exec $BED_LOCK_FD>&-"
	  exec timeout -k 10 "${BED_VM_MAX_S:-5400}" "${q[@]}" < /dev/null > "$d/qemu.log" 2>&1 ) &
	echo $! > "$d/qemu.pid"
	_bed_watchdog "$vm" &
	echo $! > "$d/watchdog.pid"
	echo "[$(bed_ts)] booting $vm: kernel $kv, $smp vCPU, links $mode $p0 $p1" >&2
}

_bed_watchdog() { # <vm>: declare the VM dead (and kill it) on fatal console output, QEMU exit, or hang
	local vm=$1 d=$BED_DIR/$1 pid why="" hb age
	[ -n "${BED_LOCK_FD:-}" ] && eval "exec $BED_LOCK_FD>&-"
	pid=$(cat "$d/qemu.pid")
	while :; do
		[ -e "$d/stopping" ] && break
		if ! kill -0 "$pid" 2>/dev/null; then
			[ -e "$d/stopping" ] && break
			why="QEMU exited"
			hb=$(grep -a -E "$BED_FATAL" "$d/console.log" | grep -av BED-GUEST-EXIT | head -n 1)
			[ -n "$hb" ] && why="$why after console: $hb"
			[ -s "$d/qemu.log" ] && why="$why; qemu: $(tail -n 2 "$d/qemu.log" | tr '\n' ' ')"
			break
		fi
		if hb=$(grep -a -m1 -E "$BED_FATAL" "$d/console.log"); then
			why="console: $hb"; break
		fi
		if [ -e "$d/share/heartbeat" ] && [ ! -e "$d/stopping" ]; then
			age=$(( $(date +%s) - $(stat -c %Y "$d/share/heartbeat") ))
			[ "$age" -gt "${BED_HANG_S:-120}" ] && { why="hung: no agent heartbeat for ${age}s"; break; }
		fi
		sleep 1
	done
	if [ -n "$why" ]; then
		echo "$why" > "$d/dead.tmp"; mv "$d/dead.tmp" "$d/dead"
		echo "[$(bed_ts)] WATCHDOG: $vm declared dead: $why" >&2
		sleep 2   # let the console flush the rest of the oops
		kill "$pid" 2>/dev/null
	fi
}

_bed_wait_ready() { # <vm> <deadline>
	local vm=$1 dl=$2 f=$BED_DIR/$1/share/ready
	while [ ! -e "$f" ]; do
		vm_alive "$vm" || { echo "$vm died while booting: $(vm_dead_reason "$vm")" >&2; return 1; }
		[ "$(date +%s)" -gt "$dl" ] && { echo "$vm: agent not ready after ${BED_BOOT_TIMEOUT:-300}s" >&2; return 1; }
		sleep 0.5
	done
	grep -q '^ready' "$f" || { echo "$vm: $(cat "$f")" >&2; return 1; }
}

# One VM pair at a time on this host (2 cores, TCG): a second pair starves both, and rxe
# then times out (seen: QP flushed with "REG MR failed: WR flushed" after a 2.8 s guest
# freeze). BED_LOCK=0 disables; BED_LOCK_WAIT (3600 s) bounds the wait.
_bed_lock() {
	[ "${BED_LOCK:-1}" = 0 ] && return 0
	[ -n "${BED_LOCK_FD:-}" ] && return 0   # held already (a boot retried)
	exec {BED_LOCK_FD}> /tmp/rtrs-bed.lock
	flock -n "$BED_LOCK_FD" && return 0
	echo "[$(bed_ts)] another bed run holds /tmp/rtrs-bed.lock; waiting (max ${BED_LOCK_WAIT:-3600}s)" >&2
	flock -w "${BED_LOCK_WAIT:-3600}" "$BED_LOCK_FD" ||
		{ echo "bed: /tmp/rtrs-bed.lock still held after ${BED_LOCK_WAIT:-3600}s" >&2; return 1; }
}

# QEMU 10.0.2 under TCG once aborted on an assertion of its own while booting a guest
# (physmem.c iotlb_to_section; tests/README.md, Known issues). That says nothing about the
# kernel or our module, so a boot whose QEMU died of a signal other than ours is retried
# once, the first attempt's folders kept as <vm>.crashed-boot.
bed_boot() {
	_bed_boot_once && return 0
	local vm pid crashed="" rc
	for vm in $BED_VMS; do
		[ -e "$BED_DIR/$vm/qemu.pid" ] || continue
		pid=$(cat "$BED_DIR/$vm/qemu.pid")
		kill -0 "$pid" 2>/dev/null && continue   # still running: not what failed
		wait "$pid" 2>/dev/null; rc=$?
		case $rc in 132|134|135|136|139) crashed="$vm (QEMU exit status $rc)" ;; esac
	done
	[ -n "$crashed" ] || return 1
	echo "[$(bed_ts)] QEMU crashed while booting $crashed; booting the bed again, once" >&2
	bed_shutdown
	for vm in $BED_VMS; do
		[ -e "$BED_DIR/$vm" ] || continue
		rm -rf "$BED_DIR/$vm.crashed-boot"; mv "$BED_DIR/$vm" "$BED_DIR/$vm.crashed-boot"
	done
	unset BED_SOCK BED_BOOT_S
	_bed_boot_once
}

_bed_boot_once() {
	local ports p0 p1 t0 dl
	_bed_lock || return 1
	t0=$(date +%s)
	BED_SOCK=$(mktemp -d /tmp/rtrs-bed.XXXXXX); export BED_SOCK
	mkdir -p "$BED_DIR"
	if [ "${BED_NET:-unix}" = tcp ]; then
		ports=$(_bed_free_ports) || return 1
		read -r p0 p1 <<< "$ports"
	else
		p0=$BED_SOCK/link0.sock p1=$BED_SOCK/link1.sock
	fi
	_bed_start_vm server "$SERVER_KVER" "${SERVER_SMP:-1}" 1 listen "$p0" "$p1" || return 1
	for _ in $(seq 100); do   # QEMU listens before it boots the guest; the client must connect after
		if [ "${BED_NET:-unix}" = tcp ]; then
			ss -Hltn "( sport = :$p0 or sport = :$p1 )" 2>/dev/null | grep -c LISTEN | grep -qx 2 && break
		else
			[ -S "$p0" ] && [ -S "$p1" ] && break
		fi
		vm_alive server || { echo "server QEMU died: $(cat "$BED_DIR/server/qemu.log")" >&2; return 1; }
		sleep 0.1
	done
	_bed_start_vm client "$CLIENT_KVER" "${CLIENT_SMP:-2}" 2 connect "$p0" "$p1" || return 1
	dl=$(( t0 + ${BED_BOOT_TIMEOUT:-300} ))
	_bed_wait_ready server "$dl" && _bed_wait_ready client "$dl" || return 1
	BED_BOOT_S=$(( $(date +%s) - t0 ))
	echo "[$(bed_ts)] both agents ready after ${BED_BOOT_S}s" >&2
	vm_run server 180 bed_server_up > "$BED_DIR/server-setup.log" 2>&1 ||
		{ cat "$BED_DIR/server-setup.log" >&2; echo "server setup failed" >&2; return 1; }
	# both links, both address families; frames may need a moment after boot
	# shellcheck disable=SC2016 # expanded in the guest
	vm_run client 120 'for a in 198.18.0.1 198.18.1.1 fd18:0::1 fd18:1::1; do
		wait_for 60 ping -c1 -W2 $a >/dev/null || { echo "no reply from $a"; exit 1; }; done; echo links ok' \
		> "$BED_DIR/link-check.log" 2>&1 ||
		{ cat "$BED_DIR/link-check.log" >&2; echo "link check failed" >&2; return 1; }
	BED_SETUP_S=$(( $(date +%s) - t0 ))
	echo "[$(bed_ts)] bed up after ${BED_SETUP_S}s (server modules loaded, links checked)" >&2
}

bed_shutdown() {
	local vm d pid
	for vm in $BED_VMS; do
		d=$BED_DIR/$vm; [ -e "$d/qemu.pid" ] || continue
		touch "$d/stopping"; touch "$d/share/poweroff" 2>/dev/null
	done
	for vm in $BED_VMS; do
		d=$BED_DIR/$vm; [ -e "$d/qemu.pid" ] || continue
		pid=$(cat "$d/qemu.pid")
		for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
		kill "$pid" 2>/dev/null
		[ -e "$d/watchdog.pid" ] && kill "$(cat "$d/watchdog.pid")" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	[ -n "${BED_SOCK:-}" ] && rm -rf "$BED_SOCK"
	return 0
}
