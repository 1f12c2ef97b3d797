#!/usr/bin/env bash
# 2026-11-26 session 15, call 6: more tile heights for tensorstream at 4K (64x272: 8 segments of
# nearly equal rows, 528 blocks = 2 waves at r = 25..32; 64x240, 64x304, 128x160/176/224), every
# offered tile timed, three rounds; the gpu tests with this superset of tiles first.
set -uo pipefail
source .devbundle/env.sh
B=/tmp/v/bin; mkdir -p $B
for f in exp-bench convlive_tests_gpu; do xz -dc build-ab22/$f.xz > $B/$f && chmod +x $B/$f || exit 1; done
L=$OUT/tests.log
timeout 200 $B/convlive_tests_gpu --gtest_brief=1 > $L 2>&1; echo "rc=$?" >> $L
grep -E "PASSED|FAILED|SKIPPED|rc=" $L
for round in 1 2 3; do
  timeout 100 $B/exp-bench --variants tensorstream --radii 4,8,16,24,32 --sizes 3840x2160 --repeats 30 \
    --out-dir /tmp/v/ts-$round > /tmp/v/ts-$round.log 2>&1 || { echo "ts-$round failed"; tail -3 /tmp/v/ts-$round.log; }
done
python3 - <<'PY' | tee $OUT/tiles.txt
import json, collections
t = collections.defaultdict(list)
for r in (1, 2, 3):
    for x in json.load(open(f"/tmp/v/ts-{r}/convlive.json"))["results"]:
        if x.get("error"): continue
        t[(x["width"], x["radius"], x["tile"])].append(x["median_ms"])
for w, r in sorted({(w, r) for (w, r, _) in t}):
    row = sorted(((sorted(v)[1], tile) for (ww, rr, tile), v in t.items() if ww == w and rr == r))
    print(f"{w} r={r} (middle of 3): " + "  ".join(f"{tile} {ms:.4f}" for ms, tile in row[:7]))
PY
