#!/usr/bin/env bash
# 2026-11-26 session 16: tensorstream at r <= 8 as a dependent launch too (NOTES.md item 57), its
# trigger at each block's start (late0) or at each warp's last step (late1), against 52df40a (tiles).
set -uo pipefail
source .devbundle/env.sh
BINS=build-ab31 OUT=$OUT/ab app/bench/ab-round.sh --variants tensorstream --radii 1,2,4,8 --rounds 2 \
  tiles=tiles-cb late0=late0-cb late1=late1-cb
for f in $OUT/ab/*; do mv $f $OUT/$(basename ${f%.*})-round8.${f##*.}; done; rm -rf $OUT/ab
cat $OUT/ab-tensorstream-round8.txt
