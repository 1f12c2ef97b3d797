#!/usr/bin/env bash
# Session 20, round 5: NOTES item 78, tensorstream at r > 24 (alpha kept, one fp16 intermediate)
# held to 168 registers (its own kernel under __maxnreg__(168): ptxas 165, no spills), 12 warps an
# SM instead of 8, against f83a208 (base). Item 40 measured the same idea before items 53-71
# (no gain at 4K, 1080p 6.5% slower). Under it first: the tensorstream, strip and dependent-launch
# tests, memcheck and racecheck on the ring and dependent-launch tests.
set -uo pipefail
BINS=${BINS:-build-ab18} OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
BINS=$BINS OUT=$OUT app/bench/ab-round.sh --variants tensorstream --radii 16,25,28,32 --rounds 2 \
  --tests convlive_tests_gpu --filter '*tensorstream*:TensorStreamStrips.*:DependentLaunches.*' \
  --sanitize 'TensorStreamStrips.Ring*:DependentLaunches.*' base=base cap168=cap168 > "$OUT/ab.log" 2>&1
rc=$?
grep -E "^===|PASSED|FAILED|SKIPPED|SUMMARY|rc=" "$OUT/tests.log"
tail -24 "$OUT/ab.log"
exit $rc
