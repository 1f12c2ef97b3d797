#!/usr/bin/env bash
# The A/B for edge-first.diff (NOTES.md item 34) in one device call, from the project root with the
# diff applied and built (BUILD: the folder holding convlive-bench and convlive_tests_gpu, stripped),
# .devbundle carried: the tensorstream tests and sanitizers under the schedules, then the benchmark
# under CONVLIVE_TS_EDGE=0 (grid order, as HEAD), 1 (edge columns first), 2 and 4 (their segments
# 1/2 and 1/4 the tile), two interleaved rounds, and the same-call table (app/bench/ab.py).
set -uo pipefail
source .devbundle/env.sh
B=${BUILD:-build-dev/run}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $OUT/tests.log
export CONVLIVE_EXE=none
for e in 1 2; do
  echo "=== CONVLIVE_TS_EDGE=$e gtests" >> $OUT/tests.log
  CONVLIVE_TS_EDGE=$e timeout 200 $B/convlive_tests_gpu --gtest_filter='TensorStreamStrips.*:*tensorstream*:Auto*' --gtest_brief=1 >> $OUT/tests.log 2>&1
  echo "rc=$?" >> $OUT/tests.log
done
tail -4 $OUT/tests.log
ARGS="--variants tensorstream --radii 1,2,4,8,16,24,32 --sizes 3840x2160,1920x1080 --repeats 50"
labels=()
for round in 1 2; do
  for e in 0 1 2 4; do
    CONVLIVE_TS_EDGE=$e timeout 120 $B/convlive-bench $ARGS --out-dir /tmp/ab/e$e-$round > /tmp/ab-e$e-$round.log 2>&1 || echo "bench e$e-$round failed"
    labels+=(e$e-$round=/tmp/ab/e$e-$round)
  done
done
python3 app/bench/ab.py --variant tensorstream "${labels[@]}" > $OUT/ab-edge-first.txt 2>&1
head -16 $OUT/ab-edge-first.txt
echo "=== memcheck" >> $OUT/tests.log
for e in 1 2; do
CONVLIVE_TS_EDGE=$e timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/convlive_tests_gpu --gtest_filter='TensorStreamStrips.*' --gtest_brief=1 >> $OUT/tests.log 2>&1
echo "memcheck e$e rc=$?" | tee -a $OUT/tests.log
done
CONVLIVE_TS_EDGE=2 timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 $B/convlive_tests_gpu --gtest_filter='TensorStreamStrips.Ring*' --gtest_brief=1 >> $OUT/tests.log 2>&1
echo "racecheck rc=$?" | tee -a $OUT/tests.log
grep -E "PASSED|FAILED|SKIPPED|ERROR SUMMARY|RACECHECK SUMMARY" $OUT/tests.log
