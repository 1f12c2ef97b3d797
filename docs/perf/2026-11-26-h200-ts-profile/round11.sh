#!/usr/bin/env bash
# 2026-11-26 session 14: what fills tensorstream's L1/TEX pipe (round 10: 83% at r=4, 73% at r=32, the
# busiest unit): shared-memory load and store wavefronts, bank conflicts, global store requests; and
# the shared loads in the r=32 kernel's SASS (are the weight fragments read once a step or per channel?).
set -uo pipefail
source .devbundle/env.sh
B=/tmp/v/bin; mkdir -p $B /tmp/v/o
xz -dc build-ab19/convlive-bench.xz > $B/b && chmod +x $B/b || exit 1
M=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum,l1tex__data_pipe_lsu_wavefronts.sum,l1tex__lsu_writeback_active.sum,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,smsp__inst_executed_op_global_st.sum,smsp__inst_executed_op_ldgsts.sum,sm__cycles_elapsed.avg
timeout 200 ncu --filter-mode per-launch-config --launch-count 1 --metrics $M -k regex:^tensorStreamKernel $B/b --variants tensorstream --radii 4,32 --sizes 3840x2160 --repeats 20 --warmup 1 --out-dir /tmp/v/o > $OUT/ncu-l1.txt 2>&1
echo "ncu rc=$?"
awk '/tensorStreamKernel</{show=($0 ~ /, 9, 1\)/)} show' $OUT/ncu-l1.txt | cut -c1-160
timeout 120 cuobjdump -sass $B/b | awk '/Function : /{p = /tensorStreamKernelILi4ELi3ELi2ELb0E/} p' > /tmp/v/s32.txt
echo "=== r=32 kernel: $(grep -c '/\*[0-9a-f]*\*/' /tmp/v/s32.txt) instructions"
grep -oE "(LDS|STS|LDGSTS|STG|HMMA)[A-Z0-9.]*" /tmp/v/s32.txt | sort | uniq -c
