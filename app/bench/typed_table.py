#!/usr/bin/env python3
"""One table from convlive-bench's typed mode (typed.json) and, where given, npp-peer's --types rows.

Per type and radius at each single-frame size: the copy of the same bytes, convlive's best (auto
and every variant and tile) and its ratio to the copy (target <= 1.3 for r = 1..16), NPP's best
(row + column or its fixed Gauss filter) and convlive's speed-up over it (NPP ms / convlive ms).
Then the batches: MPix/s and the share of the single frame's (targets: 95% for 16x1920x1080, 80%
for 64x256x256), beside the copy kernel's own share (what per-launch costs leave). A target missed is marked with "!".

    python3 app/bench/typed_table.py --typed OUT/typed.json [--npp OUT/npp-typed.json] [--out OUT/typed.md]
"""

from __future__ import annotations

import argparse
import json
import sys


def load(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"typed_table.py: cannot read {path}: {e}")


def npp_best(npp_rows: list, type_name: str, width: int, height: int, radius: int):
    """(ms, impl) of NPP's fastest timed row for a convlive type ("u8x4"), size and radius; None if none."""
    best = None
    for r in npp_rows:
        if (r.get("convlive_type") != type_name or r.get("width") != width or r.get("height") != height
                or r.get("radius") != radius or r.get("error") is not None or r.get("median_ms") is None):
            continue
        if best is None or r["median_ms"] < best[0]:
            best = (r["median_ms"], r.get("impl", "npp"))
    return best


def fmt(v, spec: str = ".4f") -> str:
    return "-" if v is None else format(v, spec)


def table(typed: dict, npp: dict | None) -> str:
    npp_rows = (npp or {}).get("results", [])
    summary = typed.get("summary", [])
    lines = [
        "| type | size | r | copy ms | convlive best ms | best | x copy | NPP best ms | NPP | speed-up over NPP |",
        "|---|---|---:|---:|---:|---|---:|---:|---|---:|",
    ]
    for s in summary:
        if s["batch"] != 1:
            continue
        t = f'{s["type"]}x{s["channels"]}'
        ratio = s.get("ratio_to_copy")
        mark = "!" if s.get("meets_ratio_target") is False else ""
        nb = npp_best(npp_rows, t, s["width"], s["height"], s["radius"])
        speedup = nb[0] / s["best_ms"] if nb and s["best_ms"] else None
        best = f'{s["best_variant"]} {s.get("best_tile") or ""}'.strip()
        lines.append(
            f'| {t} | {s["width"]}x{s["height"]} | {s["radius"]} | {fmt(s.get("copy_ms"))} | {fmt(s["best_ms"])} | '
            f'{best} | {fmt(ratio, ".2f")}{mark} | {fmt(nb[0] if nb else None)} | {nb[1] if nb else "-"} | '
            f'{fmt(speedup, ".2f")} |')
    batches = [s for s in summary if s["batch"] != 1]
    if batches:
        lines += [
            "",
            "| type | batch | r | best ms | best | MPix/s | x copy | share of single frame | target | copy's share |",
            "|---|---|---:|---:|---|---:|---:|---:|---:|---:|",
        ]
        for s in batches:
            share = s.get("share_of_single")
            copy_share = s.get("copy_share_of_single")
            mark = "!" if s.get("meets_share_target") is False else ""
            target = s.get("share_target")
            best = f'{s["best_variant"]} {s.get("best_tile") or ""}'.strip()
            lines.append(
                f'| {s["type"]}x{s["channels"]} | {s["batch"]}x{s["width"]}x{s["height"]} | {s["radius"]} | '
                f'{fmt(s["best_ms"])} | {best} | {fmt(s.get("mpix_s"), ".0f")} | {fmt(s.get("ratio_to_copy"), ".2f")} | '
                f'{"-" if share is None else format(100 * share, ".1f") + "%"}{mark} | '
                f'{"-" if target is None else format(100 * target, ".0f") + "%"} | '
                f'{"-" if copy_share is None else format(100 * copy_share, ".1f") + "%"} |')
    lines.append("")
    lines.append("x copy: convlive's best over a copy kernel of the same bytes (target <= 1.3 for r = 1..16); "
                 "speed-up: NPP ms / convlive ms; ! = misses its target; copy's share: the copy kernel's own "
                 "batch throughput over its single frame's, the ceiling that per-launch costs leave a batch.")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--typed", required=True, help="convlive-bench's typed.json")
    ap.add_argument("--npp", help="npp-peer --types's JSON")
    ap.add_argument("--out", help="also write the table here (Markdown)")
    a = ap.parse_args()
    typed = load(a.typed)
    if "summary" not in typed:
        sys.exit(f"typed_table.py: {a.typed} has no summary: is it convlive-bench --types's typed.json?")
    text = table(typed, load(a.npp) if a.npp else None)
    sys.stdout.write(text)
    if a.out:
        with open(a.out, "w", encoding="utf-8") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
