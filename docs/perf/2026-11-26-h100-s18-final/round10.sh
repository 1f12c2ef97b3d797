#!/usr/bin/env bash
# Session 18, round 10: the committed rule (edge columns an eighth, else a quarter, where the grid
# is one round: tensorStreamEdgeDivisor) against HEAD before it (base), with tensorstream's gpu
# tests and the sanitizers first.
set -uo pipefail
BINS=${BINS:-build-ab2} OUT=${OUT:-/tmp/out}
BINS=$BINS OUT=$OUT app/bench/ab-round.sh --variants tensorstream --radii 1,2,4,8,9,13,16,24,32 --rounds 2 \
  --tests convlive_tests_gpu \
  --filter 'TensorStreamStrips.*:AllVariants/VariantVsReference.tensorstream*:DependentLaunches.*:Auto*' \
  --sanitize 'TensorStreamStrips.Ring*:DependentLaunches.*' \
  base=base new=convlive-bench > "$OUT/ab.log" 2>&1
rc=$?
grep -E "^===|PASSED|FAILED|SUMMARY|rc=" "$OUT/tests.log"
tail -44 "$OUT/ab.log"
exit $rc
