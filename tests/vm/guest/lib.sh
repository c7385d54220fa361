# lib.sh: helpers sourced inside the guests (by the agent and by every command the host
# runs with vm_run). Environment from the host's boot.sh: BED_ROLE (server|client),
# BED_REPO, BED_SHARE (/tmp/bed, writable), BED_KVER, BED_IDX (1 server, 2 client),
# BED_PEER_UP (upstream peer modules dir), BED_OURS_KO, BED_OURS_RNBD (our client stack).
# Not a standalone script.

command -v ping >/dev/null || ping() { /bin/busybox ping "$@"; }   # host has no iputils-ping
bed_t() { cut -d' ' -f1 /proc/uptime; }
bed_log() { echo "[$BED_ROLE $(bed_t)s] $*"; }

# wait_for <timeout_s> <command...>: run command every 0.5 s until it succeeds; rc 1 on timeout.
# Polls every 0.2 s for the first 2 s (most waits end within them, and each waited 0.25 s
# on average for the next 0.5 s poll), then every 0.5 s as before, so that a long wait costs
# the guest no more CPU than it did.
wait_for() {
	local t=$(( $1 * ${BED_TIMEOUT_SCALE:-1} )) end n=0; shift
	end=$(( $(date +%s) + t ))
	while ! "$@"; do
		[ "$(date +%s)" -ge "$end" ] && { echo "wait_for: timed out after ${t}s: $*" >&2; return 1; }
		if [ $n -lt 10 ]; then n=$((n + 1)); sleep 0.2; else sleep 0.5; fi
	done
}

_bed_have_nics() { [ "$(cat /sys/class/net/*/address | grep -c '^52:54:00:18:0')" -ge 2 ]; }
# ---- network: rename NICs by MAC (52:54:00:18:<link>:<idx>), addresses, rxe per link ----
bed_net_up() {
	local n mac l
	modprobe virtio_net || return 1
	wait_for 30 _bed_have_nics || return 1
	for n in /sys/class/net/*; do
		n=${n##*/}; mac=$(cat "/sys/class/net/$n/address")
		case $mac in 52:54:00:18:0*) ip link set "$n" name "bedtmp${mac:13:1}" ;; esac
	done
	for l in 0 1; do
		[ -e /sys/class/net/bedtmp$l ] || { echo "bed_net_up: no NIC for link$l" >&2; return 1; }
		ip link set "bedtmp$l" name "eth$l" || return 1
		ip link set "eth$l" up || return 1
		ip addr add "198.18.$l.$BED_IDX/24" dev "eth$l" || return 1
		ip -6 addr add "fd18:$l::$BED_IDX/64" dev "eth$l" nodad || return 1
	done
	modprobe rdma_rxe || return 1
	for l in 0 1; do rdma link add rxe$l type rxe netdev eth$l || return 1; done
	modprobe rdma_cm || return 1
	modprobe ib_uverbs 2>/dev/null
	ip -br addr; rdma link
}

