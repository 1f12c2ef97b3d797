#!/usr/bin/env bash
# 2026-11-26 session 14: tensorstream with bytes as fp16 subnormals (NOTES.md item 45): its tests and
# the variants' refusals first, memcheck and racecheck, then an A/B against HEAD (0d96da1's code).
set -uo pipefail
source .devbundle/env.sh
BINS=build-ab17 OUT=$OUT/ab app/bench/ab-round.sh --variants tensorstream --radii 1,2,4,8,16,24,32 --rounds 2 \
  --tests convlive_tests_gpu \
  --filter 'TensorStreamStrips.*:*/tensorstream_*:Variants*:TensorCore*:Auto*:AutoTuner*' \
  --sanitize 'TensorStreamStrips.Ring*' head=head-convlive-bench sub=sub-convlive-bench
mv $OUT/ab/tests.log $OUT/tests-round6.log; mv $OUT/ab/ab-tensorstream.txt $OUT/ab6-tensorstream.txt; rm -rf $OUT/ab
grep -E "^===|FAILED|Failure|PASSED|SKIPPED|ERROR SUMMARY|RACECHECK SUMMARY|rc=" $OUT/tests-round6.log | head -30
cat $OUT/ab6-tensorstream.txt
