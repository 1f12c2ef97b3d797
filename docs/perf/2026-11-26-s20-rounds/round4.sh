#!/usr/bin/env bash
# Session 20, round 4: NOTES item 77, tensorstream two steps ahead from r = 9 (every B0 >= 2) on
# grids past one round of blocks, against 286fb29 (base: from r = 13). Under it first: the
# tensorstream, strip and dependent-launch tests, memcheck and racecheck on the ring (now with a
# two-steps-ahead r=10 launch) and dependent-launch tests.
set -uo pipefail
BINS=${BINS:-build-ab15} OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
BINS=$BINS OUT=$OUT app/bench/ab-round.sh --variants tensorstream --radii 8,9,10,12,13,16 --rounds 2 \
  --tests convlive_tests_gpu --filter '*tensorstream*:TensorStreamStrips.*:DependentLaunches.*' \
  --sanitize 'TensorStreamStrips.Ring*:DependentLaunches.*' base=base ahead9=ahead9 > "$OUT/ab.log" 2>&1
rc=$?
grep -E "^===|PASSED|FAILED|SKIPPED|SUMMARY|rc=" "$OUT/tests.log"
tail -30 "$OUT/ab.log"
exit $rc
