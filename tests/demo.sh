#!/bin/bash
# demo.sh (`make demo`): end-to-end demonstration, narrated step by step.
# Server host VM: null_blk + upstream rtrs-server + rnbd-server. Client host VM: OUR
# rtrs-client.ko + upstream rnbd-client built against our rtrs.h. Maps the server's
# /dev/nullb0 through rnbd, writes 32 MiB, reads it back, verifies on both ends.
# Env: DEMO_SERIES=6.1|6.12 (both VMs, default 6.12), or SERVER_SERIES / CLIENT_SERIES;
#   BED_OURS_BUILD=<dir> use <dir>/<kver>/rtrs-client.ko instead of building the working tree;
#   DEMO_STACK=upstream runs the same demo with upstream's client (reference run).
# Artifacts: results/<run-id>/demo/.
set -u
top=$(cd "$(dirname "$0")/.." && pwd); cd "$top" || exit 2
n=0
say() { n=$((n + 1)); echo; echo "[$(date +%H:%M:%S)] Step $n: $*"; }
info() { echo "           $*"; }
die() { echo; echo "DEMO FAILED at step $n: $*"; exit 1; }

SERVER_SERIES=${SERVER_SERIES:-${DEMO_SERIES:-6.12}}
CLIENT_SERIES=${CLIENT_SERIES:-${DEMO_SERIES:-6.12}}
export CLIENT_STACK=${DEMO_STACK:-ours} BED_REPO=$top RUN_ID=${RUN_ID:-$(date +%Y%m%d-%H%M%S)-demo}
export BED_DIR=$top/results/$RUN_ID/demo BED_TRACE=0
mkdir -p "$BED_DIR"

# setup first: on a fresh machine the kernels that scripts/kernels.sh discovers are among
# what it installs
say "install missing packages (scripts/setup.sh)"
scripts/setup.sh || die "setup failed"
SERVER_KVER=$(scripts/kernels.sh "$SERVER_SERIES") CLIENT_KVER=$(scripts/kernels.sh "$CLIENT_SERIES")
export SERVER_KVER CLIENT_KVER
{ [ -n "$SERVER_KVER" ] && [ -n "$CLIENT_KVER" ]; } || die "no $SERVER_SERIES/$CLIENT_SERIES kernel with headers installed"
info "server host kernel $SERVER_KVER, client host kernel $CLIENT_KVER"

if [ -n "${BED_OURS_BUILD:-}" ]; then
	say "use the prebuilt module $BED_OURS_BUILD/$CLIENT_KVER/rtrs-client.ko"
	export OURS_BUILD=$BED_OURS_BUILD
	[ -e "$BED_OURS_BUILD/$CLIENT_KVER/rtrs-client.ko" ] || die "no such module"
else
	say "build our module for the client kernel (make KVER=$CLIENT_KVER)"
	make -s KVER="$CLIENT_KVER" > "$BED_DIR/build.log" 2>&1 || { grep -E 'error|Error' "$BED_DIR/build.log" | head -n 10; die "our module does not build (log: $BED_DIR/build.log)"; }
	info "built build/$CLIENT_KVER/rtrs-client.ko"
fi

say "build the peers: upstream rtrs/rnbd server (+client) and rnbd-client against our rtrs.h"
for k in $(printf '%s\n' "$SERVER_KVER" "$CLIENT_KVER" | sort -u); do
	PEER_ONLY=upstream tests/peer/build-peer.sh "$k" >> "$BED_DIR/build.log" 2>&1 || die "upstream peer build failed for $k (log: $BED_DIR/build.log)"
done
[ "$CLIENT_STACK" = ours ] && { PEER_ONLY=ours tests/peer/build-peer.sh "$CLIENT_KVER" >> "$BED_DIR/build.log" 2>&1 || {
	grep -E 'ERROR|error' "$BED_DIR/build.log" | tail -n 10
	die "upstream rnbd-client does not build/link against our rtrs.h + Module.symvers (missing exports?)"; }
	info "rnbd-client on our rtrs.h: .cache/peer/$CLIENT_KVER/rnbd-ours/rnbd-client.ko"; }

