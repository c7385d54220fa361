# workloads.sh: guest-side helpers of tests/vm/cases/rnbd-workloads.sh. Sourced in a vm_run
# command after lib.sh: `. "$BED_REPO/tests/vm/guest/workloads.sh"`.
#
# Server side: a scsi_debug disk, because the bed's null_blk has neither a volatile write
# cache nor discard, and null_blk has no write-zeroes at all; scsi_debug has all of them
# (caching mode page WCE, DPOFUA, UNMAP with lbpu=1, WRITE SAME(16) with lbpws=1, and
# lbprz=1: unmapped blocks read as zeros). And a hist trigger on rnbd-server's process_rdma
# trace event: every request the server took off the wire, by its rnbd flags, with the
# bytes it covers (bi_size) and the data bytes that came with it (datalen).

WL_HIST='hist:keys=flags:vals=bi_size,datalen:sort=flags'

_wl_ev() { echo /sys/kernel/tracing/events/rnbd_srv/process_rdma; }
# the scsi_debug disk's name (sdX), once sd has bound it
_wl_disk() {
	local d
	for d in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*; do
		[ -e "$d" ] && { basename "$d"; return 0; }
	done
	return 1
}

# wl_srv_disk_up <MiB>: load scsi_debug with one such disk, print its /dev node
wl_srv_disk_up() {
	local b
	if lsmod | grep -q '^scsi_debug '; then rmmod scsi_debug || return 1; fi
	modprobe scsi_debug dev_size_mb="$1" lbpu=1 lbpws=1 lbprz=1 delay=0 || return 1
	modprobe sd_mod || return 1
	wait_for 30 _wl_disk >/dev/null || return 1
	b=$(_wl_disk)
	wait_for 10 test -b "/dev/$b" || return 1
	echo "/dev/$b"
}
# wl_srv_disk_down: drop the trigger, unload scsi_debug once rnbd-server has closed the disk
wl_srv_disk_down() {
	echo "!$WL_HIST" > "$(_wl_ev)/trigger" 2>/dev/null
	lsmod | grep -q '^scsi_debug ' || return 0
	wait_for 30 sh -c 'rmmod scsi_debug 2>/dev/null'
}

# wl_trace_on: the hist trigger. Enabling a tracepoint patches kernel text, which only a
# single-vCPU guest survives under multi-threaded TCG (tests/README.md, Known issues)
wl_trace_on() {
	[ "$(nproc)" = 1 ] || { echo "wl_trace_on: $(nproc) vCPUs: refusing to patch kernel text under MTTCG" >&2; return 1; }
	echo "!$WL_HIST" > "$(_wl_ev)/trigger" 2>/dev/null
	echo "$WL_HIST" > "$(_wl_ev)/trigger"
}

# wl_snap <dev>: one line of key=value words, then the hist is cleared. From the hist (the
# requests since the last wl_snap), per kind <k>_n (requests), <k>_len (bytes covered) and
# <k>_data (data bytes on the wire); kinds rd, wr (writes without FUA), fua (writes with
# RNBD_F_FUA), flush, disc, wz (write-zeroes), other. From <dev>'s block stat, as they
# are (cumulative): st_wsec (sectors written), st_dn/st_dsec (discards, sectors), st_fn
# (flushes).
wl_snap() {
	local e; e=$(_wl_ev)
	# rnbd_io_flags: the op in the low 8 bits (0 read, 1 write, 2 flush, 3 discard,
	# 5 write-zeroes), RNBD_F_FUA = 1 << 9
	awk '/^\{ flags:/ {
		op = $3 % 256
		if (op == 1) k = int($3 / 512) % 2 ? "fua" : "wr"
		else if (op == 0) k = "rd"; else if (op == 2) k = "flush"
		else if (op == 3) k = "disc"; else if (op == 5) k = "wz"; else k = "other"
		n[k] += $6; b[k] += $8; d[k] += $10 }
		END { for (k in n) printf "%s_n=%.0f %s_len=%.0f %s_data=%.0f ", k, n[k], k, b[k], k, d[k] }' "$e/hist" || return 1
	echo "$WL_HIST:clear" >> "$e/trigger" || return 1
	awk '{ print "st_wsec=" $7, "st_dn=" $12, "st_dsec=" $14, "st_fn=" $16 }' "/sys/block/${1#/dev/}/stat"
}

# wl_zeros <dev> <offset> <len>: <len> bytes at <offset> (MiB-aligned) read back as zeros
wl_zeros() {
	local nz
	nz=$(dd if="$1" iflag=direct,skip_bytes skip="$2" bs=1M count=$(( $3 >> 20 )) status=none | tr -d '\0' | wc -c)
	[ "$nz" = 0 ] || { echo "$nz non-zero bytes in [$2, +$3)" >&2; return 1; }
}
