#!/usr/bin/env bash
# 2026-11-26 session 17, round 4 (NOTES.md item 61): tensorstream making no column products for the
# blocks it never stores, at B0 = 2 and 4 (skip), against 40305de (head); skip's tensorstream and
# dependent-launch tests, memcheck and racecheck on the ring and dependent-launch tests.
set -uo pipefail
source .devbundle/env.sh
BINS=build-ab42 OUT=$OUT/ab app/bench/ab-round.sh --variants tensorstream --radii 4,12,16,28,32 --rounds 2 \
  --tests skip-t --filter 'TensorStreamStrips.*:*/tensorstream_*:DependentLaunches.*' \
  --sanitize 'TensorStreamStrips.Ring*:DependentLaunches.*' head=head-cb skip=skip-cb
for f in $OUT/ab/*; do mv $f $OUT/$(basename ${f%.*})-round4.${f##*.}; done; rm -rf $OUT/ab
grep -E "^===|PASSED|FAILED|SKIPPED|ERROR SUMMARY|RACECHECK|rc=" $OUT/tests-round4.log
cat $OUT/ab-tensorstream-round4.txt