# ---- server host: null_blk + upstream rtrs-core/rtrs-server/rnbd-server ----
bed_server_up() { # [rtrs-server params...] (default: the suite's BED_SERVER_PARAMS)
	# shellcheck disable=SC2086 # a list of module parameters: split on purpose
	[ $# -gt 0 ] || set -- ${BED_SERVER_PARAMS:-}
	lsmod | grep -q '^null_blk ' || modprobe null_blk nr_devices=2 gb=1 memory_backed=1 || return 1
	lsmod | grep -q '^rtrs_core ' || insmod "$BED_PEER_UP/rtrs/rtrs-core.ko" || return 1
	lsmod | grep -q '^rtrs_server ' || insmod "$BED_PEER_UP/rtrs/rtrs-server.ko" "$@" || return 1
	lsmod | grep -q '^rnbd_server ' || insmod "$BED_PEER_UP/rnbd/rnbd-server.ko" || return 1
	# .params non-empty (even for an explicit empty set that differs from the suite's, hence
	# the trailing space): bed_reset reloads the suite's parameters after the case
	if [ "$*" = "${BED_SERVER_PARAMS:-}" ]; then : > "$BED_SHARE/.params"; else echo "$* " > "$BED_SHARE/.params"; fi
	wait_for 10 test -b /dev/nullb0 -a -b /dev/nullb1
}
bed_server_down() {
	local m
	for m in rnbd_server rtrs_server; do
		lsmod | grep -q "^$m " || continue
		timeout 60 rmmod $m || { echo "rmmod $m failed" >&2; return 1; }
	done
}
bed_server_reload() { bed_server_down && bed_server_up "$@"; }

# ---- client host: client stacks ----
bed_client_up() { # upstream|ours
	case $1 in
	upstream)
		lsmod | grep -q '^rtrs_core ' || insmod "$BED_PEER_UP/rtrs/rtrs-core.ko" || return 1
		insmod "$BED_PEER_UP/rtrs/rtrs-client.ko" || return 1
		insmod "$BED_PEER_UP/rnbd/rnbd-client.ko" || return 1 ;;
	ours)
		[ -e "$BED_OURS_RNBD" ] || { echo "no $BED_OURS_RNBD (tests/peer/build-peer.sh failed?)" >&2; return 1; }
		# shellcheck disable=SC2086 # a list of module parameters: split on purpose
		insmod "$BED_OURS_KO" ${BED_OURS_PARAMS:-} || return 1
		insmod "$BED_OURS_RNBD" || return 1 ;;
	*) echo "bed_client_up: unknown stack '$1'" >&2; return 1 ;;
	esac
}
# Unmap every rnbd device (normal, then force) and unload whichever client stack is loaded.
bed_client_down() {
	local d m p rc=0
	# I/O a timed-out case left running: it holds the device open, and a fio started after the
	# unmap would create /dev/rnbdN as a regular file, which hides the next map's device node
	for p in /tmp/*.pid; do
		[ -e "$p" ] || continue
		kill "$(cat "$p")" 2>/dev/null && echo "stopped a leftover I/O loop ($p)" >&2
		rm -f "$p"
	done
	pkill -x fio && { echo "killed leftover fio" >&2; wait_for 30 sh -c '! pgrep -x fio'; }
	for d in /sys/block/rnbd*/rnbd/unmap_device; do
		[ -e "$d" ] || continue
		timeout 60 sh -c "echo normal > $d" 2>/dev/null || timeout 60 sh -c "echo force > $d" ||
			{ echo "unmap via $d failed" >&2; rc=1; }
	done
	for m in rnbd_client rtrs_client rtrs_core; do
		lsmod | grep -q "^$m " || continue
		timeout 60 rmmod $m || { echo "rmmod $m failed" >&2; rc=1; }
	done
	for d in /dev/rnbd*; do
		if [ ! -e "$d" ] || [ -b "$d" ]; then continue; fi
		echo "removed $d: not a block device" >&2; rm -f "$d"; rc=1
	done
	return $rc
}

# rnbd_map <sessname> <device_path> [map options...]: map, wait for the block device, print /dev/rnbdN.
# Options are map_device tokens, e.g. path=ip:198.18.0.1 (default when no path= given).
rnbd_map() {
	local s=$1 dp=$2 opts l dev; shift 2
	opts="$*"
	case " $opts" in *" path="*) ;; *) opts="$opts path=ip:198.18.0.1" ;; esac
	echo "map_device: sessname=$s $opts device_path=$dp" >&2
	echo "sessname=$s $opts device_path=$dp" > /sys/class/rnbd-client/ctl/map_device || return 1
	wait_for 60 rnbd_dev_of "$s" "$dp" >/dev/null || return 1
	dev=$(rnbd_dev_of "$s" "$dp"); wait_for 30 test -b "$dev" || return 1
	echo "$dev"
}
# rnbd_dev_of <sessname> [device_path]: print /dev/rnbdN mapped through that session.
rnbd_dev_of() {
	local b
	for b in /sys/block/rnbd*; do
		[ -e "$b/rnbd/session" ] || continue
		[ "$(cat "$b/rnbd/session")" = "$1" ] || continue
		[ -n "${2:-}" ] && [ "$(cat "$b/rnbd/mapping_path")" != "$2" ] && continue
		echo "/dev/${b##*/}"; return 0
	done
	return 1
}
rnbd_unmap() { # </dev/rnbdN> [normal|force]
	local n=${1##*/}
	echo "${2:-normal}" > "/sys/block/$n/rnbd/unmap_device" || return 1
	wait_for 30 test ! -e "/sys/block/$n"
}
# path_states <sessname>: one line per path: <path-name> <state>
path_states() {
	local p
	for p in "/sys/class/rtrs-client/$1"/paths/*/; do
		[ -e "$p/state" ] && echo "$(basename "$p") $(cat "$p/state")"
	done
}
# path_state_is <sessname> <state>: every path of the session is in <state> (and there is one)
path_state_is() {
	local out; out=$(path_states "$1")
	[ -n "$out" ] && ! echo "$out" | grep -qv " $2\$"
}
