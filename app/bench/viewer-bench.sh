#!/usr/bin/env bash
# The viewer's own costs on a machine with an NVIDIA GPU, offscreen (headless EGL on the GPU's EGL device):
#   - present at 4K: the interop copy's GPU time (the pipeline's output stage, which also counts the
#     wait for the render thread; present (gpu): map, copy into the mapped arrays, unmap, alone) and
#     the host time of those calls (present (cpu));
#   - the panel (ImGui build, cpu) and drawing (cpu and gpu, a GL timer query);
#   - at 1080p60 test pattern: the rate shown against the source's rate, and latency.
# Usage: app/bench/viewer-bench.sh [BUILD] [OUT_DIR]   (writes OUT_DIR/viewer.json, viewer.md and
# viewer.png, a screenshot of the split view; OUT_DIR defaults to viewer-results)
set -uo pipefail
BUILD=${1:-build}
out_dir=${2:-viewer-results}
RUNS=${RUNS:-/tmp/convlive-viewer-runs}
mkdir -p "$out_dir" "$RUNS"
exe="$BUILD/convlive"
common=(--offscreen --window-size 1600x900 --mask gaussian --radius 4 --variant "${VARIANT:-fused}")
run() {  # name, then arguments
  local name=$1; shift
  echo "== $name: $*"
  timeout 120 "$exe" "${common[@]}" --report "$RUNS/$name.json" "$@" > "$RUNS/$name.log" 2>&1
  echo "rc=$?"; grep -E "frames shown|^frames:|present|panel|draw|output|latency" "$RUNS/$name.log"
}
for i in 1 2 3; do
  run "4k-$i" --size 3840x2160 --fps 30 --seconds "${SECS:-8}"
  run "4k-split-$i" --size 3840x2160 --fps 30 --seconds "${SECS:-8}" --split
  run "1080p60-$i" --size 1920x1080 --fps 60 --seconds "${SECS:-8}"
  # The source alone, paced the same way: the rate the viewer is judged against.
  timeout 60 "$exe" run --decode-only --realtime --size 1920x1080 --fps 60 --seconds "${SECS:-8}" \
    --report "$RUNS/decode-1080p60-$i.json" > "$RUNS/decode-1080p60-$i.log" 2>&1
  grep "decode only" "$RUNS/decode-1080p60-$i.log"
done
run 1080p-screenshot --size 1920x1080 --fps 60 --seconds 4 --split --screenshot "$out_dir/viewer.png"
python3 - "$RUNS" "$out_dir" <<'PY'
import json, sys, glob, os, statistics, datetime
runs, out = sys.argv[1], sys.argv[2]
rows = []
decode = [json.load(open(p))["fps"] for p in sorted(glob.glob(os.path.join(runs, "decode-*.json")))]
for path in sorted(glob.glob(os.path.join(runs, "*.json"))):
    r = json.load(open(path))
    if r.get("decode_only"):
        continue
    st = {s["name"]: s for s in r["stages"]}
    vs = {s["name"]: s for s in r["viewer"]["stages"]}
    rows.append({
        "run": os.path.basename(path)[:-5], "size": f'{r["width"]}x{r["height"]}',
        "source_fps": r["source"]["fps"], "fps": r["fps"], "frames": r["frames"],
        "frames_shown": r["viewer"]["frames_shown"],
        "shown_fps": r["viewer"]["frames_shown"] / r["wall_s"] if r["wall_s"] > 0 else 0, "split": r["viewer"]["split"],
        "present_gpu_ms": st["output"]["average_ms"], "present_gpu_peak_ms": st["output"]["peak_ms"],
        "present_copy_gpu_ms": vs["present (gpu)"]["average_ms"],
        "present_cpu_ms": vs["present (cpu)"]["average_ms"], "panel_cpu_ms": vs["panel (cpu)"]["average_ms"],
        "draw_cpu_ms": vs["draw (cpu)"]["average_ms"], "draw_gpu_ms": vs["draw (gpu)"]["average_ms"],
        "filter_ms": st["filter"]["average_ms"], "upload_ms": st["upload"]["average_ms"],
        "latency_ms": st["latency"]["average_ms"], "wait_ms": st["wait for source"]["average_ms"],
        "present_path": r["viewer"]["present_path"], "context": r["viewer"]["context"],
        "copy_gbs": r["viewer"]["copy_bandwidth_gbs"], "device": r["device"].get("name"),
    })
json.dump({"date": datetime.date.today().isoformat(), "runs": rows, "decode_only_1080p60_fps": decode}, open(os.path.join(out, "viewer.json"), "w"), indent=1)
cols = ["run", "size", "source_fps", "fps", "shown_fps", "present_gpu_ms", "present_copy_gpu_ms", "present_cpu_ms", "panel_cpu_ms",
        "draw_cpu_ms", "draw_gpu_ms", "filter_ms", "latency_ms"]
lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
for r in rows:
    lines.append("| " + " | ".join(f"{r[c]:.3f}" if isinstance(r[c], float) else str(r[c]) for c in cols) + " |")
if rows:
    lines += ["", f'context: {rows[0]["context"]}', f'present path: {rows[0]["present_path"]}',
              f'device: {rows[0]["device"]}, copy bandwidth {rows[0]["copy_gbs"]:.0f} GB/s']
def med(prefix, key):
    v = [r[key] for r in rows if r["run"].startswith(prefix + "-") and r["run"][len(prefix)+1:].isdigit()]
    return statistics.median(v) if v else float("nan")
lines += ["", "medians over the repeated runs:",
          f'- 4K present gpu {med("4k","present_gpu_ms"):.3f} ms, present cpu {med("4k","present_cpu_ms"):.3f} ms',
          f'- 4K split present gpu {med("4k-split","present_gpu_ms"):.3f} ms',
          f'- panel cpu {med("4k","panel_cpu_ms"):.3f} ms + draw cpu {med("4k","draw_cpu_ms"):.3f} ms, draw gpu {med("4k","draw_gpu_ms"):.3f} ms',
          f'- 1080p60: filtered {med("1080p60","fps"):.2f} fps, shown {med("1080p60","shown_fps"):.2f} fps, of the source\'s {med("1080p60","source_fps"):.2f}, latency {med("1080p60","latency_ms"):.2f} ms',
          f'- the source alone, paced the same (decode only): {", ".join(f"{d:.2f}" for d in decode)} fps']
open(os.path.join(out, "viewer.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
