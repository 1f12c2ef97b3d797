#!/usr/bin/env python3
"""A model of how tensorstream's blocks fill the H200 (NOTES.md item 34), from item 32's probe.

Each block holds its slot (shared memory, registers) until its slowest warp ends; the hardware hands
blocks out in grid order to the first free slot. A warp's time is steps x its strip's time a step,
from the per-warp probe of one 4K launch (docs/perf/2026-11-21-h200-session10/probe-edge.txt: mean
warp time by strip over the frame's segments, steps = ceil(rows / 16) + B0 a segment). Orders:
  grid     the grid as launched today (block columns fastest, then segments)
  edge/N   the block columns holding an edge strip first, their segments tileH / N tall
           (tileH when that is not a multiple of 16, as the kernel's schedule does)
Prints the span (the model's kernel time) and the slots' average busy time, in microseconds.
It ignores that warps run faster when fewer share an SM, so the tail is pessimistic.
"""
import heapq
import math

SLOTS_PER_SM = {1: 6, 4: 2}  # 4-warp blocks an SM holds at r <= 8 (64x64: 24 warps) and r = 32 (8 warps)
SMS = 132


def span(durations, slots):
    free = [0.0] * slots
    end = 0.0
    for d in durations:
        t = heapq.heappop(free)
        heapq.heappush(free, t + d)
        end = max(end, t + d)
    return end, sum(durations) / slots


def steps(rows, b0):
    return math.ceil(rows / 16) + b0


def model(width, height, tile_w, tile_h, b0, per_step, order, div=1):
    cols, strips, warps = math.ceil(width / tile_w), math.ceil(width / 16), tile_w // 16

    def strip_step(s):
        return per_step.get(s, per_step.get(s - strips, per_step["interior"]))

    def block(bx, rows):
        return max(strip_step(s) for s in range(bx * warps, min(strips, (bx + 1) * warps))) * steps(rows, b0)

    segments = [min(tile_h, height - y) for y in range(0, height, tile_h)]
    if order == "grid":
        return span([block(bx, r) for r in segments for bx in range(cols)], SLOTS_PER_SM[b0] * SMS)
    slow = per_step["interior"] * 1.2
    edge = [bx for bx in range(cols)
            if any(strip_step(s) > slow for s in range(bx * warps, min(strips, (bx + 1) * warps)))]
    rows = tile_h // div if (tile_h // div) % 16 == 0 else tile_h
    edge_segments = [min(rows, height - y) for y in range(0, height, rows)]
    order_ = [block(bx, r) for r in edge_segments for bx in edge]
    order_ += [block(bx, r) for r in segments for bx in range(cols) if bx not in edge]
    return span(order_, SLOTS_PER_SM[b0] * SMS)


def per_step_from_probe(times, interior, tile_h, b0, height=2160):
    segs = [min(tile_h, height - y) for y in range(0, height, tile_h)]
    mean_steps = sum(steps(r, b0) for r in segs) / len(segs)
    out = {s: t / mean_steps for s, t in times.items()}
    out["interior"] = interior / mean_steps
    return out


# probe-edge.txt (the committed code, 4K): mean warp time (us) by strip; negative: from the right
R32 = per_step_from_probe({0: 60.9, 1: 48.7, 2: 26.7, -3: 26.0, -2: 48.7, -1: 61.5}, 25.4, 256, 4)
R1 = per_step_from_probe({0: 14.8, 1: 9.6, 2: 9.6, -3: 9.7, -2: 9.8, -1: 14.7}, 9.6, 64, 1)

if __name__ == "__main__":
    print("case                  order    span us  slots busy us   (probe: 4K r=32 span 94.5, r=1 35.8)")
    for name, w, h, tw, th, b0, per in [("4K r=32 64x256", 3840, 2160, 64, 256, 4, R32),
                                        ("4K r=32 64x128", 3840, 2160, 64, 128, 4, R32),
                                        ("4K r=1 64x64", 3840, 2160, 64, 64, 1, R1),
                                        ("4K r=1 64x128", 3840, 2160, 64, 128, 1, R1),
                                        ("1080p r=32 64x128", 1920, 1080, 64, 128, 4, R32),
                                        ("1080p r=32 64x64", 1920, 1080, 64, 64, 4, R32),
                                        ("1080p r=1 64x48", 1920, 1080, 64, 48, 1, R1),
                                        ("1080p r=1 64x64", 1920, 1080, 64, 64, 1, R1)]:
        for order, div in [("grid", 1), ("edge", 1), ("edge", 2), ("edge", 4)]:
            s, busy = model(w, h, tw, th, b0, per, order, div)
            label = order if order == "grid" else f"edge/{div}"
            print(f"{name:21s} {label:8s} {s:7.1f}  {busy:7.1f}")
