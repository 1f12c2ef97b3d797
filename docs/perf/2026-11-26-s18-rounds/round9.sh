#!/usr/bin/env bash
# Session 18, round 9: tensorstream's edge columns where the grid is one round (CONVLIVE_TS_EDGEDIV=d
# sets the divisor there, at every radius; HEAD halves them), 4 and 8 against HEAD (base).
set -uo pipefail
BINS=${BINS:-build-ab1} OUT=${OUT:-/tmp/out}
BINS=$BINS OUT=$OUT app/bench/ab-round.sh --variants tensorstream --radii 1,4,8,9,13,16,24,32 --rounds 2 \
  base=base d4=ediv@CONVLIVE_TS_EDGEDIV=4 d8=ediv@CONVLIVE_TS_EDGEDIV=8 > "$OUT/ab.log" 2>&1
tail -40 "$OUT/ab.log"
