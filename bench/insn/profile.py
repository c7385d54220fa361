#!/usr/bin/env python3
"""profile.py RAW [TOP]: instructions per I/O per function of the client stacks, from a
bench run with BENCH_INSN=1 BENCH_INSN_ARGS=shift=4,hi=...,detail=ours:upstream:nvme.

The meter's detail lines give, per phase (fio cell), the instructions of every 16-byte
granule of a detail bucket that ran; the client's module symbols at that attach
(raw/ai<Y|N>-r<round>-<contender>.insn-syms.client, /proc/kallsyms) name the function
each granule lies in: the nearest symbol at or below it (the __pfx_ padding symbols of
CONFIG_CALL_PADDING left out; with 16-byte function alignment a granule holds one
function only, a translated block counting where it starts). Divided by fio's I/Os.
Prints one markdown table per always_invalidate mode and cell: each contender's TOP (15)
functions side by side, ranked by the smaller of the rounds' values, shown min-max over
rounds, and each contender's whole stack.
"""
import bisect
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from report import fio_ios  # noqa: E402


def load_syms(path):
    """Sorted [(address, "module:function")] of the text symbols in a kallsyms dump."""
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            w = line.split()
            if len(w) < 4 or w[1] not in "tT" or w[2].startswith("__pfx_"):
                continue
            out.append((int(w[0], 16), f"{w[3].strip('[]')}:{w[2]}"))
    out.sort()
    return out


def load_detail(path):
    """{phase: {address: instructions}} from an insn-meter log's detail lines."""
    ph = {}
    pat = re.compile(r"insn-meter: phase=(\S+) detail=\S+ addr=0x([0-9a-f]+) insns=(\d+)")
    with open(path, errors="replace") as f:
        for line in f:
            m = pat.match(line)
            if m:
                d = ph.setdefault(m.group(1), {})
                d[int(m.group(2), 16)] = int(m.group(3))
    return ph


def main():
    raw = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    detail = load_detail(f"{raw}/insn.client.log")
    if not detail:
        sys.exit(f"profile.py: no detail lines in {raw}/insn.client.log (BENCH_INSN_ARGS detail=?)")
    pat = re.compile(r"^ai([YN])-r(\d+)-(\w+)-(.+)$")
    per = {}  # (ai, cell) -> contender -> function -> [per-I/O of each round]
    for tag, gran in sorted(detail.items()):
        m = pat.match(tag)
        if not m:
            continue
        ai, rnd, c, cell = m.groups()
        syms = load_syms(f"{raw}/ai{ai}-r{rnd}-{c}.insn-syms.client")
        ios, _ = fio_ios(f"{raw}/{tag}.client.json")
        if not syms or not ios:
            continue
        addrs = [a for a, _ in syms]
        fn = {}
        for a, n in gran.items():
            i = bisect.bisect_right(addrs, a) - 1
            name = syms[i][1] if i >= 0 else "?"
            fn[name] = fn.get(name, 0) + n
        fn["(total)"] = sum(gran.values())
        d = per.setdefault((ai, cell), {}).setdefault(c, {})
        for name, n in fn.items():
            d.setdefault(name, []).append(n / ios)
    def fmt(v):
        return f"{min(v):,.0f}" if round(min(v)) == round(max(v)) else f"{min(v):,.0f}-{max(v):,.0f}"

    for (ai, cell), byc in sorted(per.items()):
        cs = sorted(byc)
        ranked = {c: sorted((n for n in byc[c] if n != "(total)"), key=lambda n: -min(byc[c][n]))[:top]
                  for c in cs}
        print(f"### always_invalidate={ai}, {cell}: instructions per I/O by function (min-max over rounds)\n")
        print("| # | " + " | ".join(f"{c} | per I/O" for c in cs) + " |")
        print("|---|" + "---|---|" * len(cs))
        for i in range(max(len(r) for r in ranked.values())):
            row = []
            for c in cs:
                n = ranked[c][i] if i < len(ranked[c]) else None
                row += [n.split(":", 1)[1] if n else "", fmt(byc[c][n]) if n else ""]
            print(f"| {i + 1} | " + " | ".join(row) + " |")
        print("| | " + " | ".join(f"(all, module total) | {fmt(byc[c]['(total)'])}" for c in cs) + " |")
        print()

if __name__ == "__main__":
    main()
