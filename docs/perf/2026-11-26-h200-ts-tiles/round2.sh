#!/usr/bin/env bash
# 2026-11-26 session 15, call 3: tensorstream's tile heights. ncu (round1) put 4K r=4's 64x256 grid
# at 558 blocks, 0.70 of a wave (6 blocks an SM), 15 warps an SM achieved of 24; r=32's at 594
# blocks, 2.25 waves of 2 an SM. The tile height is a run-time argument, so this build offers many
# more heights (exp-bench) and every one is timed; also the host time of a run() for fused and
# tensor2d at r=32 after the workspace compares the mask last, bit for bit.
set -uo pipefail
source .devbundle/env.sh
B=/tmp/v/bin; mkdir -p $B
xz -dc build-ab20/exp-bench.xz > $B/exp && chmod +x $B/exp || exit 1
for round in 1 2; do
  timeout 200 $B/exp --variants tensorstream --radii 1,2,4,8,16,24,32 --sizes 3840x2160,1920x1080 --repeats 30 \
    --out-dir /tmp/v/ts-$round > /tmp/v/ts-$round.log 2>&1 || { echo "ts-$round failed"; tail -3 /tmp/v/ts-$round.log; }
  cp /tmp/v/ts-$round/convlive.json $OUT/tiles-$round.json
done
timeout 100 $B/exp --variants fused,tensor2d --radii 32 --custom-radii 32 --sizes 3840x2160 --repeats 20 \
  --out-dir /tmp/v/host > /tmp/v/host.log 2>&1 || tail -3 /tmp/v/host.log
python3 - <<'PY' | tee $OUT/tiles.txt
import json, collections
t = collections.defaultdict(list)
for r in (1, 2):
    for x in json.load(open(f"/tmp/v/ts-{r}/convlive.json"))["results"]:
        if x.get("error"): continue
        t[(x["width"], x["radius"], x["tile"])].append(x["median_ms"])
cases = sorted({(w, r) for (w, r, _) in t})
for w, r in cases:
    row = sorted(((min(v), tile) for (ww, rr, tile), v in t.items() if ww == w and rr == r))
    print(f"{w} r={r}: " + "  ".join(f"{tile} {ms:.4f}" for ms, tile in row[:8]))
for x in json.load(open("/tmp/v/host/convlive.json"))["results"]:
    if not x.get("error"):
        print("host", x["variant"], x["mask"], x["radius"], x["tile"], f"{x['host_us']:.1f} us", f"{x['median_ms']:.4f} ms")
PY
