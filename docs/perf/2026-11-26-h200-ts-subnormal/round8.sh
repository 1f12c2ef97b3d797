#!/usr/bin/env bash
# 2026-11-26 session 14: the subnormal inputs as committed (regrouped pairs, raw words at r = 17..24):
# every gpu test, inspect_gpu, memcheck and racecheck on tensorstream's tests, and an A/B against HEAD.
set -uo pipefail
source .devbundle/env.sh
B=/tmp/v/bin; mkdir -p $B
for n in convlive_tests_gpu convlive_tests_inspect_gpu; do
  xz -dc build-ab18/$n.xz > $B/$n && chmod +x $B/$n || { echo "cannot unpack $n"; exit 1; }
done
L=$OUT/tests-round8.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L
T=$B/convlive_tests_gpu
echo "=== convlive_tests_gpu (all)" >> $L; timeout 200 $T --gtest_brief=1 >> $L 2>&1; echo "rc=$?" >> $L
echo "=== inspect_gpu" >> $L; timeout 60 $B/convlive_tests_inspect_gpu --gtest_brief=1 >> $L 2>&1; echo "rc=$?" >> $L
echo "=== memcheck" >> $L
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $T --gtest_filter='TensorStreamStrips.*:*/tensorstream_gaussian:*/tensorstream_pitch_h' --gtest_brief=1 >> $L 2>&1
echo "memcheck rc=$?" >> $L
echo "=== racecheck" >> $L
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 $T --gtest_filter='TensorStreamStrips.Ring*' --gtest_brief=1 >> $L 2>&1
echo "racecheck rc=$?" >> $L
grep -E "^===|FAILED|Failure|PASSED|SKIPPED|ERROR SUMMARY|RACECHECK SUMMARY|rc=" $L
BINS=build-ab18 OUT=$OUT/ab app/bench/ab-round.sh --variants tensorstream --radii 2,4,8,16,24,32 --rounds 2 \
  head=head-convlive-bench new=convlive-bench
mv $OUT/ab/ab-tensorstream.txt $OUT/ab8-tensorstream.txt; rm -rf $OUT/ab
cat $OUT/ab8-tensorstream.txt
