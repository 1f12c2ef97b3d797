#!/usr/bin/env python3
"""How much of its large-frame throughput each variant keeps on a smaller frame.

Issue 9's target: at 1080p a variant keeps >= 80% of its 4K throughput (MPix/s),
i.e. small frames fill the GPU. Reads the JSON written by convlive-bench and,
for every (variant, mask, radius) timed at both sizes, takes each size's best
tile and divides the small frame's MPix/s by the large one's, twice: with CUDA
events around each launch (``median_ms``) and back to back (``back_to_back_ms``:
a graph of launches with no events between them, the rate a video pipeline
sustains). Writes ``shares.md`` (a table, also printed) and ``shares.csv`` to
``--out-dir``. Rows with an error or without a time are skipped; a case timed
at one size only is left out.

Usage (from the repository root):

    python3 app/bench/shares.py --convlive convlive.json --out-dir OUT \\
        [--small 1920x1080] [--large 3840x2160]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys

from frame_size import parse_size

COLUMNS = ["variant", "mask", "radius", "small_tile", "small_b2b_ms", "large_tile", "large_b2b_ms",
           "share_b2b", "small_events_ms", "large_events_ms", "share_events"]


def best(rows: list[dict], key: str) -> dict | None:
    """The row with the smallest positive `key`, or None."""
    timed = [r for r in rows if isinstance(r.get(key), (int, float)) and r[key] > 0]
    return min(timed, key=lambda r: r[key]) if timed else None


def shares(results: list[dict], small: tuple[int, int], large: tuple[int, int]) -> list[dict]:
    cases: dict[tuple[str, str, int], dict[tuple[int, int], list[dict]]] = {}
    for row in results:
        if row.get("error") or "variant" not in row:
            continue
        size = (row.get("width"), row.get("height"))
        if size not in (small, large):
            continue
        case = (row["variant"], row.get("mask", ""), int(row.get("radius", 0)))
        cases.setdefault(case, {}).setdefault(size, []).append(row)
    pixels = {small: small[0] * small[1], large: large[0] * large[1]}
    out = []
    for (variant, mask, radius), by_size in sorted(cases.items()):
        if small not in by_size or large not in by_size:
            continue
        line = {"variant": variant, "mask": mask, "radius": radius}
        for key, name in (("back_to_back_ms", "b2b"), ("median_ms", "events")):
            s, l = best(by_size[small], key), best(by_size[large], key)
            if s is None or l is None:
                line[f"share_{name}"] = None
                continue
            line[f"small_{name}_ms"], line[f"large_{name}_ms"] = s[key], l[key]
            if name == "b2b":
                line["small_tile"], line["large_tile"] = s.get("tile", ""), l.get("tile", "")
            line[f"share_{name}"] = (pixels[small] / s[key]) / (pixels[large] / l[key])
        if line.get("share_b2b") is None and line.get("share_events") is None:
            continue
        out.append(line)
    return out


def cell(value, digits: int = 4) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def percent(value) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def to_markdown(rows: list[dict], device: str, small: tuple[int, int], large: tuple[int, int]) -> str:
    s, l = f"{small[0]}x{small[1]}", f"{large[0]}x{large[1]}"
    lines = [f"### {s}'s share of {l}'s throughput (best tile each): {device}", "",
             f"| variant | mask | r | back to back {s} ms (tile) | {l} ms (tile) | share | "
             f"events {s} ms | {l} ms | share |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(
            f"| {r['variant']} | {r['mask']} | {r['radius']} | "
            f"{cell(r.get('small_b2b_ms'))} ({r.get('small_tile', '-')}) | "
            f"{cell(r.get('large_b2b_ms'))} ({r.get('large_tile', '-')}) | {percent(r.get('share_b2b'))} | "
            f"{cell(r.get('small_events_ms'))} | {cell(r.get('large_events_ms'))} | "
            f"{percent(r.get('share_events'))} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--convlive", required=True, help="JSON written by convlive-bench")
    parser.add_argument("--out-dir", required=True, help="output folder")
    parser.add_argument("--small", type=parse_size, default=(1920, 1080), help="the small frame (1920x1080)")
    parser.add_argument("--large", type=parse_size, default=(3840, 2160), help="the large frame (3840x2160)")
    args = parser.parse_args(argv)
    try:
        with open(args.convlive, encoding="utf-8") as handle:
            document = json.load(handle)
    except (OSError, ValueError) as e:
        print(f"shares.py: cannot read {args.convlive}: {e}", file=sys.stderr)
        return 1
    rows = shares(document.get("results", []), args.small, args.large)
    if not rows:
        print(f"shares.py: {args.convlive} has no case timed at both {args.small[0]}x{args.small[1]} and "
              f"{args.large[0]}x{args.large[1]}: run convlive-bench with --sizes naming both", file=sys.stderr)
        return 1
    markdown = to_markdown(rows, document.get("device") or "unknown device", args.small, args.large)
    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, "shares.csv"), "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        for r in rows:
            writer.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in COLUMNS})
    with open(os.path.join(args.out_dir, "shares.md"), "w", encoding="utf-8") as handle:
        handle.write(markdown)
    print(markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
