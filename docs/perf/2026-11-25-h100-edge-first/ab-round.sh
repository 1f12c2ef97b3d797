#!/usr/bin/env bash
# The A/B for edge-schedules.diff (tensorstream, NOTES.md item 34; stream, item 35)
# in one device call, from the project root with .devbundle carried. BINS (default build-ab) holds
# three programs built here for sm_90, stripped and xz-compressed (19 MB -> 2.4 MB each, so HEAD's
# benchmark fits beside the new one under the 64 MiB carry):
#   head-convlive-bench.xz     HEAD as committed
#   new-convlive-bench.xz      the diff applied
#   new-convlive_tests_gpu.xz  the diff applied
# Runs the changed kernels' tests and sanitizers, then convlive-bench (stream and tensorstream, 4K
# and 1080p) for HEAD and for the new build under its knobs, two interleaved rounds:
#   n0  CONVLIVE_TS_EDGE=0 CONVLIVE_STREAM_EDGE=1  no edge split (tensorstream column after column)
#   n1  CONVLIVE_TS_EDGE=1 CONVLIVE_STREAM_EDGE=2  edge columns first; stream's edge strips halved
#   n2  CONVLIVE_TS_EDGE=2 CONVLIVE_STREAM_EDGE=2  and tensorstream's edge segments halved too
# and writes app/bench/ab.py's same-call tables to $OUT (ab-stream.txt, ab-tensorstream.txt).
set -uo pipefail
source .devbundle/env.sh
BINS=${BINS:-build-ab}
B=/tmp/ab/bin
mkdir -p $B
for f in head-convlive-bench new-convlive-bench new-convlive_tests_gpu; do
  xz -dc "$BINS/$f.xz" > $B/$f && chmod +x $B/$f || { echo "cannot unpack $BINS/$f.xz"; exit 1; }
done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $OUT/tests.log
T=$B/new-convlive_tests_gpu
F='TensorStreamStrips.*:*tensorstream*:StreamSmallRadii.*:*stream_*:Auto*'
for knobs in "CONVLIVE_TS_EDGE=1 CONVLIVE_STREAM_EDGE=2" "CONVLIVE_TS_EDGE=2 CONVLIVE_STREAM_EDGE=2"; do
  echo "=== $knobs: gtests" >> $OUT/tests.log
  env $knobs timeout 200 $T --gtest_filter="$F" --gtest_brief=1 >> $OUT/tests.log 2>&1
  echo "rc=$?" >> $OUT/tests.log
  echo "=== $knobs: memcheck" >> $OUT/tests.log
  env $knobs timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $T \
    --gtest_filter='TensorStreamStrips.*:StreamSmallRadii.*' --gtest_brief=1 >> $OUT/tests.log 2>&1
  echo "memcheck rc=$?" >> $OUT/tests.log
done
echo "=== racecheck" >> $OUT/tests.log
env CONVLIVE_TS_EDGE=2 CONVLIVE_STREAM_EDGE=2 timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 $T \
  --gtest_filter='TensorStreamStrips.Ring*:StreamSmallRadii.*' --gtest_brief=1 >> $OUT/tests.log 2>&1
echo "racecheck rc=$?" >> $OUT/tests.log
grep -E "^===|PASSED|FAILED|SKIPPED|ERROR SUMMARY|RACECHECK SUMMARY|rc=" $OUT/tests.log
ARGS="--variants stream,tensorstream --radii 1,2,4,8,16,24,32 --sizes 3840x2160,1920x1080 --repeats 50"
runs=()
for round in 1 2; do
  for cfg in head n0 n1 n2; do
    case $cfg in
      head) exe=$B/head-convlive-bench knobs="" ;;
      n0) exe=$B/new-convlive-bench knobs="CONVLIVE_TS_EDGE=0 CONVLIVE_STREAM_EDGE=1" ;;
      n1) exe=$B/new-convlive-bench knobs="CONVLIVE_TS_EDGE=1 CONVLIVE_STREAM_EDGE=2" ;;
      n2) exe=$B/new-convlive-bench knobs="CONVLIVE_TS_EDGE=2 CONVLIVE_STREAM_EDGE=2" ;;
    esac
    env $knobs timeout 150 $exe $ARGS --out-dir /tmp/ab/$cfg-$round > /tmp/ab/$cfg-$round.log 2>&1 ||
      { echo "bench $cfg-$round failed:"; tail -3 /tmp/ab/$cfg-$round.log; }
    runs+=("$cfg-$round=/tmp/ab/$cfg-$round")
  done
done
for v in stream tensorstream; do
  python3 app/bench/ab.py --variant $v "${runs[@]}" > $OUT/ab-$v.txt 2>&1
  head -20 $OUT/ab-$v.txt
done
