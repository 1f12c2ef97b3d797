#!/usr/bin/env bash
# 2026-11-26 session 16: the kept dependent launches (NOTES.md item 55): all gpu tests, memcheck
# and racecheck on the ring test, tensor2d's products and the new DependentLaunches test, and that
# test against a mutant build whose kernels do not wait for the kernel before them (it must fail).
set -uo pipefail
source .devbundle/env.sh
W=/tmp/v5; mkdir -p $W
for f in fin-t mut-t; do xz -dc build-ab29/$f.xz > $W/$f && chmod +x $W/$f || exit 1; done
L=$OUT/tests-round5.log
nvidia-smi --query-gpu=name,driver_version --format=csv > $L
echo "=== fin-t all" >> $L; timeout 200 $W/fin-t --gtest_brief=1 >> $L 2>&1; echo "rc=$?" >> $L
echo "=== mut-t DependentLaunches (must fail)" >> $L
timeout 60 $W/mut-t --gtest_filter='DependentLaunches.*' --gtest_brief=1 >> $L 2>&1; echo "rc=$?" >> $L
F='TensorStreamStrips.Ring*:DependentLaunches.*:*Tensor2DProducts*'
for tool in memcheck racecheck; do
  echo "=== compute-sanitizer --tool $tool $F" >> $L
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 $W/fin-t --gtest_filter="$F" --gtest_brief=1 >> $L 2>&1
  echo "$tool rc=$?" >> $L
done
grep -E "^===|PASSED|FAILED|SKIPPED|ERROR SUMMARY|RACECHECK SUMMARY|rc=|Failure|round" $L | head -40
