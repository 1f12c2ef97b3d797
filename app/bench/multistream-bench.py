#!/usr/bin/env python3
"""Many streams on many GPUs (a machine with NVIDIA GPUs and GStreamer's nvcodec plugin).

One gst-launch-1.0 process runs N branches, spread over G GPUs (branch b on GPU b % G):

    filesrc ! qtdemux ! h264parse ! nvh264[deviceK]dec [! convlivefilter cuda-device-id=K ...
        [! cudadownload]] ! fakesink sync=false

in three modes: decode only, filtered in CUDA memory, and filtered then brought to system memory.
The rate is every branch's frames over the time gst-launch reports from PLAYING to EOS ("Execution
ended after"), so start-up (plugin loading, CUDA contexts) is not counted. nvidia-smi samples each
GPU's SM and decoder utilisation during the run. Writes multistream.json and multistream.md
(frames/s of all streams, filtered against decode only, scaling over one GPU) to OUT_DIR.

  app/bench/multistream-bench.py --clip 1080p=clip1080.mp4 --clip 4k=clip4k.mp4 --streams 1,4,8,16 --gpus 1,2

Options: --frames F (the clips' frame count, default: asked of gst-discoverer-1.0, else 300),
--filter "mask=gaussian radius=4", --repeats R (default 1; the median is kept), --out-dir DIR,
--timeout S (a run, default 300), --processes one|per-gpu|per-stream (default one: every branch in
one gst-launch-1.0; per-gpu: one process for each GPU's branches, as docs/deploy.md advises;
per-stream: a process for each branch, so a context each on a GPU). With several processes, all
start together and the rate is every branch's frames over the longest process's PLAYING-to-EOS
time (a little low where they start apart: use clips of some seconds).
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time

MODES = ("decode", "cuda", "system")
LAYOUTS = ("one", "per-gpu", "per-stream")
MODE_NAMES = {"decode": "decode only", "cuda": "filtered, CUDA memory out",
              "system": "filtered, system memory out (cudadownload)"}


def decoder_name(gpu):
    """nvcodec registers the first GPU's decoder as nvh264dec, the others' as nvh264deviceKdec."""
    return "nvh264dec" if gpu == 0 else f"nvh264device{gpu}dec"


def branch(clip, gpu, mode, filt):
    """One branch of the pipeline description, as gst-launch-1.0 arguments."""
    parts = ["filesrc", f"location={clip}", "!", "qtdemux", "!", "h264parse", "!", decoder_name(gpu)]
    if mode != "decode":
        parts += ["!", "convlivefilter", f"cuda-device-id={gpu}"] + filt.split()
        if mode == "system":
            parts += ["!", "cudadownload"]
    return parts + ["!", "fakesink", "sync=false"]


def pipeline(clip, streams, gpus, mode, filt, only=None):
    """Every branch (or those whose numbers are in `only`), branch b on GPU b % gpus."""
    args = []
    for b in range(streams):
        if only is None or b in only:
            args += branch(clip, b % gpus, mode, filt)
    return args


def process_branches(streams, gpus, layout):
    """The branch numbers each gst-launch-1.0 process runs."""
    if layout == "per-stream":
        return [[b] for b in range(streams)]
    if layout == "per-gpu":
        return [g for g in ([b for b in range(streams) if b % gpus == k] for k in range(gpus)) if g]
    return [list(range(streams))]


def run_processes(cmds, timeout):
    """Starts every command at once; each one's (return code, output)."""
    procs = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for c in cmds]
    out = []
    deadline = time.monotonic() + timeout
    for p in procs:
        try:
            text, _ = p.communicate(timeout=max(1.0, deadline - time.monotonic()))
            out.append((p.returncode, text))
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            out.append((124, "timed out"))
    return out


def longest_seconds(results):
    """The longest PLAYING-to-EOS time of processes that all ended well; None if any did not."""
    secs = [ended_seconds(text) if rc == 0 else None for rc, text in results]
    return None if not secs or None in secs else max(secs)


_ENDED = re.compile(r"Execution ended after (\d+):(\d+):(\d+)\.(\d+)")


def ended_seconds(text):
    """The time gst-launch-1.0 reports from PLAYING to EOS, in seconds; None when absent."""
    m = _ENDED.search(text)
    if not m:
        return None
    h, mi, s, frac = m.groups()
    return int(h) * 3600 + int(mi) * 60 + int(s) + int(frac) / 10 ** len(frac)


def rate(frames, streams, seconds):
    """Frames per second of all streams."""
    if not seconds or seconds <= 0:
        return None
    return frames * streams / seconds


def summarise(runs):
    """Per (clip, gpus, streams): each mode's median rate, filtered over decode only, and the
    scaling of each mode over the same clip, streams and mode on one GPU."""
    groups = {}
    for r in runs:
        if r.get("fps") is None:
            continue
        key = (r["clip"], r["gpus"], r["streams"], r["mode"])
        groups.setdefault(key, []).append(r["fps"])
    med = {k: statistics.median(v) for k, v in groups.items()}
    rows = []
    for (clip, gpus, streams, mode), fps in sorted(med.items()):
        row = {"clip": clip, "gpus": gpus, "streams": streams, "mode": mode, "fps": fps}
        dec = med.get((clip, gpus, streams, "decode"))
        if mode != "decode" and dec:
            row["of_decode"] = fps / dec
        one = med.get((clip, 1, streams, mode))
        if gpus > 1 and one:
            row["scaling"] = fps / one
        rows.append(row)
    return rows


