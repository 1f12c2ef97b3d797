#!/usr/bin/env bash
# Third A/B (2026-11-26, NOTES.md item 37): tensorstream's grid as entries x segment rows (a row of
# blocks after the row above, the edge columns' entries first in each row; CONVLIVE_TS_AHEAD=1,
# the new build's default: an edge column as twice the entries, so its blocks are all in the
# grid's first half; 0: as many entries as segments of its height, spread over all rows), and
# stream at r=2 held to 5 blocks an SM (20 warps, from 16), against HEAD (a423064); also stream's
# edge segments a quarter of the interior's (CONVLIVE_STREAM_EDGE=4). From the project root with
# .devbundle and BINS (default build-ab4: xz'd stripped programs built here for sm_90).
set -uo pipefail
source .devbundle/env.sh
BINS=${BINS:-build-ab4}
B=/tmp/ab/bin
mkdir -p $B
for f in head-convlive-bench new-convlive-bench new-convlive_tests_gpu new-convlive_tests_inspect_gpu; do
  xz -dc "$BINS/$f.xz" > $B/$f && chmod +x $B/$f || { echo "cannot unpack $BINS/$f.xz"; exit 1; }
done
L=$OUT/tests.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L
T=$B/new-convlive_tests_gpu
F='TensorStreamStrips.*:*tensorstream*:StreamSmallRadii.*:*stream_*:Auto*'
for knobs in "CONVLIVE_TS_AHEAD=1" "CONVLIVE_TS_AHEAD=0 CONVLIVE_STREAM_EDGE=4"; do
  echo "=== $knobs: gtests" >> $L
  env $knobs timeout 200 $T --gtest_filter="$F" --gtest_brief=1 >> $L 2>&1
  echo "rc=$?" >> $L
done
echo "=== inspect_gpu" >> $L
timeout 60 $B/new-convlive_tests_inspect_gpu --gtest_brief=1 >> $L 2>&1
echo "rc=$?" >> $L
echo "=== memcheck" >> $L
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $T \
  --gtest_filter='TensorStreamStrips.*:StreamSmallRadii.*:*/stream_gaussian' --gtest_brief=1 >> $L 2>&1
echo "memcheck rc=$?" >> $L
echo "=== racecheck" >> $L
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 $T \
  --gtest_filter='TensorStreamStrips.Ring*:StreamSmallRadii.*:*/stream_gaussian' --gtest_brief=1 >> $L 2>&1
echo "racecheck rc=$?" >> $L
grep -E "^===|PASSED|FAILED|SKIPPED|ERROR SUMMARY|RACECHECK SUMMARY|rc=" $L
ARGS="--variants stream,tensorstream --radii 1,2,4,8,16,24,32 --sizes 3840x2160,1920x1080 --repeats 50"
runs=()
for round in 1 2; do
  for cfg in head a1 a0 s4; do
    case $cfg in
      head) exe=$B/head-convlive-bench knobs="" ;;
      a1) exe=$B/new-convlive-bench knobs="CONVLIVE_TS_AHEAD=1" ;;
      a0) exe=$B/new-convlive-bench knobs="CONVLIVE_TS_AHEAD=0" ;;
      s4) exe=$B/new-convlive-bench knobs="CONVLIVE_TS_AHEAD=1 CONVLIVE_STREAM_EDGE=4" ;;
    esac
    env $knobs timeout 150 $exe $ARGS --out-dir /tmp/ab/$cfg-$round > /tmp/ab/$cfg-$round.log 2>&1 ||
      { echo "bench $cfg-$round failed:"; tail -3 /tmp/ab/$cfg-$round.log; }
    runs+=("$cfg-$round=/tmp/ab/$cfg-$round")
  done
done
for v in stream tensorstream; do
  python3 app/bench/ab.py --variant $v "${runs[@]}" > $OUT/ab3-$v.txt 2>&1
  cat $OUT/ab3-$v.txt
done
