#!/usr/bin/env bash
# 2026-11-26 session 14, call 1: stream fp16 with alpha kept summing (R,G) a pixel and (B,B) of two
# pixels (no alpha sums): every gpu test, memcheck and racecheck on stream's, then an A/B against
# HEAD (head), the new layout (new) and it at 6 blocks an SM for r=2 (b6), three interleaved rounds.
set -uo pipefail
source .devbundle/env.sh
B=/tmp/ab/bin; mkdir -p $B
xz -dc build-ab14/convlive_tests_gpu.xz > $B/t && chmod +x $B/t || { echo "cannot unpack"; exit 1; }
L=$OUT/tests-round1.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L
echo "=== StreamSmallRadii" >> $L
timeout 200 $B/t --gtest_filter='StreamSmallRadii.*' --gtest_brief=1 >> $L 2>&1; echo "rc=$?" >> $L
echo "=== convlive_tests_gpu (all)" >> $L
timeout 200 $B/t --gtest_brief=1 >> $L 2>&1; echo "rc=$?" >> $L
echo "=== memcheck" >> $L
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/t --gtest_filter='StreamSmallRadii.*' --gtest_brief=1 >> $L 2>&1
echo "memcheck rc=$?" >> $L
echo "=== racecheck" >> $L
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 $B/t --gtest_filter='StreamSmallRadii.Unaligned*:StreamSmallRadii.Fp16*' --gtest_brief=1 >> $L 2>&1
echo "racecheck rc=$?" >> $L
grep -E "^===|FAILED|Failure|PASSED|SKIPPED|ERROR SUMMARY|RACECHECK SUMMARY|rc=" $L | head -40
BINS=build-ab14 OUT=$OUT/ab app/bench/ab-round.sh --variants stream --radii 1,2,3,4 --rounds 3 \
  head=head-convlive-bench new=new-convlive-bench b6=b6-convlive-bench
mv $OUT/ab/ab-stream.txt $OUT/ab1-stream.txt; rm -rf $OUT/ab
cat $OUT/ab1-stream.txt
