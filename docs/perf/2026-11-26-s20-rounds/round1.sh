#!/usr/bin/env bash
# Session 20, round 1. If the machine lent is an H200: the closing round (verify-round.sh) on
# 6065a34's build (HEAD's kernels), for the H200 gpu summary and table the issue asks for. Otherwise
# (H100): ncu of tensorstream at 1080p r = 16, 24, 32 (every tile, one launch each) after items
# 71-72, to see what the one-round grid waits on (NOTES "Next, from session 19" (b)).
set -uo pipefail
OUT=${OUT:-/tmp/out} BINS=${BINS:-build-ab11}
source .devbundle/env.sh
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $name"
if [[ "$name" == *H200* ]]; then
  BINS=$BINS OUT=$OUT bash app/bench/verify-round.sh
  exit $?
fi
B=/tmp/v/bin; mkdir -p $B
xz -dc $BINS/convlive-bench.xz > $B/bench && chmod +x $B/bench || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv
M=smsp__inst_executed.sum,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_active.min,gpc__cycles_elapsed.max,smsp__warps_launched.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,dram__bytes.sum,lts__t_bytes.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__waves_per_multiprocessor
for s in 1920x1080:16 1920x1080:24 1920x1080:32 3840x2160:32; do
  size=${s%:*} r=${s#*:}
  timeout 140 ncu --filter-mode per-launch-config --launch-count 1 --metrics $M -k regex:^tensorStreamKernel \
    $B/bench --variants tensorstream --radii $r --sizes $size --repeats 20 --warmup 1 --warmup-ms 1 --out-dir /tmp/v/r$r > /tmp/v/ncu-$size-r$r.txt 2>&1
  echo "$size r=$r rc=$?"
  grep -E "tensorStreamKernel<|elapsed|sm__cycles_active|inst_executed|stalled|warps_active|issue_active|dram__bytes|registers|occupancy_limit|waves" /tmp/v/ncu-$size-r$r.txt | cut -c1-130 > $OUT/ncu-$size-r$r-summary.txt
done
# the benchmark's own best tiles, for the case each ncu launch belongs to
timeout 120 $B/bench --variants tensorstream --radii 16,24,32 --sizes 1920x1080,3840x2160 --repeats 30 --out-dir /tmp/v/bench > $OUT/bench.log 2>&1
echo "bench rc=$?"
tail -20 $OUT/bench.log
rm -rf /tmp/v/bin; tar -C /tmp/v -cJf $OUT/round1.tar.xz .
