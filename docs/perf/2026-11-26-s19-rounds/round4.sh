#!/usr/bin/env bash
# Session 19, round 4: NOTES item 72's second form, the weight fragments shared out between the
# block's warps (the entries read from the kernel's parameters as before), against HEAD (base);
# the gpu suite, memcheck on the strip tests and racecheck on the ring ones under it first.
set -uo pipefail
BINS=${BINS:-build-ab9} OUT=${OUT:-/tmp/out}
BINS=$BINS OUT=$OUT app/bench/ab-round.sh --variants tensorstream --radii 1,2,4,8,12,16,24,32 --rounds 3 \
  --tests convlive_tests_gpu --sanitize 'TensorStreamStrips.Ring*:DependentLaunches.*' \
  base=base split=split > "$OUT/ab.log" 2>&1
rc=$?
grep -E "^===|PASSED|FAILED|SKIPPED|SUMMARY|rc=" "$OUT/tests.log"
tail -34 "$OUT/ab.log"
exit $rc
