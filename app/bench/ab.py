#!/usr/bin/env python3
"""Same-call A/B table from convlive-bench runs: the best tile's median per case and variant.

  app/bench/ab.py --variant tensor2d old-1=DIR old-2=DIR new-1=DIR new-2=DIR

Each DIR holds a convlive.json. Runs whose labels share the part before the last '-' are one
build; the last columns are each later build's best over the first's (lowest median of each).
"""
import argparse
import json
import os
import sys


def best(label, path, variant, metric="median_ms"):
    try:
        with open(os.path.join(path, "convlive.json")) as f:
            results = json.load(f)["results"]
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"ab.py: run '{label}' has no readable convlive.json in {path} ({e}): did its convlive-bench fail?")
    out = {}
    for r in results:
        if r.get("error") or r["variant"] != variant or r.get(metric) is None:
            continue
        key = (r["width"], r["height"], r["mask"], r["radius"])
        if key not in out or r[metric] < out[key][0]:
            out[key] = (r[metric], r["tile"])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", required=True)
    ap.add_argument("--metric", default="median_ms",
                    help="the result field compared: median_ms (events around each launch, the default) or "
                    "back_to_back_ms (a stream of launches)")
    ap.add_argument("runs", nargs="+", help="LABEL=DIR")
    a = ap.parse_args()
    runs = []
    for spec in a.runs:
        label, _, path = spec.partition("=")
        if not path:
            sys.exit(f"ab.py: '{spec}' is not LABEL=DIR")
        runs.append((label, best(label, path, a.variant, a.metric)))
    builds = []
    for label, _ in runs:
        b = label.rsplit("-", 1)[0]
        if b not in builds:
            builds.append(b)
    keys = sorted(set().union(*(set(r) for _, r in runs)), key=lambda k: (k[0] * k[1], k[2], k[3]))
    ratios = [f"{b}/{builds[0]}" for b in builds[1:]]
    if not any(r for _, r in runs):
        print(f"no {a.metric} figures for {a.variant} in these runs")
        return
    print(f"{a.metric}: size mask r | " + " | ".join([label for label, _ in runs] + ratios))
    for k in keys:
        cells = []
        lows = {}
        for label, r in runs:
            if k in r:
                ms, tile = r[k]
                cells.append(f"{ms:.4f} {tile}")
                b = label.rsplit("-", 1)[0]
                lows[b] = min(lows.get(b, ms), ms)
            else:
                cells.append("-")
        line = f"{k[0]}x{k[1]} {k[2]} r={k[3]} | " + " | ".join(cells)
        for b in builds[1:]:
            line += f" | {lows[b] / lows[builds[0]]:.3f}" if b in lows and builds[0] in lows else " | -"
        print(line)


if __name__ == "__main__":
    main()
