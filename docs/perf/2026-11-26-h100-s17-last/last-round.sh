#!/usr/bin/env bash
# 2026-11-26 session 17, last call: the committed kernels (NOTES.md items 59 and 63: tensorstream at
# r > 8 carrying the stored rows' alpha in registers; two steps ahead at r > 12 on grids of more than
# one round): every gpu test, inspect_gpu, memcheck on tensorstream's strip tests and the
# dependent-launch test, racecheck on the ring and dependent-launch tests; an A/B of tensorstream
# against 40305de (head: ringOf's old rule) after the benchmark with NPP, CuPy and PyTorch.
set -uo pipefail
source .devbundle/env.sh
B=/tmp/ab/bin; mkdir -p $B /tmp/fin
for f in convlive_tests_gpu convlive_tests_inspect_gpu convlive-bench; do
  xz -dc build-ab47/$f.xz > $B/$f && chmod +x $B/$f || { echo "cannot unpack $f"; exit 1; }
done
L=/tmp/fin/tests-final.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L
T=$B/convlive_tests_gpu
echo "=== convlive_tests_gpu (all)" >> $L
timeout 200 $T --gtest_brief=1 >> $L 2>&1; echo "rc=$?" >> $L
echo "=== inspect_gpu" >> $L
timeout 60 $B/convlive_tests_inspect_gpu --gtest_brief=1 >> $L 2>&1; echo "rc=$?" >> $L
echo "=== memcheck" >> $L
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $T --gtest_filter='TensorStreamStrips.*:DependentLaunches.*' --gtest_brief=1 >> $L 2>&1
echo "memcheck rc=$?" >> $L
echo "=== racecheck" >> $L
timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 $T --gtest_filter='TensorStreamStrips.Ring*:DependentLaunches.*' --gtest_brief=1 >> $L 2>&1
echo "racecheck rc=$?" >> $L
grep -E "^===|PASSED|FAILED|SKIPPED|ERROR SUMMARY|RACECHECK SUMMARY|rc=" $L
cp $L $OUT/
OUT=/tmp/fin BUILD=$B BENCH_ARGS="--variants stream,tensorstream,tensor2d --radii 1,2,3,4,8,16,24,32 --custom-radii 8,16,32 --repeats 50" \
  timeout 300 app/bench/gpu-round.sh bench npp peers
echo "round rc=$?"
nvidia-smi > /tmp/fin/nvidia-smi.log
cp /tmp/fin/summary.md $OUT/ 2>/dev/null
tar -C /tmp/fin -cJf $OUT/final.tar.xz .
head -16 /tmp/fin/summary.md
# Last, as time allows: tensorstream against 40305de (head), two rounds.
BINS=build-ab47 OUT=/tmp/fin/ab timeout 150 app/bench/ab-round.sh --variants tensorstream --radii 4,13,16,24 \
  --rounds 2 head=head-cb new=new-cb > /dev/null 2>&1; echo "ab rc=$?"
cp /tmp/fin/ab/ab-tensorstream.txt $OUT/ab-tensorstream-last.txt && cat $OUT/ab-tensorstream-last.txt
