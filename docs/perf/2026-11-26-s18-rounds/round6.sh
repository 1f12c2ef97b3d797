#!/usr/bin/env bash
# Session 18, round 6: ncu of the pair form against HEAD's kernel at 4K r=1 and r=32 (every tile),
# to say why it is 1.6-2x slower there.
set -uo pipefail
OUT=${OUT:-/tmp/out}
source .devbundle/env.sh
B=/tmp/v/bin; mkdir -p $B
for p in base pair; do xz -dc build-ab1/$p.xz > $B/$p && chmod +x $B/$p || exit 1; done
nvidia-smi --query-gpu=name,driver_version --format=csv
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --metrics smsp__inst_executed.sum,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"
NCU="ncu --filter-mode per-launch-config --launch-count 1 $S"
for r in 1 32; do
  A="--variants tensorstream --radii $r --sizes 3840x2160 --repeats 20 --warmup 1 --warmup-ms 1"
  timeout 200 $NCU -k regex:^tensorStreamKernel $B/base $A --out-dir /tmp/v/b$r > $OUT/ncu-base-r$r.txt 2>&1; echo "base r=$r rc=$?"
  CONVLIVE_TS_PAIRS=1 timeout 200 $NCU -k regex:^tensorStreamPairKernel $B/pair $A --out-dir /tmp/v/p$r > $OUT/ncu-pair-r$r.txt 2>&1; echo "pair r=$r rc=$?"
done
for f in $OUT/ncu-*.txt; do
  echo "##### $f"
  grep -E "Kernel<|Duration|Registers Per|Achieved Occupancy|One or More|inst_executed|stalled|bank_conflicts" $f | grep -v "^ *[A-Z]*  *On average\|----" | cut -c1-125
done | head -400 > $OUT/ncu-summary.txt
head -120 $OUT/ncu-summary.txt
