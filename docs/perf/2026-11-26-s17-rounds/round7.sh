#!/usr/bin/env bash
# 2026-11-26 session 17, round 7 (NOTES.md item 63): tensorstream two steps ahead at B0 >= 2 whatever
# the warps an SM (a2: CONVLIVE_TS_AHEAD=2, a knob of this build only) against ringOf's rule (rule).
# Round 6 found r=16..24 faster and r=12 slower at 4K: where between r=9 and 16 it turns.
set -uo pipefail
source .devbundle/env.sh
BINS=build-ab45 OUT=$OUT/ab app/bench/ab-round.sh --variants tensorstream --radii 9,10,11,12,13,14,15,16 --rounds 2 \
  rule=knob-cb@CONVLIVE_TS_AHEAD=0 a2=knob-cb@CONVLIVE_TS_AHEAD=2
for f in $OUT/ab/*; do mv $f $OUT/$(basename ${f%.*})-round7.${f##*.}; done; rm -rf $OUT/ab
cat $OUT/ab-tensorstream-round7.txt
