#!/usr/bin/env bash
# Fourth A/B (2026-11-26, NOTES.md item 37): tensorstream's entries x segment-rows grid as in
# ab3-round.sh, now with an edge entry's idle blocks (its rows past its column's last segment)
# returning before they make the weights, against HEAD (a423064); CONVLIVE_TS_AHEAD=1 (the
# default: an edge column's blocks in the grid's first half) and 0 (spread over every row).
# stream is HEAD's in both builds. From the project root with .devbundle and BINS (build-ab4).
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
echo "=== convlive_tests_gpu (all)" >> $L
timeout 200 $T --gtest_brief=1 >> $L 2>&1
echo "rc=$?" >> $L
echo "=== CONVLIVE_TS_AHEAD=0: tensorstream gtests" >> $L
CONVLIVE_TS_AHEAD=0 timeout 100 $T --gtest_filter='TensorStreamStrips.*:*tensorstream*:Auto*' --gtest_brief=1 >> $L 2>&1
echo "rc=$?" >> $L
echo "=== inspect_gpu" >> $L
timeout 60 $B/new-convlive_tests_inspect_gpu --gtest_brief=1 >> $L 2>&1
echo "rc=$?" >> $L
echo "=== memcheck" >> $L
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $T \
  --gtest_filter='TensorStreamStrips.*:*/tensorstream_gaussian:*/tensorstream_pitch_h' --gtest_brief=1 >> $L 2>&1
echo "memcheck rc=$?" >> $L
echo "=== racecheck" >> $L
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 $T \
  --gtest_filter='TensorStreamStrips.Ring*:*/tensorstream_gaussian' --gtest_brief=1 >> $L 2>&1
echo "racecheck rc=$?" >> $L
grep -E "^===|PASSED|FAILED|SKIPPED|ERROR SUMMARY|RACECHECK SUMMARY|rc=" $L
ARGS="--variants tensorstream --radii 1,2,4,8,16,24,32 --sizes 3840x2160,1920x1080 --repeats 50"
runs=()
for round in 1 2; do
  for cfg in head a1 a0; do
    case $cfg in
      head) exe=$B/head-convlive-bench knobs="" ;;
      a1) exe=$B/new-convlive-bench knobs="CONVLIVE_TS_AHEAD=1" ;;
      a0) exe=$B/new-convlive-bench knobs="CONVLIVE_TS_AHEAD=0" ;;
    esac
    env $knobs timeout 150 $exe $ARGS --out-dir /tmp/ab/$cfg-$round > /tmp/ab/$cfg-$round.log 2>&1 ||
      { echo "bench $cfg-$round failed:"; tail -3 /tmp/ab/$cfg-$round.log; }
    runs+=("$cfg-$round=/tmp/ab/$cfg-$round")
  done
done
python3 app/bench/ab.py --variant tensorstream "${runs[@]}" > $OUT/ab4-tensorstream.txt 2>&1
cat $OUT/ab4-tensorstream.txt
