#!/usr/bin/env bash
# 2026-11-26 session 13, call 2: where stream's time goes with fp16 sums (4K r=1, r=2) and before (r=2).
set -uo pipefail
source .devbundle/env.sh
B=/tmp/ab/bin; mkdir -p $B /tmp/ab/o
for f in head-convlive-bench new-convlive-bench; do xz -dc build-ab7/$f.xz > $B/$f && chmod +x $B/$f; done
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section InstructionStats"
for run in new:1 new:2 head:2; do
  b=${run%%:*}; r=${run##*:}
  echo "=== $b r=$r"
  timeout 150 ncu $S --launch-skip 3 --launch-count 1 -k regex:^streamKernel $B/$b-convlive-bench --variants stream --radii $r --sizes 3840x2160 --repeats 20 --warmup 2 --frames 3 --out-dir /tmp/ab/o 2>&1 | grep -vE "^==PROF==|^\s*$" | grep -E "^\s+[A-Z]|streamKernel|Section" | head -120
done > $OUT/ncu.txt 2>&1
grep -E "===|Duration|DRAM Throughput|Compute \(SM\)|Issue Slots Busy|Achieved Occupancy|No Eligible|Registers Per|Theoretical Occ|Executed Instructions  |Memory Throughput|L1/TEX Hit|Mem Busy|Max Bandwidth|Mem Pipes" $OUT/ncu.txt
