#!/usr/bin/env bash
# The pipeline benchmark (GPU machine): headless throughput at 1080p and 4K, per stage, with pinned
# and pageable memory, with and without overlap, against the source alone (decode-only rate), for
# a cheap source (gradient) and the default one (moving zone plate). Writes one JSON report per
# run into $OUT/pipeline/, then pipeline.json and pipeline.md (the table) into $OUT.
#   app/bench/pipeline-bench.sh [BUILD]
set -uo pipefail
BUILD=${1:-${BUILD:-build-dev}}
OUT=${OUT:-/tmp/convlive-out}
FILTER=${FILTER:---mask gaussian --radius 4}
mkdir -p "$OUT/pipeline"
exe=$BUILD/convlive
for size in 1920x1080 3840x2160; do
  for pattern in gradient moving; do
    case $size-$pattern in *1080-gradient) frames=600 ;; *1080-moving) frames=300 ;; *-gradient) frames=300 ;; *) frames=100 ;; esac
    tag=${size}-${pattern}
    src="--pattern $pattern --size $size --frames $frames"
    timeout 120 $exe --headless --decode-only $src --report "$OUT/pipeline/$tag-decode.json" > /dev/null || echo "failed: $tag decode"
    for mem in pinned pinnedcopy pageable; do
      for ov in overlap serial; do
        args=""; [ $mem = pageable ] && args+=" --pageable"; [ $mem = pinnedcopy ] && args+=" --copy-to-pinned"
        [ $ov = serial ] && args+=" --no-overlap"
        timeout 120 $exe --headless $src $FILTER $args --report "$OUT/pipeline/$tag-$mem-$ov.json" > /dev/null \
          || echo "failed: $tag $mem $ov"
      done
    done
  done
done
python3 - "$OUT" <<'PY'
import json, glob, os, sys
out = sys.argv[1]
runs = {}
for f in sorted(glob.glob(os.path.join(out, "pipeline", "*.json"))):
    runs[os.path.basename(f)[:-5]] = json.load(open(f))
json.dump(runs, open(os.path.join(out, "pipeline.json"), "w"), indent=1)
rows = ["| source | memory | frames | fps | vs decode-only | host copy | upload | filter | output | GPU stages (up+filter+out) | latency |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
for tag in sorted({k[:-7] for k in runs if k.endswith("-decode")}):
    dec = runs.get(tag + "-decode")
    if dec:
        rows.append(f"| {tag} | decode only | {dec['frames']} | {dec['fps']:.1f} | 1.00 | | | | | | |")
    for mem in ("pinned", "pinnedcopy", "pageable"):
        for ov in ("overlap", "serial"):
            r = runs.get(f"{tag}-{mem}-{ov}")
            if not r: continue
            st = {s["name"]: s["average_ms"] for s in r["stages"]}
            gpu = st["upload"] + st["filter"] + st["output"]
            ratio = r["fps"] / dec["fps"] if dec and dec["fps"] > 0 else float("nan")
            label = {"pinned": "pinned (registered)", "pinnedcopy": "pinned (copy)", "pageable": "pageable"}[mem]
            rows.append(f"| {tag} | {label}, {ov} | {r['frames']} | {r['fps']:.1f} | {ratio:.2f} | {st['host copy']:.3f} | "
                        f"{st['upload']:.3f} | {st['filter']:.3f} | {st['output']:.3f} | {gpu:.3f} | {st['latency']:.2f} |")
any_run = next((r for r in runs.values() if "variant" in r), {})
head = (f"Pipeline benchmark, {any_run.get('date','?')}, device: {(any_run.get('device') or {}).get('name')}, "
        f"variant {any_run.get('variant')}, filter {any_run.get('filter')}; times are averages in ms over the run.\n\n")
open(os.path.join(out, "pipeline.md"), "w").write(head + "\n".join(rows) + "\n")
print(head + "\n".join(rows))
PY