def markdown(rows, util):
    lines = ["| clip | GPUs | streams | mode | frames/s | x decode only | scaling over 1 GPU | GPU util (SM / decoder %) |",
             "|---|---:|---:|---|---:|---:|---:|---|"]
    for r in rows:
        u = util.get((r["clip"], r["gpus"], r["streams"], r["mode"]), "")
        lines.append("| {clip} | {gpus} | {streams} | {mode} | {fps:.0f} | {od} | {sc} | {u} |".format(
            od=f"{r['of_decode']:.3f}" if "of_decode" in r else "", sc=f"{r['scaling']:.2f}" if "scaling" in r else "",
            u=u, **{k: r[k] for k in ("clip", "gpus", "streams", "fps")}, mode=MODE_NAMES[r["mode"]]))
    return "\n".join(lines) + "\n"


class Sampler:
    """nvidia-smi's SM and decoder utilisation of every GPU, every 100 ms, while a run lasts."""

    def __init__(self):
        self.samples, self.proc, self.thread = [], None, None

    def __enter__(self):
        if shutil.which("nvidia-smi"):
            self.proc = subprocess.Popen(["nvidia-smi", "--query-gpu=index,utilization.gpu,utilization.decoder",
                                          "--format=csv,noheader,nounits", "-lms", "100"],
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            self.thread = threading.Thread(target=self._read, daemon=True)
            self.thread.start()
        return self

    def _read(self):
        for line in self.proc.stdout:
            try:
                i, sm, dec = (int(x.strip()) for x in line.split(","))
                self.samples.append((i, sm, dec))
            except ValueError:
                pass

    def __exit__(self, *exc):
        if self.proc:
            self.proc.terminate()
            self.proc.wait()

    def averages(self, gpus):
        out = []
        for g in range(gpus):
            s = [(sm, dec) for i, sm, dec in self.samples if i == g]
            if s:
                out.append(f"{g}: {statistics.mean(x[0] for x in s):.0f}/{statistics.mean(x[1] for x in s):.0f}")
        return ", ".join(out)


def clip_frames(path, default):
    try:
        out = subprocess.run(["gst-discoverer-1.0", "-v", path], capture_output=True, text=True, timeout=60).stdout
        dur = re.search(r"Duration: (\d+):(\d+):(\d+\.\d+)", out)
        fr = re.search(r"Frame rate: (\d+)/(\d+)", out)
        if dur and fr:
            secs = int(dur.group(1)) * 3600 + int(dur.group(2)) * 60 + float(dur.group(3))
            return round(secs * int(fr.group(1)) / int(fr.group(2)))
    except (OSError, subprocess.SubprocessError):
        pass
    return default


def ints(text):
    return [int(x) for x in text.split(",") if x]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clip", action="append", required=True, help="NAME=PATH of an H.264 MP4")
    ap.add_argument("--streams", default="1,4,8,16")
    ap.add_argument("--gpus", default="1")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--filter", default="mask=gaussian radius=4")
    ap.add_argument("--frames", type=int, default=0)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--out-dir", default="multistream-results")
    ap.add_argument("--processes", default="one", choices=LAYOUTS)
    a = ap.parse_args(argv)
    clips = []
    for c in a.clip:
        name, _, path = c.partition("=")
        if not path or not os.path.exists(path):
            ap.error(f"--clip {c}: give NAME=PATH of an existing file")
        clips.append((name, path, a.frames or clip_frames(path, 300)))
    modes = [m for m in a.modes.split(",") if m]
    for m in modes:
        if m not in MODES:
            ap.error(f"--modes: '{m}' is not one of {', '.join(MODES)}")
    launcher = shutil.which("gst-launch-1.0")
    if not launcher:
        sys.exit("multistream-bench: gst-launch-1.0 is not on the PATH")
    os.makedirs(a.out_dir, exist_ok=True)
    runs, util = [], {}
    for rep in range(a.repeats):
        for name, path, frames in clips:
            for gpus in ints(a.gpus):
                for streams in ints(a.streams):
                    for mode in modes:  # interleaved, so that a drift touches every mode alike
                        cmds = [[launcher] + pipeline(path, streams, gpus, mode, a.filter, set(only))
                                for only in process_branches(streams, gpus, a.processes)]
                        with Sampler() as s:
                            t0 = time.monotonic()
                            results = run_processes(cmds, a.timeout)
                            wall = time.monotonic() - t0
                        secs = longest_seconds(results)
                        rc = max(code for code, _ in results)
                        r = {"clip": name, "gpus": gpus, "streams": streams, "mode": mode, "rep": rep, "rc": rc,
                             "processes": len(cmds), "frames": frames, "seconds": secs, "wall_s": wall,
                             "fps": rate(frames, streams, secs), "util": s.averages(gpus)}
                        if secs is None:
                            r["output"] = next((t for code, t in results if code != 0 or ended_seconds(t) is None),
                                               "")[-800:]
                        util[(name, gpus, streams, mode)] = r["util"]
                        runs.append(r)
                        print(json.dumps(r), flush=True)
    rows = summarise(runs)
    json.dump({"runs": runs, "summary": rows}, open(os.path.join(a.out_dir, "multistream.json"), "w"), indent=1)
    open(os.path.join(a.out_dir, "multistream.md"), "w").write(markdown(rows, util))
    print(markdown(rows, util))
    return 0 if all(r["fps"] is not None for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
