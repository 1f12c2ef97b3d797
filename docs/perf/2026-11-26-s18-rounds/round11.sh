#!/usr/bin/env bash
# Session 18, round 11: stream's edge strips (CONVLIVE_STREAM_EDGEDIV=d: an edge strip takes d warps
# for an interior strip's one, its segments 1/d as tall; HEAD: 2), 3 and 4 against HEAD (base).
set -uo pipefail
BINS=${BINS:-build-ab4} OUT=${OUT:-/tmp/out}
BINS=$BINS OUT=$OUT app/bench/ab-round.sh --variants stream --radii 1,2,3,4 --rounds 2 \
  base=base d2=sdiv@CONVLIVE_STREAM_EDGEDIV=2 d3=sdiv@CONVLIVE_STREAM_EDGEDIV=3 d4=sdiv@CONVLIVE_STREAM_EDGEDIV=4 \
  > "$OUT/ab.log" 2>&1
tail -24 "$OUT/ab.log"
