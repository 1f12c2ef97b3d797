#!/usr/bin/env bash
# 2026-11-26 session 13: stream's row steps without bounds checks where a block of T steps needs
# none ("clean"), and r=2 fp16 at 5 blocks an SM (96 registers: the weights stay in registers)
# ("5"), against HEAD (b7d61fd + docs).
set -uo pipefail
source .devbundle/env.sh
B=/tmp/ab/bin; mkdir -p $B
xz -dc build-ab9/clean-convlive_tests_gpu.xz > $B/t && chmod +x $B/t || { echo "cannot unpack"; exit 1; }
L=$OUT/tests-clean.log
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
BINS=build-ab9 timeout 300 app/bench/ab-round.sh --variants stream --radii 1,2,3,4 --sizes 3840x2160,1920x1080 --rounds 2 \
  head=head-convlive-bench head5=head5-convlive-bench clean=clean-convlive-bench clean5=clean5-convlive-bench
echo "ab rc=$?"
