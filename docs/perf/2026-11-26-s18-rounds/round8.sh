#!/usr/bin/env bash
# Session 18, round 8: tensorstream's edge columns at r > 12 (CONVLIVE_TS_EDGEDIV: 0 none set apart,
# 1 first at the tile's height, 2 halved as HEAD does, 4 a quarter), against HEAD (base).
set -uo pipefail
BINS=${BINS:-build-ab1} OUT=${OUT:-/tmp/out}
BINS=$BINS OUT=$OUT app/bench/ab-round.sh --variants tensorstream --radii 16,24,32 --rounds 2 \
  base=base d2=ediv@CONVLIVE_TS_EDGEDIV=2 d0=ediv@CONVLIVE_TS_EDGEDIV=0 d1=ediv@CONVLIVE_TS_EDGEDIV=1 \
  d4=ediv@CONVLIVE_TS_EDGEDIV=4 > "$OUT/ab.log" 2>&1
tail -30 "$OUT/ab.log"
