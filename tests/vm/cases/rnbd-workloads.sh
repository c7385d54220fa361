# Case: workloads users run that no other case sends (issue 20 s3), the suite's client stack
# under upstream rnbd-client against the unchanged upstream server, on a server disk that
# has what null_blk lacks: a scsi_debug disk (tests/vm/guest/workloads.sh) with a volatile
# write cache, FUA, discard (UNMAP) and write-zeroes (WRITE SAME(16)), unmapped blocks
# reading as zeros. Every request the server takes off the wire is counted by a hist trigger
# on rnbd-server's process_rdma trace event (server VM: 1 vCPU, safe to patch): its rnbd
# op and flags, the bytes it covers and the data bytes that came with it. (Not our client's
# own trace events: the client VM has 2 vCPUs, and enabling a tracepoint under
# multi-threaded TCG is a risk, tests/README.md, Known issues.)
#  queue    the client's rnbd device advertises write back, fua, discard; write-zeroes only
#           when both hosts run 6.12 (6.1's rnbd has no write-zeroes on either side: its
#           server sends max_write_same_sectors = 0, its client never sends the op)
#  ext4     mkfs, 16 files written with fsync: >= 16 FLUSH requests with no data, and the
#           server disk's flush count grows; remount, files read back; delete half, fstrim:
#           trimmed > 0 and exactly that many bytes arrive as DISCARDs with no data and
#           reach the disk's discard counters; e2fsck -fn clean
#  raw      blkdiscard (8 MiB) and blkdiscard -z (8 MiB) on data written before: each range
#           reads back as zeros and arrived as one kind of zero-data request covering exactly
#           that range (write-zeroes: with both on 6.12; otherwise the block layer writes the
#           zeros as data, exactly 8 MiB of it); O_DSYNC O_DIRECT writes: exactly one FUA
#           write per dd block, the data reads back
#  sizes    O_DIRECT writes of 512, 4 KiB - 512, 4 KiB, 4 KiB + 512, 15 and 16 pages (our
#           client sends a WRITE's pages as SGEs while they are fewer than max_send_sge =
#           min(device, RTRS_MAX_SEND_SGE 16), from 16 by an MR; physically contiguous pages
#           merge into one entry, so which way one size went is not pinned down),
#           max_io_size (rnbd's max_hw_sectors) and max_io_size + 512 (split by the block
#           layer into two requests): each reads back, the server got exactly these bytes
#           in sizes + 1 requests
#  buffered 97 writes of 777 bytes at an odd offset through the page cache, sync: read back
#           through the page cache and with O_DIRECT; written back as whole pages (exactly
#           the pages the range touches)
#  fio      randwrite with verify=crc32c, 512 B to max_io_size, queue depth 16
#  server   after the unmap: the disk's sha256 on the server equals the client's, and the
#           server's e2fsck -fn and a read-only mount find the files with their md5s
# With 6.1 on both hosts the case passes as well (h2-61, 2026-12-06): blkdiscard -z goes as
# 8 MiB of zeros written as data, and the zero-length page 6.1's rnbd-server adds to the bio
# of a request without data (6.12's adds none) does no harm to flushes or discards.
# Checks of what reached the server are counted (CHECK FAILED lines) and fail the case
# together after the buffered phase, so that a broken request kind shows every check that
# caught it; tests/mutants/zero-data-dropped.patch is caught by 13 of them.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=600
WL_MB=160                   # the scsi_debug disk
WL_FS_MB=96                 # ext4 on [0, 96 MiB)
WL_LEN=$((8 << 20))         # the discard and write-zeroes ranges
WL_DISC=$((96 << 20))
WL_WZ=$((104 << 20))
WL_FUA=$((112 << 20))       # 32 x 64 KiB O_DSYNC
WL_BND=$((120 << 20))       # the boundary sizes, 1 MiB apart
WL_UNAL=$((128 << 20))      # the 777-byte writes
WL_FIO=$((136 << 20))       # fio, 16 MiB
# shellcheck disable=SC2016 # expanded in the guest
WL_G='. "$BED_REPO/tests/vm/guest/workloads.sh";'
WL_SDEV=
WL_SNAP=
WL_PREV=

