#!/usr/bin/env bash
# 2026-11-26 session 13, call 3: stream fp16's SASS (r=1, r=2) and its one-wave geometry sized for
# fewer warps than the GPU holds (CONVLIVE_STREAM_OCC percent: taller segments, less apron).
set -uo pipefail
source .devbundle/env.sh
B=/tmp/ab/bin; mkdir -p $B
xz -dc build-ab7/occ-convlive-bench.xz > $B/occ && chmod +x $B/occ
for k in ILi1ELb0ELb0ELb1E ILi2ELb0ELb0ELb1E; do
  cuobjdump -sass $B/occ | awk -v k=$k '/Function :/ {on = index($0, k) > 0} on' > $OUT/sass-$k.txt
  wc -l $OUT/sass-$k.txt
done
BINS=build-ab7 timeout 400 app/bench/ab-round.sh --variants stream --radii 1,2,3,4 --sizes 3840x2160,1920x1080 --rounds 2 \
  occ100=occ-convlive-bench occ75=occ-convlive-bench@CONVLIVE_STREAM_OCC=75 occ50=occ-convlive-bench@CONVLIVE_STREAM_OCC=50
echo "ab rc=$?"
