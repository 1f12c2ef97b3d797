#!/usr/bin/env bash
# 2026-11-26 session 13, after the review: stream's tests at every radius in both number formats
# (asymmetric factors, fp16 with Abs, fp32 at r = 0), unaligned rows, and the fp16 kernel against
# the host emulation of the steps planHalfSums bounds, byte for byte; then every gpu test.
set -uo pipefail
source .devbundle/env.sh
B=/tmp/ab/bin; mkdir -p $B
xz -dc build-ab12/convlive_tests_gpu.xz > $B/t && chmod +x $B/t || { echo "cannot unpack"; exit 1; }
L=$OUT/tests-review.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L
echo "=== StreamSmallRadii" >> $L
timeout 200 $B/t --gtest_filter='StreamSmallRadii.*' >> $L 2>&1; echo "rc=$?" >> $L
echo "=== convlive_tests_gpu (all)" >> $L
timeout 300 $B/t --gtest_brief=1 >> $L 2>&1; echo "rc=$?" >> $L
echo "=== memcheck" >> $L
timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 $B/t --gtest_filter='StreamSmallRadii.*' --gtest_brief=1 >> $L 2>&1
echo "memcheck rc=$?" >> $L
echo "=== racecheck" >> $L
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 $B/t --gtest_filter='StreamSmallRadii.Unaligned*:StreamSmallRadii.Fp16*' --gtest_brief=1 >> $L 2>&1
echo "racecheck rc=$?" >> $L
grep -E "^===|OK \]|FAILED|Failure|PASSED|SKIPPED|ERROR SUMMARY|RACECHECK SUMMARY|rc=" $L | head -60
