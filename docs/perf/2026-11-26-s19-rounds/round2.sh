#!/usr/bin/env bash
# Session 19, round 2: ncu of tensorstream at 1080p r=1, 4 and 8 (every tile, one launch each), to
# say why r=8 is 6% slower than r=4 there back to back (0.00916 against 0.00864 ms at 64x64, the
# same kernel instance and schedule) while 4K is level.
set -uo pipefail
OUT=${OUT:-/tmp/out} BINS=${BINS:-build-ab7}
source .devbundle/env.sh
B=/tmp/v/bin; mkdir -p $B
xz -dc $BINS/convlive-bench.xz > $B/bench && chmod +x $B/bench || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv
M=smsp__inst_executed.sum,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_active.min,gpc__cycles_elapsed.max,smsp__warps_launched.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,dram__bytes.sum,lts__t_bytes.sum,smsp__issue_active.avg.pct_of_peak_sustained_active
for r in 1 4 8; do
  timeout 150 ncu --filter-mode per-launch-config --launch-count 1 --section SpeedOfLight --metrics $M -k regex:^tensorStreamKernel \
    $B/bench --variants tensorstream --radii $r --sizes 1920x1080 --repeats 20 --warmup 1 --warmup-ms 1 --out-dir /tmp/v/r$r > $OUT/ncu-r$r.txt 2>&1
  echo "r=$r rc=$?"
done
for r in 1 4 8; do
  echo "##### r=$r"
  grep -E "tensorStreamKernel<|Duration|sm__cycles_active|inst_executed|stalled|warps_active|issue_active|dram__bytes|elapsed" $OUT/ncu-r$r.txt | cut -c1-130
done > $OUT/ncu-summary.txt
wc -l $OUT/ncu-summary.txt
