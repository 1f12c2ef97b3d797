#!/usr/bin/env bash
# 2026-11-26 session 17, round 6 (NOTES.md item 63): tensorstream two steps ahead at B0 >= 2 whatever
# the warps an SM (a2: CONVLIVE_TS_AHEAD=2, a knob of this build only) against ringOf's rule (rule).
set -uo pipefail
source .devbundle/env.sh
BINS=build-ab45 OUT=$OUT/ab app/bench/ab-round.sh --variants tensorstream --radii 12,16,20,24,28,32 --rounds 2 \
  rule=knob-cb@CONVLIVE_TS_AHEAD=0 a2=knob-cb@CONVLIVE_TS_AHEAD=2
for f in $OUT/ab/*; do mv $f $OUT/$(basename ${f%.*})-round6.${f##*.}; done; rm -rf $OUT/ab
cat $OUT/ab-tensorstream-round6.txt
