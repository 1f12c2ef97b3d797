#!/usr/bin/env bash
# Session 18, round 4: tensorstream tiles not offered yet, against HEAD (base): narrower blocks for
# 1080p at r <= 8 (16x64, 32x48, 32x80, 48x64, 16x96) and 4K grids of whole rounds at r = 13..16
# (64x304: 480 blocks; 64x320: 420; 64x224: 600; the H100 holds 528 at r=16).
set -uo pipefail
BINS=${BINS:-build-ab1} OUT=${OUT:-/tmp/out}
BINS=$BINS OUT=$OUT app/bench/ab-round.sh --variants tensorstream --radii 1,2,4,8,13,16 --rounds 3 \
  base=base tiles=tiles > "$OUT/ab.log" 2>&1
tail -40 "$OUT/ab.log"
