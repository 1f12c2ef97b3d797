#!/usr/bin/env bash
# 2026-11-26 session 17, round 3 (NOTES.md item 60): tensorstream offered 2-warp tiles 32x96 .. 32x272
# and 64x112, 64x160 (tiles) against the same kernels with the committed list (head = 40305de); then
# one more run of tiles whose per-tile table comes back (tiles-convlive.csv).
set -uo pipefail
source .devbundle/env.sh
BINS=build-ab41 OUT=$OUT/ab app/bench/ab-round.sh --variants tensorstream --radii 4,16,24,32 --rounds 2 \
  head=head-cb tiles=tiles-cb
for f in $OUT/ab/*; do mv $f $OUT/$(basename ${f%.*})-round3.${f##*.}; done; rm -rf $OUT/ab
mkdir -p /tmp/r3 && xz -dc build-ab41/tiles-cb.xz > /tmp/r3/cb && chmod +x /tmp/r3/cb
timeout 200 /tmp/r3/cb --variants tensorstream --radii 16,24,32 --sizes 3840x2160,1920x1080 --repeats 50 \
  --out-dir /tmp/r3/out > /tmp/r3/log 2>&1; echo "tiles run rc=$?"
cp /tmp/r3/out/convlive.csv $OUT/tiles-convlive-round3.csv
cat $OUT/ab-tensorstream-round3.txt
