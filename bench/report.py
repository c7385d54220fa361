#!/usr/bin/env python3
"""bench/report.py: turn bench/run.sh's raw directory into the markdown results file.

    report.py <raw-dir>            markdown on stdout
    report.py --one <fio.json>     one-line summary of a fio cell (progress output)
    report.py --perftest <file>    one-line summary of a perftest client output

Raw files (tag = ai<Y|N>-r<round>-<contender>-<cell>):
    <tag>.<vm>.json         fio json of the guest that ran fio (client, or server for "local")
    <tag>.<vm>.pre/.post    "cpu <busy> <total>" jiffies and "rxe <counter> <value>" lines
    <tag>.fail              the cell failed (reason inside)
    ai<Y|N>-r<round>-perftest-<test>-<size>.client.txt   perftest client output
    meta.txt, kernel-problems.txt
    insn.<vm>.log           BENCH_INSN=1: the insn-meter plugin's output of each VM
                            ("insn-meter: phase=<tag> vcpu=all total=N user=N kernel=N <bucket>=N ...")
"""
import glob
import json
import os
import re
import statistics
import sys

CELLS = ["randread-4k-qd1", "randread-4k-qd32", "randwrite-4k-qd1", "randwrite-4k-qd32",
         "read-128k-qd8", "write-128k-qd8"]
CONTENDERS = ["ours", "upstream", "nvme", "local"]
NAMES = {"ours": "ours (rtrs-client + rnbd)", "upstream": "upstream rtrs + rnbd",
         "nvme": "nvme-rdma -> nvmet-rdma", "local": "local null_blk (server host)"}
USER_HZ = 100  # /proc/stat jiffies per second (USER_HZ is 100 on x86)


def fio_ios(path):
    """I/Os of both directions of one fio json (the divisor of instructions per I/O) and
    the job's run time in seconds."""
    with open(path) as f:
        txt = f.read()
    job = json.loads(txt[txt.index("{"):])["jobs"][0]
    return job["read"]["total_ios"] + job["write"]["total_ios"], job["job_runtime"] / 1000.0


def fio_result(path):
    """IOPS, MiB/s, p50 and p99 completion latency (us) and I/O count of one fio json."""
    with open(path) as f:
        txt = f.read()
    # fio may print notes before the json object
    data = json.loads(txt[txt.index("{"):])
    job = data["jobs"][0]
    side = max(("read", "write"), key=lambda s: job[s]["total_ios"])
    s = job[side]
    pct = s.get("clat_ns", {}).get("percentile", {})
    return {
        "iops": s["iops"],
        "mibs": s["bw_bytes"] / 1048576.0,
        "p50": pct.get("50.000000", 0) / 1000.0,
        "p99": pct.get("99.000000", 0) / 1000.0,
        "ios": s["total_ios"],
    }


def snap(path):
    cpu, rxe = None, {}
    try:
        with open(path) as f:
            for line in f:
                w = line.split()
                if len(w) == 3 and w[0] == "cpu":
                    cpu = (int(w[1]), int(w[2]))
                elif len(w) == 3 and w[0] == "rxe":
                    rxe[w[1]] = int(w[2])
    except OSError:
        pass
    return cpu, rxe


def baseline(raw, vm):
    """Busy share of the guest's CPU time while idle (the bed agent's polling), or 0."""
    a, _ = snap(f"{raw}/baseline.{vm}.pre")
    b, _ = snap(f"{raw}/baseline.{vm}.post")
    if a is None or b is None or b[1] <= a[1]:
        return 0.0
    return (b[0] - a[0]) / float(b[1] - a[1])


def delta(raw, tag, vm):
    """Busy jiffies net of the idle baseline, and rxe packets, of <vm> during a cell."""
    a, ra = snap(f"{raw}/{tag}.{vm}.pre")
    b, rb = snap(f"{raw}/{tag}.{vm}.post")
    cpu = None
    if a is not None and b is not None:
        cpu = max(0.0, (b[0] - a[0]) - baseline(raw, vm) * (b[1] - a[1]))
    pk = None
    if "sent_pkts" in ra and "sent_pkts" in rb:
        pk = (rb["sent_pkts"] - ra["sent_pkts"], rb.get("rcvd_pkts", 0) - ra.get("rcvd_pkts", 0))
    return cpu, pk


