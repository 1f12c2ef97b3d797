#!/usr/bin/env bash
# 2026-11-26 session 17, round 5 (NOTES.md item 62): tensorstream carrying the stored rows' alpha at r <= 8 too (ca1), a
# ring of 2 stages instead of 3, against 40305de (head); ca1's tensorstream and
# dependent-launch tests, memcheck and racecheck on the ring and dependent-launch tests.
set -uo pipefail
source .devbundle/env.sh
BINS=build-ab43 OUT=$OUT/ab app/bench/ab-round.sh --variants tensorstream --radii 1,2,4,8,16 --rounds 3 \
  --tests ca1-t --filter 'TensorStreamStrips.*:*/tensorstream_*:DependentLaunches.*' \
  --sanitize 'TensorStreamStrips.Ring*:DependentLaunches.*' head=head-cb ca1=ca1-cb
for f in $OUT/ab/*; do mv $f $OUT/$(basename ${f%.*})-round5.${f##*.}; done; rm -rf $OUT/ab
grep -E "^===|PASSED|FAILED|SKIPPED|ERROR SUMMARY|RACECHECK|rc=" $OUT/tests-round5.log
cat $OUT/ab-tensorstream-round5.txt
