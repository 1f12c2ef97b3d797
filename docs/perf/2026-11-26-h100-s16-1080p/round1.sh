#!/usr/bin/env bash
# 2026-11-26 session 16: where 1080p's time goes. convlive-bench with its new reference launches
# (an empty kernel and a plain copy kernel, timed like the variants) at 1080p and 4K, with 3 and
# 12 rotating inputs (1080p's 3 inputs fit the 60 MiB L2), then ncu of tensorstream's 1080p
# launches (every tile) against 4K r=4 and of the copy kernel (ncu's base clocks).
set -uo pipefail
source .devbundle/env.sh
B=/tmp/v/bin; mkdir -p $B /tmp/v/o
xz -dc build-ab25/convlive-bench.xz > $B/b && chmod +x $B/b || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/bench.log
for fr in 3 12; do
  echo "=== frames $fr" >> $OUT/bench.log
  $B/b --variants stream,tensorstream,tensor2d --radii 1,2,4,8,16,32 --custom-radii 8 --sizes 1920x1080,3840x2160 \
    --repeats 100 --frames $fr --out-dir /tmp/v/o$fr >> $OUT/bench.log 2>&1
  cp /tmp/v/o$fr/convlive.csv $OUT/convlive-frames$fr.csv
done
grep -E "^===|empty|frame copy" $OUT/bench.log
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats"
NCU="ncu --filter-mode per-launch-config --launch-count 1 $S"
timeout 200 $NCU -k regex:^tensorStreamKernel $B/b --variants tensorstream --radii 4 --sizes 1920x1080,3840x2160 --repeats 20 --warmup 1 --warmup-ms 1 --out-dir /tmp/v/o1 > $OUT/ncu-ts.txt 2>&1
echo "ncu ts rc=$?"
timeout 100 $NCU -k regex:"copyKernel|streamKernel" $B/b --variants stream --radii 1 --sizes 1920x1080,3840x2160 --repeats 20 --warmup 1 --warmup-ms 1 --out-dir /tmp/v/o2 > $OUT/ncu-copy.txt 2>&1
echo "ncu copy rc=$?"
for f in $OUT/ncu-ts.txt $OUT/ncu-copy.txt; do
  grep -E "Kernel<|copyKernel|\(.*\)x\(|Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Waves Per SM|Issue Slots Busy|No Eligible|DRAM Throughput|L1/TEX Cache Throughput|Compute \(SM\)" $f | cut -c1-150
done | head -150
