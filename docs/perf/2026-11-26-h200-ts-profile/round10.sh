#!/usr/bin/env bash
# 2026-11-26 session 14: ncu of the committed kernels where issue 9's targets are unmet: tensorstream
# at 4K r=4 and r=32 and stream at 4K r=4 (every tile once; ncu's base clocks, so durations are
# longer than the events'), for NOTES.md's table of what limits each.
set -uo pipefail
source .devbundle/env.sh
B=/tmp/v/bin; mkdir -p $B /tmp/v/o
xz -dc build-ab19/convlive-bench.xz > $B/b && chmod +x $B/b || exit 1
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats --section MemoryWorkloadAnalysis"
NCU="ncu --filter-mode per-launch-config --launch-count 1 $S"
timeout 250 $NCU -k regex:^tensorStreamKernel $B/b --variants tensorstream --radii 4,32 --sizes 3840x2160 --repeats 20 --warmup 1 --out-dir /tmp/v/o > $OUT/ncu-ts.txt 2>&1
echo "ncu tensorstream rc=$?"
timeout 150 $NCU -k regex:^streamKernel $B/b --variants stream --radii 4 --sizes 3840x2160 --repeats 20 --warmup 1 --out-dir /tmp/v/o2 > $OUT/ncu-stream.txt 2>&1
echo "ncu stream rc=$?"
for f in $OUT/ncu-ts.txt $OUT/ncu-stream.txt; do
  grep -E "Kernel<|\(.*\)x\(|Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Issue Slots Busy|No Eligible|Eligible Warps|Executed Instructions  |Warp Cycles Per Issued|DRAM Throughput|L1/TEX Cache Throughput|Compute \(SM\)|highest-utilized|stalled|Mem Pipes" $f | cut -c1-180
done | head -150
