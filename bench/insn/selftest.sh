#!/bin/bash
# selftest.sh: check insn-meter without the test bed. Boots the installed kernel (6.12 by
# default; INSN_KVER=...) under TCG with the plugin, in a single VM with no network, on the
# bed's own initramfs (tests/vm/lib/initramfs.sh: the guest chroots into the host's root
# over 9p and runs the script this writes), INSN_RUNS times (2). In the guest: the phases of
# insn-selftest (a loop of known count, a rep movsb, getppid calls), then null_blk with its
# text range handed over by the RANGES marker and two identical dd phases read from it.
# Prints every phase's counts and how far the runs (and the two dd phases) are apart; fails
# when a run failed, the loop's user count is not 2 per iteration, the null_blk bucket is
# not the same in both dd phases, or the dd phases' totals (all vCPUs) differ by more than
# INSN_TOL percent (1). The short phases are shown, not gated: their kernel part is mostly
# what other tasks and timer ticks do meanwhile, which varies with host timing.
# Each run is bounded by INSN_RUN_S (120 s) and runs under nice -n 10. Output: INSN_OUT
# (build/insn/selftest): runN/plugin.log (the plugin's), runN/console.log.
# INSN_COMPARE_ONLY=1: no runs, compare those already in INSN_OUT.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# QEMU, curl, glib headers, the kernels: installed first on a fresh machine (a no-op after)
"$top/scripts/setup.sh" > /dev/null || { echo "selftest: scripts/setup.sh failed" >&2; exit 1; }
kv=${INSN_KVER:-$(find /boot -maxdepth 1 -name 'vmlinuz-6.12*' -printf '%f\n' | sort -V | tail -n 1)}
kv=${kv#vmlinuz-}
runs=${INSN_RUNS:-2} out=${INSN_OUT:-$top/build/insn/selftest}
[ -e "/boot/vmlinuz-$kv" ] || { echo "selftest: no /boot/vmlinuz-$kv" >&2; exit 1; }
make -s -C "$top/bench/insn" || exit 1
img=$("$top/tests/vm/lib/initramfs.sh" "$kv") || exit 1
b=$top/build/insn
[ "${INSN_COMPARE_ONLY:-0}" = 1 ] || rm -rf "$out"
for r in $(seq "$runs"); do
	[ "${INSN_COMPARE_ONLY:-0}" = 1 ] && continue
	d=$out/run$r
	mkdir -p "$d/share"
	{
		echo '#!/bin/bash'
		echo 'export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C'
		printf 'B=%q I=%q\n' "$b" "$top/bench/insn"
		cat <<'GUEST'
set -u
echo "insn-guest: up at $(cut -d' ' -f1 /proc/uptime)s"
"$B/insn-selftest" loop 1000000
"$B/insn-selftest" rep 1048576
"$B/insn-selftest" syscall 10000
modprobe null_blk nr_devices=1 || { echo "insn-guest: modprobe null_blk failed"; exit 1; }
"$I/ranges.sh" nullb=null_blk > /tmp/ranges || exit 1
cat /tmp/ranges
"$B/insn-mark" ranges /tmp/ranges
for p in dd1 dd2; do
	"$B/insn-mark" run "$p" dd if=/dev/nullb0 of=/dev/null bs=4k count=20000 iflag=direct status=none ||
		{ echo "insn-guest: dd failed"; exit 1; }
done
echo "insn-guest: done at $(cut -d' ' -f1 /proc/uptime)s"
GUEST
	} > "$d/share/boot.sh"
	# shellcheck disable=SC2054 # QEMU option values: the commas are QEMU's
	q=(qemu-system-x86_64 -name insn-selftest -machine q35 -accel tcg,thread=multi -cpu max
		-m 1G -smp 2 -display none -monitor none -no-reboot -nodefaults
		-serial "file:$d/console.log" -kernel "/boot/vmlinuz-$kv" -initrd "$img"
		-append "console=ttyS0 panic=-1 loglevel=4 bed_repo=$top"
		-fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap
		-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot
		-fsdev "local,id=repo,path=$top,security_model=none,readonly=on,multidevs=remap"
		-device virtio-9p-pci,fsdev=repo,mount_tag=repo
		-fsdev "local,id=bed,path=$d/share,security_model=none,multidevs=remap"
		-device virtio-9p-pci,fsdev=bed,mount_tag=bed
		-device virtio-rng-pci
		-plugin "$b/insn-meter.so" -d plugin -D "$d/plugin.log")
	t0=$(date +%s)
	nice -n 10 timeout -k 5 "${INSN_RUN_S:-120}" "${q[@]}" < /dev/null > "$d/qemu.log" 2>&1
	rc=$?
	echo "selftest: run $r: QEMU exit $rc after $(( $(date +%s) - t0 )) s; $(grep -a -o 'BED-GUEST-EXIT=[0-9]*' "$d/console.log")"
	grep -a -q 'BED-GUEST-EXIT=0' "$d/console.log" || { tail -n 20 "$d/console.log" "$d/qemu.log"; exit 1; }
	grep -a '^insn-meter: phase=.* vcpu=all' "$d/plugin.log"
done
python3 - "$out" "$runs" "${INSN_TOL:-1}" <<'PY'
import re, sys
out, runs, tol = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
def phases(path):
    ph = {}
    for line in open(path, errors="replace"):
        m = re.match(r"insn-meter: phase=(\S+) vcpu=(\S+) (total=.*)", line)
        if m:
            ph.setdefault(m.group(1), {})[m.group(2)] = {k: int(v) for k, v in (kv.split("=") for kv in m.group(3).split())}
    return ph
res = [phases(f"{out}/run{r}/plugin.log") for r in range(1, runs + 1)]
bad = 0
def pct(x, y):
    return abs(x - y) / max(x, y) * 100 if max(x, y) else 0.0
def busiest(p):   # the vCPU that ran the phase's workload: the one with the most user instructions
    return max((v for v in p if v != "all"), key=lambda v: p[v]["user"])
def cmp(name, pa, pb, gate):
    """Totals of all vCPUs must agree within tol for a gated phase; the rest is shown."""
    global bad
    a, b = pa["all"], pb["all"]
    d = {k: pct(a[k], b[k]) for k in a if k in b}
    va, vb = pa[busiest(pa)]["total"], pb[busiest(pb)]["total"]
    fail = gate and d["total"] > tol
    bad += fail
    buckets = " ".join(f"{k} {d[k]:.3f} %" for k in a if k not in ("total", "unclaimed") and k in b)
    print(f"selftest: {name}: all vCPUs {a['total']} vs {b['total']} ({d['total']:.3f} % apart;"
          f" {buckets}); workload's vCPU {va} vs {vb} ({pct(va, vb):.3f} %)"
          + (f"  FAIL (> {tol} %)" if fail else "" if gate else "  (short phase: not gated)"))
want = ["loop", "rep", "syscall", "dd1", "dd2"]
gated = {"dd1", "dd2"}   # 115 M instructions each; the others are too short for background kernel work to average out
for r, ph in enumerate(res, 1):
    miss = [p for p in want if p not in ph]
    if miss:
        print(f"selftest: run {r}: phases missing: {' '.join(miss)}"); bad += 1
        continue
    u = ph["loop"]["all"]["user"]
    ok = 2000000 <= u <= 2000010
    bad += not ok
    print(f"selftest: run {r}: loop of 1000000 dec/jnz counted user={u} (2000000 plus the marker's own"
          f" block){'' if ok else '  FAIL'}")
    nb = {ph[p]["all"].get("nullb") for p in ("dd1", "dd2")}
    ok = len(nb) == 1 and None not in nb and nb != {0}
    bad += not ok
    print(f"selftest: run {r}: null_blk bucket in dd1, dd2: {sorted(nb, key=str)}{'' if ok else '  FAIL (want one non-zero value)'}")
    cmp(f"run {r} dd1 vs dd2", ph["dd1"], ph["dd2"], True)
for r in range(1, runs):
    for p in want:
        if p in res[0] and p in res[r]:
            cmp(f"{p} run 1 vs run {r + 1}", res[0][p], res[r][p], p in gated)
print(f"selftest: {'FAIL' if bad else 'ok'}")
sys.exit(1 if bad else 0)
PY
