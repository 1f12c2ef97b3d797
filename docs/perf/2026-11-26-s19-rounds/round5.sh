#!/usr/bin/env bash
# Session 19, round 5: NOTES item 72's third form: the fragments from the staged factors where the
# parameters' loads have many distinct indices (r = 5..24), from the parameters elsewhere (r <= 4,
# where round 3's staged form lost 2-4%, and r > 24, where its main loop did), against HEAD (base);
# tensorstream's gpu tests under it first (verify-round.sh runs the whole suite and the sanitizers
# on this same build next).
set -uo pipefail
BINS=${BINS:-build-ab10} OUT=${OUT:-/tmp/out}
BINS=$BINS OUT=$OUT app/bench/ab-round.sh --variants tensorstream --radii 1,4,5,6,8,12,16,20,24,32 --rounds 2 \
  --tests convlive_tests_gpu --filter '*tensorstream*:TensorStream*:DependentLaunches.*' \
  base=base hybrid=hybrid > "$OUT/ab.log" 2>&1
rc=$?
grep -E "^===|PASSED|FAILED|SKIPPED|SUMMARY|rc=" "$OUT/tests.log"
tail -44 "$OUT/ab.log"
exit $rc
