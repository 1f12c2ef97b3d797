#!/usr/bin/env bash
# 2026-11-26 session 13, call 1: stream with fp16 sums (planHalfSums) against HEAD (a212233).
set -uo pipefail
source .devbundle/env.sh
B=/tmp/ab/bin; mkdir -p $B
for f in new-convlive_tests_gpu new-convlive_tests_inspect_gpu; do
  xz -dc build-ab7/$f.xz > $B/$f && chmod +x $B/$f || { echo "cannot unpack $f"; exit 1; }
done
L=$OUT/tests.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L
T=$B/new-convlive_tests_gpu
echo "=== convlive_tests_gpu (all)" >> $L
timeout 240 $T --gtest_brief=1 >> $L 2>&1; echo "rc=$?" >> $L
echo "=== inspect_gpu" >> $L
timeout 60 $B/new-convlive_tests_inspect_gpu --gtest_brief=1 >> $L 2>&1; echo "rc=$?" >> $L
echo "=== memcheck" >> $L
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $T --gtest_filter='StreamSmallRadii.*:*/stream_gaussian:*/stream_box' --gtest_brief=1 >> $L 2>&1
echo "memcheck rc=$?" >> $L
echo "=== racecheck" >> $L
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 $T --gtest_filter='StreamSmallRadii.*:*/stream_gaussian' --gtest_brief=1 >> $L 2>&1
echo "racecheck rc=$?" >> $L
grep -E "^===|PASSED|FAILED|SKIPPED|ERROR SUMMARY|RACECHECK SUMMARY|rc=" $L
BINS=build-ab7 timeout 250 app/bench/ab-round.sh --variants stream --radii 1,2,3,4 --sizes 3840x2160,1920x1080 --rounds 2 head=head-convlive-bench new=new-convlive-bench
echo "ab rc=$?"
