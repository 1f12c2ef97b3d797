#!/usr/bin/env bash
# 2026-11-26 session 13: stream fp16 at r <= 2 with 8 pixels a lane (two 16-byte copies a row:
# the per-row work shared by twice the pixels) ("n8"), against HEAD (428244d).
set -uo pipefail
source .devbundle/env.sh
B=/tmp/ab/bin; mkdir -p $B
xz -dc build-ab11/n8-convlive_tests_gpu.xz > $B/t && chmod +x $B/t || { echo "cannot unpack"; exit 1; }
L=$OUT/tests-n8.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L
echo "=== stream tests" >> $L
timeout 200 $B/t --gtest_filter='StreamSmallRadii.*:*/stream_*:Auto*' --gtest_brief=1 >> $L 2>&1; echo "rc=$?" >> $L
echo "=== memcheck" >> $L
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/t --gtest_filter='StreamSmallRadii.*:*/stream_gaussian' --gtest_brief=1 >> $L 2>&1
echo "memcheck rc=$?" >> $L
echo "=== racecheck" >> $L
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 $B/t --gtest_filter='StreamSmallRadii.*' --gtest_brief=1 >> $L 2>&1
echo "racecheck rc=$?" >> $L
grep -E "^===|PASSED|FAILED|SKIPPED|ERROR SUMMARY|RACECHECK SUMMARY|rc=" $L
BINS=build-ab11 timeout 300 app/bench/ab-round.sh --variants stream --radii 1,2 --sizes 3840x2160,1920x1080 --rounds 3 \
  head=head-convlive-bench n8=n8-convlive-bench
echo "ab rc=$?"
