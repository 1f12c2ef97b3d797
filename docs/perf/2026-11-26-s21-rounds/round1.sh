#!/usr/bin/env bash
# Session 21, round 1 (H200; ANY_GPU=1 on another card: 1080p's times are the same on an H100): ncu of tensorstream at 1080p r = 4 and 8 (every tile, one launch
# each) and 4K r = 4, with HEAD's kernels (531cd8b, build-ab18): on the H200 1080p keeps only 72-74%
# of the 4K throughput at r <= 8 back to back (the H100 kept 83-85%), so what does its grid wait on?
set -uo pipefail
OUT=${OUT:-/tmp/out} BINS=${BINS:-build-ab18}
source .devbundle/env.sh
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $name"
[[ "$name" == *H200* || -n "${ANY_GPU:-}" ]] || { echo "not an H200: nothing run (ANY_GPU=1 runs it anyway)"; exit 3; }
B=/tmp/v/bin; mkdir -p $B
xz -dc $BINS/convlive-bench.xz > $B/bench && chmod +x $B/bench || exit 1
M=smsp__inst_executed.sum,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_active.min,gpc__cycles_elapsed.max,smsp__warps_launched.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,smsp__average_warps_issue_stalled_drain_per_issue_active.ratio,dram__bytes.sum,lts__t_bytes.sum,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__waves_per_multiprocessor,launch__grid_size
for s in 1920x1080:4 1920x1080:8 3840x2160:4; do
  size=${s%:*} r=${s#*:}
  timeout 150 ncu --filter-mode per-launch-config --launch-count 1 --metrics $M -k regex:^tensorStream \
    $B/bench --variants tensorstream --radii $r --sizes $size --repeats 20 --warmup 1 --warmup-ms 1 --out-dir /tmp/v/r$r > /tmp/v/ncu-$size-r$r.txt 2>&1
  echo "$size r=$r rc=$?"
  grep -E "tensorStream.*Kernel<|elapsed|sm__cycles_active|inst_executed|stalled|warps_active|issue_active|dram__bytes|lts__t|l1tex|registers|occupancy_limit|waves|grid_size" /tmp/v/ncu-$size-r$r.txt | cut -c1-130 > $OUT/ncu-$size-r$r-summary.txt
done
timeout 100 $B/bench --variants tensorstream --radii 4,8 --sizes 1920x1080,3840x2160 --repeats 30 --out-dir /tmp/v/bench > $OUT/bench.log 2>&1
echo "bench rc=$?"
grep -E "^tensorstream" $OUT/bench.log | sort -k8 -n | head -30
rm -rf /tmp/v/bin; tar -C /tmp/v -cJf $OUT/round1.tar.xz .
