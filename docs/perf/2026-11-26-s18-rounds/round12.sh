#!/usr/bin/env bash
# Session 18, round 12: tensorstream's window 8 B0 pixels left of the strip at r > 8 (apron) against
# HEAD (base), with tensorstream's gpu tests and the sanitizers first.
set -uo pipefail
BINS=${BINS:-build-ab5} OUT=${OUT:-/tmp/out}
BINS=$BINS OUT=$OUT app/bench/ab-round.sh --variants tensorstream --radii 8,9,12,13,17,20,24,25,28,32 --rounds 2 \
  --tests convlive_tests_gpu \
  --filter 'TensorStreamStrips.*:AllVariants/VariantVsReference.tensorstream*:DependentLaunches.*' \
  --sanitize 'TensorStreamStrips.Ring*:DependentLaunches.*' base=base apron=apron > "$OUT/ab.log" 2>&1
rc=$?
grep -E "^===|PASSED|FAILED|SUMMARY|rc=" "$OUT/tests.log"
tail -46 "$OUT/ab.log"
exit $rc
