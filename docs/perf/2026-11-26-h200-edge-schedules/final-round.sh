#!/usr/bin/env bash
# The committed code's benchmark with its peers (NVIDIA NPP, CuPy, PyTorch) in the same call, the
# inspector's gpu test again (its tensorstream grid check was updated), and ncu of the changed
# kernels. From the project root with .devbundle and BINS (default build-ab3: stripped,
# xz-compressed convlive-bench and convlive_tests_inspect_gpu built here for sm_90). Everything
# goes into $OUT/round.tar.xz (at most 8 files come back); summary.md and tests.log beside it.
set -uo pipefail
source .devbundle/env.sh
BINS=${BINS:-build-ab3}
B=/tmp/v
mkdir -p $B/tests /tmp/r
xz -dc $BINS/convlive-bench.xz > $B/convlive-bench && chmod +x $B/convlive-bench || exit 1
xz -dc $BINS/convlive_tests_inspect_gpu.xz > $B/tests/convlive_tests_inspect_gpu && chmod +x $B/tests/convlive_tests_inspect_gpu || exit 1
R=/tmp/r
OUT=$R BUILD=$B BENCH_ARGS="--variants stream,tensorstream,fused,tensor2d --radii 1,2,4,8,16,24,32 --custom-radii 8,16,32 --repeats 50" \
  timeout 530 app/bench/gpu-round.sh bench npp peers
{ echo "=== convlive_tests_inspect_gpu"; timeout 60 $B/tests/convlive_tests_inspect_gpu --gtest_brief=1 2>&1; echo "rc=$?"; } >> $R/tests.log
grep -A3 "=== convlive_tests_inspect_gpu" $R/tests.log | grep -E "PASSED|FAILED|rc="
cp $R/tests.log $R/summary.md $OUT/ 2>/dev/null
tar -C $R -cJf $OUT/round.tar.xz .
NCU="ncu --filter-mode per-launch-config --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis"
Q="--repeats 20 --warmup 1 --warmup-ms 1 --frames 3"
timeout 120 $NCU -k regex:^tensorStreamKernel $B/convlive-bench --variants tensorstream --radii 1,32 --sizes 3840x2160,1920x1080 $Q --out-dir /tmp/v/ncu1 > $OUT/ncu-tensorstream.txt 2>&1
echo "ncu tensorstream rc=$?"
timeout 60 $NCU -k regex:^streamKernel $B/convlive-bench --variants stream --radii 1,2 --sizes 3840x2160 $Q --out-dir /tmp/v/ncu2 > $OUT/ncu-stream.txt 2>&1
echo "ncu stream rc=$?"
grep -c "Duration" $OUT/ncu-*.txt
xz -T4 $OUT/ncu-*.txt
