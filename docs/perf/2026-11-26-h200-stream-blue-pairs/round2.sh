#!/usr/bin/env bash
# 2026-11-26 session 14, call 2: stream fp16 with alpha kept, its neighbours' pixels shuffled already converted
# (s2; b6 is call 1's layout at 6 blocks an SM for r=2): every gpu test, memcheck and racecheck on stream's, then an A/B against
# HEAD (head), b6 and s2, three interleaved rounds; then s2's stream against its tensorstream.
set -uo pipefail
source .devbundle/env.sh
B=/tmp/ab/bin; mkdir -p $B
xz -dc build-ab14/convlive_tests_gpu.xz > $B/t && chmod +x $B/t || { echo "cannot unpack"; exit 1; }
L=$OUT/tests-round2.log
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
  head=head-convlive-bench b6=b6-convlive-bench s2=s2-convlive-bench
mv $OUT/ab/ab-stream.txt $OUT/ab2-stream.txt; rm -rf $OUT/ab
cat $OUT/ab2-stream.txt
BINS=build-ab14 OUT=$OUT/ab app/bench/ab-round.sh --variants stream,tensorstream --radii 2,3,4 --rounds 2 s2=s2-convlive-bench
mv $OUT/ab/ab-stream.txt $OUT/ab2-s2-stream.txt; mv $OUT/ab/ab-tensorstream.txt $OUT/ab2-s2-tensorstream.txt; rm -rf $OUT/ab
cat $OUT/ab2-s2-stream.txt $OUT/ab2-s2-tensorstream.txt
# s2's SASS of the r=2 kernel (alpha kept, fp16): what a step is made of.
xz -dc build-ab14/s2-convlive-bench.xz > $B/s2 && chmod +x $B/s2
timeout 120 cuobjdump -sass $B/s2 | awk '/Function : /{p = /streamKernelILi2ELb0ELb0ELb1E/} p' > $OUT/sass-r2.txt
grep -oE "^\s+/\*[0-9a-f]+\*/\s+(@!?U?P[0-9T] )?[A-Z0-9.]+" $OUT/sass-r2.txt | awk '{print $NF}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -30
