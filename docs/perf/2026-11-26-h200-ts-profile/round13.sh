#!/usr/bin/env bash
# 2026-11-26 session 14: tensorstream's rows of odd chunk counts padded to 128-byte multiples so the
# swizzle of round 12 applies there too (NOTES.md item 47; pad) against HEAD (round 12's sw): its
# tests with memcheck and racecheck, the A/B, and ncu's shared-load conflicts of pad at 4K r=16, 32.
set -uo pipefail
source .devbundle/env.sh
BINS=build-ab21 OUT=$OUT/ab app/bench/ab-round.sh --variants tensorstream --radii 1,2,4,8,16,24,32 --rounds 2 \
  --tests convlive_tests_gpu --filter 'TensorStreamStrips.*:*/tensorstream_*' --sanitize 'TensorStreamStrips.Ring*' \
  head=head-convlive-bench pad=pad-convlive-bench
mv $OUT/ab/tests.log $OUT/tests-round13.log; mv $OUT/ab/ab-tensorstream.txt $OUT/ab13-tensorstream.txt; rm -rf $OUT/ab
grep -E "^===|FAILED|Failure|PASSED|SKIPPED|ERROR SUMMARY|RACECHECK SUMMARY|rc=" $OUT/tests-round13.log | head -20
cat $OUT/ab13-tensorstream.txt
B=/tmp/v/bin; mkdir -p $B /tmp/v/o
xz -dc build-ab21/pad-convlive-bench.xz > $B/sw && chmod +x $B/sw
M=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,sm__cycles_elapsed.avg
timeout 150 ncu --filter-mode per-launch-config --launch-count 1 --metrics $M -k regex:^tensorStreamKernel $B/sw --variants tensorstream --radii 16,32 --sizes 3840x2160 --repeats 20 --warmup 1 --out-dir /tmp/v/o > $OUT/ncu-pad.txt 2>&1
awk '/tensorStreamKernel</{show=($0 ~ /, 9, 1\)/)} show' $OUT/ncu-pad.txt | grep -E "Kernel<|l1tex|sm__" | cut -c1-140
