#!/usr/bin/env bash
# tensorstream with three more tiles (64x192, 64x384, 64x544: NOTES.md item 38), one call: the
# tensorstream tests over every tile, memcheck on TensorStreamStrips, then convlive-bench
# (tensorstream, every tile, 4K and 1080p, radii 1..32) twice, and each tile's median in both
# runs (tiles.txt). From the project root with .devbundle and BINS (default build-ab5).
set -uo pipefail
source .devbundle/env.sh
BINS=${BINS:-build-ab5}
B=/tmp/t/bin
mkdir -p $B
for f in convlive-bench convlive_tests_gpu; do
  xz -dc "$BINS/$f.xz" > $B/$f && chmod +x $B/$f || { echo "cannot unpack $BINS/$f.xz"; exit 1; }
done
L=$OUT/tests.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L
echo "=== tensorstream tests" >> $L
timeout 200 $B/convlive_tests_gpu --gtest_filter='TensorStreamStrips.*:*tensorstream*:Auto*' --gtest_brief=1 >> $L 2>&1
echo "rc=$?" >> $L
echo "=== memcheck" >> $L
timeout 250 compute-sanitizer --tool memcheck --error-exitcode 9 $B/convlive_tests_gpu \
  --gtest_filter='TensorStreamStrips.*' --gtest_brief=1 >> $L 2>&1
echo "memcheck rc=$?" >> $L
grep -E "^===|PASSED|FAILED|SKIPPED|ERROR SUMMARY|rc=" $L
for round in 1 2; do
  timeout 150 $B/convlive-bench --variants tensorstream --radii 1,2,4,8,16,24,32 --sizes 3840x2160,1920x1080 \
    --repeats 50 --out-dir /tmp/t/run$round > /tmp/t/run$round.log 2>&1 || { echo "bench $round failed"; tail -3 /tmp/t/run$round.log; }
done
python3 - > $OUT/tiles.txt <<'PY'
import csv, collections
t = collections.defaultdict(dict)
for run in (1, 2):
    for r in csv.DictReader(open(f"/tmp/t/run{run}/convlive.csv")):
        if r["error"]: continue
        t[(int(r["width"]), int(r["radius"]))].setdefault(r["tile"], []).append(float(r["median_ms"]))
for (w, rad) in sorted(t):
    tiles = sorted(t[(w, rad)].items(), key=lambda kv: min(kv[1]))
    print(f"{w} r={rad}: " + "  ".join(f"{k} {'/'.join(f'{v:.4f}' for v in vs)}" for k, vs in tiles))
PY
cat $OUT/tiles.txt
