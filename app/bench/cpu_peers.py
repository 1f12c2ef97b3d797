#!/usr/bin/env python3
"""OpenCV on the frames and masks convlive-cpu-bench wrote (--frames-dir), on all cores.

  cpu_peers.py time  --frames-dir DIR --out opencv.json [--repeats 50] [--warmup 5]
  cpu_peers.py table --convlive c1.json [c2.json ...] --opencv o1.json [o2.json ...] --md results.md
                     [--machine TEXT]

time: for every size x mask x border convlive timed, GaussianBlur and sepFilter2D (gaussian, with
convlive's own factors and sigma) or filter2D (the 2D mask, as correlation like convlive), the
median of --repeats calls after --warmup, into a preallocated output; each output is compared
with cpu-simd's (max abs difference, so a table row never compares different work).
table: the medians side by side and the ratio convlive / OpenCV (below 1: convlive is faster); with
several rounds (files) per side, each case's lowest median (the round least disturbed by other work
on a shared machine).
"""
import argparse
import json
import os
import statistics
import sys
import time

BORDERS = {"clamp": "BORDER_REPLICATE", "mirror": "BORDER_REFLECT_101", "zero": "BORDER_CONSTANT"}


def time_call(fn, warmup, repeats):
    for _ in range(warmup):
        fn()
    ms = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        ms.append((time.perf_counter() - t0) * 1e3)
    ms.sort()
    return {"median_ms": statistics.median(ms), "min_ms": ms[0], "p90_ms": ms[min(len(ms) - 1, len(ms) * 9 // 10)],
            "runs": repeats}


def run_time(args):
    import cv2
    import numpy as np

    threads = os.cpu_count()
    cv2.setNumThreads(threads)
    masks = json.load(open(os.path.join(args.frames_dir, "masks.json")))
    convlive = json.load(open(args.convlive))["results"]
    cases = sorted({(r["width"], r["height"], r["kind"], r["radius"], r["border"]) for r in convlive},
                   key=lambda c: (c[0] * c[1], c[2], c[3], c[4]))
    frames, results = {}, []
    for w, h, kind, radius, border in cases:
        if (w, h) not in frames:
            raw = np.fromfile(os.path.join(args.frames_dir, f"frame-{w}x{h}.rgba"), dtype=np.uint8)
            frames[(w, h)] = raw.reshape(h, w, 4)
        src = frames[(w, h)]
        dst = np.empty_like(src)
        m = next(m for m in masks if m["kind"] == kind and m["radius"] == radius)
        n = 2 * radius + 1
        bt = getattr(cv2, BORDERS[border])
        calls = []
        if kind == "gaussian":
            sigma = m["sigma"]
            calls.append(("GaussianBlur", lambda: cv2.GaussianBlur(src, (n, n), sigma, dst=dst, sigmaY=sigma,
                                                                   borderType=bt)))
            kx = np.array(m["row"], dtype=np.float32).reshape(1, n)
            ky = np.array(m["col"], dtype=np.float32).reshape(n, 1)
            calls.append(("sepFilter2D", lambda: cv2.sepFilter2D(src, -1, kx, ky, dst=dst, borderType=bt)))
        else:
            k = np.array(m["weights"], dtype=np.float32).reshape(n, n)
            calls.append(("filter2D", lambda: cv2.filter2D(src, -1, k, dst=dst, borderType=bt)))
        for name, fn in calls:
            t = time_call(fn, args.warmup, args.repeats)
            key = f"{w}x{h}_{kind}_r={radius}_{border}"
            diff = None
            ours = os.path.join(args.frames_dir, f"out-{key}.rgba")
            if os.path.exists(ours):
                fn()
                mine = np.fromfile(ours, dtype=np.uint8).reshape(h, w, 4)
                diff = int(np.abs(mine.astype(np.int16) - dst.astype(np.int16)).max())
            row = {"size": f"{w}x{h}", "width": w, "height": h, "kind": kind, "radius": radius, "border": border,
                   "function": name, "max_abs_diff_vs_cpu_simd": diff, **t}
            results.append(row)
            print(f"{w}x{h} {kind} r={radius} {border:6s} {name:13s} median {t['median_ms']:8.3f} ms  "
                  f"min {t['min_ms']:8.3f}  p90 {t['p90_ms']:8.3f}  max |diff| vs cpu-simd {diff}", flush=True)
    json.dump({"tool": "opencv", "version": cv2.__version__, "threads": cv2.getNumThreads(),
               "repeats": args.repeats, "warmup": args.warmup, "results": results}, open(args.out, "w"), indent=2)


def lowest_medians(paths, key_fields, label):
    docs = [json.load(open(p)) for p in paths]
    best = {}
    for doc in docs:
        for r in doc["results"]:
            key = tuple(r[f] for f in key_fields)
            if key not in best or r["median_ms"] < best[key]["median_ms"]:
                best[key] = dict(r, rounds=len(docs))
    return docs[0], best


def run_table(args):
    case = ("width", "height", "kind", "radius", "border")
    convlive, ours = lowest_medians(args.convlive, case + ("variant",), "convlive")
    opencv, theirs = lowest_medians(args.opencv, case + ("function",), "opencv")
    lines = []
    if args.machine:
        lines += [f"Machine: {args.machine}.", ""]
    lines += [f"convlive-cpu-bench (kernels: {convlive['simd_target']}, {convlive['hardware_threads']} hardware "
              f"threads) and OpenCV {opencv['version']} ({opencv['threads']} threads) on the same frames (random "
              f"RGBA8, all four channels filtered) and weights, one after the other, {len(args.convlive)} round(s) "
              f"each, alternating. Each figure: the median of {convlive['repeats']} calls (cpu reference: "
              f"{convlive['reference_repeats']}) after warm-up, in ms, the lowest of the rounds. Ratio = cpu-simd / "
              f"OpenCV: below 1, cpu-simd is faster. max diff: the largest difference of OpenCV's output from "
              f"cpu-simd's, in LSB.", "",
              "| size | mask | border | cpu-simd ms | cpu (reference) ms | OpenCV | OpenCV ms | ratio | max diff |",
              "|---|---|---|---:|---:|---|---:|---:|---:|"]
    for key, o in theirs.items():
        simd = ours.get(key[:5] + ("cpu-simd",))
        ref = ours.get(key[:5] + ("cpu",))
        cells = [o["size"], f"{o['kind']} r={o['radius']}", o["border"],
                 f"{simd['median_ms']:.3f}" if simd else "-", f"{ref['median_ms']:.1f}" if ref else "-",
                 o["function"], f"{o['median_ms']:.3f}",
                 f"{simd['median_ms'] / o['median_ms']:.2f}" if simd else "-", str(o["max_abs_diff_vs_cpu_simd"])]
        lines.append("| " + " | ".join(cells) + " |")
    text = "\n".join(lines) + "\n"
    open(args.md, "w").write(text)
    sys.stdout.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("time")
    t.add_argument("--frames-dir", required=True)
    t.add_argument("--convlive", required=True, help="convlive-cpu-bench's JSON: which cases to time")
    t.add_argument("--out", required=True)
    t.add_argument("--repeats", type=int, default=50)
    t.add_argument("--warmup", type=int, default=5)
    tb = sub.add_parser("table")
    tb.add_argument("--convlive", required=True, nargs="+")
    tb.add_argument("--opencv", required=True, nargs="+")
    tb.add_argument("--md", required=True)
    tb.add_argument("--machine", default="")
    args = ap.parse_args()
    run_time(args) if args.cmd == "time" else run_table(args)


if __name__ == "__main__":
    main()