# wl_snap: the server's requests since the previous call and its disk's counters (the previous
# snapshot stays in WL_PREV for deltas of the cumulative st_* counters)
wl_snap() {
	WL_PREV=$WL_SNAP
	WL_SNAP=$(vm_run server 30 "$WL_G wl_snap $WL_SDEV") || fail "server snapshot failed: $WL_SNAP"
	note "server saw: $WL_SNAP"
}
wl_val() { # <key> [snapshot]: its value (in the last snapshot), 0 when the hist had no such request
	local s=$WL_SNAP v
	[ $# -lt 2 ] || s=$2
	v=$(echo " $s " | grep -o " $1=[0-9]*" | cut -d= -f2)
	echo "${v:-0}"
}
wl_delta() { echo $(( $(wl_val "$1") - $(wl_val "$1" "$WL_PREV") )); } # <st_key>
# A failed check of what reached the server is counted, not fatal at once: with the
# zero-data requests broken, the log shows every check that caught it (tests/mutants)
WL_BAD=0
wl_bad() { echo "CHECK FAILED: $*"; WL_BAD=$((WL_BAD + 1)); }
wl_is() { # <key> <expected> <what>
	[ "$(wl_val "$1")" = "$2" ] || wl_bad "$3: $1 = $(wl_val "$1"), expected $2"
}
wl_cleanup() {
	vm_run client 60 "umount /tmp/wlm 2>/dev/null; for d in /sys/block/rnbd*/rnbd/unmap_device; do
		[ -e \$d ] && echo normal > \$d; done; true" >/dev/null 2>&1
	vm_run server 60 "$WL_G wl_srv_disk_down" >/dev/null 2>&1
}

run() {
	local dev q wc fua dmax wzmax maxkb lbs max want_wz out trimmed sums csum ssum n off len p0 p1
	trap wl_cleanup EXIT
	step "server: a ${WL_MB} MiB scsi_debug disk, rnbd-server's requests counted"
	WL_SDEV=$(vm_run server 120 "$WL_G wl_srv_disk_up $WL_MB") || fail "scsi_debug disk did not come up: $WL_SDEV"
	vm_run server 30 "q=/sys/block/${WL_SDEV#/dev/}/queue; grep -H . \$q/write_cache \$q/fua \$q/discard_max_bytes \$q/write_zeroes_max_bytes
		grep -q 'write back' \$q/write_cache && grep -qx 1 \$q/fua && ! grep -qx 0 \$q/discard_max_bytes && ! grep -qx 0 \$q/write_zeroes_max_bytes" ||
		fail "the server disk lacks a write cache, FUA, discard or write-zeroes"
	vm_run server 30 "$WL_G wl_trace_on" || fail "cannot set the hist trigger on rnbd_srv/process_rdma"

	step "map $WL_SDEV; what the client's rnbd device advertises"
	client_load || fail "client stack $CLIENT_STACK did not load"
	dev=$(vm_run client 180 rnbd_map bed-wl "$WL_SDEV" path=ip:198.18.0.1) || fail "map failed: $dev"
	q=$(vm_run client 30 "cd /sys/block/${dev#/dev/}/queue && echo \"\$(cat write_cache)|\$(cat fua)|\$(cat discard_max_bytes)|\$(cat write_zeroes_max_bytes)|\$(cat max_hw_sectors_kb)|\$(cat logical_block_size)\"") ||
		fail "cannot read the queue limits of $dev"
	IFS='|' read -r wc fua dmax wzmax maxkb lbs <<< "$q"
	note "$dev: write_cache '$wc' fua $fua discard_max_bytes $dmax write_zeroes_max_bytes $wzmax max_hw_sectors_kb $maxkb logical_block_size $lbs"
	[ "$wc" = "write back" ] || fail "$dev: write_cache '$wc', not 'write back'"
	[ "$fua" = 1 ] || fail "$dev: no FUA"
	[ "$dmax" -gt 0 ] || fail "$dev: no discard"
	[ "$lbs" = 512 ] || fail "$dev: logical block size $lbs, the sizes below need 512"
	want_wz=0
	case "$CLIENT_KVER $SERVER_KVER" in 6.12.*" "6.12.*) want_wz=1 ;; esac
	if [ $want_wz = 1 ]; then
		[ "$wzmax" -gt 0 ] || fail "$dev: no write-zeroes with rnbd 6.12 on both sides"
	else
		[ "$wzmax" = 0 ] || fail "$dev: write-zeroes advertised ($wzmax) with a 6.1 rnbd"
	fi
	max=$((maxkb * 1024))

	step "ext4: mkfs, 16 files written with fsync"
	vm_run client 120 "set -e; mkfs.ext4 -q -F -b 4096 $dev ${WL_FS_MB}M; mkdir -p /tmp/wlm; mount $dev /tmp/wlm" ||
		fail "mkfs/mount failed"
	wl_snap
	vm_run client 180 "set -e; for i in \$(seq 1 16); do
			dd if=/dev/urandom of=/tmp/wlm/f\$i bs=64k count=\$((i % 4 + 1)) conv=fsync status=none; done
		cd /tmp/wlm; md5sum f* > /tmp/wl.sums" || fail "writing the files failed"
	wl_snap
	[ "$(wl_val flush_n)" -ge 16 ] || wl_bad "fsync: $(wl_val flush_n) FLUSH requests for 16 fsyncs"
	wl_is flush_data 0 "fsync: FLUSH requests carried data"
	[ "$(wl_delta st_fn)" -ge 1 ] || wl_bad "fsync: the server disk's flush count did not grow"

	step "ext4: remount, read back, delete half, fstrim"
	vm_run client 120 "set -e; umount /tmp/wlm; mount $dev /tmp/wlm; cd /tmp/wlm; md5sum -c --quiet /tmp/wl.sums
		rm f1 f2 f3 f4 f5 f6 f7 f8; md5sum f* > /tmp/wl.sums" || fail "the files differ after a remount"
	wl_snap
	out=$(vm_run client 120 "fstrim -v /tmp/wlm") || fail "fstrim failed: $out"
	echo "$out"
	trimmed=$(echo "$out" | sed -n 's/.*(\([0-9]*\) bytes) trimmed.*/\1/p')
	[ "${trimmed:-0}" -gt 0 ] || fail "fstrim trimmed nothing: $out"
	wl_snap
	[ "$(wl_val disc_n)" -ge 1 ] || wl_bad "fstrim: no DISCARD reached the server"
	wl_is disc_data 0 "fstrim: DISCARDs carried data"
	wl_is disc_len "$trimmed" "fstrim: the DISCARDs do not cover what fstrim trimmed"
	[ "$(wl_delta st_dsec)" = $((trimmed / 512)) ] ||
		wl_bad "fstrim: the server disk counted $(wl_delta st_dsec) discarded sectors, not $((trimmed / 512))"
	vm_run client 120 "set -e; cd /; umount /tmp/wlm; e2fsck -fn $dev" || fail "e2fsck -fn found problems"

	step "raw: blkdiscard, blkdiscard -z, O_DSYNC writes"
	vm_run client 120 "set -e; dd if=/dev/urandom of=/tmp/wlr bs=1M count=16 status=none
		dd if=/tmp/wlr of=$dev bs=1M seek=$WL_DISC oflag=direct,seek_bytes status=none
		dd if=$dev bs=1M skip=$WL_DISC count=16 iflag=direct,skip_bytes status=none | cmp - /tmp/wlr" ||
		fail "writing the data to discard failed"
	wl_snap
	vm_run client 60 "blkdiscard -f -o $WL_DISC -l $WL_LEN $dev" || fail "blkdiscard failed"
	wl_snap
	[ "$(wl_val disc_n)" -ge 1 ] || wl_bad "blkdiscard: no DISCARD reached the server"
	wl_is disc_data 0 "blkdiscard: DISCARDs carried data"
	wl_is disc_len $WL_LEN "blkdiscard: the DISCARDs do not cover the range"
	[ "$(wl_delta st_dsec)" = $((WL_LEN / 512)) ] || wl_bad "blkdiscard: the server disk counted $(wl_delta st_dsec) discarded sectors"
	vm_run client 60 "$WL_G wl_zeros $dev $WL_DISC $WL_LEN" || wl_bad "blkdiscard: the range does not read back as zeros"
	vm_run client 60 "blkdiscard -f -z -o $WL_WZ -l $WL_LEN $dev" || fail "blkdiscard -z failed"
	wl_snap
	if [ $want_wz = 1 ]; then
		[ "$(wl_val wz_n)" -ge 1 ] || wl_bad "blkdiscard -z: no WRITE_ZEROES reached the server"
		wl_is wz_data 0 "blkdiscard -z: WRITE_ZEROES carried data"
		wl_is wz_len $WL_LEN "blkdiscard -z: the WRITE_ZEROES do not cover the range"
		wl_is wr_data 0 "blkdiscard -z: data writes besides WRITE_ZEROES"
	else
		wl_is wz_n 0 "blkdiscard -z: WRITE_ZEROES with a 6.1 rnbd"
		wl_is wr_data $WL_LEN "blkdiscard -z: the zeros written as data"
	fi
	[ "$(wl_delta st_wsec)" = $((WL_LEN / 512)) ] || wl_bad "blkdiscard -z: the server disk counted $(wl_delta st_wsec) written sectors"
	vm_run client 60 "$WL_G wl_zeros $dev $WL_WZ $WL_LEN" || wl_bad "blkdiscard -z: the range does not read back as zeros"
	vm_run client 60 "set -e; dd if=/tmp/wlr of=$dev bs=64k count=32 seek=$WL_FUA oflag=direct,dsync,seek_bytes status=none" ||
		fail "O_DSYNC writes failed"
	wl_snap
	wl_is fua_n 32 "O_DSYNC: FUA writes"
	wl_is fua_data $((2 << 20)) "O_DSYNC: data of the FUA writes"
	wl_is wr_n 0 "O_DSYNC: writes without FUA"
	vm_run client 60 "set -e; head -c $((2 << 20)) /tmp/wlr > /tmp/wlf
		dd if=$dev bs=64k count=32 skip=$WL_FUA iflag=direct,skip_bytes status=none | cmp - /tmp/wlf" ||
		fail "O_DSYNC: the data does not read back"

	step "O_DIRECT boundary sizes (max_io_size $max)"
	out=$(vm_run client 120 "set -e; i=0
		for s in 512 3584 4096 4608 61440 65536 $max $((max + 512)); do
			o=\$(( $WL_BND + i * 1048576 )); i=\$((i + 1))
			head -c \$s /dev/urandom > /tmp/wlb
			dd if=/tmp/wlb of=$dev bs=\$s count=1 seek=\$o oflag=direct,seek_bytes status=none
			dd if=$dev bs=\$s count=1 skip=\$o iflag=direct,skip_bytes status=none | cmp - /tmp/wlb
			echo -n \"\$s \"
		done; echo ok") || fail "boundary sizes: $out"
	note "sizes read back: $out"
	wl_snap
	wl_is wr_n 9 "boundary sizes: write requests (8 sizes, the last split in two)"
	wl_is wr_data $((512 + 3584 + 4096 + 4608 + 61440 + 65536 + 2 * max + 512)) "boundary sizes: bytes written"
	wl_is fua_n 0 "boundary sizes: FUA writes"

	step "buffered writes of 777 bytes at an odd offset"
	n=$(( WL_UNAL / 777 + 2 )); n=$(( n | 1 )); off=$(( n * 777 )); len=$(( 97 * 777 ))
	p0=$(( off / 4096 )); p1=$(( (off + len - 1) / 4096 ))
	vm_run client 120 "set -e; head -c $len /dev/urandom > /tmp/wlu
		dd if=/tmp/wlu of=$dev bs=777 seek=$n conv=notrunc status=none; sync
		echo 3 > /proc/sys/vm/drop_caches
		dd if=$dev bs=777 skip=$n count=97 status=none | cmp - /tmp/wlu
		dd if=$dev bs=4096 skip=$p0 count=$((p1 - p0 + 1)) iflag=direct status=none | tail -c +$((off - p0 * 4096 + 1)) | head -c $len | cmp - /tmp/wlu" ||
		fail "buffered: the 777-byte writes at offset $off do not read back"
	wl_snap
	wl_is wr_data $(( (p1 - p0 + 1) * 4096 )) "buffered: bytes written back ($((p1 - p0 + 1)) pages)"
	[ $WL_BAD = 0 ] || fail "$WL_BAD checks of what reached the server failed (CHECK FAILED lines above)"

	step "fio randwrite, verify=crc32c, 512 B to $max at queue depth 16"
	out=$(vm_run client 300 "fio --name=wl-rand --filename=$dev --rw=randwrite --bsrange=512-$max --iodepth=16 \
		--ioengine=libaio --direct=1 --offset=$WL_FIO --size=16m --verify=crc32c --verify_fatal=1 \
		--do_verify=1 --output-format=terse --terse-version=3 > /tmp/wlfio.txt 2>&1 || { cat /tmp/wlfio.txt; exit 1; }
		cut -d';' -f5,6,7 /tmp/wlfio.txt | head -1") || fail "fio: $out"
	note "fio: $out"
	wl_snap

	step "the client's sha256 of the disk, unmap, the server's copy"
	# pipefail: a failed dd is a failed read, not the sha256 of what it read before failing
	csum=$(vm_run client 180 "set -o pipefail; dd if=$dev bs=1M iflag=direct status=none | sha256sum | cut -d' ' -f1") || fail "client sha256 failed"
	sums=$(vm_run client 10 "cat /tmp/wl.sums") || fail "no file sums"
	vm_run client 120 "rnbd_unmap $dev" || fail "unmap failed"
	client_unload || fail "client stack did not unload"
	ssum=$(vm_run server 120 "set -o pipefail; dd if=$WL_SDEV bs=1M iflag=direct status=none | sha256sum | cut -d' ' -f1") || fail "server sha256 failed"
	note "sha256 client $csum server $ssum"
	[ "$csum" = "$ssum" ] || fail "the server's copy differs from what the client read"
	vm_run server 120 "set -e; modprobe ext4; e2fsck -fn $WL_SDEV; mkdir -p /tmp/wlm; mount -o ro $WL_SDEV /tmp/wlm
		cd /tmp/wlm; printf '%s\n' '$sums' | md5sum -c --quiet; cd /; umount /tmp/wlm" ||
		fail "the server's copy: e2fsck, mount or the files' md5s failed"
	vm_run server 60 "$WL_G wl_srv_disk_down" || fail "scsi_debug did not unload"
	trap - EXIT
}