def perftest_parse(path):
    """Header names and values of the result line of a perftest client output."""
    try:
        lines = open(path, errors="replace").read().splitlines()
    except OSError:
        return None
    for i, line in enumerate(lines):
        if line.strip().startswith("#bytes"):
            hdr = re.split(r"\s{2,}", line.strip())
            for v in lines[i + 1:]:
                w = v.split()
                if w and re.match(r"^\d+$", w[0]):
                    vals = [float(x) for x in w if re.match(r"^[\d.]+$", x)]
                    return list(zip(hdr, vals))
    return None


def med(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return None, None, None
    return statistics.median(xs), min(xs), max(xs)


def fmt(v, nd=1):
    if v is None:
        return "-"
    if abs(v) >= 100:
        return f"{v:.0f}"
    if 0 < abs(v) < 1:
        return f"{v:.3g}"
    return f"{v:.{nd}f}"


def fmt3(t, nd=1):
    m, lo, hi = t
    if m is None:
        return "-"
    if lo == hi:
        return fmt(m, nd)
    return f"{fmt(m, nd)} ({fmt(lo, nd)}-{fmt(hi, nd)})"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "-"
    r = a / b
    return f"{r:.2f}" if r >= 0.1 else f"{r:.2g}"


def collect(raw):
    """{(ai, contender, cell): [per-round dict or None (failed)]}"""
    res = {}
    pat = re.compile(r"^ai([YN])-r(\d+)-(ours|upstream|nvme|local)-(.+)\.(client|server)\.json$")
    for p in sorted(glob.glob(f"{raw}/*.json")):
        m = pat.match(os.path.basename(p))
        if not m:
            continue
        ai, rnd, c, cell, vm = m.groups()
        tag = f"ai{ai}-r{rnd}-{c}-{cell}"
        if os.path.exists(f"{raw}/{tag}.fail"):
            continue
        try:
            r = fio_result(p)
        except (ValueError, KeyError, IndexError):
            continue
        ios = r["ios"] or 1
        other = "server" if vm == "client" else "client"
        cpu_vm, pk_vm = delta(raw, tag, vm)
        cpu_o, pk_o = delta(raw, tag, other)
        us = 1e6 / USER_HZ
        if vm == "client":
            r["ccpu"] = None if cpu_vm is None else cpu_vm * us / ios
            r["scpu"] = None if cpu_o is None else cpu_o * us / ios
            r["cpk"] = None if pk_vm is None else pk_vm[0] / ios
            r["crk"] = None if pk_vm is None else pk_vm[1] / ios
        else:
            r["ccpu"], r["cpk"], r["crk"] = None, None, None
            r["scpu"] = None if cpu_vm is None else cpu_vm * us / ios
        res.setdefault((ai, c, cell), []).append(r)
    fails = {}
    pat = re.compile(r"^ai([YN])-r(\d+)-(ours|upstream|nvme|local)-(.+)\.fail$")
    for p in glob.glob(f"{raw}/*.fail"):
        m = pat.match(os.path.basename(p))
        if m:
            k = (m.group(1), m.group(3), m.group(4))
            fails[k] = fails.get(k, 0) + 1
    return res, fails


def main_report(raw):
    meta = {}
    for line in open(f"{raw}/meta.txt"):
        k, _, v = line.rstrip("\n").partition("=")
        meta[k] = v
    quick = meta.get("quick") == "1"
    res, fails = collect(raw)
    out = []
    p = out.append
    p(f"# Benchmark: ours vs upstream rtrs vs nvme-rdma, kernel {meta.get('kernel')}")
    p("")
    if quick:
        p("> **QUICK MODE (BENCH_QUICK=1): one round of 5 s cells. Validation of the harness only;")
        p("> these numbers are NOT reliable and must not be quoted.** Run `make bench` for the real table.")
        p("")
    p(f"- commit: `{meta.get('commit')}`"
      + (f" (uncommitted changes in the working tree: {meta['dirty']})" if meta.get("dirty", "").strip() else ""))
    p(f"- kernel (server and client host): `{meta.get('kernel')}`; {meta.get('rounds')} round(s), "
      f"{meta.get('runtime')} s per cell, always_invalidate passes: {meta.get('ai_modes')}; "
      f"contenders: {meta.get('contenders')}")
    p(f"- VMs: server {meta.get('server_smp')} vCPU, client {meta.get('client_smp')} vCPU, "
      f"{meta.get('mem')} RAM each; {meta.get('host')}")
    p(f"- host load average at start / end: {meta.get('loadavg_start')} / {meta.get('loadavg_end')}")
    p(f"- {meta.get('date')}, bed boot {meta.get('boot_s')} s, measuring {meta.get('measure_s')} s, "
      f"total {meta.get('total_s')} s; {meta.get('fio')}, perftest {meta.get('perftest')}, nvme-cli {meta.get('nvme-cli')}")
    try:
        oth = [int(x) for x in open(f"{raw}/others.txt").read().split()]
    except (OSError, ValueError):
        oth = None
    if oth is not None:
        if max(oth, default=0) > 0:
            p(f"- **other QEMU VMs ran on the host during {sum(1 for x in oth if x)} of {len(oth)} "
              f"contender runs (up to {max(oth)} processes; someone ran a bed without the lock): "
              f"those numbers are skewed**")
        else:
            p("- no other QEMU VMs on the host at any contender start")
    if meta.get("lock_wait_s"):
        p(f"- waited {meta.get('lock_wait_s')} s for the bed lock (other agents' VM runs)")
    if os.path.exists(f"{raw}/baseline.client.post"):
        p(f"- idle baseline (bed agent polling), busy share of all vCPUs: server "
          f"{baseline(raw, 'server') * 100:.1f} %, client {baseline(raw, 'client') * 100:.1f} % (subtracted below)")
    else:
        p("- idle baseline not measured in this run: CPU per I/O includes the bed agent's polling")
    if meta.get("insn") == "1":
        p("- BENCH_INSN=1: both VMs ran with the insn-meter QEMU plugin (bench/insn/), so the IOPS, "
          "latency and CPU numbers here are of instrumented guests; instructions per I/O at the end")
    p(f"- raw data (not committed): `{meta.get('artifacts')}`")
    p("")
    p("Same server host and the same memory-backed `/dev/nullb0` (null_blk, 1 GiB) for every "
      "contender; fio libaio, O_DIRECT, 512 MiB span, time based, one job. Contenders are "
      "interleaved within each round. Values are the median over rounds, (min-max) when they differ. "
      "Latency = fio completion latency percentiles. CPU = busy jiffies (user+nice+system+irq+softirq+steal) "
      "of the whole guest during the cell, minus the idle baseline, divided by the I/Os, in us (fio's own CPU included; "
      "the client of `local` is the server host itself). pkts/IO = rxe0 packets sent and received "
      "by the client per I/O, acks included (a proxy for work requests). Absolute numbers mean little under TCG; the ratios matter.")
    p("")
    kp = ""
    try:
        kp = open(f"{raw}/kernel-problems.txt").read().strip()
    except OSError:
        pass
    if kp:
        p("**Kernel log problems during the run (numbers suspect):**")
        p("```")
        p("\n".join(kp.splitlines()[:20]))
        p("```")
    else:
        p("Kernel logs of both hosts: no BUG/WARNING/Oops/lockdep/RCU/hung-task reports.")
    p("")
    ais = sorted({k[0] for k in res} | {k[0] for k in fails}, reverse=True)
    for ai in ais:
        p(f"## Server always_invalidate={ai}" + (" (default)" if ai == "Y" else ""))
        p("")
        p("| cell | contender | IOPS | MiB/s | p50 us | p99 us | client CPU us/IO | server CPU us/IO | client pkts/IO sent, rcvd | rounds |")
        p("|---|---|---|---|---|---|---|---|---|---|")
        for cell in CELLS:
            for c in CONTENDERS:
                rs = res.get((ai, c, cell), [])
                nf = fails.get((ai, c, cell), 0)
                if not rs and not nf:
                    continue
                g = lambda k: fmt3(med([r[k] for r in rs]))
                p(f"| {cell} | {NAMES[c]} | {g('iops')} | {g('mibs')} | {g('p50')} | {g('p99')} | "
                  f"{g('ccpu')} | {g('scpu')} | {g('cpk')}, {g('crk')} | {len(rs)}" + (f" ({nf} failed)" if nf else "") + " |")
        p("")
        p(f"Ratios per cell (medians; always_invalidate={ai}"
          + ("; nvme-rdma does not depend on it: its numbers come from the =Y pass" if ai == "N" else "") + "):")
        p("")
        p("| cell | IOPS ours/upstream | IOPS ours/nvme-rdma | p50 ours/upstream | p50 ours/nvme-rdma | IOPS ours/local |")
        p("|---|---|---|---|---|---|")
        for cell in CELLS:
            def m(c, k, a=ai):
                return med([r[k] for r in res.get((a, c, cell), [])])[0]
            nv = "Y" if ai == "N" else ai
            p(f"| {cell} | {ratio(m('ours', 'iops'), m('upstream', 'iops'))} | "
              f"{ratio(m('ours', 'iops'), m('nvme', 'iops', nv))} | "
              f"{ratio(m('ours', 'p50'), m('upstream', 'p50'))} | {ratio(m('ours', 'p50'), m('nvme', 'p50', nv))} | "
              f"{ratio(m('ours', 'iops'), m('local', 'iops', nv))} |")
        p("")
    # perftest
    pt = {}
    pat = re.compile(r"^ai([YN])-r(\d+)-perftest-(ib_\w+)-(\d+)\.client\.txt$")
    for f in sorted(glob.glob(f"{raw}/*-perftest-*.client.txt")):
        m = pat.match(os.path.basename(f))
        if not m:
            continue
        r = perftest_parse(f)
        pt.setdefault((m.group(3), int(m.group(4))), []).append(r)
    if pt:
        p("## Transport ceiling: perftest over the same rxe link (client host -> server host, rdma_cm)")
        p("")
        p("Under TCG, perftest's busy polling competes with rxe's software packet processing for the "
          "same vCPUs, so these are a reference, not a hard upper bound: block contenders can exceed them. "
          "The latency tests show what one round trip costs in this bed, which bounds every qd1 cell above.")
        p("")
        p("| test | size | result (median over rounds; perftest's columns) | rounds |")
        p("|---|---|---|---|")
        for (t, size), rs in sorted(pt.items()):
            ok = [r for r in rs if r]
            if not ok:
                p(f"| {t} | {size} | failed | 0 ({len(rs)} failed) |")
                continue
            cols = [h for h, _ in ok[0]][2:]
            vals = []
            rate = [dict(r).get("MsgRate[Mpps]") for r in ok]
            if any(x is not None for x in rate):
                vals.append(f"**{fmt3(med([x * 1e6 if x is not None else None for x in rate]))} ops/s**")
            for i, h in enumerate(cols):
                v = med([r[i + 2][1] if len(r) > i + 2 else None for r in ok])
                vals.append(f"{h} {fmt3(v, 2)}")
            p(f"| {t} | {size} | {'; '.join(vals)} | {len(ok)} |")
        p("")
    insn_report(raw, p)
    profiles(raw, p)
    print("\n".join(out))


# insn-meter buckets shown per side: (column, buckets summed); "stack" is the contender's
# own (bench/run.sh names it after the contender on the client).
INSN_CLIENT = [("total", ["total"]), ("client stack", ["ours", "upstream", "nvme"]), ("rnbd", ["rnbd"]),
               ("rxe", ["rxe"]), ("ib_core", ["ib_core"]), ("cm", ["cm"]), ("kernel", ["kernel"]),
               ("of which unclaimed", ["unclaimed"]), ("user", ["user"])]
INSN_SERVER = [("total", ["total"]), ("rtrs", ["rtrs"]), ("rnbd", ["rnbd"]), ("nvmet", ["nvmet"]),
               ("null_blk", ["nullb"]), ("rxe", ["rxe"]), ("ib_core", ["ib_core"]), ("cm", ["cm"]),
               ("kernel", ["kernel"]), ("user", ["user"])]
INSN_TOL = 2.0  # per cent: issue 23's goal for two rounds of one cell
INSN_MIN = 1.0  # instructions per I/O under which a bucket is noise (a stray timer), not judged
# buckets that also count what the guest does per unit of time, not per I/O
INSN_TIMED = {"total", "kernel", "user", "of which unclaimed"}


def insn_phases(path):
    """{phase label: {bucket: instructions}} of all vCPUs, from one insn-meter log."""
    ph = {}
    try:
        f = open(path, errors="replace")
    except OSError:
        return ph
    with f:
        for line in f:
            m = re.match(r"insn-meter: phase=(\S+) vcpu=all (total=.*)", line)
            if m:
                ph[m.group(1)] = {k: int(v) for k, v in (w.split("=", 1) for w in m.group(2).split())}
    return ph


def spread(xs):
    """(max - min) / min in per cent."""
    return (max(xs) - min(xs)) / min(xs) * 100 if min(xs) > 0 else (0.0 if max(xs) == 0 else float("inf"))


def insn_report(raw, p):
    """BENCH_INSN=1: instructions per I/O per cell, contender and bucket, min-max over rounds."""
    logs = {vm: insn_phases(f"{raw}/insn.{vm}.log") for vm in ("client", "server")}
    if not logs["client"] and not logs["server"]:
        return
    pat = re.compile(r"^ai([YN])-r(\d+)-(ours|upstream|nvme)-(.+)\.client\.json$")
    per = {}   # (ai, contender, cell) -> [(round, {vm: {column: per-I/O}})]
    for path in sorted(glob.glob(f"{raw}/*.client.json")):
        m = pat.match(os.path.basename(path))
        if not m:
            continue
        ai, rnd, c, cell = m.groups()
        tag = f"ai{ai}-r{rnd}-{c}-{cell}"
        if os.path.exists(f"{raw}/{tag}.fail"):
            continue
        try:
            ios, secs = fio_ios(path)
        except (ValueError, KeyError, IndexError, OSError):
            continue
        got = {}
        for vm, cols in (("client", INSN_CLIENT), ("server", INSN_SERVER)):
            ph = logs[vm].get(tag)
            if ph is None or not ios or not secs:
                continue
            got[vm] = {name: sum(ph.get(b, 0) for b in bs) / ios for name, bs in cols}
            got[vm]["kernel M/s"] = ph.get("kernel", 0) / secs / 1e6
        per.setdefault((ai, c, cell), []).append((int(rnd), got))
    if not per:
        return
    p("## Instructions per I/O (BENCH_INSN=1, bench/insn/)")
    p("")
    p("Guest instructions counted by the insn-meter QEMU plugin on all vCPUs of the host, from "
      "just before fio starts to just after it exits (the client marks its own phase around fio; "
      "the server's phase is started and stopped by bench/run.sh around the client's fio, so it is "
      "a little longer), divided by fio's I/O count. Buckets: the text of named modules "
      "(client stack = rtrs_client for ours; rtrs_client + rtrs_core for upstream; nvme_rdma + "
      "nvme_fabrics + nvme_core for nvme-rdma; rnbd = rnbd_client / rnbd_server; rtrs = "
      "rtrs_server + rtrs_core; nvmet = nvmet_rdma + nvmet; rxe = rdma_rxe; cm = rdma_cm + ib_cm + "
      "iw_cm), `kernel` = the rest of the kernel (core kernel and modules no bucket claims: "
      "`unclaimed`), `user` = all processes (fio, the bed agent). Everything else the guest does "
      "meanwhile (the bed agent's polling, timer ticks, kworkers) is counted too, in proportion to "
      "the cell's time, not its I/Os: mostly in `kernel` and `user`; `kernel M/s` is the kernel "
      "bucket per second of fio's run time, which shows that part (about constant at qd1 whatever "
      "the IOPS). Each value is min-max over rounds with the spread (max-min)/min; **bold** where "
      f"the spread exceeds {INSN_TOL:g} %; `<1` where a bucket stays under {INSN_MIN:g} instruction "
      "per I/O (not judged).")
    p("")
    over, within = {False: [], True: []}, {False: 0, True: 0}
    ais = sorted({k[0] for k in per}, reverse=True)
    for vm, cols in (("client", INSN_CLIENT), ("server", INSN_SERVER)):
        for ai in ais:
            p(f"### {vm.capitalize()} host, always_invalidate={ai}: instructions per I/O")
            p("")
            names = [n for n, _ in cols] + ["kernel M/s"]
            p("| cell | contender | " + " | ".join(names) + " | rounds |")
            p("|---|---|" + "---|" * len(names) + "---|")
            for cell in CELLS:
                for c in CONTENDERS:
                    rs = [g[vm] for _, g in sorted(per.get((ai, c, cell), [])) if vm in g]
                    if not rs:
                        continue
                    vals = []
                    for n in names:
                        xs = [r[n] for r in rs]
                        if max(xs) == 0:
                            vals.append("-")
                            continue
                        if max(xs) < INSN_MIN:
                            vals.append("<1")
                            continue
                        nd = 1 if n == "kernel M/s" else 0
                        if len(xs) == 1:
                            vals.append(f"{xs[0]:,.{nd}f}")
                            continue
                        sp = spread(xs)
                        txt = f"{min(xs):,.{nd}f}-{max(xs):,.{nd}f} ({sp:.1f} %)"
                        if n not in ("of which unclaimed", "kernel M/s"):
                            timed = n in INSN_TIMED
                            if sp > INSN_TOL:
                                over[timed].append(f"{vm} {cell} {c} {n} {sp:.1f} %")
                                txt = f"**{txt}**"
                            else:
                                within[timed] += 1
                        vals.append(txt)
                    p(f"| {cell} | {NAMES[c]} | " + " | ".join(vals) + f" | {len(rs)} |")
            p("")
    for timed, what in ((False, "module buckets (the text of named modules: they count per I/O)"),
                        (True, "total, kernel and user (they also count per unit of time)")):
        n = within[timed] + len(over[timed])
        if n:
            p(f"Round agreement, {what}: {within[timed]} of {n} values (cell x contender x bucket, "
              f"both hosts) within {INSN_TOL:g} %"
              + (f"; over it: {'; '.join(over[timed])}." if over[timed] else "."))
            p("")


def profiles(raw, p):
    """The BENCH_PROFILE=1 summaries (bench/guest.sh prof_report), first round of each cell."""
    files = sorted(glob.glob(f"{raw}/*-r1-*.perf.txt"))
    if not files:
        return
    p("## Profile (BENCH_PROFILE=1, first round)")
    p("")
    p("perf with the software `cpu-clock` event at 999 Hz on all vCPUs of both guests during the "
      "cell (from 3 s in), kernel and user; shares are of the busy (not idle) samples. Sampling "
      "perturbs what it measures: compare contenders within this section only.")
    p("")
    for f in files:
        tag = os.path.basename(f)[:-len(".perf.txt")]
        p(f"### {tag}")
        p("")
        p("```")
        p(open(f).read().rstrip("\n"))
        p("```")
        p("")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        try:
            r = fio_result(sys.argv[2])
            print(f"{r['iops']:.0f} IOPS {r['mibs']:.2f} MiB/s p50 {r['p50']:.0f}us p99 {r['p99']:.0f}us")
        except Exception as e:  # progress output only
            print(f"unreadable fio json ({e})")
        return
    if len(sys.argv) == 3 and sys.argv[1] == "--perftest":
        r = perftest_parse(sys.argv[2])
        print("; ".join(f"{h} {v}" for h, v in r) if r else "no result (see the raw file)")
        return
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main_report(sys.argv[1])


if __name__ == "__main__":
    main()
