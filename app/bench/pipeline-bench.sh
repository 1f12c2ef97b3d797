#!/usr/bin/env bash
# The pipeline benchmark (a machine with an NVIDIA GPU): headless throughput at 1080p and 4K, per stage, with
# pinned memory (GStreamer's buffers page-locked, or copied into pinned slots) and pageable memory,
# with and without overlap, against the source alone (decode-only rate); one run also brings every
# frame back to host memory (the output stage of an export). Two sources: a cheap one (gradient)
# and the default (moving zone plate). One JSON report per run goes to $RUNS; pipeline.json (all
# of them) and pipeline.md (the table) go to OUT_DIR (default pipeline-results).
#   app/bench/pipeline-bench.sh [BUILD] [OUT_DIR]
set -uo pipefail
BUILD=${1:-${BUILD:-build}}
out_dir=${2:-pipeline-results}
export RUNS=${RUNS:-/tmp/convlive-pipeline-runs}
FILTER=${FILTER:---mask gaussian --radius 4}
SIZES=${SIZES:-1920x1080 3840x2160}
rm -rf "$RUNS"; mkdir -p "$RUNS" "$out_dir"
exe=$BUILD/convlive
run() {  # name, args...
  local name=$1; shift
  timeout 120 "$exe" run "$@" --report "$RUNS/$name.json" > "$RUNS/$name.log" 2>&1 || echo "failed: $name (see $RUNS/$name.log)"
}
for size in $SIZES; do
  for pattern in gradient moving; do
    case $size-$pattern in *1080-gradient) frames=600 ;; *1080-moving) frames=300 ;; *-gradient) frames=300 ;; *) frames=100 ;; esac
    [ -n "${FRAMES:-}" ] && frames=$FRAMES
    tag=$size-$pattern
    src=(--pattern "$pattern" --size "$size" --frames "$frames")
    run "$tag-decode" "${src[@]}" --decode-only
    run "$tag-download-overlap" "${src[@]}" $FILTER --sink download
    for mem in pinned pinnedcopy pageable; do
      for ov in overlap serial; do
        args=()
        [ $mem = pageable ] && args+=(--pageable)
        [ $mem = pinnedcopy ] && args+=(--copy-to-pinned)
        [ $ov = serial ] && args+=(--no-overlap)
        run "$tag-$mem-$ov" "${src[@]}" $FILTER "${args[@]}"
      done
    done
  done
done
python3 - "$out_dir" <<'PY'
import json, glob, os, sys
out = sys.argv[1]
runs = {os.path.basename(f)[:-5]: json.load(open(f)) for f in sorted(glob.glob(os.path.join(os.environ["RUNS"], "*.json")))}
json.dump(runs, open(os.path.join(out, "pipeline.json"), "w"), indent=1)
labels = {"pinned": "pinned (registered)", "pinnedcopy": "pinned (copy)", "pageable": "pageable",
          "download": "pinned (registered) + download"}
rows = ["| source | memory | frames | fps | vs decode-only | host copy | upload | filter | output | GPU stages | latency |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
for tag in sorted({k[:-7] for k in runs if k.endswith("-decode")}):
    dec = runs[tag + "-decode"]
    rows.append(f"| {tag} | decode only | {dec['frames']} | {dec['fps']:.1f} | 1.00 | | | | | | |")
    for mem in labels:
        for ov in ("overlap", "serial"):
            r = runs.get(f"{tag}-{mem}-{ov}")
            if not r: continue
            st = {s["name"]: s["average_ms"] for s in r["stages"]}
            gpu = st["upload"] + st["filter"] + st["output"]
            ratio = r["fps"] / dec["fps"] if dec["fps"] > 0 else float("nan")
            rows.append(f"| {tag} | {labels[mem]}, {ov} | {r['frames']} | {r['fps']:.1f} | {ratio:.2f} | {st['host copy']:.3f} | "
                        f"{st['upload']:.3f} | {st['filter']:.3f} | {st['output']:.3f} | {gpu:.3f} | {st['latency']:.2f} |")
first = next((r for r in runs.values() if "variant" in r), {})
f = first.get("filter", {})
head = (f"Pipeline benchmark {first.get('date', '?')} on {(first.get('device') or {}).get('name')}: variant "
        f"{first.get('variant')}, {f.get('name')} r={f.get('radius')} border={f.get('border')}, 3 slots. "
        "Stage times are averages over the run in ms; GPU stages = upload + filter + output; "
        "fps over the whole run (wall clock).\n\n")
open(os.path.join(out, "pipeline.md"), "w").write(head + "\n".join(rows) + "\n")
print(head + "\n".join(rows))
PY
