#!/usr/bin/env python3
"""Summary of probe_ts's per-warp timings (CSV: warp, block, sm, t0, t1 in ns of %globaltimer):
the kernel's span, each SM's busy time (the union of its warps' intervals), when SMs finish,
each strip's mean warp time (edge strips against the interior) and the active warps an SM over
the span in 5% bins.   probe_summary.py probe-*.csv"""
import csv
import statistics as st
import sys

BLOCKS_PER_ROW = 60  # 3840 / 64: the probe's frames are 4K with 64-pixel-wide blocks of 4 warps
for path in sys.argv[1:]:
    head = open(path).readline().strip()
    rows = [tuple(map(int, r)) for r in csv.reader(l for l in open(path) if not l.startswith("#")) if r[0] != "warp"]
    w = [r for r in rows if r[3] > 0]
    t0 = min(r[3] for r in w)
    span = (max(r[4] for r in w) - t0) / 1000
    sms, strips = {}, {}
    for warp, block, sm, a, b in w:
        sms.setdefault(sm, []).append(((a - t0) / 1000, (b - t0) / 1000))
        strips.setdefault((block % BLOCKS_PER_ROW) * 4 + warp % 4, []).append((b - a) / 1000)
    busy, last = [], []
    for iv in sms.values():
        iv.sort()
        total, (cs, ce) = 0.0, iv[0]
        for a, b in iv[1:]:
            if a > ce:
                total += ce - cs
                cs, ce = a, b
            else:
                ce = max(ce, b)
        busy.append(total + ce - cs)
        last.append(max(b for _, b in iv))
    items = sorted(strips.items())
    interior = [st.mean(v) for _, v in items[4:-4]]
    print(f"{path}: {head}")
    print(f"  span {span:.1f} us; SM busy avg {st.mean(busy):.1f} (min {min(busy):.1f}, max {max(busy):.1f}); "
          f"an SM's last warp ends at {st.mean(last):.1f} on average")
    print("  mean warp time by strip (us):", " ".join(f"{k}:{st.mean(v):.1f}" for k, v in items[:3] + items[-3:]),
          f"| interior {st.mean(interior):.1f} ({min(interior):.1f}-{max(interior):.1f})")
    bins = [0.0] * 20
    for _, _, _, a, b in w:
        a, b = (a - t0) / 1000, (b - t0) / 1000
        for i in range(20):
            lo, hi = span * i / 20, span * (i + 1) / 20
            bins[i] += max(0.0, min(b, hi) - max(a, lo)) / (span / 20)
    print("  active warps an SM, by 5% of the span:", " ".join(f"{x / len(sms):.1f}" for x in bins))
