#!/usr/bin/env bash
# 2026-11-26 session 17, after last-round.sh: its ring test asked for a 64x16 tile that tensorstream
# does not offer (the kernels passed every other test); the test now uses 64x32 on taller frames.
# Every gpu test, memcheck on tensorstream's strip tests and the dependent-launch test, racecheck on
# the ring and dependent-launch tests.
set -uo pipefail
source .devbundle/env.sh
B=/tmp/ab/bin; mkdir -p $B
xz -dc build-ab48/convlive_tests_gpu.xz > $B/convlive_tests_gpu && chmod +x $B/convlive_tests_gpu || exit 1
L=$OUT/tests-last.log
nvidia-smi --query-gpu=name,driver_version --format=csv > $L
T=$B/convlive_tests_gpu
echo "=== convlive_tests_gpu (all)" >> $L
timeout 200 $T --gtest_brief=1 >> $L 2>&1; echo "rc=$?" >> $L
echo "=== memcheck" >> $L
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $T --gtest_filter='TensorStreamStrips.*:DependentLaunches.*' --gtest_brief=1 >> $L 2>&1
echo "memcheck rc=$?" >> $L
echo "=== racecheck" >> $L
timeout 230 compute-sanitizer --tool racecheck --error-exitcode 9 $T --gtest_filter='TensorStreamStrips.Ring*:DependentLaunches.*' --gtest_brief=1 >> $L 2>&1
echo "racecheck rc=$?" >> $L
grep -E "^===|PASSED|FAILED|SKIPPED|ERROR SUMMARY|RACECHECK SUMMARY|rc=|Failure" $L
