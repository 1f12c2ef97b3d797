#!/usr/bin/env bash
# Session 20, round 3: NOTES item 76, tensorstream's output blocks renamed rather than copied at
# r = 9..16 too (B0 = 2, alpha kept, one fp16 intermediate: the loop unrolled three times, held to
# 128 registers, which keeps 16 warps an SM), against 286fb29 (base). Under it first: the
# tensorstream, strip and dependent-launch tests, memcheck and racecheck on the ring and
# dependent-launch tests.
set -uo pipefail
BINS=${BINS:-build-ab14} OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
BINS=$BINS OUT=$OUT app/bench/ab-round.sh --variants tensorstream --radii 8,9,12,13,16,24 --rounds 2 \
  --tests convlive_tests_gpu --filter '*tensorstream*:TensorStreamStrips.*:DependentLaunches.*' \
  --sanitize 'TensorStreamStrips.Ring*:DependentLaunches.*' base=base rot2=rot2 > "$OUT/ab.log" 2>&1
rc=$?
grep -E "^===|PASSED|FAILED|SKIPPED|SUMMARY|rc=" "$OUT/tests.log"
tail -30 "$OUT/ab.log"
exit $rc
