#!/bin/bash
# initramfs.sh <kver>: build (cached under .cache/vm/) and print the path of the tiny busybox
# initramfs the test bed boots. Its /init loads the virtio/9p modules of <kver>, mounts the
# HOST root read-only over virtio-9p (tag hostroot), tmpfs on /tmp /run /var/tmp /root,
# the writable per-VM share (tag bed) on /tmp/bed, and chroots into the host userland to
# run /tmp/bed/boot.sh (written by the host for each boot). When that returns it powers off.
# A kernel not installed on the host (the debug kernel): BED_MODULES_DIR=<root>/lib/modules
# holds its <kver>/; the VM then gets that folder as 9p share "mods" (boot.sh) and /init
# mounts it over /lib/modules of the chroot (kernel command line bed_mods=1).
set -u
kv=${1:?usage: initramfs.sh <kver>}
top=$(cd "$(dirname "$0")/../../.." && pwd)
modroot=/
if [ -n "${BED_MODULES_DIR:-}" ] && [ -e "$BED_MODULES_DIR/$kv/modules.dep" ]; then
	modroot=${BED_MODULES_DIR%/lib/modules}
	[ "$modroot/lib/modules" = "$BED_MODULES_DIR" ] ||
		{ echo "initramfs: BED_MODULES_DIR must end in /lib/modules" >&2; exit 1; }
fi
moddir=$modroot/lib/modules/$kv
[ -e "$moddir/modules.dep" ] || { echo "initramfs: no $moddir" >&2; exit 1; }
[ -x /bin/busybox ] || { echo "initramfs: /bin/busybox missing (busybox-static)" >&2; exit 1; }
cache=$top/.cache/vm; mkdir -p "$cache"
key=$(cat "$0" "$moddir/modules.dep" /bin/busybox | md5sum | cut -c1-12)
img=$cache/initramfs-$kv-$key.cpio.gz
if [ ! -s "$img" ]; then
	t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
	mkdir -p "$t"/{bin,dev,proc,sys,newroot,modules}
	cp /bin/busybox "$t/bin/busybox"
	: > "$t/modules/order"
	for m in virtio_pci 9pnet_virtio 9p; do
		modprobe -d "$modroot" -S "$kv" --show-depends "$m" 2>/dev/null | awk '$1=="insmod"{print $2}'
	done | awk '!seen[$0]++' | while read -r ko; do
		b=$(basename "$ko"); b=${b%.xz}; b=${b%.zst}; b=${b%.gz}
		case $ko in   # busybox insmod reads only plain .ko
			*.xz)  xz -dc "$ko" > "$t/modules/$b" ;;
			*.zst) zstd -dcq "$ko" > "$t/modules/$b" ;;
			*.gz)  gzip -dc "$ko" > "$t/modules/$b" ;;
			*)     cp "$ko" "$t/modules/$b" ;;
		esac
		echo "$b" >> "$t/modules/order"
	done
	cat > "$t/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
echo "bed-init: initramfs up at $(cut -d' ' -f1 /proc/uptime)s"
die() { echo "bed-init: FATAL: $*"; echo "BED-GUEST-EXIT=125"; poweroff -f; }
for m in $(cat /modules/order); do insmod /modules/$m || echo "bed-init: insmod $m failed"; done
R=/newroot
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose hostroot $R || die "mount host root"
if grep -q bed_mods=1 /proc/cmdline; then   # modules of a kernel the host does not have
	mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose mods $R/lib/modules || die "mount mods share"
fi
for d in tmp run var/tmp root; do mount -t tmpfs -o mode=1777 tmpfs $R/$d || die "tmpfs $d"; done
chmod 700 $R/root
mount -t proc proc $R/proc
mount -t sysfs sys $R/sys
mount -t devtmpfs dev $R/dev
mkdir -p $R/dev/pts $R/dev/shm
mount -t devpts -o gid=5,mode=620 devpts $R/dev/pts
mount -t tmpfs tmpfs $R/dev/shm
mount -t debugfs debugfs $R/sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs $R/sys/kernel/tracing 2>/dev/null
mount -t configfs configfs $R/sys/kernel/config 2>/dev/null
# The repository may live under a directory the tmpfs mounts above hide (a clone in /tmp,
# as CI may use): mount it again at its own path from its own read-only share.
repo=$(sed -n 's/.*bed_repo=\([^ ]*\).*/\1/p' /proc/cmdline)
if [ -n "$repo" ]; then
	mkdir -p "$R$repo" 2>/dev/null
	mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose repo "$R$repo" || die "mount repo share at $repo"
fi
mkdir -p $R/tmp/bed
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 bed $R/tmp/bed || die "mount bed share"
# request_module() runs /proc/sys/kernel/modprobe in THIS root: route it into the chroot.
printf '#!/bin/sh\nexec /bin/chroot /newroot /sbin/modprobe "$@"\n' > /bin/modprobe-chroot
chmod +x /bin/modprobe-chroot
echo /bin/modprobe-chroot > /proc/sys/kernel/modprobe
ip link set lo up 2>/dev/null
echo "bed-init: chroot at $(cut -d' ' -f1 /proc/uptime)s"
chroot $R /bin/bash /tmp/bed/boot.sh </dev/console >/dev/console 2>&1
rc=$?
echo "BED-GUEST-EXIT=$rc"
sync
poweroff -f
echo o > /proc/sysrq-trigger
INIT
	chmod +x "$t/init"
	(cd "$t" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) > "$img.tmp" && mv "$img.tmp" "$img"
fi
echo "$img"
