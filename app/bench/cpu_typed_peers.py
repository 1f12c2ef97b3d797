#!/usr/bin/env python3
"""convlive (the Python module, its CPU variant) against OpenCV on grey, RGB, 16-bit and float frames.

  cpu_typed_peers.py [--size 1280x720] [--rounds 3] [--repeats 30] [--variant cpu-simd] [--md OUT.md]

For each dtype (uint8, uint16, float32) x channels (1, 3) x mask, the same work on both sides, on
the same random frame, into a preallocated output, replicate border:
  - separable: convlive's custom row and column factors against cv2.sepFilter2D with them
    (a gaussian's taps, r = 1, 3, 8);
  - 2D: a random full-rank 5x5 and 9x9 mask against cv2.filter2D (correlation, as convlive).
Each case is timed --rounds times, interleaved with OpenCV's, each the median of --repeats calls
after 3 warm-up calls; the table keeps each side's lowest median (the round least disturbed by other
work on a shared machine) and their ratio (below 1: convlive is faster), and each output's largest
difference from OpenCV's (integers round the same exact sums; float32 differs in the last bits).
Needs numpy, cv2 (python3-opencv) and the convlive module (build/app/python on PYTHONPATH).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cpu_peers import time_call  # noqa: E402


def median_ms(fn, repeats):
    """The median of `repeats` timed calls after 3 warm-up calls (cpu_peers.py's timing)."""
    return time_call(fn, 3, repeats)["median_ms"]


def gaussian_taps(r):
    import math
    sigma = max(r / 2.0, 0.5)
    w = [math.exp(-(i * i) / (2 * sigma * sigma)) for i in range(-r, r + 1)]
    s = sum(w)
    return [x / s for x in w]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--size", default="1280x720")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--repeats", type=int, default=30)
    p.add_argument("--variant", default="cpu-simd")
    p.add_argument("--md")
    a = p.parse_args()
    try:
        w, h = (int(v) for v in a.size.lower().split("x"))
    except ValueError:
        sys.exit(f"cpu_typed_peers.py: --size '{a.size}' is not WxH")
    if a.rounds < 1 or a.repeats < 5:
        sys.exit("cpu_typed_peers.py: --rounds must be at least 1 and --repeats at least 5")
    try:
        import cv2
        import numpy as np
        import convlive
    except ImportError as e:
        sys.exit(f"cpu_typed_peers.py: {e}: install python3-numpy and python3-opencv, and put the convlive module "
                 "(build/app/python) on PYTHONPATH")

    rng = np.random.default_rng(1)
    cases = []
    for r in (1, 3, 8):
        cases.append((f"separable r={r}", "sep", gaussian_taps(r)))
    for n in (5, 9):
        k = rng.uniform(-0.3, 1.0, (n, n))
        cases.append((f"2D {n}x{n}", "2d", k / k.sum()))

    rows = []
    for dtype in (np.uint8, np.uint16, np.float32):
        for c in (1, 3):
            shape = (h, w) if c == 1 else (h, w, c)
            if dtype == np.float32:
                img = rng.random(shape, dtype=np.float32)
            else:
                img = rng.integers(0, np.iinfo(dtype).max + 1, shape, dtype=dtype)
            for name, kind, weights in cases:
                ours = np.empty_like(img)
                theirs = np.empty_like(img)
                if kind == "sep":
                    text = ",".join(f"{x:.9g}" for x in weights)
                    settings = dict(mask="custom", row_weights=text, col_weights=text, normalize=False)
                    kernel = np.array(weights, dtype=np.float32)

                    def peer():
                        cv2.sepFilter2D(img, -1, kernel, kernel, dst=theirs, borderType=cv2.BORDER_REPLICATE)
                else:
                    text = ";".join(",".join(f"{x:.9g}" for x in row) for row in weights)
                    settings = dict(mask="custom", weights=text, normalize=False)
                    kernel = np.array(weights, dtype=np.float32)

                    def peer():
                        cv2.filter2D(img, -1, kernel, dst=theirs, borderType=cv2.BORDER_REPLICATE)

                def mine():
                    convlive.filter(img, out=ours, border="clamp", variant=a.variant, **settings)

                best_ours, best_theirs = float("inf"), float("inf")
                for _ in range(a.rounds):
                    best_ours = min(best_ours, median_ms(mine, a.repeats))
                    best_theirs = min(best_theirs, median_ms(peer, a.repeats))
                diff = float(np.max(np.abs(ours.astype(np.float64) - theirs.astype(np.float64))))
                rows.append((np.dtype(dtype).name, c, name, best_ours, best_theirs, diff))
                print(f"{np.dtype(dtype).name:8s} x{c} {name:14s} convlive {best_ours:8.3f} ms  OpenCV "
                      f"{best_theirs:8.3f} ms  ratio {best_ours / best_theirs:5.2f}  max diff {diff:.3g}", flush=True)

    if a.md:
        with open(a.md, "w") as f:
            f.write(f"| dtype | channels | mask | convlive {a.variant} ms | OpenCV {cv2.__version__} ms | "
                    "convlive / OpenCV | max difference |\n|---|---:|---|---:|---:|---:|---:|\n")
            for d, c, name, o, t, diff in rows:
                f.write(f"| {d} | {c} | {name} | {o:.3f} | {t:.3f} | {o / t:.2f} | {diff:.3g} |\n")


if __name__ == "__main__":
    main()
