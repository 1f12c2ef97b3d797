#!/usr/bin/env bash
# 2026-11-26 session 14, call 3: the committed code's gpu tests (HEAD 0d96da1: the new fixed order and
# tune key included), then where tensorstream's time goes at 4K r=4 and r=32 (ncu: pipes, stalls,
# the top stall sources) and what its r <= 8 step is made of (SASS histogram).
set -uo pipefail
source .devbundle/env.sh
B=/tmp/v/bin; mkdir -p $B /tmp/v/o
for n in convlive-bench convlive_tests_gpu convlive_tests_inspect_gpu; do
  xz -dc build-ab15/$n.xz > $B/$n && chmod +x $B/$n || { echo "cannot unpack $n"; exit 1; }
done
L=$OUT/tests-round3.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L
for t in convlive_tests_gpu convlive_tests_inspect_gpu; do
  echo "=== $t" >> $L; timeout 200 $B/$t --gtest_brief=1 >> $L 2>&1; echo "$t rc=$?" >> $L
done
grep -E "^===|FAILED|Failure|PASSED|SKIPPED|rc=" $L | head -30
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats --section MemoryWorkloadAnalysis_Tables"
for r in 4 32; do
  echo "=== tensorstream 4K r=$r"
  timeout 200 ncu --filter-mode per-launch-config --launch-count 1 $S -k regex:^tensorStreamKernel $B/convlive-bench --variants tensorstream --radii $r --sizes 3840x2160 --repeats 3 --warmup 1 --frames 1 --out-dir /tmp/v/o 2>&1 | grep -vE "^==PROF==|^\s*$"
done > $OUT/ncu-ts.txt 2>&1
grep -E "===|tensorStreamKernel<|Duration|Issue Slots Busy|Achieved Occupancy|No Eligible|Registers Per|Executed Instructions  |Warp Cycles Per Issued|pipeline|Stall|stall|Bank" $OUT/ncu-ts.txt | cut -c1-220 | head -80
timeout 120 cuobjdump -sass $B/convlive-bench | awk '/Function : /{p = /tensorStreamKernelILi1ELi3ELi2ELb0E/} p' > $OUT/sass-ts1.txt
echo "=== SASS tensorStreamKernel<1,3,kFree,false>: $(grep -c '/\*[0-9a-f]*\*/' $OUT/sass-ts1.txt) instructions"
grep -oE "^\s+/\*[0-9a-f]+\*/\s+(@!?U?P[0-9T] )?[A-Z0-9.]+" $OUT/sass-ts1.txt | awk '{print $NF}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -30
