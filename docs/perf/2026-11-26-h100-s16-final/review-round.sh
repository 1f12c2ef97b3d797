#!/usr/bin/env bash
# 2026-11-26 session 16, after the review: tensorstream's launch makes its schedule once (ringOf
# returns it; the kernels' PTX is byte-identical) and convlive-bench's graph capture is one helper.
# Every gpu test and inspect_gpu, then a short benchmark of both paths' timing.
set -uo pipefail
source .devbundle/env.sh
B=/tmp/ab/bin; mkdir -p $B
for f in convlive_tests_gpu convlive_tests_inspect_gpu convlive-bench; do
  xz -dc build-ab34/$f.xz > $B/$f && chmod +x $B/$f || { echo "cannot unpack $f"; exit 1; }
done
L=$OUT/tests-review.log
nvidia-smi --query-gpu=name,driver_version --format=csv > $L
echo "=== convlive_tests_gpu (all)" >> $L; timeout 200 $B/convlive_tests_gpu --gtest_brief=1 >> $L 2>&1; echo "rc=$?" >> $L
echo "=== inspect_gpu" >> $L; timeout 60 $B/convlive_tests_inspect_gpu --gtest_brief=1 >> $L 2>&1; echo "rc=$?" >> $L
grep -E "^===|PASSED|FAILED|SKIPPED|rc=" $L
timeout 120 $B/convlive-bench --variants tensorstream,tensor2d --radii 4,32 --custom-radii 8 --repeats 20 --out-dir /tmp/rv > $OUT/bench-review.log 2>&1
echo "bench rc=$?"; head -8 $OUT/bench-review.log; grep -E "tensorstream.*(64x80|64x64|64x272|128x192)" $OUT/bench-review.log | head -8
