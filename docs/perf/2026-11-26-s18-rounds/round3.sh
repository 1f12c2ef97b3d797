#!/usr/bin/env bash
# Session 18, round 3: ncu of tensorstream's 1080p r=4 launches, one a tile: HEAD's kernel (base)
# and the channel form (chan0, 85 registers, one step ahead), to say why the latter is slower.
set -uo pipefail
OUT=${OUT:-/tmp/out}
source .devbundle/env.sh
B=/tmp/v/bin; mkdir -p $B
for p in base chan0; do xz -dc build-ab1/$p.xz > $B/$p && chmod +x $B/$p || exit 1; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis"
NCU="ncu --filter-mode per-launch-config --launch-count 1 $S"
A="--variants tensorstream --radii 4 --sizes 1920x1080 --repeats 5 --warmup 1 --warmup-ms 1"
timeout 250 $NCU -k regex:^tensorStreamKernel $B/base $A --out-dir /tmp/v/o1 > $OUT/ncu-base.txt 2>&1; echo "base rc=$?"
CONVLIVE_TS_CHANNELS=1 timeout 250 $NCU -k regex:^tensorStreamChannelKernel $B/chan0 $A --out-dir /tmp/v/o2 > $OUT/ncu-chan.txt 2>&1; echo "chan rc=$?"
for f in $OUT/ncu-base.txt $OUT/ncu-chan.txt; do
  echo "##### $f"
  grep -E "Kernel<|Kernel\(|Block Size|Grid Size|Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Waves Per SM|Issue Slots Busy|No Eligible|DRAM Throughput|L1/TEX Cache Throughput|Compute \(SM\) Th|Shared Memory Configuration|Warp Cycles Per Issued|Stall" $f | cut -c1-140
done | head -230
