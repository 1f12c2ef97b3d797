#!/usr/bin/env python3
"""Throughput of the pipeline against its source alone (a machine with an NVIDIA GPU), by steady rates.

For each source (the gradient test pattern as I420 and as RGBA; H.264 MP4 files decoded on the
CPU and on NVDEC) and each size, runs `convlive run --decode-only` (the source alone), the
pipeline with the null sink, and the pipeline with every frame brought back to host memory
(`--sink download`), interleaved, REPEATS times. Rates are the report's fps_steady (frames per
second after the first 30: page-locking the pool's buffers and loading kernels are start-up
costs, not throughput) and wall-clock fps beside them. Writes decode.json and decode.md to OUT_DIR.

  OUT_DIR=decode-results CONVLIVE_EXE=build/convlive app/bench/decode-bench.py
Environment: REPEATS (2), H264_1080 and H264_4K (paths of H.264 files; skipped when absent),
FILTER ("--mask gaussian --radius 4"), SIZES of the pattern ("1920x1080:6000 3840x2160:2000", frames).
"""
import json, os, statistics, subprocess, sys

exe = os.environ.get("CONVLIVE_EXE", "build/convlive")
out = os.environ.get("OUT_DIR", "decode-results")
repeats = int(os.environ.get("REPEATS", "2"))
filt = os.environ.get("FILTER", "--mask gaussian --radius 4").split()
os.makedirs(out, exist_ok=True)

sources = []
sizes = os.environ.get("SIZES", "1920x1080:6000 3840x2160:2000").split()
for size, frames in (x.split(":") for x in sizes):
    frames = int(frames)
    pat = ["--pattern", "gradient", "--size", size, "--frames", str(frames)]
    sources.append((f"pattern I420 {size}", pat + ["--input-format", "auto"]))
    sources.append((f"pattern RGBA {size}", pat[:-1] + [str(frames // 2), "--input-format", "rgba"]))
for env, size in (("H264_1080", "1920x1080"), ("H264_4K", "3840x2160")):
    path = os.environ.get(env)
    if path and os.path.exists(path):
        for dec in ("cpu", "nvdec"):
            sources.append((f"H.264 {dec} {size}", ["--input", path, "--decoder", dec, "--frames", "300"]))

modes = [("source alone", ["--decode-only"]), ("null sink", filt), ("download", filt + ["--sink", "download"])]
runs = []
for rep in range(repeats):
    for name, args in sources:
        for mode, extra in modes:
            report = os.path.join("/tmp", "decode-bench.json")
            if os.path.exists(report):
                os.remove(report)
            p = subprocess.Popen([exe, "run"] + args + extra + ["--report", report],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            _, status, usage = os.wait4(p.pid, 0)
            text = p.stdout.read()
            r = {"source": name, "mode": mode, "rep": rep, "rc": os.waitstatus_to_exitcode(status),
                 "cpu_s": usage.ru_utime + usage.ru_stime}
            if os.path.exists(report):
                d = json.load(open(report))
                r.update({k: d.get(k) for k in ("fps", "fps_steady", "frames", "first_frame_ms", "page_locks", "wall_s")})
                r["decoder"] = d.get("source", {}).get("decoder")
                r["frames_on_device"] = d.get("source", {}).get("frames_on_device")
                r["stages"] = {s["name"]: s["average_ms"] for s in d.get("stages", [])}
            else:
                r["output"] = text[-1500:]
            runs.append(r)
            print(json.dumps(r), flush=True)
json.dump(runs, open(os.path.join(out, "decode.json"), "w"), indent=1)

def med(xs):
    xs = [x for x in xs if x]
    return statistics.median(xs) if xs else float("nan")

rows = ["| source | decoder | mode | steady fps (runs) | vs source alone | fps incl. start | CPU ms/frame | GPU stages ms | first frame ms |",
        "|---|---|---|---|---:|---:|---:|---:|---:|"]
for name, _ in sources:
    alone = med(r.get("fps_steady") for r in runs if r["source"] == name and r["mode"] == "source alone")
    for mode, _ in modes:
        rs = [r for r in runs if r["source"] == name and r["mode"] == mode]
        if not rs:
            continue
        steady = [r.get("fps_steady") or 0 for r in rs]
        ok = all(r["rc"] == 0 for r in rs)
        st = rs[0].get("stages", {})
        gpu = sum(st.get(k, 0) for k in ("upload", "convert", "filter", "output"))
        cpu = med(1000 * r["cpu_s"] / r["frames"] for r in rs if r.get("frames"))
        dec = (rs[0].get("decoder") or "") + (" (GPU memory)" if rs[0].get("frames_on_device") else "")
        ratio = med(steady) / alone if alone == alone and alone > 0 else float("nan")
        rows.append(f"| {name} | {dec} | {mode}{'' if ok else ' (FAILED)'} | {med(steady):.0f} ({', '.join(f'{x:.0f}' for x in steady)}) | "
                    f"{ratio:.2f} | {med(r.get('fps') for r in rs):.0f} | {cpu:.2f} | {gpu:.3f} | {med(r.get('first_frame_ms') for r in rs):.1f} |")
open(os.path.join(out, "decode.md"), "w").write("\n".join(rows) + "\n")
print("\n".join(rows))
