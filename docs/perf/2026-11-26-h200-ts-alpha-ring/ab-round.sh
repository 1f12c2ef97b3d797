#!/usr/bin/env bash
# 2026-11-26 session 13: tensorstream from r = 17 with its alpha bytes in a small ring (two stages
# fewer: 48 KB a 4-warp block at r = 32 instead of 87) ("ring"), and with r = 25..32 also held to
# 168 registers (__maxnreg__: three 4-warp blocks an SM) ("cap"), against HEAD (b7d61fd).
set -uo pipefail
source .devbundle/env.sh
B=/tmp/ab/bin; mkdir -p $B
for f in cap-convlive_tests_gpu cap-convlive_tests_inspect_gpu; do
  xz -dc build-ab8/$f.xz > $B/$f && chmod +x $B/$f || { echo "cannot unpack $f"; exit 1; }
done
L=$OUT/tests-cap.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L
T=$B/cap-convlive_tests_gpu
echo "=== convlive_tests_gpu (all)" >> $L
timeout 240 $T --gtest_brief=1 >> $L 2>&1; echo "rc=$?" >> $L
echo "=== inspect_gpu" >> $L
timeout 60 $B/cap-convlive_tests_inspect_gpu --gtest_brief=1 >> $L 2>&1; echo "rc=$?" >> $L
echo "=== memcheck" >> $L
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $T --gtest_filter='TensorStreamStrips.*:*/tensorstream_gaussian:*/tensorstream_pitch_h' --gtest_brief=1 >> $L 2>&1
echo "memcheck rc=$?" >> $L
echo "=== racecheck" >> $L
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 $T --gtest_filter='TensorStreamStrips.Ring*:*/tensorstream_gaussian' --gtest_brief=1 >> $L 2>&1
echo "racecheck rc=$?" >> $L
grep -E "^===|PASSED|FAILED|SKIPPED|ERROR SUMMARY|RACECHECK SUMMARY|rc=" $L
BINS=build-ab8 timeout 300 app/bench/ab-round.sh --variants tensorstream --radii 8,16,20,24,28,32 --sizes 3840x2160,1920x1080 --rounds 2 \
  head=head-convlive-bench ring=ring-convlive-bench cap=cap-convlive-bench
echo "ab rc=$?"
