#!/usr/bin/env python3
"""Plot convlive against its peers: throughput versus mask radius.

Reads the JSON written by convlive-bench (``--convlive``) and, optionally, the
one written by peers.py (``--peers``), keeps the rows of one frame size and
one mask (default 3840x2160, "gaussian"; the largest size present if the one
asked for is missing) and writes to ``--out-dir``:

* ``mpix_vs_radius.png``: MPix/s (log axis) against radius (log2 axis), one
  solid line per convlive variant (its best tile at each radius), one dashed
  line per peer, and a grey dotted line for the floor implied by the copy
  bandwidth (width*height/1e6 / floor_ms*1e3), in the manner of figure 13 of
  NVIDIA's "Image Convolution with CUDA" (separable convolution) whitepaper;
* ``summary.csv`` and ``summary.md``: per radius, the best convlive variant
  and tile with its time, the fastest peer with its time, how many times
  faster convlive is (peer_ms / convlive_ms), the floor and convlive_ms /
  floor_ms. The markdown table is printed to stdout as well.

Rows with a non-null "error" or without "median_ms" are skipped. Without
``--peers`` the peer lines and columns are left out; radii missing from one
file leave gaps (empty cells) rather than errors.

Usage (from the repository root):

    python3 app/bench/plot.py --convlive convlive.json --peers peers.json \\
        --out-dir bench-out [--size 3840x2160] [--mask gaussian]
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
from collections import defaultdict
from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)
from matplotlib.ticker import NullFormatter  # noqa: E402

from frame_size import parse_size  # noqa: E402

FIG_SIZE_IN = (10.0, 6.25)      # 1200 x 750 px at DPI
DPI = 120
RADIUS_TICKS = [1, 2, 4, 8, 16, 32]


@dataclass
class Point:
    """One timed configuration at one radius."""

    label: str          # convlive variant or peer impl
    tile: str           # convlive tile, "" for peers
    median_ms: float
    mpix_s: float
    floor_ms: float | None


# ------------------------------------------------------------------- loading

def load_json(path: str) -> dict:
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def usable_rows(document: dict | None, mask: str) -> list[dict]:
    """Rows of `mask` that ran: no error, a positive median and a size."""
    if not document:
        return []
    rows = []
    for row in document.get("results", []):
        if row.get("error") is not None or row.get("mask") != mask:
            continue
        median = row.get("median_ms")
        if not isinstance(median, (int, float)) or median <= 0:
            continue
        if not all(isinstance(row.get(k), int)
                   for k in ("width", "height", "radius")):
            continue
        rows.append(row)
    return rows


def choose_size(rows: list[dict], wanted: tuple[int, int]) -> tuple[int, int]:
    sizes = {(row["width"], row["height"]) for row in rows}
    if wanted in sizes:
        return wanted
    largest = max(sizes, key=lambda s: (s[0] * s[1], s))
    print(f"note: no rows at {wanted[0]}x{wanted[1]}, using the largest size "
          f"present, {largest[0]}x{largest[1]}", file=sys.stderr)
    return largest


def mpix_per_s(width: int, height: int, ms: float) -> float:
    return width * height / 1e6 / (ms / 1e3)


def to_point(row: dict, label: str, tile: str) -> Point:
    median = float(row["median_ms"])
    floor = row.get("floor_ms")
    floor = float(floor) if isinstance(floor, (int, float)) and floor > 0 \
        else None
    return Point(label, tile, median,
                 mpix_per_s(row["width"], row["height"], median), floor)


def convlive_label(row: dict) -> str:
    return str(row.get("variant") or row.get("impl") or "convlive")


def best_by_label(points: list[tuple[int, Point]]
                  ) -> dict[str, dict[int, Point]]:
    """For each label and radius, the fastest point (best tile)."""
    best: dict[str, dict[int, Point]] = defaultdict(dict)
    for radius, point in points:
        current = best[point.label].get(radius)
        if current is None or point.median_ms < current.median_ms:
            best[point.label][radius] = point
    return dict(best)


def collect(rows: list[dict], size: tuple[int, int], is_convlive: bool
            ) -> dict[str, dict[int, Point]]:
    points = []
    for row in rows:
        if (row["width"], row["height"]) != size:
            continue
        if is_convlive:
            label, tile = convlive_label(row), str(row.get("tile") or "")
        else:
            label, tile = str(row.get("impl") or "peer"), ""
        points.append((row["radius"], to_point(row, label, tile)))
    return best_by_label(points)


def floor_by_radius(convlive: dict[str, dict[int, Point]]) -> dict[int, float]:
    """Smallest floor_ms reported at each radius (the copy-bandwidth bound)."""
    floors: dict[int, float] = {}
    for by_radius in convlive.values():
        for radius, point in by_radius.items():
            if point.floor_ms is not None:
                floors[radius] = min(point.floor_ms,
                                     floors.get(radius, math.inf))
    return floors


def fastest_at(series: dict[str, dict[int, Point]], radius: int
               ) -> Point | None:
    candidates = [by_radius[radius] for by_radius in series.values()
                  if radius in by_radius]
    return min(candidates, key=lambda p: p.median_ms, default=None)


# ------------------------------------------------------------------ plotting

def plot(path: str, size: tuple[int, int], title: str,
         convlive: dict[str, dict[int, Point]],
         peers: dict[str, dict[int, Point]],
         floors: dict[int, float]) -> None:
    width, height = size
    fig, ax = plt.subplots(figsize=FIG_SIZE_IN, dpi=DPI)
    colours = plt.get_cmap("tab10").colors
    peer_colours = plt.get_cmap("Dark2").colors

    for index, (label, by_radius) in enumerate(sorted(convlive.items())):
        radii = sorted(by_radius)
        ax.plot(radii, [by_radius[r].mpix_s for r in radii], marker="o",
                linestyle="-", linewidth=2, color=colours[index % 10],
                label=f"convlive {label} (best tile)")
    for index, (label, by_radius) in enumerate(sorted(peers.items())):
        radii = sorted(by_radius)
        ax.plot(radii, [by_radius[r].mpix_s for r in radii], marker="s",
                markersize=4, linestyle="--", linewidth=1.3,
                color=peer_colours[index % len(peer_colours)], label=label)
    if floors:
        radii = sorted(floors)
        ax.plot(radii, [mpix_per_s(width, height, floors[r]) for r in radii],
                linestyle=":", linewidth=2, color="grey",
                label="floor (copy bandwidth)")

    all_radii = sorted({r for series in (convlive, peers)
                        for by_radius in series.values() for r in by_radius}
                       | set(floors))
    ticks = sorted(set(RADIUS_TICKS) | set(all_radii))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(t) for t in ticks])
    ax.xaxis.set_minor_formatter(NullFormatter())
    if all_radii:
        ax.set_xlim(min(all_radii) / 1.25, max(all_radii) * 1.25)
    ax.set_xlabel("mask radius r (mask is (2r+1) x (2r+1))")
    ax.set_ylabel("throughput, MPix/s (log)")
    ax.set_title(title, fontsize=11)
    ax.grid(True, which="major", alpha=0.4)
    ax.grid(True, which="minor", axis="y", alpha=0.15)

    handles, labels = ax.get_legend_handles_labels()
    columns = 3
    legend_rows = max(1, math.ceil(len(labels) / columns))
    bottom = 0.11 + 0.03 * legend_rows
    fig.subplots_adjust(left=0.09, right=0.97, top=0.9, bottom=bottom)
    fig.legend(handles, labels, loc="lower center", ncol=columns,
               fontsize=8.5, frameon=False, bbox_to_anchor=(0.5, 0.005))
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


# ------------------------------------------------------------------- summary

def summary_rows(convlive: dict[str, dict[int, Point]],
                 peers: dict[str, dict[int, Point]] | None,
                 floors: dict[int, float]) -> list[dict]:
    """One dict per radius; values are None where there is nothing."""
    radii = sorted({r for series in (convlive, peers or {})
                    for by_radius in series.values() for r in by_radius})
    rows = []
    for radius in radii:
        best = fastest_at(convlive, radius)
        row = {"radius": radius,
               "convlive_best": f"{best.label} {best.tile}".strip()
               if best else None,
               "convlive_ms": best.median_ms if best else None}
        if peers is not None:
            peer = fastest_at(peers, radius)
            row["fastest_peer"] = peer.label if peer else None
            row["peer_ms"] = peer.median_ms if peer else None
            row["x_faster"] = (peer.median_ms / best.median_ms
                               if peer and best else None)
        floor = floors.get(radius)
        row["floor_ms"] = floor
        row["convlive_over_floor"] = (best.median_ms / floor
                                      if best and floor else None)
        rows.append(row)
    return rows


COLUMN_TITLES = {
    "radius": "radius",
    "convlive_best": "convlive best (variant tile)",
    "convlive_ms": "convlive ms",
    "fastest_peer": "fastest peer",
    "peer_ms": "peer ms",
    "x_faster": "x faster (peer/convlive)",
    "floor_ms": "floor ms",
    "convlive_over_floor": "convlive/floor",
    "mask": "mask",
}


def format_cell(key: str, value) -> str:
    if value is None:
        return "-"
    if key in ("x_faster", "convlive_over_floor"):
        return f"{value:.2f}"
    if key.endswith("_ms"):
        return f"{value:.4g}"
    return str(value)


def to_markdown(rows: list[dict], heading: str) -> str:
    if not rows:
        return f"{heading}\n\n(no rows)\n"
    keys = list(rows[0])
    lines = [heading, "",
             "| " + " | ".join(COLUMN_TITLES[k] for k in keys) + " |",
             "|" + "|".join("---:" if k != "convlive_best"
                            and k != "fastest_peer" else "---"
                            for k in keys) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(format_cell(k, row[k]) for k in keys)
                     + " |")
    return "\n".join(lines) + "\n"


def write_csv(path: str, rows: list[dict]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        if not rows:
            return
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        for row in rows:
            writer.writerow({k: ("" if v is None else
                                 f"{v:.6g}" if isinstance(v, float) else v)
                             for k, v in row.items()})


# ---------------------------------------------------------------------- main

def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Plot convlive-bench results against peers.py results.")
    parser.add_argument("--convlive", required=True,
                        help="JSON written by convlive-bench")
    parser.add_argument("--peers", nargs="+", default=[],
                        help="JSON files written by peers.py and npp-peer "
                             "(optional; their rows are pooled)")
    parser.add_argument("--out-dir", required=True, help="output folder")
    parser.add_argument("--size", type=parse_size, default=(3840, 2160),
                        help="frame size WxH (default 3840x2160; falls back "
                             "to the largest present)")
    parser.add_argument("--mask", default="gaussian",
                        help="mask kind to plot (default gaussian)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    convlive_doc = load_json(args.convlive)
    peers_doc = None
    for path in args.peers:
        doc = load_json(path)
        if peers_doc is None:
            peers_doc = doc
        else:
            peers_doc = dict(peers_doc,
                             results=peers_doc.get("results", [])
                             + doc.get("results", []))

    convlive_rows = usable_rows(convlive_doc, args.mask)
    if not convlive_rows:
        print(f"error: no usable {args.mask!r} rows in {args.convlive}",
              file=sys.stderr)
        return 1
    size = choose_size(convlive_rows, args.size)
    convlive = collect(convlive_rows, size, is_convlive=True)
    floors = floor_by_radius(convlive)

    peers = None
    if peers_doc is not None:
        peers = collect(usable_rows(peers_doc, args.mask), size,
                        is_convlive=False)
        if not peers:
            print(f"note: {args.peers} has no usable {args.mask!r} rows at "
                  f"{size[0]}x{size[1]}", file=sys.stderr)

    os.makedirs(args.out_dir, exist_ok=True)
    device = convlive_doc.get("device") or "unknown device"
    date = convlive_doc.get("date") or ""
    size_text = f"{size[0]}x{size[1]}"
    title = f"{device}, {size_text} RGBA8, {args.mask} mask, clamp border"
    if date:
        title += f"\nconvlive-bench {date}"
    if peers_doc and peers_doc.get("date"):
        title += f"; peers {peers_doc['date']}"

    png = os.path.join(args.out_dir, "mpix_vs_radius.png")
    plot(png, size, title, convlive, peers or {}, floors)

    rows = summary_rows(convlive, peers, floors)
    heading = (f"### convlive vs peers: {device}, {size_text}, {args.mask} "
               f"mask ({date or 'undated'})")
    markdown = to_markdown(rows, heading)
    # The non-separable 2D rows ("custom" masks) follow in the same files,
    # marked by a mask column.
    for row in rows:
        row["mask"] = args.mask
    custom_rows = usable_rows(convlive_doc, "custom")
    if custom_rows and args.mask != "custom":
        custom = collect(custom_rows, size, is_convlive=True)
        custom_peers = (collect(usable_rows(peers_doc, "custom"), size,
                                is_convlive=False)
                        if peers_doc is not None else None)
        rows2d = summary_rows(custom, custom_peers, floor_by_radius(custom))
        for row in rows2d:
            row["mask"] = "custom (2D)"
        markdown += "\n" + to_markdown(
            [{k: v for k, v in r.items() if k != "mask"} for r in rows2d],
            f"### non-separable 2D masks (custom), {size_text}")
        rows += rows2d
    write_csv(os.path.join(args.out_dir, "summary.csv"), rows)
    with open(os.path.join(args.out_dir, "summary.md"), "w",
              encoding="utf-8") as handle:
        handle.write(markdown)
    print(markdown)
    print(f"wrote {png}, summary.csv and summary.md in {args.out_dir}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
