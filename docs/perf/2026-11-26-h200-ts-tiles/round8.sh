#!/usr/bin/env bash
# 2026-11-26 session 15, call 8: the committed code (edge columns halved at any height of at least
# one step, 64x272 offered; NOTES.md item 52): every gpu test, memcheck on TensorStreamStrips.*,
# racecheck on the ring test, then tensorstream at 4K and 1080p, two rounds.
set -uo pipefail
source .devbundle/env.sh
B=/tmp/v/bin; mkdir -p $B
for f in convlive-bench convlive_tests_gpu; do xz -dc build-ab24/$f.xz > $B/$f && chmod +x $B/$f || exit 1; done
L=$OUT/tests-final.log
nvidia-smi --query-gpu=name,driver_version --format=csv > $L
echo "=== convlive_tests_gpu (all)" >> $L
timeout 150 $B/convlive_tests_gpu --gtest_brief=1 >> $L 2>&1; echo "rc=$?" >> $L
echo "=== memcheck" >> $L
timeout 80 compute-sanitizer --tool memcheck --error-exitcode 9 $B/convlive_tests_gpu --gtest_filter='TensorStreamStrips.*' --gtest_brief=1 >> $L 2>&1; echo "memcheck rc=$?" >> $L
echo "=== racecheck" >> $L
timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 $B/convlive_tests_gpu --gtest_filter='TensorStreamStrips.Ring*' --gtest_brief=1 >> $L 2>&1; echo "racecheck rc=$?" >> $L
grep -E "^===|PASSED|FAILED|SKIPPED|ERROR SUMMARY|RACECHECK SUMMARY|rc=" $L
for round in 1 2; do
  timeout 60 $B/convlive-bench --variants tensorstream --radii 4,8,16,24,32 --sizes 3840x2160,1920x1080 --repeats 30 \
    --out-dir /tmp/v/ts-$round > /tmp/v/ts-$round.log 2>&1 || tail -3 /tmp/v/ts-$round.log
done
python3 - <<'PY' | tee $OUT/final-ts.txt
import json, collections
t = collections.defaultdict(list)
for r in (1, 2):
    for x in json.load(open(f"/tmp/v/ts-{r}/convlive.json"))["results"]:
        if not x.get("error"): t[(x["width"], x["radius"], x["tile"])].append(x["median_ms"])
for w, r in sorted({(w, r) for (w, r, _) in t}):
    row = sorted(((min(v), max(v), tile) for (ww, rr, tile), v in t.items() if ww == w and rr == r))
    print(f"{w} r={r}: " + "  ".join(f"{tile} {lo:.4f}-{hi:.4f}" for lo, hi, tile in row[:3]))
PY
