#!/usr/bin/env bash
# 2026-11-26 session 17, round 2 (NOTES.md item 59): round 1's input-stationary form was slower; here
# only its other half: the output-stationary kernel of HEAD with the stored rows' alpha carried in
# registers at B0 >= 2 (ar), so that its ring holds no History stages (r=32: 45 KB a 4-warp block
# instead of 85 KB; the warps an SM unchanged), against HEAD d5a6c10 (head). ar's tensorstream and
# dependent-launch tests, memcheck on the strip and dependent-launch tests, racecheck on the ring
# and dependent-launch tests.
set -uo pipefail
source .devbundle/env.sh
BINS=build-ab40 OUT=$OUT/ab app/bench/ab-round.sh --variants tensorstream --radii 8,12,16,20,24,28,32 --rounds 2 \
  --tests ar-t --filter 'TensorStreamStrips.*:*/tensorstream_*:DependentLaunches.*' \
  --sanitize 'TensorStreamStrips.Ring*:DependentLaunches.*' head=head-cb ar=ar-cb
for f in $OUT/ab/*; do mv $f $OUT/$(basename ${f%.*})-round2.${f##*.}; done; rm -rf $OUT/ab
grep -E "^===|PASSED|FAILED|SKIPPED|ERROR SUMMARY|RACECHECK|rc=" $OUT/tests-round2.log
cat $OUT/ab-tensorstream-round2.txt
