#!/usr/bin/env bash
# 2026-11-26 session 13, last call: the committed code (stream's fp16 sums, r=2 at 5 blocks an SM):
# every gpu test, inspect_gpu, memcheck and racecheck; the r=2 rule against b7d61fd once more; the
# LDC count of the fp16 r=2 kernel; then the benchmark with NPP, CuPy and PyTorch (gpu-round.sh).
set -uo pipefail
source .devbundle/env.sh
B=/tmp/ab/bin; mkdir -p $B /tmp/fin
for f in new-convlive_tests_gpu new-convlive_tests_inspect_gpu new-convlive-bench; do
  xz -dc build-ab10/$f.xz > $B/$f && chmod +x $B/$f || { echo "cannot unpack $f"; exit 1; }
done
cp $B/new-convlive-bench $B/convlive-bench
L=/tmp/fin/tests-final.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L
T=$B/new-convlive_tests_gpu
echo "=== convlive_tests_gpu (all)" >> $L
timeout 240 $T --gtest_brief=1 >> $L 2>&1; echo "rc=$?" >> $L
echo "=== inspect_gpu" >> $L
timeout 60 $B/new-convlive_tests_inspect_gpu --gtest_brief=1 >> $L 2>&1; echo "rc=$?" >> $L
echo "=== memcheck" >> $L
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $T --gtest_filter='StreamSmallRadii.*:*/stream_gaussian:*/stream_box' --gtest_brief=1 >> $L 2>&1
echo "memcheck rc=$?" >> $L
echo "=== racecheck" >> $L
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 $T --gtest_filter='StreamSmallRadii.*:*/stream_gaussian' --gtest_brief=1 >> $L 2>&1
echo "racecheck rc=$?" >> $L
xz -dc build-ab10/head-convlive-bench.xz > $B/head && chmod +x $B/head
for prog in head convlive-bench; do
  echo "=== LDC in the fp16 r=2 kernel (identity, alpha kept), $prog" >> $L
  cuobjdump -sass $B/$prog | awk '/Function :/ {on = index($0, "streamKernelILi2ELb0ELb0ELb1E") > 0} on' | grep -c "LDC" >> $L
done
grep -E "^===|PASSED|FAILED|SKIPPED|ERROR SUMMARY|RACECHECK SUMMARY|rc=|^[0-9]+$" $L
cp $L $OUT/
BINS=build-ab10 timeout 120 app/bench/ab-round.sh --variants stream --radii 2 --sizes 3840x2160,1920x1080 --rounds 2 \
  head=head-convlive-bench new=new-convlive-bench
cp $OUT/ab-stream.txt /tmp/fin/ab-r2.txt
OUT=/tmp/fin BUILD=$B BENCH_ARGS="--variants stream,tensorstream,fused,tensor2d --radii 1,2,3,4,8,16,24,32 --custom-radii 8,16,32 --repeats 50" \
  timeout 400 app/bench/gpu-round.sh bench npp peers
echo "round rc=$?"
nvidia-smi > /tmp/fin/nvidia-smi.log
cp /tmp/fin/summary.md $OUT/ 2>/dev/null
tar -C /tmp/fin -cJf $OUT/final.tar.xz .
head -14 /tmp/fin/summary.md
