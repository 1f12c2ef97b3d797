#!/usr/bin/env bash
# 2026-11-26 session 14, last call: the committed code (stream's blue pairs and converted apron,
# NOTES.md item 43; tensorstream's subnormal inputs and alpha swizzle, items 45-46; the tune key; the
# fixed order): every gpu test, inspect_gpu, memcheck and racecheck on stream's and tensorstream's ring tests;
# then the benchmark with NPP, CuPy and PyTorch (gpu-round.sh).
set -uo pipefail
source .devbundle/env.sh
B=/tmp/ab/bin; mkdir -p $B /tmp/fin
for f in convlive_tests_gpu convlive_tests_inspect_gpu convlive-bench; do
  xz -dc build-ab19/$f.xz > $B/$f && chmod +x $B/$f || { echo "cannot unpack $f"; exit 1; }
done
L=/tmp/fin/tests-final.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L
T=$B/convlive_tests_gpu
echo "=== convlive_tests_gpu (all)" >> $L
timeout 240 $T --gtest_brief=1 >> $L 2>&1; echo "rc=$?" >> $L
echo "=== inspect_gpu" >> $L
timeout 60 $B/convlive_tests_inspect_gpu --gtest_brief=1 >> $L 2>&1; echo "rc=$?" >> $L
echo "=== memcheck" >> $L
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $T --gtest_filter='StreamSmallRadii.*:*/stream_gaussian:*/stream_box:TensorStreamStrips.Ring*' --gtest_brief=1 >> $L 2>&1
echo "memcheck rc=$?" >> $L
echo "=== racecheck" >> $L
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 $T --gtest_filter='StreamSmallRadii.Unaligned*:StreamSmallRadii.Fp16*:TensorStreamStrips.Ring*' --gtest_brief=1 >> $L 2>&1
echo "racecheck rc=$?" >> $L
grep -E "^===|PASSED|FAILED|SKIPPED|ERROR SUMMARY|RACECHECK SUMMARY|rc=" $L
cp $L $OUT/
OUT=/tmp/fin BUILD=$B BENCH_ARGS="--variants stream,tensorstream,fused,tensor2d --radii 1,2,3,4,8,16,24,32 --custom-radii 8,16,32 --repeats 50" \
  timeout 400 app/bench/gpu-round.sh bench npp peers
echo "round rc=$?"
nvidia-smi > /tmp/fin/nvidia-smi.log
cp /tmp/fin/summary.md $OUT/ 2>/dev/null
tar -C /tmp/fin -cJf $OUT/final.tar.xz .
head -16 /tmp/fin/summary.md