. tests/vm/lib/bed.sh
. tests/vm/lib/boot.sh
trap bed_shutdown EXIT
trap 'exit 130' INT TERM

say "boot the server host VM and the client host VM (QEMU TCG; two isolated links)"
info "link0: server 198.18.0.1 <-> client 198.18.0.2 (rxe0 on eth0); link1: 198.18.1.x (rxe1)"
bed_boot 2> "$BED_DIR/boot.log" || { cat "$BED_DIR/boot.log"; die "the VMs did not come up"; }
info "both VMs up in ${BED_BOOT_S}s; server: null_blk /dev/nullb0 + /dev/nullb1, rtrs-server, rnbd-server loaded"

if [ "$CLIENT_STACK" = ours ]; then
	say "client host: load OUR rtrs-client.ko and rnbd-client (built against our rtrs.h)"
else
	say "client host: load UPSTREAM rtrs-core, rtrs-client, rnbd-client (reference run)"
fi
out=$(client_load "$CLIENT_STACK" 2>&1) || die "loading our client stack failed: $out"
vm_run client 30 'lsmod | grep -E "^(rtrs_client|rnbd_client) "' | sed 's/^/           /'

say "map the server's /dev/nullb0 through rnbd over link0"
info "echo \"sessname=demo path=ip:198.18.0.1 device_path=/dev/nullb0\" > /sys/class/rnbd-client/ctl/map_device"
if ! dev=$(vm_run client 180 rnbd_map demo /dev/nullb0 path=ip:198.18.0.1 2>"$BED_DIR/map.err"); then
	sed 's/^/           /' "$BED_DIR/map.err"
	info "client kernel log (last lines):"
	vm_run client 30 'dmesg | tail -n 15' | sed 's/^/           /'
	die "map_device failed: our rtrs-client could not open an RTRS session to the server (expected while the client is a skeleton)"
fi
info "mapped as $dev; path: $(vm_run client 30 'path_states demo')"

say "write 32 MiB of random data to $dev, read it back, compare"
cmd5=$(vm_run client 300 "set -e
	dd if=/dev/urandom of=/tmp/pat bs=1M count=32 status=none
	dd if=/tmp/pat of=$dev bs=1M oflag=direct status=none
	dd if=$dev of=/tmp/back bs=1M count=32 iflag=direct status=none
	cmp /tmp/pat /tmp/back
	md5sum < /tmp/pat | cut -d' ' -f1") || die "write/read-back/compare failed: $cmd5"
info "read back identical; md5 $cmd5"

say "verify on the server: md5 of the first 32 MiB of /dev/nullb0"
smd5=$(vm_run server 120 "dd if=/dev/nullb0 bs=1M count=32 iflag=direct status=none | md5sum | cut -d' ' -f1")
info "server md5 $smd5"
[ "$cmd5" = "$smd5" ] || die "server data differs from what the client wrote"

say "unmap and unload"
vm_run client 120 "rnbd_unmap $dev" || die "unmap failed"
client_unload || die "unloading our client stack failed"
# rc 0 only if grep ran (1: no match): a failed vm_run prints nothing, that is no pass
bad=$(vm_run client 30 "dmesg | grep -E 'BUG:|WARNING:|Oops|general protection|KASAN|refcount_t|hung_task'; [ \$? -le 1 ]") ||
	die "could not read the client's kernel log: $bad"
[ -z "$bad" ] || { echo "$bad"; die "client kernel log shows problems"; }
echo
echo "DEMO OK: rnbd over the $CLIENT_STACK rtrs-client moved 32 MiB to the server and back intact (artifacts: ${BED_DIR#"$top"/})"
