#!/usr/bin/env bash
# 2026-11-26 session 16: tensorstream's trigger at each warp's last step at r > 8 too (lateall;
# NOTES.md item 58) against the committed build (head: the trigger at the start there); the
# candidate's tensorstream and dependent-launch tests, memcheck and racecheck on the ring and
# dependent-launch tests.
set -uo pipefail
source .devbundle/env.sh
BINS=build-ab33 OUT=$OUT/ab app/bench/ab-round.sh --variants tensorstream --radii 4,16,24,32 --rounds 2 \
  --tests lateall-t --filter 'TensorStreamStrips.*:*/tensorstream_*:DependentLaunches.*' \
  --sanitize 'TensorStreamStrips.Ring*:DependentLaunches.*' head=head-cb lateall=lateall-cb
for f in $OUT/ab/*; do mv $f $OUT/$(basename ${f%.*})-round9.${f##*.}; done; rm -rf $OUT/ab
grep -E "^===|PASSED|FAILED|SKIPPED|ERROR SUMMARY|RACECHECK|rc=" $OUT/tests-round9.log
cat $OUT/ab-tensorstream-round9.txt
