#!/usr/bin/env bash
# 2026-11-26 session 16: tensorstream tiles 64x80, 64x96 and 64x144, one round of blocks at 1080p
# r=16, 24 and 32 (NOTES.md item 56), against ae6f528 (fin); the tensorstream gpu tests with every
# tile (the kernels are round 5's, whose sanitizers ran).
set -uo pipefail
source .devbundle/env.sh
BINS=build-ab30 OUT=$OUT/ab app/bench/ab-round.sh --variants tensorstream --radii 4,8,16,24,32 --rounds 2 \
  --tests tiles-t --filter 'TensorStreamStrips.*:*/tensorstream_*:DependentLaunches.*' \
  fin=fin-cb tiles=tiles-cb
for f in $OUT/ab/*; do mv $f $OUT/$(basename ${f%.*})-round7.${f##*.}; done; rm -rf $OUT/ab
grep -E "^===|PASSED|FAILED|SKIPPED|ERROR SUMMARY|RACECHECK|rc=" $OUT/tests-round7.log
cat $OUT/ab-tensorstream-round7.txt
