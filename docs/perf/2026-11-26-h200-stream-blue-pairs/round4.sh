#!/usr/bin/env bash
# 2026-11-26 session 14, call 4: two small stream changes against HEAD (0d96da1): e1 makes a blue pair
# with two PRMT (no mask and OR); e2 is e1 with r=3 at 6 blocks an SM and r=4 at 5 (ptxas: 8-16
# bytes spilled). Then ncu of tensorstream at 4K r=4, every tile (call 3's ncu did not run).
set -uo pipefail
source .devbundle/env.sh
BINS=build-ab16 OUT=$OUT/ab app/bench/ab-round.sh --variants stream --radii 1,2,3,4 --rounds 3 \
  head=head-convlive-bench e1=e1-convlive-bench e2=e2-convlive-bench
mv $OUT/ab/ab-stream.txt $OUT/ab4-stream.txt; rm -rf $OUT/ab
cat $OUT/ab4-stream.txt
B=/tmp/v/bin; mkdir -p $B /tmp/v/o
xz -dc build-ab16/head-convlive-bench.xz > $B/b && chmod +x $B/b
S="--section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats"
timeout 240 ncu --filter-mode per-launch-config --launch-count 1 $S -k regex:^tensorStreamKernel $B/b --variants tensorstream --radii 4 --sizes 3840x2160 --repeats 20 --warmup 1 --frames 1 --out-dir /tmp/v/o 2>&1 | grep -vE "^==PROF==|^\s*$" > $OUT/ncu-ts-r4.txt
grep -E "tensorStreamKernel<|Duration|Issue Slots Busy|Achieved Occupancy|No Eligible|Executed Instructions  |Warp Cycles Per Issued|highest-utilized|stalled" $OUT/ncu-ts-r4.txt | cut -c1-200 | head -60
